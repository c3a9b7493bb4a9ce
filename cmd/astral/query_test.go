package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// captured runs fn with stdout going to a buffer.
func captured(t *testing.T, fn func() error) string {
	t.Helper()
	var buf bytes.Buffer
	old := stdout
	stdout = &buf
	defer func() { stdout = old }()
	require.NoError(t, fn())
	return buf.String()
}

// TestQuery: astral query prints, for each query, the ids and scores the
// library returns for it, scores in full; --first and --ef are honoured.
func TestQuery(t *testing.T) {
	dir := t.TempDir()
	base, queries := fvecsPair(t, dir)
	qs, dim, err := fixture.LoadFvecsFile(queries)
	require.NoError(t, err)
	for _, index := range []string{"flat", "hnsw", "ivf"} {
		idx := filepath.Join(dir, index+".idx")
		build := []string{"--data", base, "--index", index, "--metric", "l2", "--out", idx}
		if index == "ivf" {
			build = append(build, "--nlist", "4")
		}
		captured(t, func() error { return runBuild(build) })
		args := []string{"--index-file", idx, "--queries", queries, "--k", "4", "--threads", "0"}
		switch index {
		case "hnsw":
			args = append(args, "--ef", "8")
		case "ivf":
			args = append(args, "--nprobe", "2")
		}
		out := captured(t, func() error { return runQuery(args) })
		x, err := astral.OpenFile(nil, idx)
		require.NoError(t, err)
		switch index {
		case "hnsw":
			require.NoError(t, x.SetEfSearch(8))
		case "ivf":
			require.NoError(t, x.SetNProbe(2))
		}
		var want strings.Builder
		fmt.Fprintln(&want, "query rank id score plan")
		for q := range len(qs) / dim {
			res, plan, err := x.QueryWith(nil, qs[q*dim:(q+1)*dim], astral.QueryOptions{K: 4})
			require.NoError(t, err)
			require.Len(t, res, 4)
			for i, r := range res {
				fmt.Fprintf(&want, "%d %d %d %s %s\n", q, i+1, r.ID, strconv.FormatFloat(float64(r.Score), 'g', -1, 32), plan)
			}
		}
		require.NoError(t, x.Close())
		require.Equal(t, want.String(), squeeze(out), index)
		first := captured(t, func() error { return runQuery(append(args, "--first", "2")) })
		require.Equal(t, 1+2*4, strings.Count(first, "\n"), index)
		require.True(t, strings.HasPrefix(out, first), index)
	}
	// A query is its own nearest stored vector when it is stored.
	idx := filepath.Join(dir, "f32.idx")
	captured(t, func() error {
		return runBuild([]string{"--data", base, "--index", "flat", "--storage", "f32", "--metric", "l2", "--out", idx})
	})
	out := captured(t, func() error {
		return runQuery([]string{"--index-file", idx, "--queries", base, "--k", "1", "--first", "3"})
	})
	lines := strings.Split(strings.TrimSpace(squeeze(out)), "\n")
	require.Len(t, lines, 4)
	for q, line := range lines[1:] {
		f := strings.Fields(line)
		require.Equal(t, []string{strconv.Itoa(q), "1", strconv.Itoa(q)}, f[:3])
		require.Equal(t, "scan", f[4])
		d, err := strconv.ParseFloat(f[3], 32)
		require.NoError(t, err)
		require.InDelta(t, 0, d, 1e-5) // |q|² - (2q·x - |x|²) rounds
	}
	other := filepath.Join(dir, "other.fvecs")
	require.NoError(t, fixture.SaveFvecsFile(other, make([]float32, 24), 8))
	err = runQuery([]string{"--index-file", idx, "--queries", other})
	require.ErrorContains(t, err, "--queries "+other+": dimension 8 and 3 vectors; "+idx+" has dimension 16")
	err = runQuery([]string{"--index-file", idx, "--queries", queries, "--nprobe", "2"})
	require.ErrorContains(t, err, "--nprobe does not apply")
	err = runQuery([]string{"--index-file", filepath.Join(dir, "ivf.idx"), "--queries", queries, "--nprobe", "5"})
	require.ErrorContains(t, err, "--nprobe 5: want 1 to the file's nlist (4)")
}

// TestQueryScoped: --owner, --tags-*, --allow and --deny scope the search
// as QueryWith's filter does, on attributes saved with the index.
func TestQueryScoped(t *testing.T) {
	dir := t.TempDir()
	set, err := fixture.Generate("clustered", 500, 3, 16)
	require.NoError(t, err)
	x, err := astral.NewIndex(nil, astral.WithDim(16), astral.WithKind(astral.KindFlat))
	require.NoError(t, err)
	ids := make([]uint64, set.N())
	attrs := make([]astral.Attributes, set.N())
	for i := range ids {
		ids[i] = uint64(i)
		attrs[i] = astral.Attributes{Owner: uint64(i % 4), Tags: 1<<(i%5) | 1<<(i%7+8)}
	}
	require.NoError(t, x.AddWith(ids, set.Base, attrs))
	idx := filepath.Join(dir, "scoped.idx")
	require.NoError(t, x.SaveFile(idx))
	require.NoError(t, x.Close())
	queries := filepath.Join(dir, "q.fvecs")
	require.NoError(t, fixture.SaveFvecsFile(queries, set.Queries, set.Dim))

	out := captured(t, func() error {
		return runQuery([]string{"--index-file", idx, "--queries", queries, "--k", "6",
			"--owner", "2", "--tags-any", "1,3", "--tags-none", "10", "--deny", "2,6,22"})
	})
	lines := strings.Split(strings.TrimSpace(squeeze(out)), "\n")
	require.Len(t, lines, 1+3*6)
	y, err := astral.OpenFile(nil, idx)
	require.NoError(t, err)
	defer y.Close()
	filter := astral.Filter{Owner: 2, AnyTags: 1<<1 | 1<<3, NoTags: 1 << 10, Deny: []uint64{2, 6, 22}}
	for q := range 3 {
		res, plan, err := y.QueryWith(nil, set.Query(q), astral.QueryOptions{K: 6, Filter: filter})
		require.NoError(t, err)
		for i, r := range res {
			want := fmt.Sprintf("%d %d %d %s %s", q, i+1, r.ID, strconv.FormatFloat(float64(r.Score), 'g', -1, 32), plan)
			require.Equal(t, want, lines[1+q*6+i])
			a := attrs[r.ID]
			require.Equal(t, uint64(2), a.Owner)
			require.NotZero(t, a.Tags&(1<<1|1<<3))
			require.Zero(t, a.Tags&(1<<10))
			require.NotContains(t, []uint64{2, 6, 22}, r.ID)
		}
	}
	out = captured(t, func() error {
		return runQuery([]string{"--index-file", idx, "--queries", queries, "--k", "3", "--first", "1", "--allow", "7,8,9,400", "--tags-all", "8"})
	})
	// Of the allowed ids only 7 (i%7 == 0) holds tag 8.
	require.Equal(t, "query rank id score plan\n", squeeze(out)[:len("query rank id score plan\n")])
	lines = strings.Split(strings.TrimSpace(squeeze(out)), "\n")
	require.Len(t, lines, 2)
	require.Equal(t, "7", strings.Fields(lines[1])[2])
	require.Equal(t, "direct", strings.Fields(lines[1])[4])
	for _, bad := range [][]string{{"--tags-any", "64"}, {"--owner", "-1"}, {"--allow", "1,x"}} {
		err := runQuery(append([]string{"--index-file", idx, "--queries", queries}, bad...))
		var ue *usageError
		require.ErrorAs(t, err, &ue, bad)
	}
}

// squeeze collapses the table's padding to single spaces.
func squeeze(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(strings.Join(strings.Fields(line), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestBenchIndexFile: bench measures a saved index without rebuilding it
// and reports the recall that building the same index in bench reports.
func TestBenchIndexFile(t *testing.T) {
	testsize.SkipUnderRace(t, "the bench's figures are the plain run's; TestBenchFilterFlat runs the bench's goroutines under -race")
	dir := t.TempDir()
	fx := []string{"--data", "clustered", "--n", "800", "--dim", "24"}
	runRows := func(args ...string) []benchRow {
		path := filepath.Join(dir, "out.json")
		args = append(args, "--runs", "1", "--run-seconds", "0.001", "--threads", "0", "--json", path)
		if slices.Contains(args, "clustered") {
			args = append(args, "--nq", "16")
		}
		captured(t, func() error { return runBench(args) })
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var rep benchReport
		require.NoError(t, json.Unmarshal(b, &rep))
		return rep.Rows
	}
	for _, storage := range []string{"e5m2", "int8"} {
		idx := filepath.Join(dir, storage+".idx")
		captured(t, func() error {
			return runBuild(append(fx, "--index", "flat", "--storage", storage, "--out", idx))
		})
		built := runRows(append(fx, "--index", "flat", "--storage", storage)...)
		saved := runRows(append(fx, "--index-file", idx)...)
		require.Len(t, built, 1)
		require.Len(t, saved, 1)
		require.Equal(t, "flat", saved[0].Index)
		require.Equal(t, storage, saved[0].Storage)
		require.Equal(t, built[0].RecallAtK, saved[0].RecallAtK, storage)
		require.Equal(t, 1.0, saved[0].RecallVsExactQuantized, storage)
		require.Zero(t, saved[0].BuildS)
		require.Greater(t, saved[0].RecallAtK, 0.5)
	}
	// An HNSW file: one row per ef, the saved efSearch without --ef.
	idx := filepath.Join(dir, "hnsw.idx")
	captured(t, func() error {
		return runBuild(append(fx, "--index", "hnsw", "--ef-search", "24", "--threads", "0", "--out", idx))
	})
	rows := runRows(append(fx, "--index-file", idx, "--ef", "8,64")...)
	require.Len(t, rows, 2)
	require.Equal(t, []int{8, 64}, []int{rows[0].Ef, rows[1].Ef})
	require.LessOrEqual(t, rows[0].RecallVsExactQuantized, rows[1].RecallVsExactQuantized)
	rows = runRows(append(fx, "--index-file", idx)...)
	require.Len(t, rows, 1)
	require.Equal(t, 24, rows[0].Ef)
	// The truth is in the file's metric: an exact f32 index of vectors of
	// many lengths finds all of it, for L2, dot and cosine alike.
	set, err := fixture.Generate("clustered", 400, 6, 12)
	require.NoError(t, err)
	for i := range set.N() {
		for j := range set.Dim {
			set.Base[i*set.Dim+j] *= float32(1 + i%9)
		}
	}
	base, queries := filepath.Join(dir, "long.fvecs"), filepath.Join(dir, "longq.fvecs")
	require.NoError(t, fixture.SaveFvecsFile(base, set.Base, set.Dim))
	require.NoError(t, fixture.SaveFvecsFile(queries, set.Queries, set.Dim))
	for _, metric := range []string{"l2", "dot", "cosine"} {
		file := filepath.Join(dir, metric+".idx")
		captured(t, func() error {
			return runBuild([]string{"--data", base, "--index", "flat", "--storage", "f32", "--metric", metric, "--out", file})
		})
		rows := runRows("--index-file", file, "--data", base, "--queries", queries)
		require.Len(t, rows, 1)
		require.Equal(t, 1.0, rows[0].RecallAtK, metric)
	}
	// The data must be the index's.
	err = runBench([]string{"--index-file", idx, "--data", "clustered", "--n", "700", "--dim", "24"})
	require.ErrorContains(t, err, "--n 700: "+idx+" holds 800 vectors")
	err = runBench([]string{"--index-file", idx, "--data", "clustered", "--dim", "32"})
	require.ErrorContains(t, err, "--dim 32: "+idx+" has dimension 24")
}
