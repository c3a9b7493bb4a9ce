package astral

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/astral-engine/astral/kernel"
	"github.com/stretchr/testify/require"
)

// storageCases are the storage × rerank configurations the tests cover.
var storageCases = []struct {
	storage, rerank Storage
}{
	{E5M2, 0}, {E4M3, 0}, {Int8, 0}, {F16, 0}, {F32, 0},
	{E5M2, F32}, {Int8, F16}, {E4M3, F32},
}

func storageName(s, r Storage) string {
	if r == 0 {
		return s.String()
	}
	return s.String() + "+rerank-" + r.String()
}

// TestStorageSameResultsEveryThreadCountAndBatch: every kind, with and
// without a rerank copy, flat and HNSW, every metric: the same ids, score
// bits and order for 0 to 3 workers and for batch and single queries.
func TestStorageSameResultsEveryThreadCountAndBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	dim, n, nq := 384, sized(2000, 900), sized(12, 5)
	vecs := randomVectors(r, n, dim)
	qs := randomVectors(r, nq, dim)
	for ci, c := range storageCases {
		for ki, kind := range []Kind{KindFlat, KindHNSW, KindIVF} {
			// Graphs are smaller: building them is most of this test's cost
			// (minutes in pure Go or under qemu), and 1,000 or even 400
			// nodes still take three levels and a parallel build, which
			// the thread counts vary.
			n := n
			if kind == KindHNSW {
				n = sized(1000, 400)
			}
			if kind != KindFlat && testsize.Reduced() {
				// Under -race, noasm and qemu the graphs and partitions
				// are for the race detector and the other kernels in a
				// build and a search: just over parallelBuildMin still
				// takes the parallel build, and half of it trains 24 lists.
				n = parallelBuildMin + 4
			}
			for mi, m := range []Metric{Cosine, Dot, L2} {
				if !testsize.Rotate(ci+ki+mi, 3) {
					continue
				}
				t.Run(fmt.Sprintf("%s/%v/%v", storageName(c.storage, c.rerank), kind, m), func(t *testing.T) {
					var want [][]Result
					for threads := 0; threads <= 3; threads += 3 {
						opts := []Option{WithDim(dim), WithMetric(m), WithKind(kind), WithStorage(c.storage), WithHNSW(8, 40), WithIVF(24, 5), withIVFTrainAt(n / 2)}
						if c.rerank != 0 {
							opts = append(opts, WithRerank(c.rerank, 3))
						}
						x, err := NewIndex(newRuntime(t, threads), opts...)
						require.NoError(t, err)
						require.NoError(t, x.Add(seqIDs(100, n), vecs[:n*dim]))
						require.NoError(t, x.Remove(100, 117, 250))
						counts := make([]int, nq)
						batch, err := x.QueryBatch(nil, counts, qs, 10)
						require.NoError(t, err)
						for i := 0; i < nq; i++ {
							single, err := x.Query(nil, qs[i*dim:(i+1)*dim], 10)
							require.NoError(t, err)
							require.Len(t, single, 10)
							require.Equal(t, single, batch[i*10:i*10+counts[i]], "threads %d query %d: batch = single", threads, i)
							if threads == 0 {
								want = append(want, single)
							} else {
								require.Equal(t, want[i], single, "threads %d query %d = serial", threads, i)
							}
						}
					}
				})
			}
		}
	}
}

// TestStorageRecall: exact search over each kind finds the true (float64)
// neighbours about as often as the kind's precision allows, and a rerank
// copy lifts E5M2 close to exact.
func TestStorageRecall(t *testing.T) {
	testsize.SkipScoresProven(t)
	testsize.SkipSerialUnderRace(t)
	r := rand.New(rand.NewPCG(9, 9))
	dim, n, nq, k := 128, 4000, 40, 10
	vecs := randomVectors(r, n, dim)
	qs := randomVectors(r, nq, dim)
	truth := make([][]uint64, nq)
	for i := range truth {
		q := qs[i*dim : (i+1)*dim]
		type hit struct {
			id uint64
			s  float64
		}
		hits := make([]hit, n)
		for j := range hits {
			v := vecs[j*dim : (j+1)*dim]
			var d, vv float64
			for c := range v {
				d += float64(q[c]) * float64(v[c])
				vv += float64(v[c]) * float64(v[c])
			}
			hits[j] = hit{uint64(j), d / math.Sqrt(vv)}
		}
		slices.SortFunc(hits, func(a, b hit) int {
			if a.s > b.s {
				return -1
			}
			return 1
		})
		for _, h := range hits[:k] {
			truth[i] = append(truth[i], h.id)
		}
	}
	min := map[string]float64{"e5m2": 0.80, "e4m3": 0.88, "int8": 0.95, "f16": 0.99, "f32": 0.999,
		"e5m2+rerank-f32": 0.99, "int8+rerank-f16": 0.99, "e4m3+rerank-f32": 0.99}
	for _, c := range storageCases {
		opts := []Option{WithDim(dim), WithKind(KindFlat), WithStorage(c.storage)}
		if c.rerank != 0 {
			opts = append(opts, WithRerank(c.rerank, 4))
		}
		x, err := NewIndex(nil, opts...)
		require.NoError(t, err)
		require.NoError(t, x.Add(seqIDs(0, n), vecs))
		found := 0
		for i := 0; i < nq; i++ {
			res, err := x.Query(nil, qs[i*dim:(i+1)*dim], k)
			require.NoError(t, err)
			for _, h := range res {
				if slices.Contains(truth[i], h.ID) {
					found++
				}
			}
		}
		recall := float64(found) / float64(nq*k)
		name := storageName(c.storage, c.rerank)
		t.Logf("%-16s recall@%d %.3f", name, k, recall)
		require.GreaterOrEqual(t, recall, min[name], name)
	}
}

// TestStorageScores: each kind's scores are the metric of the query and
// the stored vector, within the kind's precision; a rerank copy's are the
// exact ones.
func TestStorageScores(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	const dim, n = 64, 300
	vecs := randomVectors(r, n, dim)
	q := randomVectors(r, 1, dim)
	for _, c := range storageCases {
		for _, m := range []Metric{Cosine, Dot, L2} {
			opts := []Option{WithDim(dim), WithMetric(m), WithStorage(c.storage)}
			if c.rerank != 0 {
				opts = append(opts, WithRerank(c.rerank, 2))
			}
			x, err := NewIndex(nil, opts...)
			require.NoError(t, err)
			require.NoError(t, x.Add(seqIDs(0, n), vecs))
			res, err := x.Query(nil, q, 5)
			require.NoError(t, err)
			for _, h := range res {
				v := vecs[int(h.ID)*dim : int(h.ID+1)*dim]
				var dot, qq, vv, d2 float64
				for i := range v {
					dot += float64(q[i]) * float64(v[i])
					qq += float64(q[i]) * float64(q[i])
					vv += float64(v[i]) * float64(v[i])
					d2 += (float64(q[i]) - float64(v[i])) * (float64(q[i]) - float64(v[i]))
				}
				want := map[Metric]float64{Cosine: dot / math.Sqrt(qq*vv), Dot: dot, L2: d2}[m]
				s := c.storage
				if c.rerank != 0 {
					s = c.rerank
				}
				tol := map[Storage]float64{E5M2: 0.1, E4M3: 0.06, Int8: 0.02, F16: 2e-3, F32: 1e-5}[s]
				scale := map[Metric]float64{Cosine: 1, Dot: math.Sqrt(qq * vv), L2: qq + vv}[m]
				require.InDelta(t, want, float64(h.Score), tol*scale, "%s %v id %d", storageName(c.storage, c.rerank), m, h.ID)
			}
		}
	}
}

func TestStorageQueryAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	// Short: 1,000 records still split between the caller and the worker
	// and make a graph of three levels; the hot path is the same code.
	testsize.SkipUnderRace(t, "allocation counts are the plain build's; the determinism tests run these queries under -race")
	n := sized(3000, 1000)
	if testsize.Reduced() {
		// noasm and qemu (the other kernels on the hot path): three flat
		// chunks, still split, and a graph over parallelBuildMin.
		n = 600
	}
	vecs, q := randomVectors(r, n, 384), randomVectors(r, 1, 384)
	qs := randomVectors(r, 20, 384)
	for ci, c := range storageCases {
		for ki, kind := range []Kind{KindFlat, KindHNSW, KindIVF} {
			if !testsize.Rotate(ci+ki, 3) {
				continue // Reduced: each storage's kernels on one structure's hot path
			}
			opts := []Option{WithDim(384), WithMetric(L2), WithKind(kind), WithStorage(c.storage), WithHNSW(8, 40), WithIVF(16, 4), withIVFTrainAt(n / 2)}
			if c.rerank != 0 {
				opts = append(opts, WithRerank(c.rerank, 4))
			}
			x, err := NewIndex(newRuntime(t, 1), opts...)
			require.NoError(t, err)
			require.NoError(t, x.Add(seqIDs(0, n), vecs))
			dst := make([]Result, 0, 10)
			_, err = x.Query(dst, q, 10)
			require.NoError(t, err)
			name := storageName(c.storage, c.rerank)
			require.Zero(t, testing.AllocsPerRun(20, func() { _, _ = x.Query(dst, q, 10) }), "%s %v Query", name, kind)
			bdst, counts := make([]Result, 200), make([]int, 20)
			_, err = x.QueryBatch(bdst, counts, qs, 10)
			require.NoError(t, err)
			require.Zero(t, testing.AllocsPerRun(5, func() { _, _ = x.QueryBatch(bdst, counts, qs, 10) }), "%s %v QueryBatch", name, kind)
		}
	}
}

// TestStorageRoundTrip: every kind and rerank copy saves and loads (each
// way) to bit-identical answers, flat, HNSW and across the auto switch.
func TestStorageRoundTrip(t *testing.T) {
	rt := newRuntime(t, 1)
	for ci, c := range storageCases {
		for ki, kind := range []Kind{KindFlat, KindHNSW, KindAuto} {
			for mi, m := range []Metric{Cosine, Dot, L2} {
				if !testsize.Rotate(ci+ki+mi, 3) {
					continue
				}
				t.Run(fmt.Sprintf("%s/%v/%v", storageName(c.storage, c.rerank), kind, m), func(t *testing.T) {
					opts := []Option{WithStorage(c.storage), WithFlatLimitBytes(20 << 10)}
					if c.rerank != 0 {
						opts = append(opts, WithRerank(c.rerank, 2))
					}
					x := testIndex(t, rt, kind, m, sized(600, 300), 48, opts...)
					want, file := answers(t, x, 8), saved(t, x)
					for _, l := range loaders {
						y, err := l.load(t, rt, file)
						require.NoError(t, err, l.name)
						require.Equal(t, want, answers(t, y, 8), "%s: answers differ", l.name)
						require.Equal(t, x.Config(), y.Config(), l.name)
						xs, ys := x.Stats(), y.Stats()
						xs.Bytes, ys.Bytes = 0, 0 // growth room differs
						require.Equal(t, xs, ys, l.name)
						require.Equal(t, file, saved(t, y), "%s: saved again, different bytes", l.name)
						// A loaded index takes writes; the rerank copy follows.
						require.NoError(t, y.Remove(11))
						require.NoError(t, y.Add([]uint64{1 << 40}, randomVectors(rand.New(rand.NewPCG(1, 1)), 1, 48)))
						res, err := y.Query(nil, randomVectors(rand.New(rand.NewPCG(1, 1)), 1, 48), 1)
						require.NoError(t, err)
						require.Equal(t, uint64(1<<40), res[0].ID)
						require.NoError(t, y.Close())
					}
				})
			}
		}
	}
}

func TestStorageOptionsValidated(t *testing.T) {
	for _, opts := range [][]Option{
		{WithStorage(0)}, {WithStorage(6)}, {WithRerank(E5M2, 4)}, {WithRerank(Int8, 4)},
		{WithRerank(F16, -1)}, {WithRerank(F16, MaxRerankFactor+1)},
	} {
		_, err := NewIndex(nil, append([]Option{WithDim(8)}, opts...)...)
		require.ErrorIs(t, err, ErrInvalidArgument)
	}
	x, err := NewIndex(nil, WithDim(8), WithRerank(F16, 0))
	require.NoError(t, err)
	require.Equal(t, DefaultRerankFactor, x.Config().RerankFactor)
}

// TestStorageGraphRecall: an HNSW graph over each kind, for each metric
// (L2 over int8 and E4M3 carries each record's scale in its block), finds
// what an exact scan of the same records finds.
func TestStorageGraphRecall(t *testing.T) {
	testsize.SkipScoresProven(t)
	testsize.SkipSerialUnderRace(t)
	r := rand.New(rand.NewPCG(12, 12))
	dim, n, nq := 64, 2000, 30
	if testsize.Long() {
		n = 4000
	}
	vecs, qs := randomVectors(r, n, dim), randomVectors(r, nq, dim)
	for _, s := range kernel.Storages {
		for _, m := range []Metric{Cosine, Dot, L2} {
			opts := []Option{WithDim(dim), WithMetric(m), WithStorage(s), WithEfSearch(128)}
			g, err := NewIndex(nil, append(opts, WithKind(KindHNSW))...)
			require.NoError(t, err)
			f, err := NewIndex(nil, append(opts, WithKind(KindFlat))...)
			require.NoError(t, err)
			require.NoError(t, g.Add(seqIDs(0, n), vecs))
			require.NoError(t, f.Add(seqIDs(0, n), vecs))
			found := 0.0
			for i := 0; i < nq; i++ {
				want, err := f.Query(nil, qs[i*dim:(i+1)*dim], 10)
				require.NoError(t, err)
				got, err := g.Query(nil, qs[i*dim:(i+1)*dim], 10)
				require.NoError(t, err)
				found += recallAgainst(want, got)
				// A graph hit carries the score the exact scan gives it.
				for _, h := range got {
					for _, w := range want {
						if w.ID == h.ID {
							require.Equal(t, w.Score, h.Score, "%v %v id %d", s, m, h.ID)
						}
					}
				}
			}
			recall := found / float64(nq)
			require.GreaterOrEqual(t, recall, 0.9, "%v %v graph recall vs exact", s, m)
		}
	}
}
