package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// savedInMemory is the index file the in-memory path saves: the whole set
// loaded, then buildIndex (addStep rows per Add), then SaveFile.
func savedInMemory(t *testing.T, set *fixture.Set, opts []astral.Option, threads int, path string) []byte {
	t.Helper()
	rt, err := astral.NewRuntime(astral.WithThreads(threads))
	require.NoError(t, err)
	defer rt.Close()
	x, _, err := buildIndex(rt, opts, set, "in memory")
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, x.SaveFile(path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// TestBuildStreamedSavesTheSameBytes: astral build, which streams --data a
// block at a time, saves the very bytes the in-memory path saves, for an
// .fvecs file and a generated fixture, for every index kind; its line
// gives the peak RSS on Linux.
func TestBuildStreamedSavesTheSameBytes(t *testing.T) {
	testsize.SkipUnderRace(t, "the same bytes and rows from serial pipelines; the engine's goroutines are the astral package's race tests, the bench's TestBenchFilterFlat's")
	dir := t.TempDir()
	const n, dim = 25_321, 24 // three Adds and a short one
	set, err := fixture.Generate("clustered", n, 0, dim)
	require.NoError(t, err)
	base := filepath.Join(dir, "base.fvecs")
	require.NoError(t, fixture.SaveFvecsFile(base, set.Base, dim))
	loaded, err := loadBase(base)
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		args  []string
		opts  []astral.Option
		small bool // HNSW: fewer rows, to stay fast
	}{
		{"flat", []string{"--index", "flat", "--storage", "int8"}, []astral.Option{astral.WithKind(astral.KindFlat), astral.WithStorage(astral.Int8)}, false},
		{"ivf", []string{"--index", "ivf", "--nlist", "16", "--nprobe", "3"}, []astral.Option{astral.WithKind(astral.KindIVF), astral.WithIVF(16, 3)}, false},
		{"auto", []string{"--index", "auto", "--ivf-limit", "20000"}, []astral.Option{astral.WithKind(astral.KindAuto), astral.WithIVFLimitRecords(20000)}, false},
		{"hnsw", []string{"--index", "hnsw", "--m", "4", "--ef-construction", "8", "--rerank", "2"},
			[]astral.Option{astral.WithKind(astral.KindHNSW), astral.WithHNSW(4, 8), astral.WithRerank(astral.F32, 2)}, true},
	} {
		file, fset := base, loaded
		if c.small {
			fset = &fixture.Set{Name: "small", Dim: dim, Base: set.Base[:10_321*dim]}
			file = filepath.Join(dir, "small.fvecs")
			require.NoError(t, fixture.SaveFvecsFile(file, fset.Base, dim))
		}
		opts := append([]astral.Option{astral.WithDim(dim), astral.WithMetric(astral.Cosine), astral.WithEfSearch(astral.DefaultEfSearch), astral.WithStorage(astral.E5M2)}, c.opts...)
		want := savedInMemory(t, fset, opts, 1, filepath.Join(dir, c.name+"-mem.idx"))
		out := filepath.Join(dir, c.name+"-streamed.idx")
		line := captured(t, func() error {
			return runBuild(append([]string{"--data", file, "--threads", "1", "--out", out}, c.args...))
		})
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "%s: the streamed build saves other bytes (%d vs %d)", c.name, len(got), len(want))
		if runtime.GOOS == "linux" {
			require.Regexp(t, `; peak RSS [0-9.]+ [KMG]iB \([0-9]+ bytes\)\n`, line, c.name)
		}
		if c.name == "flat" {
			// A generated fixture streams too: the same bytes as Generate's rows.
			out := filepath.Join(dir, "gen.idx")
			captured(t, func() error {
				return runBuild(append([]string{"--data", "clustered", "--n", "25321", "--dim", "24", "--threads", "1", "--out", out}, c.args...))
			})
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "generated: the streamed build saves other bytes")
		}
	}
	// A truncated file is refused before anything is written.
	bad := filepath.Join(dir, "bad.fvecs")
	raw, err := os.ReadFile(base)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, raw[:len(raw)-3], 0o644))
	out := filepath.Join(dir, "bad.idx")
	err = runBuild([]string{"--data", bad, "--index", "flat", "--out", out})
	require.ErrorIs(t, err, fixture.ErrFvecs)
	require.ErrorContains(t, err, "record 25320: truncated")
	require.NoFileExists(t, out)
}

// scaleFiles writes a clustered set of n × dim with nq queries as .fvecs,
// the rows stretched to many lengths so the metrics differ.
func scaleFiles(t *testing.T, dir string, n, nq, dim int) (*fixture.Set, string, string) {
	t.Helper()
	set, err := fixture.Generate("clustered", n, nq, dim)
	require.NoError(t, err)
	for i := range n {
		for j := range dim {
			set.Base[i*dim+j] *= float32(1 + i%5)
		}
	}
	base, queries := filepath.Join(dir, "base.fvecs"), filepath.Join(dir, "q.fvecs")
	require.NoError(t, fixture.SaveFvecsFile(base, set.Base, dim))
	require.NoError(t, fixture.SaveFvecsFile(queries, set.Queries, dim))
	return set, base, queries
}

// TestIVFAllPartitionsIsExact: an IVF index probing every partition (the
// bench's exact answers for an IVF file, saved and opened as the bench
// opens it) answers as a flat index of the same records does: the same
// ids and the same score bits, every query, in each metric and storage.
func TestIVFAllPartitionsIsExact(t *testing.T) {
	dir := t.TempDir()
	const n, nq, dim, k = 9_000, 40, 24, 10
	set, base, _ := scaleFiles(t, dir, n, nq, dim)
	src, err := openBase(base, false, 0, 0)
	require.NoError(t, err)
	defer src.close()
	rt, err := astral.NewRuntime(astral.WithThreads(1))
	require.NoError(t, err)
	defer rt.Close()
	for _, metric := range []astral.Metric{astral.Cosine, astral.Dot, astral.L2} {
		for _, storage := range []astral.Storage{astral.E5M2, astral.Int8, astral.F32} {
			what := metric.String() + " " + storage.String()
			opts := []astral.Option{astral.WithDim(dim), astral.WithMetric(metric), astral.WithStorage(storage)}
			flat, _, err := buildIndex(nil, append(opts, astral.WithKind(astral.KindFlat)), set, "flat")
			require.NoError(t, err)
			iv, _, err := buildIndex(rt, append(opts, astral.WithKind(astral.KindIVF), astral.WithIVF(16, 1)), set, "ivf")
			require.NoError(t, err)
			path := filepath.Join(dir, "ivf.idx")
			require.NoError(t, iv.SaveFile(path))
			iv.Close()
			opened, err := astral.OpenFile(rt, path)
			require.NoError(t, err)
			is, trained := opened.IVFStats()
			require.True(t, trained, what)
			require.Greater(t, is.Partitions, 1, what)
			dst := make([]astral.Result, k)
			for qi := range nq {
				want, err := flat.Query(nil, set.Query(qi), k)
				require.NoError(t, err)
				got, _, err := opened.QueryWith(dst, set.Query(qi), astral.QueryOptions{K: k, NProbe: astral.MaxNList})
				require.NoError(t, err)
				require.Len(t, got, k, what)
				for i := range want {
					require.Equal(t, want[i].ID, got[i].ID, "%s: query %d, rank %d", what, qi, i)
					require.Equal(t, math.Float32bits(want[i].Score), math.Float32bits(got[i].Score), "%s: query %d, rank %d", what, qi, i)
				}
			}
			// The bench's own path, batched, gives the same ids.
			exact, err := exactQuantizedOf(opened, false, opened.Config(), src, set.Queries, k)
			require.NoError(t, err)
			for qi := range nq {
				want, err := flat.Query(nil, set.Query(qi), k)
				require.NoError(t, err)
				require.Equal(t, ids(want), exact[qi], "%s: query %d", what, qi)
			}
			opened.Close()
			flat.Close()
		}
	}
}

// TestStreamTruth: the bench's streamed f32 truth is exactTopK's, ids and
// order, for an .fvecs file and a generated fixture, in each metric.
func TestStreamTruth(t *testing.T) {
	dir := t.TempDir()
	set, base, _ := scaleFiles(t, dir, 20_000, 30, 16)
	src, err := openBase(base, false, 0, 0)
	require.NoError(t, err)
	defer src.close()
	none := &fixture.ScopeFilter{}
	for _, metric := range []astral.Metric{astral.Cosine, astral.Dot, astral.L2} {
		got, err := streamTruth(src, set.Queries, 10, fixtureMetric(metric))
		require.NoError(t, err)
		require.Equal(t, exactTopK(set, 10, metric, none), got, metric.String())
	}
	gen, err := fixture.Generate("spectral", 20_000, 12, 16)
	require.NoError(t, err)
	gsrc, err := openBase("spectral", true, 20_000, 16)
	require.NoError(t, err)
	got, err := streamTruth(gsrc, gen.Queries, 7, fixture.Cosine)
	require.NoError(t, err)
	require.Equal(t, exactTopK(gen, 7, astral.Cosine, none), got)
}

// fileBenchJSON runs bench with args, fast, and returns its report and text.
func fileBenchJSON(t *testing.T, dir string, args ...string) (benchReport, string) {
	t.Helper()
	path := filepath.Join(dir, "out.json")
	args = append(args, "--runs", "1", "--run-seconds", "0", "--json", path)
	text := captured(t, func() error { return runBench(args) })
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var rep benchReport
	require.NoError(t, json.Unmarshal(b, &rep))
	return rep, text
}

// TestBenchIVFFile: bench --index-file on an IVF file gives the full scan
// (every partition probed) first, as a flat row, then a row per --nprobe
// with nlist, nprobe and the largest share filled; probing every partition
// finds all the exact answers over the stored records; --truth-queries
// limits recall@k to the first queries and says so; rss_bytes and
// peak_rss_bytes are reported, and the text gives bytes per vector.
func TestBenchIVFFile(t *testing.T) {
	dir := t.TempDir()
	const n, nq, dim = 9_000, 20, 24
	set, base, queries := scaleFiles(t, dir, n, nq, dim)
	idx := filepath.Join(dir, "ivf.idx")
	captured(t, func() error {
		return runBuild([]string{"--data", base, "--index", "ivf", "--nlist", "16", "--nprobe", "3", "--out", idx})
	})
	opened, err := astral.OpenFile(nil, idx)
	require.NoError(t, err)
	is, trained := opened.IVFStats()
	opened.Close()
	require.True(t, trained)
	parts := is.Partitions
	file := []string{"--index-file", idx, "--data", base, "--queries", queries, "--threads", "0,1"}
	rep, text := fileBenchJSON(t, dir, append(file, "--nprobe", "2,"+strconv.Itoa(parts))...)
	require.Len(t, rep.Rows, 6, "per thread count: the full scan, then nprobe 2 and all")
	for i, r := range rep.Rows {
		require.Equal(t, parts, r.NList, i)
		require.Equal(t, is.Share, r.LargestShare, i)
		require.Zero(t, r.TruthQueries, "every query has its truth")
		require.Equal(t, []int{0, 0, 0, 1, 1, 1}[i], r.Threads)
	}
	full, p2, pAll := rep.Rows[0], rep.Rows[1], rep.Rows[2]
	require.Equal(t, "flat", full.Index)
	require.Equal(t, parts, full.NProbe)
	require.Greater(t, full.ScanGBps, 0.0)
	require.Equal(t, 1.0, full.RecallVsExactQuantized)
	require.Equal(t, "ivf", p2.Index)
	require.Equal(t, []int{2, parts}, []int{p2.NProbe, pAll.NProbe})
	require.Equal(t, 1.0, pAll.RecallVsExactQuantized)
	require.Equal(t, full.RecallAtK, pAll.RecallAtK)
	require.Less(t, p2.RecallVsExactQuantized, 1.0)
	require.Equal(t, n, rep.Dataset.N)
	require.Equal(t, nq, rep.Dataset.NQ)
	if runtime.GOOS == "linux" {
		require.Greater(t, rep.RSSBytes, int64(0))
		require.GreaterOrEqual(t, rep.PeakRSSBytes, rep.RSSBytes)
		require.Contains(t, text, "resident: ")
		require.Contains(t, text, "flat rows with an nlist: an IVF file probing all its partitions (nprobe = nlist)")
		require.Contains(t, text, " bytes per vector (RSS / n")
	}
	require.NotContains(t, text, "--truth-queries")
	// The file's own nprobe without --nprobe.
	rep, _ = fileBenchJSON(t, dir, append(file[:len(file)-1], "0")...)
	require.Len(t, rep.Rows, 2)
	require.Equal(t, 3, rep.Rows[1].NProbe)
	// The f32 truth of the first 7 queries only: recall@k over those.
	rep7, text := fileBenchJSON(t, dir, append(file[:len(file)-1], "0", "--nprobe", "2", "--truth-queries", "7")...)
	require.Len(t, rep7.Rows, 2)
	require.Contains(t, text, "recall@k: over the first 7 of the 20 queries (--truth-queries)")
	for _, r := range rep7.Rows {
		require.Equal(t, 7, r.TruthQueries)
	}
	require.Equal(t, p2.RecallVsExactQuantized, rep7.Rows[1].RecallVsExactQuantized, "vs-quant covers every query")
	// --truth FILE (the in-memory truth) agrees with the streamed truth,
	// cut to the same queries.
	truth := exactTopK(set, 10, astral.Cosine, &fixture.ScopeFilter{})
	tf := filepath.Join(dir, "truth.ivecs")
	f, err := os.Create(tf)
	require.NoError(t, err)
	require.NoError(t, fixture.WriteIvecs(f, truth))
	require.NoError(t, f.Close())
	repT, _ := fileBenchJSON(t, dir, append(file[:len(file)-1], "0", "--nprobe", "2", "--truth-queries", "7", "--truth", tf)...)
	require.Equal(t, rep7.Rows[1].RecallAtK, repT.Rows[1].RecallAtK)
	// Refusals.
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--nprobe", strconv.Itoa(parts + 1)}, "--nprobe " + strconv.Itoa(parts+1) + ": " + idx + " has " + strconv.Itoa(parts) + " partitions"},
		{[]string{"--truth-queries", "21"}, "--truth-queries 21: there are 20 queries"},
		{[]string{"--nlist", "8"}, "--nlist does not apply to a saved index"},
		{[]string{"--ef", "8"}, "--ef does not apply: " + idx + " holds an ivf index"},
	} {
		err := runBench(append(slices.Clone(file), c.args...))
		require.ErrorContains(t, err, c.msg, c.args)
	}
	err = runBench([]string{"--data", base, "--queries", queries, "--truth-queries", "3", "--filter", "allow:5"})
	require.ErrorContains(t, err, "--truth-queries does not apply with --filter, --rank or --export")
}

// TestBenchFlatAndHNSWFiles: a flat file's exact answers are its own and
// an HNSW file's, or a file's with a rerank copy, come from a flat index
// built from the stream (as the bench that builds its index has them);
// --nprobe is refused for flat and HNSW files.
func TestBenchFlatAndHNSWFiles(t *testing.T) {
	testsize.SkipUnderRace(t, "the same bytes and rows from serial pipelines; the engine's goroutines are the astral package's race tests, the bench's TestBenchFilterFlat's")
	dir := t.TempDir()
	_, base, queries := scaleFiles(t, dir, 3_000, 12, 16)
	for _, kind := range []string{"flat", "hnsw"} {
		idx := filepath.Join(dir, kind+".idx")
		captured(t, func() error {
			return runBuild([]string{"--data", base, "--index", kind, "--storage", "int8", "--out", idx})
		})
		file := []string{"--index-file", idx, "--data", base, "--queries", queries, "--threads", "0"}
		rep, _ := fileBenchJSON(t, dir, file...)
		require.Len(t, rep.Rows, 1, kind)
		require.Equal(t, kind, rep.Rows[0].Index)
		require.Zero(t, rep.Rows[0].NList)
		require.Greater(t, rep.Rows[0].RecallVsExactQuantized, 0.9, kind)
		if kind == "flat" {
			require.Equal(t, 1.0, rep.Rows[0].RecallVsExactQuantized)
		}
		err := runBench(append(slices.Clone(file), "--nprobe", "2"))
		require.ErrorContains(t, err, "--nprobe does not apply: "+idx+" holds "+map[string]string{"flat": "a flat", "hnsw": "an hnsw"}[kind]+" index, which has no partitions")
	}
	rdir := filepath.Join(dir, "rerank")
	require.NoError(t, os.Mkdir(rdir, 0o755))
	_, base, queries = scaleFiles(t, rdir, 5_000, 12, 16) // IVF trains at 4096
	for _, kind := range []string{"flat", "ivf"} {
		idx := filepath.Join(dir, kind+"-rerank.idx")
		build := []string{"--data", base, "--index", kind, "--storage", "e4m3", "--rerank", "2"}
		if kind == "ivf" {
			build = append(build, "--nlist", "4", "--nprobe", "4") // every partition
		}
		captured(t, func() error { return runBuild(append(build, "--out", idx)) })
		saved, _ := fileBenchJSON(t, dir, "--index-file", idx, "--data", base, "--queries", queries, "--threads", "0")
		built, _ := fileBenchJSON(t, dir, append(slices.Clone(build), "--queries", queries, "--threads", "0")...)
		last := saved.Rows[len(saved.Rows)-1]
		require.Equal(t, built.Rows[len(built.Rows)-1].RecallVsExactQuantized, last.RecallVsExactQuantized, kind)
		require.Equal(t, built.Rows[len(built.Rows)-1].RecallAtK, last.RecallAtK, kind)
	}
}

// TestCeilingSizeAndRSS: the read-ceiling buffer is the records' size up
// to 1 GiB (10M E5M2 records of 388 bytes would be 3.6 GiB); a bench that
// builds its index reports the resident sizes too; a truncated --data is
// refused by bench --index-file before any work.
func TestCeilingSizeAndRSS(t *testing.T) {
	require.Equal(t, 388_000, ceilingSize(1000, 388))
	require.Equal(t, 1<<30, ceilingSize(10_000_000, 388))
	dir := t.TempDir()
	rep, text := fileBenchJSON(t, dir, "--data", "random", "--n", "500", "--dim", "16", "--nq", "4", "--threads", "0")
	require.Len(t, rep.Rows, 1)
	if runtime.GOOS == "linux" {
		require.Greater(t, rep.RSSBytes, int64(0))
		require.GreaterOrEqual(t, rep.PeakRSSBytes, rep.RSSBytes)
		require.Contains(t, text, "resident: ")
	}
	_, base, queries := scaleFiles(t, dir, 300, 4, 16)
	idx := filepath.Join(dir, "flat.idx")
	captured(t, func() error { return runBuild([]string{"--data", base, "--index", "flat", "--out", idx}) })
	raw, err := os.ReadFile(base)
	require.NoError(t, err)
	bad := filepath.Join(dir, "bad.fvecs")
	require.NoError(t, os.WriteFile(bad, raw[:len(raw)-1], 0o644))
	err = runBench([]string{"--index-file", idx, "--data", bad, "--queries", queries})
	require.ErrorIs(t, err, fixture.ErrFvecs)
	require.ErrorContains(t, err, "record 299: truncated")
}
