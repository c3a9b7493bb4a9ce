package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBenchRefusesBadFilters(t *testing.T) {
	for spec, msg := range map[string]string{
		"tags:2":       `--filter: fixture: bad filter spec "tags:2": the share must be a number in (0, 1]`,
		"tags:0":       "the share must be a number in (0, 1]",
		"none,allow:0": `"allow:0": the count must be a whole number >= 1`,
		"owner:x":      `"owner:x": the count must be a whole number >= 1`,
		"colour:3":     `unknown kind "colour"`,
		"tags":         `"tags": want none, tags:SHARE, allow:N, owner:N or deny:N`,
		"":             `"": want none`,
	} {
		_, err := parseBench([]string{"--filter", spec})
		require.Error(t, err, spec)
		assert.ErrorIs(t, err, fixture.ErrFilterSpec, spec)
		assert.Contains(t, err.Error(), msg, spec)
	}
	for _, bad := range []string{"-1", "x", "2000"} {
		_, err := parseBench([]string{"--postfilter", bad})
		assert.ErrorContains(t, err, "--postfilter", bad)
	}
	b, err := parseBench([]string{"--filter", "none,tags:0.01,allow:1000,owner:100,deny:10,tags:0.01", "--postfilter", "0,10"})
	require.NoError(t, err)
	assert.Equal(t, []fixture.FilterSpec{{}, {Kind: fixture.FilterTags, Share: 0.01}, {Kind: fixture.FilterAllow, Count: 1000},
		{Kind: fixture.FilterOwner, Count: 100}, {Kind: fixture.FilterDeny, Count: 10}}, b.filters)
	assert.Equal(t, []int{0, 10}, b.postfilter)

	// Through the command: exit status 2 (a command line that cannot run)
	// and a one-line reason, before any work is done.
	code, _, stderr := runCLI(t, t.TempDir(), "bench", "--filter", "tags:1.5")
	assert.Equal(t, 2, code)
	assert.Equal(t, "astral bench: --filter: bad filter spec \"tags:1.5\": the share must be a number in (0, 1]\nRun 'astral bench -h' for the flags.\n", stderr)
	// A list longer than the records is refused once the data is known.
	code, _, stderr = runCLI(t, t.TempDir(), "bench", "--data", "random", "--n", "50", "--nq", "2", "--dim", "8", "--filter", "allow:51")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "astral bench: --filter: bad filter spec \"allow:51\": only 50 records\n")
}

// benchJSON runs the bench with args plus --json and returns the report.
func benchJSON(t *testing.T, args ...string) benchReport {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bench.json")
	require.NoError(t, runBench(append(args, "--json", path)))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var rep benchReport
	require.NoError(t, json.Unmarshal(raw, &rep))
	// The scoped fields are in the JSON under their contract names.
	var loose struct{ Rows []map[string]any }
	require.NoError(t, json.Unmarshal(raw, &loose))
	for _, r := range loose.Rows {
		for _, field := range []string{"filter", "selectivity", "plan", "p50_vs_unfiltered", "postfilter", "budget_us", "covered", "complete_queries", "complete_share"} {
			require.Contains(t, r, field)
		}
	}
	return rep
}

// A flat index is exact under every filter: recall 1.0 against the filtered
// truth of its own stored vectors (and of f32 when it stores f32).
func TestBenchFilterFlat(t *testing.T) {
	dir := t.TempDir()
	filters := "tags:0.01,none,tags:0.5,allow:10,owner:5,deny:3"
	rep := benchJSON(t, "--data", "clustered", "--n", "2000", "--nq", "8", "--dim", "24", "--index", "flat",
		"--storage", "f32,e5m2", "--threads", "0,1", "--batch", "1,3", "--filter", filters, "--postfilter", "4",
		"--runs", "1", "--run-seconds", "0", "--export", filepath.Join(dir, "export"))
	wantSel := map[string]float64{"": 1, "tags:0.01": 0.01, "tags:0.5": 0.5, "allow:10": 0.005, "owner:5": 0.0025, "deny:3": 1997.0 / 2000}
	// storage × threads × batch × (6 filters, + 5 post-filter rows at batch 1)
	require.Len(t, rep.Rows, 2*2*(6+5+6))
	seen := map[string]int{}
	for _, r := range rep.Rows {
		what := r.Storage + " " + r.Filter
		require.Contains(t, wantSel, r.Filter, what)
		seen[r.Filter]++
		assert.InDelta(t, wantSel[r.Filter], r.Selectivity, 1e-12, what)
		if r.Postfilter > 0 {
			assert.Equal(t, 4, r.Postfilter, what)
			assert.Equal(t, "host-postfilter", r.Plan, what)
			assert.Equal(t, 1, r.Batch, what)
			assert.NotEmpty(t, r.Filter, what)
		} else {
			assert.NotEmpty(t, r.Plan, what)
			assert.Equal(t, 1.0, r.RecallVsExactQuantized, what)
			if r.Storage == "f32" {
				assert.Equal(t, 1.0, r.RecallAtK, what)
			}
		}
		assert.Greater(t, r.P50VsUnfiltered, 0.0, what)
		if r.Filter == "" {
			assert.Equal(t, 1.0, r.P50VsUnfiltered, what)
			assert.Greater(t, r.ScanGBps, 0.0, what)
		}
	}
	assert.Len(t, seen, 6)

	// The export holds the same filters, in the bench's order (none first),
	// and the truth the rows were measured against.
	e, err := fixture.ReadExport(filepath.Join(dir, "export"))
	require.NoError(t, err)
	assert.Equal(t, 2000, e.Scope.N)
	var specs []string
	for _, f := range e.Scope.Filters {
		specs = append(specs, f.Spec.String())
	}
	assert.Equal(t, []string{"none", "tags:0.01", "tags:0.5", "allow:10", "owner:5", "deny:3"}, specs)
	set, err := fixture.Generate("clustered", 2000, 8, 24)
	require.NoError(t, err)
	for i, f := range e.Scope.Filters {
		assert.Equal(t, fixture.ExactTopKIn(set.Base, set.Queries, 24, 10, fixture.Cosine, f.Rows, 0), e.Truth[i], f.Spec.String())
	}
}

// HNSW rows carry the same fields; with a generous ef on a small index
// the filtered answers are close to exact.
func TestBenchFilterHNSW(t *testing.T) {
	testsize.SkipUnderRace(t, "the bench's figures are the plain run's; TestBenchFilterFlat runs the bench's goroutines under -race")
	rep := benchJSON(t, "--data", "clustered", "--n", "3000", "--nq", "8", "--dim", "24", "--index", "hnsw",
		"--threads", "0", "--ef", "64", "--filter", "none,tags:0.1,allow:20,owner:7", "--postfilter", "10",
		"--runs", "1", "--run-seconds", "0")
	hnswRows := 0
	for _, r := range rep.Rows {
		if r.Index != "hnsw" {
			assert.Equal(t, "", r.Filter, "the exact flat point is unfiltered")
			continue
		}
		hnswRows++
		assert.NotEmpty(t, r.Plan, r.Filter)
		if r.Postfilter == 0 {
			assert.GreaterOrEqual(t, r.RecallVsExactQuantized, 0.9, r.Filter)
		}
	}
	assert.Equal(t, 4+3, hnswRows)
}

// Ranked rows: flat is exact against the exact ranking of its stored
// vectors (and of f32 when it stores f32); HNSW rows report the host's top
// 50 re-ranked beside their own recall.
func TestBenchRank(t *testing.T) {
	testsize.SkipUnderRace(t, "the bench's figures are the plain run's; TestBenchFilterFlat runs the bench's goroutines under -race")
	rep := benchJSON(t, "--data", "clustered", "--n", "3000", "--nq", "8", "--dim", "24", "--index", "flat",
		"--storage", "f32,e5m2", "--threads", "0,1", "--rank", "none,1:1:1:500,0:1:0:50", "--runs", "1", "--run-seconds", "0")
	require.Len(t, rep.Rows, 2*2*3)
	for _, r := range rep.Rows {
		what := r.Storage + " " + r.Rank
		assert.Equal(t, 1.0, r.RecallVsExactQuantized, what)
		if r.Storage == "f32" {
			assert.Equal(t, 1.0, r.RecallAtK, what)
		}
		if r.Rank == "" {
			assert.Zero(t, r.Rerank50Recall, what)
		} else {
			assert.Greater(t, r.Rerank50Recall, 0.0, what)
		}
	}
	rep = benchJSON(t, "--data", "clustered", "--n", "3000", "--nq", "8", "--dim", "24", "--index", "hnsw",
		"--threads", "0", "--ef", "64", "--rank", "1:1:1:500", "--runs", "1", "--run-seconds", "0")
	ranked := 0
	for _, r := range rep.Rows {
		if r.Index == "hnsw" && r.Rank != "" {
			ranked++
			assert.GreaterOrEqual(t, r.RecallVsExactQuantized, 0.9)
			assert.Greater(t, r.Rerank50Recall, 0.0)
		}
	}
	assert.Equal(t, 1, ranked)
	_, err := parseBench([]string{"--rank", "1:1:1"})
	assert.ErrorContains(t, err, "W_REL:W_REC:W_IMP:HALF_LIFE")
	_, err = parseBench([]string{"--rank", "1:1:0:0"})
	assert.ErrorContains(t, err, "half-life")
	_, err = parseBench([]string{"--rank", "1:1:1:10", "--metric", "l2"})
	assert.ErrorContains(t, err, "cosine or dot")
}

// Ranked rows under filters: one per (filter, ranking) pair beside the
// plain filter rows; flat f32 finds the exact filtered ranking (of the f32
// vectors and of the stored ones), HNSW its stored vectors' nearly, and
// each row's results pass its filter (recall 1 against a truth drawn only
// from the filter's records).
func TestBenchRankFiltered(t *testing.T) {
	n, nq := strconv.Itoa(testsize.Sized(3000, 800)), strconv.Itoa(testsize.Sized(8, 4))
	filters := "none,tags:0.1,allow:300,deny:100"
	rep := benchJSON(t, "--data", "clustered", "--n", n, "--nq", nq, "--dim", "16", "--index", "flat",
		"--storage", "f32", "--threads", "0", "--filter", filters, "--rank", "none,1:1:1:500", "--runs", "1", "--run-seconds", "0")
	type pair struct{ filter, rank string }
	seen := map[pair]int{}
	for _, r := range rep.Rows {
		seen[pair{r.Filter, r.Rank}]++
		what := r.Filter + " " + r.Rank
		assert.Equal(t, 1.0, r.RecallAtK, what)
		assert.Equal(t, 1.0, r.RecallVsExactQuantized, what)
		if r.Rank != "" {
			assert.Greater(t, r.P50VsUnfiltered, 0.0, what)
		}
	}
	for _, f := range []string{"", "tags:0.1", "allow:300", "deny:100"} {
		for _, rk := range []string{"", "1:1:1:500"} {
			assert.Equal(t, 1, seen[pair{f, rk}], "filter %q, rank %q", f, rk)
		}
	}
	assert.Len(t, rep.Rows, 8)

	rep = benchJSON(t, "--data", "clustered", "--n", n, "--nq", nq, "--dim", "16", "--index", "hnsw", "--m", "8", "--ef-construction", "32",
		"--threads", "0", "--ef", "64", "--filter", "none,tags:0.1", "--rank", "1:1:1:500", "--runs", "1", "--run-seconds", "0")
	ranked := 0
	for _, r := range rep.Rows {
		if r.Index == "hnsw" && r.Rank != "" {
			ranked++
			assert.GreaterOrEqual(t, r.RecallVsExactQuantized, 0.9, r.Filter)
		}
	}
	assert.Equal(t, 2, ranked)
}

// Budgeted rows: one per budget beside each batch-1 row, with its
// fields; a budget no query can exhaust is the exact answer, complete.
func TestBenchBudgetRows(t *testing.T) {
	for _, bad := range []string{"-1", "x", "60000001"} {
		_, err := parseBench([]string{"--budget-us", bad})
		assert.ErrorContains(t, err, "--budget-us", bad)
	}
	rep := benchJSON(t, "--data", "clustered", "--n", "2000", "--nq", "8", "--dim", "24", "--index", "flat",
		"--threads", "0,1", "--batch", "1,2", "--filter", "none,tags:0.5", "--budget-us", "0,1,50000000",
		"--runs", "1", "--run-seconds", "0")
	// threads × (batch 1: 2 filters × (none, 1 µs, 50 s); batch 2: 2 filters)
	require.Len(t, rep.Rows, 2*(2*3+2))
	budgets := map[int]int{}
	for _, r := range rep.Rows {
		what := fmt.Sprintf("threads %d batch %d %q budget %d", r.Threads, r.Batch, r.Filter, r.BudgetUs)
		budgets[r.BudgetUs]++
		assert.GreaterOrEqual(t, r.Covered, 0.0, what)
		assert.LessOrEqual(t, r.Covered, 1.0, what)
		switch r.BudgetUs {
		case 0:
			assert.Equal(t, 1.0, r.Covered, what)
			assert.Zero(t, r.CompleteQueries, what)
		case 50000000:
			assert.Equal(t, 1, r.Batch, what)
			assert.Equal(t, 1.0, r.Covered, what)
			assert.Equal(t, 1.0, r.CompleteShare, what)
			assert.Equal(t, 8, r.CompleteQueries, what)
			assert.Equal(t, 1.0, r.RecallVsExactQuantized, what)
			assert.Equal(t, "scan", r.Plan, what)
		case 1:
			assert.Zero(t, r.AllocsPerQuery, what)
			// The clock floor: a call that only waits out 1 µs.
			assert.GreaterOrEqual(t, r.FloorP50us, 1.0, what)
			assert.GreaterOrEqual(t, r.FloorP99us, r.FloorP50us, what)
		}
		if r.BudgetUs != 1 {
			assert.Zero(t, r.FloorP99us, what+": no floor past 5 ms")
		}
	}
	assert.Equal(t, map[int]int{0: 8, 1: 4, 50000000: 4}, budgets)
}

// TestBenchIVF: IVF rows carry nlist, nprobe and the largest partition's
// share; probing every partition is the exact scan; a filter's rows are
// measured too.
func TestBenchIVF(t *testing.T) {
	rep := benchJSON(t, "--data", "clustered", "--n", "4200", "--nq", "8", "--dim", "24", "--index", "ivf",
		"--nlist", "32", "--nprobe", "2,32", "--threads", "0,1", "--filter", "none,tags:0.1", "--runs", "1", "--run-seconds", "0")
	ivfRows := 0
	for _, r := range rep.Rows {
		if r.Index != "ivf" {
			assert.Zero(t, r.NList, "the exact row has no partitions")
			continue
		}
		ivfRows++
		assert.Equal(t, 32, r.NList)
		assert.Contains(t, []int{2, 32}, r.NProbe)
		assert.Greater(t, r.LargestShare, 1.0/32-1e-9)
		assert.LessOrEqual(t, r.LargestShare, 1.0)
		if r.NProbe == 32 {
			assert.Equal(t, 1.0, r.RecallVsExactQuantized, "every partition probed: exact, filter %q", r.Filter)
		}
	}
	assert.Equal(t, 2*2*2, ivfRows, "threads × nprobe × filters")
}
