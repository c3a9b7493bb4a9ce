package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/stretchr/testify/require"
)

// naiveTruth ranks every row for each query in float64, in metric, by a
// sort over all rows: another way to the truth than the bench's.
func naiveTruth(base, queries []float32, dim, k int, metric string) [][]int32 {
	n, nq := len(base)/dim, len(queries)/dim
	out := make([][]int32, nq)
	for q := range nq {
		qv := queries[q*dim : (q+1)*dim]
		type scored struct {
			row int32
			key float64 // lower is nearer
		}
		all := make([]scored, n)
		for r := range n {
			var dot, qq, rr, d2 float64
			for j := range dim {
				a, b := float64(qv[j]), float64(base[r*dim+j])
				dot, qq, rr, d2 = dot+a*b, qq+a*a, rr+b*b, d2+(a-b)*(a-b)
			}
			key := map[string]float64{"l2": d2, "dot": -dot, "cosine": -dot / math.Sqrt(qq*rr)}[metric]
			all[r] = scored{int32(r), key}
		}
		slices.SortFunc(all, func(a, b scored) int {
			if a.key != b.key {
				if a.key < b.key {
					return -1
				}
				return 1
			}
			return int(a.row - b.row)
		})
		for _, s := range all[:k] {
			out[q] = append(out[q], s.row)
		}
	}
	return out
}

// TestBenchTruthMatchesIndependentTruth: on vectors that are not unit
// length, the bench's own ground truth, in each metric, gives the recall a
// truth computed another way (and passed with --truth) gives; and a
// bad --truth file is refused.
func TestBenchTruthMatchesIndependentTruth(t *testing.T) {
	dir := t.TempDir()
	set, err := fixture.Generate("clustered", 600, 16, 12)
	require.NoError(t, err)
	for i := range set.N() {
		for j := range set.Dim {
			set.Base[i*set.Dim+j] *= float32(1 + i%11)
		}
	}
	base, queries := filepath.Join(dir, "base.fvecs"), filepath.Join(dir, "q.fvecs")
	require.NoError(t, fixture.SaveFvecsFile(base, set.Base, set.Dim))
	require.NoError(t, fixture.SaveFvecsFile(queries, set.Queries, set.Dim))
	recall := func(args ...string) float64 {
		out := filepath.Join(dir, "out.json")
		args = append(args, "--data", base, "--queries", queries, "--index", "flat", "--runs", "1", "--run-seconds", "0.001", "--threads", "0", "--json", out)
		captured(t, func() error { return runBench(args) })
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		var rep benchReport
		require.NoError(t, json.Unmarshal(b, &rep))
		require.Len(t, rep.Rows, 1)
		return rep.Rows[0].RecallAtK
	}
	for _, metric := range []string{"l2", "dot", "cosine"} {
		truth := filepath.Join(dir, metric+".ivecs")
		f, err := os.Create(truth)
		require.NoError(t, err)
		require.NoError(t, fixture.WriteIvecs(f, naiveTruth(set.Base, set.Queries, set.Dim, 10, metric)))
		require.NoError(t, f.Close())
		for _, storage := range []string{"f32", "e5m2"} {
			own := recall("--metric", metric, "--storage", storage)
			given := recall("--metric", metric, "--storage", storage, "--truth", truth)
			require.Equal(t, given, own, "%s/%s", metric, storage)
			if storage == "f32" {
				require.Equal(t, 1.0, own, metric)
			}
		}
	}
	short := filepath.Join(dir, "short.ivecs")
	f, err := os.Create(short)
	require.NoError(t, err)
	require.NoError(t, fixture.WriteIvecs(f, naiveTruth(set.Base, set.Queries, set.Dim, 3, "l2")))
	require.NoError(t, f.Close())
	err = runBench([]string{"--data", base, "--queries", queries, "--truth", short, "--runs", "1", "--run-seconds", "0.001"})
	require.ErrorContains(t, err, "has 3 rows, --k is 10")
}
