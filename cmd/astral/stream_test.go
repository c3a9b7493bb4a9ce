package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// benchBoth runs the building bench with args twice, fast: streamed and
// with every row in memory. It returns both reports and the streamed text.
func benchBoth(t *testing.T, dir string, args ...string) (streamed, inMemory benchReport, text string) {
	t.Helper()
	run := func(mem bool) (benchReport, string) {
		path := filepath.Join(dir, "out.json")
		a := append(slices.Clone(args), "--runs", "1", "--run-seconds", "0", "--json", path)
		text := captured(t, func() error { return runBenchWith(a, mem) })
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		var rep benchReport
		require.NoError(t, json.Unmarshal(raw, &rep))
		return rep, text
	}
	streamed, text = run(false)
	inMemory, _ = run(true)
	return streamed, inMemory, text
}

// untimed is a row without its timings and allocations: what a run
// measures rather than computes.
func untimed(rows []benchRow) []benchRow {
	out := slices.Clone(rows)
	for i := range out {
		r := &out[i]
		r.P50us, r.P95us, r.P99us, r.MeanUs, r.QPS, r.ScanGBps = 0, 0, 0, 0, 0, 0
		r.AllocsPerQuery, r.BuildS, r.P50VsUnfiltered, r.FloorP50us, r.FloorP99us = 0, 0, 0, 0, 0
	}
	return out
}

// TestBenchStreamedMatchesInMemory: the building bench that streams its
// stored vectors reports, for flat, HNSW and IVF, on a generated fixture
// and on .fvecs files, the rows the in-memory path reports (recall,
// vs-quant, nlist, nprobe, largest share, bytes per vector: everything but
// timings and memory); --truth-queries limits recall@k, and the exact
// flat row's timing, to the first queries in both and says so; the
// resident and peak sizes are reported.
func TestBenchStreamedMatchesInMemory(t *testing.T) {
	testsize.SkipUnderRace(t, "the same bytes and rows from serial pipelines; the engine's goroutines are the astral package's race tests, the bench's TestBenchFilterFlat's")
	dir := t.TempDir()
	const n, nq, dim = 5_123, 20, 16
	_, base, queries := scaleFiles(t, dir, n, nq, dim)
	datas := map[string][]string{
		"generated": {"--data", "clustered", "--n", "5123", "--nq", "20", "--dim", "16"},
		"fvecs":     {"--data", base, "--queries", queries},
	}
	kinds := map[string][]string{
		"flat": {"--index", "flat", "--storage", "e5m2,int8", "--threads", "0,1", "--batch", "1,4"},
		"hnsw": {"--index", "hnsw", "--m", "4", "--ef-construction", "16", "--ef", "8,32", "--rerank", "0,2", "--threads", "0"},
		"ivf":  {"--index", "ivf", "--nlist", "16", "--nprobe", "2,5", "--threads", "0,1", "--metric", "l2"},
	}
	for dname, data := range datas {
		for kname, kind := range kinds {
			// --truth-queries on the files, and on the generated IVF run.
			tqs := []int{0}
			if dname == "fvecs" {
				tqs = []int{7}
			} else if kname == "ivf" {
				tqs = []int{0, 7}
			}
			for _, tq := range tqs {
				args := append(slices.Clone(data), kind...)
				if tq > 0 {
					args = append(args, "--truth-queries", "7")
				}
				s, m, text := benchBoth(t, dir, args...)
				what := dname + "/" + kname
				require.Equal(t, m.Dataset, s.Dataset, what)
				require.Equal(t, untimed(m.Rows), untimed(s.Rows), what)
				require.NotEmpty(t, s.Rows, what)
				for _, r := range s.Rows {
					require.Equal(t, tq, r.TruthQueries, what)
					require.Greater(t, r.RecallAtK, 0.0, what)
					if r.Index == "flat" {
						require.Equal(t, 1.0, r.RecallVsExactQuantized, what) // exact over the stored records
					}
					if kname == "ivf" && r.Index == "ivf" {
						require.Equal(t, 16, r.NList, what)
						require.Greater(t, r.LargestShare, 0.0, what)
					}
				}
				if tq > 0 {
					note := "recall@k: over the first 7 of the 20 queries (--truth-queries); vs-quant: over all 20\n"
					if kname != "flat" {
						note = "recall@k: over the first 7 of the 20 queries (--truth-queries); vs-quant: over all 20 (the exact flat rows: their first 7)\n"
					}
					require.Contains(t, text, note, what)
				} else {
					require.NotContains(t, text, "--truth-queries", what)
				}
				if runtime.GOOS == "linux" {
					require.Positive(t, s.RSSBytes, what)
					require.GreaterOrEqual(t, s.PeakRSSBytes, s.RSSBytes, what)
				}
			}
		}
	}
}

// TestBenchTruthQueriesRefused: --truth-queries does not come with the
// rows whose truth covers every query, nor past the query count.
func TestBenchTruthQueriesRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--filter", "none,allow:10"}, "--truth-queries does not apply with --filter, --rank or --export"},
		{[]string{"--rank", "1:1:1:100"}, "--truth-queries does not apply with --filter, --rank or --export"},
		{[]string{"--budget-us", "100"}, "--truth-queries with --budget-us"},
	} {
		args := append([]string{"--data", "clustered", "--n", "500", "--nq", "5", "--dim", "8", "--truth-queries", "3"}, c.args...)
		require.ErrorContains(t, runBench(args), c.msg, c.args)
	}
	err := runBench([]string{"--data", "clustered", "--n", "500", "--nq", "5", "--dim", "8", "--truth-queries", "6", "--runs", "1", "--run-seconds", "0"})
	require.ErrorContains(t, err, "--truth-queries 6: there are 5 queries")
}
