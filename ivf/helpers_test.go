package ivf

import (
	"math"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
	"github.com/stretchr/testify/require"
)

// data is a fixture encoded as an index stores it.
type data struct {
	set    *fixture.Set
	kern   *kernel.Kernel
	adjust score.Adjust
	recs   []byte
	ids    []uint64
	bias   []float32
	scales []float32
	tags   []uint64
	owners []uint64
}

// newData encodes n spectral vectors of dim as E5M2 records with adjust's
// values (cosine: 1/|x|; L2: |x|²), ids out of slot order and tags and
// owners from the slot.
func newData(t testing.TB, n, nq, dim int, adjust score.Adjust) *data {
	set, err := fixture.Generate("spectral", n, nq, dim)
	require.NoError(t, err)
	k, err := kernel.New(nil, dim, kernel.E5M2)
	require.NoError(t, err)
	d := &data{set: set, kern: k, adjust: adjust}
	st := k.Stride()
	d.recs = make([]byte, n*st)
	units := make([]float32, dim)
	for i := 0; i < n; i++ {
		rec := d.recs[i*st : (i+1)*st]
		kernel.Encode(kernel.E5M2, rec, set.Row(i))
		d.ids = append(d.ids, uint64(n-i)*7+3)
		d.tags = append(d.tags, uint64(i%7)|uint64(i%3)<<8)
		d.owners = append(d.owners, uint64(i%5))
		kernel.DecodeUnits(kernel.E5M2, units, rec)
		ss := float32(sumSquares(units))
		switch adjust {
		case score.AdjustScale:
			d.bias = append(d.bias, float32(1/math.Sqrt(float64(ss))))
		case score.AdjustSubtract:
			d.bias = append(d.bias, ss)
		}
	}
	return d
}

func (d *data) build(t testing.TB, nlist int, p *pool.Pool) *Index {
	x, err := New(d.kern, d.adjust, Config{Dim: d.set.Dim, NList: nlist, Seed: 5})
	require.NoError(t, err)
	require.NoError(t, Build(x, d.recs, d.ids, d.bias, d.scales, d.tags, d.owners, p))
	return x
}

// query is query i in the engine's form (doubled for L2).
func (d *data) query(i int) []float32 {
	q := slices.Clone(d.set.Query(i))
	if d.adjust == score.AdjustSubtract {
		for c := range q {
			q[c] *= 2
		}
	}
	return q
}

// search runs one batch of queries qs and returns each one's results.
func search(x *Index, s *Searcher, p *pool.Pool, k, nprobe int, f *match.Filter, qs ...[]float32) [][]score.Result {
	buf := s.QueryBuffer(x, len(qs))
	for i, q := range qs {
		copy(buf[i*x.dim:], q)
	}
	dst := make([]score.Result, len(qs)*k)
	counts := make([]int, len(qs))
	if f == nil {
		x.Search(s, p, len(qs), k, nprobe, dst, counts)
	} else {
		x.SearchFiltered(s, p, len(qs), k, nprobe, f, dst, counts)
	}
	out := make([][]score.Result, len(qs))
	for i := range qs {
		out[i] = dst[i*k : i*k+counts[i]]
	}
	return out
}

// bruteForce scores every live record that passes f and returns the k
// best, as an exact scan does.
func bruteForce(x *Index, q []float32, k int, f *match.Filter) []score.Result {
	qp := x.kern.PrepareQuery(make([]float32, x.kern.QueryLen()), q)
	all := []score.Result{}
	out := make([]float32, 1)
	for _, p := range x.parts {
		for s := 0; s < p.slots(); s++ {
			if p.isDead(s) || f != nil && !f.Match(p.ids[s], attrOf(p, s)) {
				continue
			}
			x.kern.Scan(qp, p.record(s, x.stride), out)
			var b, sc float32 = 0, 1
			if p.bias != nil {
				b = p.bias[s]
			}
			if p.scale != nil {
				sc = p.scale[s]
			}
			all = append(all, score.Result{ID: p.ids[s], Score: score.Ranked(x.adjust.Of(out[0], b, sc))})
		}
	}
	slices.SortFunc(all, score.CompareResults)
	return all[:min(k, len(all))]
}

func newPool(t testing.TB, workers int) *pool.Pool {
	p, err := pool.New(pool.Options{Workers: workers})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}
