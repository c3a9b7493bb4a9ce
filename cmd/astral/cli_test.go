package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// TestMain lets a test run the command itself, as a user would, with its
// exit status: see runCLI.
func TestMain(m *testing.M) {
	if os.Getenv("ASTRAL_CLI_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// runCLI runs the command line in a child process and returns its exit
// status, stdout and stderr.
func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ASTRAL_CLI_TEST_MAIN=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errOut.String()
}

// TestHelp: -h exits 0 and prints, for every flag of every command, a
// description and an example that uses the flag.
func TestHelp(t *testing.T) {
	testsize.SkipUnderRace(t, "static help text, one child process per command; the plain run checks it")
	flagLine := regexp.MustCompile(`^  --([a-z-]+) `)
	for _, name := range []string{"bench", "fixture", "build", "inspect", "query", "plot"} {
		code, out, errOut := runCLI(t, t.TempDir(), name, "-h")
		require.Equal(t, 0, code, name)
		require.Empty(t, errOut, name)
		require.Contains(t, out, "usage: astral "+name, name)
		require.Contains(t, out, "examples:\n  astral "+name+" ", name)
		lines := strings.Split(out, "\n")
		flags := 0
		for i, line := range lines {
			m := flagLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			flags++
			require.Less(t, i+2, len(lines), line)
			desc, example := strings.TrimSpace(lines[i+1]), strings.TrimSpace(lines[i+2])
			require.NotEmpty(t, desc, "%s --%s has no description", name, m[1])
			require.False(t, strings.HasPrefix(desc, "e.g."), "%s --%s has no description", name, m[1])
			require.True(t, strings.HasPrefix(example, "e.g. --"+m[1]+" "), "%s --%s: example %q", name, m[1], example)
		}
		switch name {
		case "inspect":
		case "plot":
			require.Equal(t, 1, flags, name)
		default:
			require.Greater(t, flags, 3, name)
		}
		code, out2, _ := runCLI(t, t.TempDir(), name, "--help")
		require.Equal(t, 0, code, name)
		require.Equal(t, out, out2, name)
	}
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		code, out, _ := runCLI(t, t.TempDir(), args...)
		require.Equal(t, 0, code, args)
		require.Contains(t, out, "query ")
	}
	code, _, errOut := runCLI(t, t.TempDir())
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "usage: astral <command>")
	code, _, errOut = runCLI(t, t.TempDir(), "benchh")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `unknown command "benchh"`)
}

// refused runs a command line that must be refused before any work: exit
// 2, nothing on stdout, one "astral CMD:" prefix, the wanted words, and a
// pointer to -h.
func refused(t *testing.T, dir string, want []string, args ...string) {
	t.Helper()
	code, out, errOut := runCLI(t, dir, args...)
	require.Equal(t, 2, code, "%v: %s", args, errOut)
	require.Empty(t, out, args)
	require.True(t, strings.HasPrefix(errOut, "astral "+args[0]+": "), errOut)
	require.Equal(t, 1, strings.Count(errOut, "astral "+args[0]+":"), errOut)
	require.NotContains(t, errOut, "astral: ", errOut)
	require.Contains(t, errOut, "Run 'astral "+args[0]+" -h'", errOut)
	for _, w := range want {
		require.Contains(t, errOut, w, args)
	}
}

// fvecsPair writes a small base and query set to dir.
func fvecsPair(t *testing.T, dir string) (string, string) {
	t.Helper()
	set, err := fixture.Generate("clustered", 300, 5, 16)
	require.NoError(t, err)
	base, queries := filepath.Join(dir, "base.fvecs"), filepath.Join(dir, "q.fvecs")
	require.NoError(t, fixture.SaveFvecsFile(base, set.Base, set.Dim))
	require.NoError(t, fixture.SaveFvecsFile(queries, set.Queries, set.Dim))
	return base, queries
}

// TestBadOutputPaths: unwritable or clashing --json, --plot and --out are
// refused before the work starts (stdout stays empty: no table was
// printed), naming the path as the user gave it.
func TestBadOutputPaths(t *testing.T) {
	dir := t.TempDir()
	base, queries := fvecsPair(t, dir)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "dir.png"), 0o755))
	// The default fixture (100,000 × 384) would take seconds: the refusal
	// comes first.
	refused(t, dir, []string{"--json missing/out.json: no directory missing"}, "bench", "--json", "missing/out.json")
	refused(t, dir, []string{"--plot dir.png: a directory"}, "bench", "--plot", "dir.png")
	refused(t, dir, []string{"--plot curve.txt: want a .png, .svg or .pdf file"}, "bench", "--plot", "curve.txt")
	refused(t, dir, []string{"--plot out.png: the same file as --json ./out.png"}, "bench", "--json", "./out.png", "--plot", "out.png")
	refused(t, dir, []string{"--json base.fvecs: the same file as --data " + base}, "bench", "--data", base, "--queries", queries, "--json", "base.fvecs")
	refused(t, dir, []string{"--out nowhere/x.idx: no directory nowhere"}, "build", "--out", "nowhere/x.idx")
	refused(t, dir, []string{"--out sub: a directory"}, "build", "--out", "sub")
	refused(t, dir, []string{"--out base.fvecs: the same file as --data " + base}, "build", "--data", base, "--out", "base.fvecs")
	refused(t, dir, []string{"--queries-out a.fvecs: the same file as --out a.fvecs"}, "fixture", "--out", "a.fvecs", "--queries-out", "a.fvecs")
	refused(t, dir, []string{"--out and --queries-out are required"}, "fixture", "--out", "a.fvecs")
	code, _, errOut := runCLI(t, dir, "bench", "--json", "missing/out.json")
	require.Equal(t, 2, code)
	require.NotContains(t, errOut, ".astral-probe")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.False(t, strings.HasPrefix(e.Name(), ".astral-probe"), "probe left behind: %s", e.Name())
	}
}

// TestFlagsThatDoNotApply: a flag the run would ignore is refused, saying
// why.
func TestFlagsThatDoNotApply(t *testing.T) {
	dir := t.TempDir()
	base, queries := fvecsPair(t, dir)
	refused(t, dir, []string{"--queries does not apply to a generated fixture"}, "bench", "--data", "random", "--queries", queries)
	refused(t, dir, []string{"--n does not apply to an .fvecs file"}, "bench", "--data", base, "--queries", queries, "--n", "100")
	refused(t, dir, []string{"--dim does not apply to an .fvecs file"}, "bench", "--data", base, "--queries", queries, "--dim", "16")
	refused(t, dir, []string{"--nq does not apply to an .fvecs file"}, "bench", "--data", base, "--queries", queries, "--nq", "3")
	refused(t, dir, []string{"--data " + base + " needs --queries FILE.fvecs"}, "bench", "--data", base)
	refused(t, dir, []string{"--rerank-storage does not apply without --rerank"}, "bench", "--rerank-storage", "f16")
	refused(t, dir, []string{"--rerank-storage does not apply without --rerank"}, "bench", "--rerank", "0", "--rerank-storage", "f16")
	refused(t, dir, []string{"--ef does not apply to a flat index"}, "bench", "--index", "flat", "--ef", "64")
	refused(t, dir, []string{"--m does not apply to a flat index"}, "bench", "--m", "32")
	refused(t, dir, []string{"--storage does not apply to a saved index"}, "bench", "--index-file", "x.idx", "--storage", "int8")
	refused(t, dir, []string{"--rerank-storage does not apply without --rerank"}, "build", "--out", "x.idx", "--rerank-storage", "f16")
	refused(t, dir, []string{"--dim does not apply to an .fvecs file"}, "build", "--data", base, "--dim", "16", "--out", "x.idx")
	refused(t, dir, []string{"--ef-search does not apply to a flat index"}, "build", "--index", "flat", "--ef-search", "64", "--out", "x.idx")
	refused(t, dir, []string{"--postfilter does not apply without a --filter other than none"}, "bench", "--postfilter", "10")
	refused(t, dir, []string{"--filter does not apply to a saved index (--index-file): it holds no fixture attributes"}, "bench", "--index-file", "x.idx", "--filter", "tags:0.1")
	refused(t, dir, []string{"--export " + base + ": not a directory"}, "bench", "--filter", "tags:0.1", "--export", base)
	refused(t, dir, []string{"--export nowhere/out: no directory nowhere to create it in"}, "bench", "--filter", "tags:0.1", "--export", "nowhere/out")
	refused(t, dir, []string{`unexpected argument "extra"`}, "bench", "extra")
	refused(t, dir, []string{"flag provided but not defined: --bogus"}, "build", "--bogus", "1")
	// A flat saved index has no ef to set.
	idx := filepath.Join(dir, "flat.idx")
	code, _, errOut := runCLI(t, dir, "build", "--data", base, "--index", "flat", "--out", idx)
	require.Equal(t, 0, code, errOut)
	refused(t, dir, []string{"--ef does not apply: " + idx + " holds a flat index"}, "query", "--index-file", idx, "--queries", queries, "--ef", "32")
	refused(t, dir, []string{"--ef does not apply: " + idx + " holds a flat index"}, "bench", "--index-file", idx, "--data", base, "--queries", queries, "--ef", "32")
}

// TestBadValues: values out of range get an error in flag terms, with no
// Go names and one prefix.
func TestBadValues(t *testing.T) {
	dir := t.TempDir()
	refused(t, dir, []string{"--ef 0: want 1 to 4096"}, "bench", "--index", "hnsw", "--ef", "0")
	refused(t, dir, []string{"--ef 5000: want 1 to 4096"}, "bench", "--index", "hnsw", "--ef", "64,5000")
	refused(t, dir, []string{"--dim 5000: want 1 to 4096, the most an index takes"}, "bench", "--dim", "5000")
	refused(t, dir, []string{"--dim 5000: want 1 to 4096"}, "build", "--dim", "5000", "--out", "x.idx")
	refused(t, dir, []string{"--dim 0: want 1 to 4096"}, "fixture", "--dim", "0", "--out", "a", "--queries-out", "b")
	refused(t, dir, []string{"--threads 999: want -1 (the default: usable CPUs - 1) or 0 (serial) to 256"}, "build", "--threads", "999", "--out", "x.idx")
	refused(t, dir, []string{"--threads -2: want -1"}, "bench", "--threads", "0,-2")
	refused(t, dir, []string{"--k 0: want 1 to 1024"}, "bench", "--k", "0")
	refused(t, dir, []string{`--batch 1,x: "x" is not a whole number`}, "bench", "--batch", "1,x")
	refused(t, dir, []string{`--storage "e9m9": want e5m2`}, "bench", "--storage", "e5m2,e9m9")
	refused(t, dir, []string{`--metric "manhattan": want cosine, dot or l2`}, "build", "--metric", "manhattan", "--out", "x.idx")
	refused(t, dir, []string{`--kernel "avx9000": this CPU runs go`}, "bench", "--kernel", "avx9000")
	refused(t, dir, []string{`--index "tree": want flat, hnsw, ivf or auto`}, "build", "--index", "tree", "--out", "x.idx")
	refused(t, dir, []string{`--index "tree": want flat, hnsw, ivf or auto`}, "bench", "--index", "tree")
	refused(t, dir, []string{"--nlist does not apply without --index ivf"}, "build", "--index", "hnsw", "--nlist", "8", "--out", "x.idx")
	refused(t, dir, []string{"--m does not apply to an IVF index"}, "build", "--index", "ivf", "--m", "8", "--out", "x.idx")
	refused(t, dir, []string{"--nprobe 9: want 1 to nlist (8)"}, "build", "--index", "ivf", "--nlist", "8", "--nprobe", "9", "--out", "x.idx")
	refused(t, dir, []string{"--nlist 0: want 1 to"}, "build", "--index", "ivf", "--nlist", "0", "--out", "x.idx")
	refused(t, dir, []string{"--nprobe 65: want 1 to nlist (64)"}, "bench", "--index", "ivf", "--nlist", "64", "--nprobe", "8,65")
	refused(t, dir, []string{"--nlist 0: want 1 to"}, "bench", "--index", "ivf", "--nlist", "0", "--nprobe", "1")
	refused(t, dir, []string{"--nlist does not apply without --index ivf"}, "bench", "--index", "hnsw", "--nlist", "64")
	refused(t, dir, []string{"--ef does not apply to an IVF index (--index ivf)"}, "bench", "--index", "ivf", "--ef", "64")
	refused(t, dir, []string{"--ivf-limit does not apply without --index auto"}, "bench", "--index", "hnsw", "--ivf-limit", "64")
	refused(t, dir, []string{"--ivf-limit does not apply without --index auto"}, "build", "--index", "ivf", "--ivf-limit", "64", "--out", "x.idx")
	refused(t, dir, []string{"--nlist 1024: IVF trains at 39936 records and the index holds 300"}, "bench", "--index", "ivf", "--n", "300", "--dim", "8", "--nq", "4")
	refused(t, dir, []string{"--ef-construction 8: want M (16) to 4096"}, "build", "--ef-construction", "8", "--out", "x.idx")
	refused(t, dir, []string{"--run-seconds -1: want 0 (one pass over the queries per run) or more"}, "bench", "--run-seconds", "-1")
	for _, args := range [][]string{{"build", "--threads", "999", "--out", "x.idx"}, {"bench", "--ef", "0", "--index", "hnsw"}} {
		_, _, errOut := runCLI(t, dir, args...)
		require.NotContains(t, errOut, "ThreadsAuto")
		require.NotContains(t, errOut, "MaxEf")
	}
	// A library error reads with one prefix: a NaN in the data.
	nan := make([]float32, 4*8)
	nan[13] = float32(math.NaN())
	require.NoError(t, fixture.SaveFvecsFile(filepath.Join(dir, "nan.fvecs"), nan, 8))
	code, _, errOut := runCLI(t, dir, "build", "--data", "nan.fvecs", "--index", "flat", "--out", "nan.idx")
	require.Equal(t, 1, code, errOut)
	require.True(t, strings.HasPrefix(errOut, "astral build: non-finite value: "), errOut)
	require.Equal(t, 1, strings.Count(errOut, "astral"), errOut)
	// A failure of the work itself exits 1, with one prefix.
	code, out, errOut := runCLI(t, dir, "inspect", "missing.idx")
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.True(t, strings.HasPrefix(errOut, "astral inspect: missing.idx: "), errOut)
	require.Equal(t, 1, strings.Count(errOut, "astral"), errOut)
}
