package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/astral-engine/astral"

// pkg is one package as `go list` sees it, with paths relative to the module.
type pkg struct {
	path    string
	imports []string // direct imports of this module
	deps    []string // every package of this module it depends on
}

// listPackages runs `go list` over the module under the given build tags.
func listPackages(t *testing.T, tags string) map[string]pkg {
	t.Helper()
	args := []string{"list", "-e", "-f", "{{.ImportPath}} {{join .Imports \",\"}} {{join .Deps \",\"}}"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, module+"/...")
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	pkgs := map[string]pkg{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Split(sc.Text(), " ")
		require.Len(t, fields, 3, "go list line %q", sc.Text())
		p := pkg{path: local(fields[0]), imports: ours(fields[1]), deps: ours(fields[2])}
		pkgs[p.path] = p
	}
	require.NoError(t, sc.Err())
	require.Contains(t, pkgs, "kernel", "go list found no kernel package")
	return pkgs
}

func local(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// ours keeps the packages of this module from a comma list, made local.
func ours(list string) []string {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p == module || strings.HasPrefix(p, module+"/") {
			out = append(out, local(p))
		}
	}
	return out
}

func under(path, root string) bool { return path == root || strings.HasPrefix(path, root+"/") }

// rule says which of this module's packages a package may not reach.
type rule struct {
	from      func(string) bool
	forbidden func(string) bool
	direct    bool // test direct imports only (else every dependency)
	why       string
}

func is(names ...string) func(string) bool {
	return func(p string) bool {
		for _, n := range names {
			if under(p, n) {
				return true
			}
		}
		return false
	}
}

func anything(string) bool { return true }

// helper reports whether p is one of the internal helpers that know no index.
var helper = is("internal/pool", "internal/crc32c", "internal/fpenv", "internal/fixture", "internal/match", "internal/mem", "internal/radix", "internal/rank", "internal/slotmap")

var rules = []rule{
	{from: is("kernel"), forbidden: anything, why: "kernel imports nothing of this module"},
	{from: is("internal/score"), forbidden: func(p string) bool { return p != "kernel" }, why: "the scoring words sit on the kernel alone"},
	{from: is("flat"), forbidden: is("hnsw", "ivf", "astral", "capi", "cmd"), why: "flat knows neither hnsw, ivf nor the engine"},
	{from: is("hnsw"), forbidden: is("flat", "ivf", "astral", "capi", "cmd"), why: "hnsw knows neither flat, ivf nor the engine"},
	{from: is("ivf"), forbidden: is("flat", "hnsw", "astral", "capi", "cmd"), why: "ivf knows neither flat, hnsw nor the engine"},
	{from: is("astral"), forbidden: is("capi", "cmd"), why: "the engine knows no C and no CLI"},
	{from: is("astral/internal/file"), forbidden: is("flat", "hnsw", "ivf", "kernel", "internal/score"), why: "the file container knows no index kind"},
	{from: helper, forbidden: is("kernel", "internal/score", "flat", "hnsw", "ivf", "astral", "capi", "cmd"), why: "helpers know no index"},
	{
		from:      is("capi"),
		forbidden: func(p string) bool { return !under(p, "astral") && !helper(p) },
		direct:    true,
		why:       "capi reaches only the engine",
	},
	{from: func(p string) bool { return p != "capi" && !under(p, "cmd") }, forbidden: is("capi", "cmd"), why: "nothing imports the C layer or the CLI"},
}

// violations lists every forbidden edge in pkgs.
func violations(pkgs map[string]pkg) []string {
	var bad []string
	for _, p := range pkgs {
		for _, r := range rules {
			if !r.from(p.path) {
				continue
			}
			reach := p.deps
			if r.direct {
				reach = p.imports
			}
			for _, d := range reach {
				if d != p.path && r.forbidden(d) {
					bad = append(bad, p.path+" -> "+d+": "+r.why)
				}
			}
		}
	}
	return bad
}

func TestImportRules(t *testing.T) {
	if testing.Short() && raceEnabled {
		t.Skip("the same go list as the plain run")
	}
	for _, tags := range []string{"", "noasm", "astral_debug"} {
		pkgs := listPackages(t, tags)
		require.Empty(t, violations(pkgs), "tags %q: forbidden imports (docs/ARCHITECTURE.md)", tags)
	}
}

// The rules must catch the edges they forbid, or the test above proves nothing.
func TestRulesCatchForbiddenEdges(t *testing.T) {
	cases := map[string]pkg{
		"hnsw->flat":     {path: "hnsw", deps: []string{"flat", "kernel"}},
		"flat->hnsw":     {path: "flat", deps: []string{"hnsw"}},
		"ivf->flat":      {path: "ivf", deps: []string{"flat"}},
		"ivf->hnsw":      {path: "ivf", deps: []string{"kernel", "hnsw"}},
		"ivf->astral":    {path: "ivf", deps: []string{"astral"}},
		"hnsw->ivf":      {path: "hnsw", deps: []string{"ivf"}},
		"file->ivf":      {path: "astral/internal/file", deps: []string{"ivf"}},
		"capi->ivf":      {path: "capi", imports: []string{"ivf"}},
		"kernel->pool":   {path: "kernel", deps: []string{"internal/pool"}},
		"capi->kernel":   {path: "capi", imports: []string{"astral", "kernel"}},
		"capi->hnsw":     {path: "capi", imports: []string{"hnsw"}},
		"capi->score":    {path: "capi", imports: []string{"astral", "internal/score"}},
		"astral->capi":   {path: "astral", deps: []string{"capi"}},
		"file->hnsw":     {path: "astral/internal/file", deps: []string{"hnsw"}},
		"score->flat":    {path: "internal/score", deps: []string{"flat"}},
		"pool->astral":   {path: "internal/pool", deps: []string{"astral"}},
		"match->flat":    {path: "internal/match", deps: []string{"flat"}},
		"cmd<-flat(cmd)": {path: "flat", deps: []string{"cmd/astral"}},
	}
	for name, p := range cases {
		require.NotEmpty(t, violations(map[string]pkg{p.path: p}), name)
	}
	allowed := map[string]pkg{
		"capi":       {path: "capi", imports: []string{"astral", "astral/internal/file", "internal/fixture", "internal/fpenv"}, deps: []string{"astral", "flat", "hnsw", "kernel"}},
		"hnsw":       {path: "hnsw", deps: []string{"kernel", "internal/score", "internal/pool", "internal/match"}},
		"ivf":        {path: "ivf", deps: []string{"kernel", "internal/score", "internal/pool", "internal/match", "internal/mem", "internal/slotmap"}},
		"cmd/astral": {path: "cmd/astral", deps: []string{"astral", "kernel", "internal/fixture"}},
	}
	require.Empty(t, violations(allowed))
}
