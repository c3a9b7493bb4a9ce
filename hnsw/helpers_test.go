package hnsw

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/astral-engine/astral/kernel"
	"github.com/stretchr/testify/require"
)

// data is a fixture encoded as the astral layer stores it: records stride
// apart with their adjust values, and queries laid out for the metric.
type data struct {
	k      *kernel.Kernel
	adjust score.Adjust
	ids    []uint64
	recs   []byte
	adj    []float32
	qps    [][]float32
}

// sized picks a test size: the short one under -short, which make test
// gives the slow configurations (-race, -tags noasm, qemu); see
// internal/testsize.
func sized(normal, short int) int { return testsize.Sized(normal, short) }

func (d *data) n() int           { return len(d.ids) }
func (d *data) rec(i int) []byte { return d.recs[i*d.k.Stride() : (i+1)*d.k.Stride()] }

var fixtureCache sync.Map

// load generates fixture name (n × dim, nq queries) for a metric: cosine
// (AdjustScale), l2 (AdjustSubtract) or dot (AdjustNone). Ids are 1000+i so
// they differ from slots.
func load(t testing.TB, name string, n, nq, dim int, adjust score.Adjust) *data {
	type key struct {
		name       string
		n, nq, dim int
		adjust     score.Adjust
	}
	kk := key{name, n, nq, dim, adjust}
	if d, ok := fixtureCache.Load(kk); ok {
		return d.(*data)
	}
	set, err := fixture.Generate(name, n, nq, dim)
	require.NoError(t, err)
	k, err := kernel.New(nil, dim, kernel.E5M2)
	require.NoError(t, err)
	d := &data{k: k, adjust: adjust, recs: make([]byte, n*k.Stride()), adj: make([]float32, n)}
	dec, qp, out := make([]float32, dim), make([]float32, k.QueryLen()), make([]float32, 1)
	for i := 0; i < n; i++ {
		d.ids = append(d.ids, uint64(1000+i))
		row := set.Row(i)
		if adjust == score.AdjustNone {
			row = scaled(row, 1+float32(i%7)/4) // unnormalized, so dot differs from cosine
		}
		rec := d.rec(i)
		kernel.EncodeE5M2Slice(rec, row)
		// |x|² of the stored record, by the kernel, as astral computes it.
		kernel.DecodeE5M2Slice(dec, rec[:dim])
		k.Scan(kernel.LayoutQuery(qp, dec), rec, out)
		switch adjust {
		case score.AdjustScale:
			d.adj[i] = float32(1 / math.Sqrt(float64(out[0])))
		case score.AdjustSubtract:
			d.adj[i] = out[0]
		}
	}
	if adjust == score.AdjustNone {
		d.adj = nil
	}
	for j := 0; j < nq; j++ {
		q := set.Query(j)
		if adjust == score.AdjustSubtract {
			q = scaled(q, 2) // score 2q·x − |x|²
		}
		d.qps = append(d.qps, kernel.LayoutQuery(make([]float32, k.QueryLen()), q))
	}
	fixtureCache.Store(kk, d)
	return d
}

func scaled(v []float32, f float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * f
	}
	return out
}

// exact is flat search over the same records: the truth graph results are
// measured against (recall_vs_exact_quantized), restricted to live ids.
func exact(t testing.TB, d *data, live func(i int) bool, k int) [][]score.Result {
	x := flat.New(d.k, d.adjust)
	for i := 0; i < d.n(); i++ {
		if live == nil || live(i) {
			a := float32(0)
			if d.adj != nil {
				a = d.adj[i]
			}
			require.NoError(t, x.Add(d.ids[i], d.rec(i), a, 1, match.Attr{}))
		}
	}
	s := flat.NewSearcher(1)
	out := make([][]score.Result, len(d.qps))
	for j, qp := range d.qps {
		copy(s.QueryBuffer(x, 1), qp)
		res, counts := make([]score.Result, k), make([]int, 1)
		x.Search(s, nil, 1, k, res, counts)
		out[j] = res[:counts[0]]
	}
	return out
}

// recall is the mean fraction of truth's ids each search finds.
func recall(t testing.TB, g *Graph, d *data, truth [][]score.Result, k, ef int) float64 {
	s := NewSearcher()
	hit, total := 0, 0
	var res []score.Result
	for j, qp := range d.qps {
		res = g.Search(s, qp, k, ef, res)
		want := map[uint64]bool{}
		for _, r := range truth[j] {
			want[r.ID] = true
		}
		for _, r := range res {
			if want[r.ID] {
				hit++
			}
		}
		total += len(truth[j])
	}
	return float64(hit) / float64(total)
}

func newGraph(t testing.TB, d *data, cfg Config) *Graph {
	g, err := New(d.k, d.adjust, cfg)
	require.NoError(t, err)
	return g
}

// checkResults checks one result list: best first, no repeated id, and each
// score the exact score of that id's record.
func checkResults(t testing.TB, d *data, qp []float32, res []score.Result) {
	t.Helper()
	seen := map[uint64]bool{}
	for i, r := range res {
		require.False(t, seen[r.ID], "id %d twice", r.ID)
		seen[r.ID] = true
		if i > 0 {
			p := res[i-1]
			require.True(t, p.Score > r.Score || (p.Score == r.Score && p.ID < r.ID), "order at %d", i)
		}
		require.Equal(t, math.Float32bits(exactScore(d, qp, int(r.ID-1000))), math.Float32bits(r.Score), "score of %d", r.ID)
	}
}

func exactScore(d *data, qp []float32, i int) float32 {
	out := make([]float32, 1)
	d.k.Scan(qp, d.rec(i), out)
	switch d.adjust {
	case score.AdjustScale:
		kernel.Mul(out, d.adj[i:])
	case score.AdjustSubtract:
		kernel.Sub(out, d.adj[i:])
	}
	return out[0]
}

// rec2query lays out stored record i as a query: decoded and, for cosine,
// normalized by its adjust value.
func (d *data) rec2query(i int) []float32 {
	dec := make([]float32, d.k.QueryLen())
	for c, b := range d.rec(i) {
		dec[c] = kernel.DecodeE5M2(b)
		if d.adjust == score.AdjustScale {
			dec[c] *= d.adj[i]
		}
	}
	return kernel.LayoutQuery(make([]float32, d.k.QueryLen()), dec)
}

// int8Records encodes n rows of dim components (row(i)) as Int8 records,
// stride apart, with their multipliers.
func int8Records(tb testing.TB, n, dim int, row func(i int) []float32) (*kernel.Kernel, []byte, []float32) {
	k, err := kernel.New(nil, dim, kernel.Int8)
	require.NoError(tb, err)
	stride := k.Stride()
	recs, adj := make([]byte, n*stride), make([]float32, n)
	for i := range n {
		adj[i] = kernel.Encode(kernel.Int8, recs[i*stride:(i+1)*stride], row(i))
	}
	return k, recs, adj
}

// allAdjusts lists every adjustment a graph can apply.
var allAdjusts = []score.Adjust{score.AdjustNone, score.AdjustScale, score.AdjustSubtract, score.AdjustScaleSubtract}

// adjustInputs are Build's adjust values and multipliers under adjust:
// the records' scales, subtracted terms (as norms would be), or both.
func adjustInputs(adjust score.Adjust, scale []float32) (adj, mul []float32) {
	terms := make([]float32, len(scale))
	for i := range terms {
		terms[i] = float32(i%97) / 193
	}
	switch adjust {
	case score.AdjustScale:
		return scale, nil
	case score.AdjustSubtract:
		return terms, nil
	case score.AdjustScaleSubtract:
		return terms, scale
	}
	return nil, nil
}

// constructionQuery lays out slot's record as an insert's query and
// starts s's search from one random node: its query, own term and entry.
func (g *Graph) constructionQuery(st *storage, s *Searcher, slot uint32, r *rand.Rand) ([]float32, float32, []score.Entry) {
	g.buffers(s)
	qp, own := g.prepare(st, s, slot, s.q)
	s.begin(st.cap, g.maxM0, g.cfg.EfConstruction)
	return qp, own, []score.Entry{g.score1(st, s, qp, own, uint32(r.IntN(st.n)))}
}

// fixtureInt8 is n rows of a fixture as Int8 records.
func fixtureInt8(tb testing.TB, name string, n, dim int) (*kernel.Kernel, []byte, []float32) {
	set, err := fixture.Generate(name, n, 1, dim)
	require.NoError(tb, err)
	return int8Records(tb, n, dim, set.Row)
}
