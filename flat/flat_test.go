package flat

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/astral-engine/astral/kernel"
	"github.com/stretchr/testify/require"
)

func newTestIndex(t testing.TB, r *rand.Rand, n, dim int, dupEvery int) (*Index, [][]byte) {
	k, err := kernel.New(nil, dim, kernel.E5M2)
	require.NoError(t, err)
	x := New(k, score.AdjustNone)
	recs := make([][]byte, n)
	for i := 0; i < n; i++ {
		rec := make([]byte, k.Stride())
		if dupEvery > 0 && i%dupEvery == 1 {
			copy(rec, recs[i-1]) // equal scores: ties must break by id
		} else {
			for c := 0; c < dim; c++ {
				rec[c] = kernel.EncodeE5M2(float32(r.NormFloat64() * 0.05))
			}
		}
		recs[i] = rec
		// Ids out of slot order, so "ties by id" differs from "ties by slot".
		require.NoError(t, x.Add(uint64(n-i)*7, rec, 0, 1, match.Attr{}))
	}
	return x, recs
}

func layout(x *Index, s *Searcher, qs ...[]float32) {
	buf := s.QueryBuffer(x, len(qs))
	for i, q := range qs {
		kernel.LayoutQuery(buf[i*x.kern.QueryLen():], q)
	}
}

// bruteForce scores every record with the kernel and sorts by score, then id.
func bruteForce(x *Index, q []float32, k int) []score.Result {
	qp := kernel.LayoutQuery(make([]float32, x.kern.QueryLen()), q)
	scores := make([]float32, x.Len())
	x.kern.Scan(qp, x.slab[:x.Len()*x.stride], scores)
	all := make([]score.Result, x.Len())
	for i := range all {
		all[i] = score.Result{ID: x.ids[i], Score: scores[i]}
	}
	slices.SortFunc(all, score.CompareResults)
	return all[:min(k, len(all))]
}

func randomQuery(r *rand.Rand, dim int) []float32 {
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	return q
}

func search(x *Index, s *Searcher, p *pool.Pool, k int, qs ...[]float32) [][]score.Result {
	layout(x, s, qs...)
	dst := make([]score.Result, len(qs)*k)
	counts := make([]int, len(qs))
	x.Search(s, p, len(qs), k, dst, counts)
	out := make([][]score.Result, len(qs))
	for i := range qs {
		out[i] = dst[i*k : i*k+counts[i]]
	}
	return out
}

func newPool(t testing.TB, workers int) *pool.Pool {
	p, err := pool.New(pool.Options{Workers: workers})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

func TestSearchMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ n, dim int }{{1, 384}, {5, 7}, {300, 384}, {3000, 100}, {2500, 384}} {
		x, _ := newTestIndex(t, r, tc.n, tc.dim, 5)
		p := newPool(t, 3)
		s := NewSearcher(4)
		for _, k := range []int{1, 2, 10, 100, 1024} {
			q := randomQuery(r, tc.dim)
			got := search(x, s, p, k, q)[0]
			require.Equal(t, bruteForce(x, q, k), got, "n %d dim %d k %d", tc.n, tc.dim, k)
		}
	}
}

// TestSameResultsEveryThreadCount: ids, score bits and order are the same for
// 0-3 workers and for batch against single queries.
func TestSameResultsEveryThreadCount(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x, _ := newTestIndex(t, r, 5000, 384, 3)
	require.Greater(t, x.participants(newPool(t, 3), 4), 3, "the index must be big enough to split four ways")
	qs := make([][]float32, MaxBatch)
	for i := range qs {
		qs[i] = randomQuery(r, 384)
	}
	want := make([][]score.Result, len(qs))
	s0 := NewSearcher(1)
	for i, q := range qs {
		want[i] = search(x, s0, nil, 10, q)[0]
	}
	for workers := 0; workers <= 3; workers++ {
		p := newPool(t, workers)
		s := NewSearcher(workers + 1)
		for i, q := range qs {
			require.Equal(t, want[i], search(x, s, p, 10, q)[0], "workers %d query %d", workers, i)
		}
		// Short (qemu, noasm, -race): batches of 1, 8 and 15 still cover
		// a single query, a partial and a nearly full batch.
		for nq := 1; nq <= MaxBatch; nq += testsize.Sized(5, 7) {
			got := search(x, s, p, 10, qs[:nq]...)
			for i := range got {
				require.Equal(t, want[i], got[i], "workers %d batch %d query %d", workers, nq, i)
			}
		}
	}
}

func TestSearchAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x, _ := newTestIndex(t, r, 3000, 384, 0)
	p := newPool(t, 1)
	s := NewSearcher(2)
	q := randomQuery(r, 384)
	dst := make([]score.Result, MaxBatch*10)
	counts := make([]int, MaxBatch)
	layout(x, s, q)
	x.Search(s, p, 1, 10, dst, counts) // warm: scratch grows once
	// An allocation per search shows in any number of runs: few when short.
	allocs := testing.AllocsPerRun(testsize.Sized(50, 10), func() { x.Search(s, p, 1, 10, dst, counts) })
	require.Zero(t, allocs, "single query")
	qs := make([][]float32, MaxBatch)
	for i := range qs {
		qs[i] = q
	}
	layout(x, s, qs...)
	x.Search(s, p, MaxBatch, 10, dst, counts)
	allocs = testing.AllocsPerRun(testsize.Sized(20, 4), func() { x.Search(s, p, MaxBatch, 10, dst, counts) })
	require.Zero(t, allocs, "batch")
}

func TestAddRemove(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x, recs := newTestIndex(t, r, 100, 64, 0)
	require.ErrorIs(t, x.Add(7, recs[0], 0, 1, match.Attr{}), ErrDuplicateID)
	require.ErrorIs(t, x.Remove(12345), ErrNotFound)
	// Remove half, then check search against brute force and the slab.
	for i := 0; i < 100; i += 2 {
		require.NoError(t, x.Remove(uint64(100-i)*7))
	}
	require.Equal(t, 50, x.Len())
	for i := 0; i < x.Len(); i++ {
		id := x.ID(i)
		orig := 100 - int(id/7)
		require.Equal(t, recs[orig], x.Record(i), "slot %d holds id %d's record", i, id)
		require.True(t, x.Has(id))
	}
	for _, id := range []uint64{700, 686} {
		require.False(t, x.Has(id))
	}
	q := randomQuery(r, 64)
	require.Equal(t, bruteForce(x, q, 20), search(x, NewSearcher(1), nil, 20, q)[0])
	// The freed tail must be zero, or a later record would carry junk padding.
	tail := x.slab[x.Len()*x.stride : 100*x.stride]
	require.Equal(t, make([]byte, len(tail)), tail)
}

func TestSlabAligned(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	x, _ := newTestIndex(t, r, 1000, 384, 0)
	require.Zero(t, uintptr(addr(x.slab))&63)
}
