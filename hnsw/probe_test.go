//go:build hnswprof

package hnsw

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/stretchr/testify/require"
)

// TestProbeProfile prints, per fixture, dimension and ef, what one level-0
// search does on average: expansions, links read, distance evaluations,
// heap pushes, and the time per query and per evaluation. Run it with
//
//	go test -tags hnswprof -run ProbeProfile -v ./hnsw/
//
// (PROBE_N, PROBE_DIMS, PROBE_EF and PROBE_FIXTURES resize it;
// PROBE_OWN_M0 sets how many level-0 links an inserted node selects, to
// weigh that choice by work rather than time). The counters exist only
// under the hnswprof tag, so the library's search loop carries none.
func TestProbeProfile(t *testing.T) {
	n := envInt("PROBE_N", 20000)
	dims := envInts("PROBE_DIMS", []int{100, 384, 768})
	efs := envInts("PROBE_EF", []int{64, 128, 256})
	fmt.Printf("%-9s %4s %4s %7s %9s %9s %9s %9s %9s %9s %9s %9s\n", "fixture", "dim", "ef", "recallq",
		"expand", "links", "scored0", "scoredUp", "pushes", "admitted", "us/query", "ns/eval")
	ownM0 := envInt("PROBE_OWN_M0", 0)
	for _, name := range strings.Split(cmp.Or(os.Getenv("PROBE_FIXTURES"), "spectral,clustered"), ",") {
		for _, dim := range dims {
			d := load(t, name, n, 200, dim, score.AdjustScale)
			p, err := pool.New(pool.Options{Workers: 1})
			require.NoError(t, err)
			g := newGraph(t, d, Config{Seed: 1})
			if ownM0 > 0 {
				require.LessOrEqual(t, ownM0, g.maxM0)
				g.ownM0 = ownM0
			}
			start := time.Now()
			require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, p, true))
			fmt.Printf("%s %d: own level-0 links %d, build %.2f s\n", name, dim, g.ownM0, time.Since(start).Seconds())
			p.Close()
			truth := exact(t, d, nil, 10)
			for _, ef := range efs {
				rq := recall(t, g, d, truth, 10, ef)
				s := NewSearcher()
				res := make([]score.Result, 0, 10)
				for _, qp := range d.qps { // warm
					res = g.Search(s, qp, 10, ef, res)
				}
				s.prof = probe{}
				start := time.Now()
				for _, qp := range d.qps {
					res = g.Search(s, qp, 10, ef, res)
				}
				el := time.Since(start)
				q := float64(len(d.qps))
				pr := s.prof
				evals := float64(pr.Scored0 + pr.ScoredUpper)
				fmt.Printf("%-9s %4d %4d %7.4f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", name, dim, ef, rq,
					float64(pr.Expansions)/q, float64(pr.Links)/q, float64(pr.Scored0)/q, float64(pr.ScoredUpper)/q,
					float64(pr.Pushes)/q, float64(pr.Admitted)/q, float64(el.Microseconds())/q,
					float64(el.Nanoseconds())/evals)
			}
		}
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envInts(name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.Atoi(f)
		if err != nil {
			panic(name + ": " + err.Error())
		}
		out = append(out, x)
	}
	return out
}

// TestProbeBuild prints what a deterministic int8 Build spends in
// distance evaluations per inserted node, by purpose: the searches on
// level 0 and above, the batch peers, the heuristic choosing the node's
// own links and the re-selection of full lists. It builds as
// BenchmarkBuildInt8 does (three Builds, one worker and the caller, M 16,
// efc 200); the counts do not depend on the thread count. Run it with
//
//	PROBE_N=50000 PROBE_DIMS=100 go test -tags hnswprof -run ProbeBuild -v ./hnsw/
//
// and set bench/hnsw-dims/hnswlib_build.cpp's count mode beside it.
func TestProbeBuild(t *testing.T) {
	n := envInt("PROBE_N", 20000)
	fmt.Printf("%-9s %4s %9s %9s %9s %9s %9s %9s\n", "fixture", "dim", "search0", "searchUp", "peers", "select", "relink", "total")
	for _, name := range strings.Split(cmp.Or(os.Getenv("PROBE_FIXTURES"), "spectral,clustered"), ",") {
		for _, dim := range envInts("PROBE_DIMS", []int{100, 384, 768}) {
			set, err := fixture.Generate(name, n, 1, dim)
			require.NoError(t, err)
			k, recs, adj := int8Records(t, n, dim, set.Row)
			ids := make([]uint64, n)
			for i := range ids {
				ids[i] = uint64(1000 + i)
			}
			p, err := pool.New(pool.Options{Workers: 1})
			require.NoError(t, err)
			g, err := New(k, score.AdjustScale, Config{Seed: 1})
			require.NoError(t, err)
			for i := range evals {
				evals[i].Store(0)
			}
			stride := k.Stride()
			for _, part := range [][2]int{{0, n / 3}, {n / 3, 2 * n / 3}, {2 * n / 3, n}} {
				lo, hi := part[0], part[1]
				require.NoError(t, g.Build(ids[lo:hi], recs[lo*stride:hi*stride], adj[lo:hi], nil, nil, p, true))
			}
			p.Close()
			per := func(i int) float64 { return float64(evals[i].Load()) / float64(n) }
			total := 0.0
			for i := range evals {
				total += per(i)
			}
			fmt.Printf("%-9s %4d %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", name, dim,
				per(evalSearch0), per(evalSearchUp), per(evalPeers), per(evalSelect), per(evalRelink), total)
		}
	}
}
