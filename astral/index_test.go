package astral

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

func randomVectors(r *rand.Rand, n, dim int) []float32 {
	v := make([]float32, n*dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func seqIDs(lo, n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(lo + i)
	}
	return ids
}

func newRuntime(t testing.TB, threads int) *Runtime {
	rt, err := NewRuntime(WithThreads(threads))
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	return rt
}

func TestAddValidatesAndLeavesIndexUnchanged(t *testing.T) {
	x, err := NewIndex(nil, WithDim(8))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 1))
	require.NoError(t, x.Add(seqIDs(0, 4), randomVectors(r, 4, 8)))

	require.ErrorIs(t, x.Add(seqIDs(10, 2), randomVectors(r, 3, 8)), ErrDimension)
	bad := randomVectors(r, 2, 8)
	bad[9] = float32(math.NaN())
	require.ErrorIs(t, x.Add(seqIDs(10, 2), bad), ErrNonFinite)
	bad[9] = float32(math.Inf(-1))
	require.ErrorIs(t, x.Add(seqIDs(10, 2), bad), ErrNonFinite)
	require.ErrorIs(t, x.Add([]uint64{10, 10}, randomVectors(r, 2, 8)), ErrDuplicateID)
	require.ErrorIs(t, x.Add([]uint64{11, 3}, randomVectors(r, 2, 8)), ErrDuplicateID)
	require.Equal(t, 4, x.Len(), "failed Adds store nothing")

	require.ErrorIs(t, x.Remove(1, 99), ErrNotFound)
	require.ErrorIs(t, x.Remove(1, 1), ErrDuplicateID)
	require.Equal(t, 4, x.Len(), "failed Removes remove nothing")
	require.NoError(t, x.Remove(1, 2))
	require.Equal(t, 2, x.Len())
}

func TestOptionsValidated(t *testing.T) {
	for _, opts := range [][]Option{
		{}, {WithDim(0)}, {WithDim(4097)}, {WithDim(8), WithMetric(9)}, {WithDim(8), WithKind(7)},
		{WithDim(8), WithStorage(0)}, {WithDim(8), WithKernel("nope")}, {WithDim(8), WithFlatLimitBytes(-1)},
	} {
		_, err := NewIndex(nil, opts...)
		require.ErrorIs(t, err, ErrInvalidArgument)
	}
	_, err := NewRuntime(WithThreads(-5))
	require.ErrorIs(t, err, ErrInvalidArgument)
}

func TestQueryValidates(t *testing.T) {
	x, _ := NewIndex(nil, WithDim(4))
	require.NoError(t, x.Add([]uint64{1}, []float32{1, 0, 0, 0}))
	_, err := x.Query(nil, []float32{1, 0, 0}, 1)
	require.ErrorIs(t, err, ErrDimension)
	_, err = x.Query(nil, []float32{1, 0, float32(math.NaN()), 0}, 1)
	require.ErrorIs(t, err, ErrNonFinite)
	for _, k := range []int{0, -1, MaxK + 1} {
		_, err = x.Query(nil, []float32{1, 0, 0, 0}, k)
		require.ErrorIs(t, err, ErrInvalidArgument)
	}
	res, err := x.Query(nil, []float32{1, 0, 0, 0}, 10)
	require.NoError(t, err)
	require.Equal(t, []Result{{ID: 1, Score: 1}}, res, "k above the index size returns what there is")
}

// exact is an f64 reference over the decoded stored vectors.
func TestMetrics(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	const dim, n = 32, 500
	vecs := randomVectors(r, n, dim)
	q := randomVectors(r, 1, dim)
	for _, m := range []Metric{Cosine, Dot, L2} {
		x, err := NewIndex(nil, WithDim(dim), WithMetric(m))
		require.NoError(t, err)
		require.NoError(t, x.Add(seqIDs(0, n), vecs))
		res, err := x.Query(nil, q, 20)
		require.NoError(t, err)
		require.Len(t, res, 20)
		for i := 1; i < len(res); i++ {
			if m == L2 {
				require.LessOrEqual(t, res[i-1].Score, res[i].Score, "%v: nearest first", m)
			} else {
				require.GreaterOrEqual(t, res[i-1].Score, res[i].Score, "%v: best first", m)
			}
		}
		// Score of the best hit against an f64 recomputation from the original vector.
		v := vecs[int(res[0].ID)*dim : int(res[0].ID+1)*dim]
		var dot, qq, vv, d2 float64
		for i := range v {
			dot += float64(q[i]) * float64(v[i])
			qq += float64(q[i]) * float64(q[i])
			vv += float64(v[i]) * float64(v[i])
			d2 += (float64(q[i]) - float64(v[i])) * (float64(q[i]) - float64(v[i]))
		}
		want := map[Metric]float64{Cosine: dot / math.Sqrt(qq*vv), Dot: dot, L2: d2}[m]
		require.InEpsilon(t, want, float64(res[0].Score), 0.08, "%v score within E5M2 precision", m)
	}
}

func TestSameResultsEveryThreadCountAndBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	dim, n, nq := 384, 6000, 40
	if testing.Short() { // still splits four ways: 1,000 records is 6 shards
		n, nq = 1000, 12
	}
	vecs := randomVectors(r, n, dim)
	qs := randomVectors(r, nq, dim)
	var want [][]Result
	for threads := 0; threads <= 3; threads++ {
		for _, m := range []Metric{Cosine, L2} {
			x, err := NewIndex(newRuntime(t, threads), WithDim(dim), WithMetric(m))
			require.NoError(t, err)
			require.NoError(t, x.Add(seqIDs(1000, n), vecs))
			counts := make([]int, nq)
			batch, err := x.QueryBatch(nil, counts, qs, 10)
			require.NoError(t, err)
			for i := 0; i < nq; i++ {
				single, err := x.Query(nil, qs[i*dim:(i+1)*dim], 10)
				require.NoError(t, err)
				require.Equal(t, single, batch[i*10:i*10+counts[i]], "threads %d %v query %d: batch = single", threads, m, i)
				if m == Cosine {
					if threads == 0 {
						want = append(want, single)
					} else {
						require.Equal(t, want[i], single, "threads %d query %d = serial", threads, i)
					}
				}
			}
		}
	}
}

func TestQueryAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	runs := 100
	if testing.Short() {
		runs = 10
	}
	for _, m := range []Metric{Cosine, Dot, L2} {
		x, err := NewIndex(newRuntime(t, 1), WithDim(384), WithMetric(m))
		require.NoError(t, err)
		require.NoError(t, x.Add(seqIDs(0, 3000), randomVectors(r, 3000, 384)))
		q := randomVectors(r, 1, 384)
		dst := make([]Result, 0, 10)
		_, err = x.Query(dst, q, 10)
		require.NoError(t, err)
		require.Zero(t, testing.AllocsPerRun(runs, func() { _, _ = x.Query(dst, q, 10) }), "%v Query", m)
		qs := randomVectors(r, 20, 384)
		bdst := make([]Result, 200)
		counts := make([]int, 20)
		_, err = x.QueryBatch(bdst, counts, qs, 10)
		require.NoError(t, err)
		require.Zero(t, testing.AllocsPerRun(runs/5+1, func() { _, _ = x.QueryBatch(bdst, counts, qs, 10) }), "%v QueryBatch", m)
	}
}

// TestConcurrentAddRemoveQuery: queries run while other goroutines add and
// remove; every result is well formed and names a vector that was stored.
func TestConcurrentAddRemoveQuery(t *testing.T) {
	testsize.SkipNoAsm(t, "well-formed results of stored ids under concurrent writes do not depend on the kernel")
	testsize.SkipEmulated(t, "concurrency: qemu keeps the x86 host's memory order, and -race proves the locking natively")
	for name, opts := range map[string][]Option{
		"e5m2":            nil,
		"hnsw-int8-f16x4": {WithKind(KindHNSW), WithStorage(Int8), WithRerank(F16, 4), WithHNSW(8, 40)},
		"flat-e4m3-f32x2": {WithKind(KindFlat), WithStorage(E4M3), WithRerank(F32, 2)},
	} {
		t.Run(name, func(t *testing.T) { concurrentAddRemoveQuery(t, opts) })
	}
}

func concurrentAddRemoveQuery(t *testing.T, opts []Option) {
	r := rand.New(rand.NewPCG(5, 5))
	const dim = 64
	// Short (-race): fewer operations of every kind; the writers still
	// remove over a fifth of the records, so a compaction runs under the
	// queries as at full size.
	n, rounds, queries := sized(2000, 1000), sized(200, 80), sized(300, 100)
	x, err := NewIndex(newRuntime(t, 2), append([]Option{WithDim(dim)}, opts...)...)
	require.NoError(t, err)
	base := randomVectors(r, n, dim)
	require.NoError(t, x.Add(seqIDs(0, n), base))
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(uint64(w), 9))
			for i := 0; i < rounds; i++ {
				ids := seqIDs(10000+w*100000+i*10, 10)
				require.NoError(t, x.Add(ids, randomVectors(rr, 10, dim)))
				require.NoError(t, x.Remove(ids[:5]...))
			}
		}(w)
	}
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(uint64(g), 7))
			dst := make([]Result, 0, 16)
			for i := 0; i < queries && !stop.Load(); i++ {
				res, err := x.Query(dst, randomVectors(rr, 1, dim), 16)
				require.NoError(t, err)
				require.Len(t, res, 16)
				seen := map[uint64]bool{}
				for j, h := range res {
					require.False(t, seen[h.ID], "duplicate id")
					seen[h.ID] = true
					require.True(t, h.ID < uint64(n) || h.ID >= 10000, "id %d was never stored", h.ID)
					require.LessOrEqual(t, math.Abs(float64(h.Score)), 1.01)
					if j > 0 {
						require.True(t, res[j-1].Score > h.Score || (res[j-1].Score == h.Score && res[j-1].ID < h.ID))
					}
				}
			}
		}(g)
	}
	wg.Wait()
	require.Equal(t, n+2*rounds*5, x.Len())
}

func TestStats(t *testing.T) {
	x, _ := NewIndex(nil, WithDim(384))
	r := rand.New(rand.NewPCG(6, 6))
	require.NoError(t, x.Add(seqIDs(0, 10), randomVectors(r, 10, 384)))
	s := x.Stats()
	require.Equal(t, 10, s.Len)
	require.Equal(t, KindFlat, s.Kind)
	require.Equal(t, 396.0, s.BytesPerVector, "record, id and norm")
	require.NotEmpty(t, s.Kernel)
}
