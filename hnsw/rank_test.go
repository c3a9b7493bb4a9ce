package hnsw

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
)

// rankAttrs are testAttrs with the bench fixture's spread of times (a few
// recent, most old, up to now 100000) and skewed importances.
func rankAttrs(d *data, seed uint64) []match.Attr {
	r := rand.New(rand.NewPCG(seed, 3))
	attrs := testAttrs(d)
	for i := range attrs {
		attrs[i].Time = 100000 - int64(math.Pow(r.Float64(), 3)*100000)
		attrs[i].Importance = float32(math.Pow(r.Float64(), 4))
	}
	return attrs
}

var testRanks = []rank.Params{
	{Relevance: 1, Recency: 1, Importance: 1, Decay: math.Pow(0.5, 1.0/1000), Now: 100000},
	{Relevance: 1, Recency: 3, Decay: 0.999, Now: 100000},
	{Relevance: 0.5, Importance: 2},
}

// rankedBoth runs every query under every ranking and filter through the
// order lists and through the full sweep and requires the same ids and
// score bits.
func rankedBoth(t *testing.T, g *Graph, d *data, what string) {
	t.Helper()
	s := NewSearcher()
	filters := []*match.Filter{nil, {AnyTags: 1 << 8}, {Owner: 2}}
	var viaOrder, viaSweep []score.Result
	for ri := range testRanks {
		sc := rank.NewScorer(&testRanks[ri])
		for fi, f := range filters {
			for qi, qp := range d.qps {
				g.noRankOrder = false
				viaOrder = g.SearchRanked(s, qp, 10, 32, f, &sc, viaOrder)
				g.noRankOrder = true
				viaSweep = g.SearchRanked(s, qp, 10, 32, f, &sc, viaSweep)
				require.Equal(t, viaSweep, viaOrder, "%s: rank %d, filter %d, query %d", what, ri, fi, qi)
				require.NotEmpty(t, viaOrder)
			}
		}
	}
	g.noRankOrder = false
}

// TestRankOrderMatchesSweep: ranked searches through the time and
// importance lists give exactly the full sweep's results when the order
// is fresh, after touches and importance changes (noted dirty), inserts
// (the tail), deletes, more changes than the order notes (overflow) and
// Compact (renumbered slots: the order is dropped and rebuilt).
func TestRankOrderMatchesSweep(t *testing.T) {
	n := sized(3000, 700)
	d := load(t, "clustered", n, 4, 32, score.AdjustScale)
	attrs := rankAttrs(d, 1)
	g := newGraph(t, d, Config{M: 8, EfConstruction: 32})
	first := n * 3 / 4
	require.NoError(t, g.Build(d.ids[:first], d.recs[:first*d.k.Stride()], d.adj[:first], nil, attrs[:first], nil, true))
	g.BuildRankOrder()
	require.NotNil(t, g.order.Load())
	rankedBoth(t, g, d, "fresh")

	r := rand.New(rand.NewPCG(7, 8))
	for i := range 40 {
		id := d.ids[r.IntN(first)]
		require.True(t, g.SetTime(id, 100000-int64(i)))
		require.True(t, g.SetImportance(d.ids[r.IntN(first)], 1+float32(i)/8))
	}
	require.NotZero(t, g.order.Load().ndirty.Load())
	for i := first; i < n; i++ {
		require.NoError(t, g.Insert(d.ids[i], d.rec(i), d.adj[i], 1, attrs[i]))
	}
	for i := 0; i < n; i += 11 {
		require.NoError(t, g.Delete(d.ids[i]))
	}
	o := g.order.Load()
	g.orderBusy.Store(true) // holds off the rebuild the tail's size asks for
	rankedBoth(t, g, d, "dirty, tail and deletes")
	require.True(t, o == g.order.Load(), "the order with its dirty nodes and tail was used")
	g.orderBusy.Store(false)

	for i := 1; i < n; i += 11 {
		g.SetTime(d.ids[i], 99990)
	}
	waitOrder(g)
	rankedBoth(t, g, d, "after the background rebuild")
	for i := 1; i < n; i += 2 {
		g.SetImportance(d.ids[i], float32(i%17)/4)
	}
	require.True(t, o.overflow.Load() || g.order.Load() != o)
	rankedBoth(t, g, d, "overflowed")

	waitOrder(g)
	g.Compact(newTestPool(t, 1))
	require.Nil(t, g.order.Load(), "Compact drops the order")
	rankedBoth(t, g, d, "compacted, no order")
	waitOrder(g)
	g.BuildRankOrder()
	rankedBoth(t, g, d, "compacted, rebuilt")
}

// waitOrder waits for a background build to finish.
func waitOrder(g *Graph) {
	g.orderMu.Lock()
	g.orderMu.Unlock()
	for g.orderBusy.Load() {
		g.orderMu.Lock()
		g.orderMu.Unlock()
	}
}

// TestRankOrderAllocsAndRace: a ranked search through the order allocates
// nothing; ranked searches beside SetTime, SetImportance, Insert and
// background rebuilds (under -race) return valid results (best first, no
// id twice, no score past the most any node can reach), and the order and
// the sweep agree once the writers stop.
func TestRankOrderAllocsAndRace(t *testing.T) {
	n := sized(2000, 600)
	d := load(t, "clustered", n, 4, 32, score.AdjustScale)
	attrs := rankAttrs(d, 2)
	g := newGraph(t, d, Config{M: 8, EfConstruction: 32})
	half := n / 2
	require.NoError(t, g.Build(d.ids[:half], d.recs[:half*d.k.Stride()], d.adj[:half], nil, attrs[:half], nil, true))
	g.BuildRankOrder()
	s := NewSearcher()
	sc := rank.NewScorer(&testRanks[0])
	dst := make([]score.Result, 0, 10)
	g.SearchRanked(s, d.qps[0], 10, 32, nil, &sc, dst)
	require.Zero(t, testing.AllocsPerRun(20, func() { dst = g.SearchRanked(s, d.qps[0], 10, 32, nil, &sc, dst) }))

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(9, 9))
		for i := half; i < n; i++ {
			require.NoError(t, g.Insert(d.ids[i], d.rec(i), d.adj[i], 1, attrs[i]))
			g.SetTime(d.ids[r.IntN(i)], 100000-int64(r.IntN(50)))
			g.SetImportance(d.ids[r.IntN(i)], r.Float32()*2)
		}
	}()
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewSearcher()
			var res []score.Result
			for i := range sized(300, 40) {
				res = g.SearchRanked(s, d.qps[(i+w)%len(d.qps)], 10, 32, nil, &sc, res)
				require.Len(t, res, 10)
				seen := map[uint64]bool{}
				for j, e := range res {
					require.False(t, seen[e.ID])
					seen[e.ID] = true
					if j > 0 {
						require.False(t, e.Better(res[j-1]), "best first")
					}
					// Similarity at most 1, recency 1, importance 2.
					require.LessOrEqual(t, e.Score, sc.Ceiling(1.001, 100000, 2))
				}
			}
		}()
	}
	wg.Wait()
	waitOrder(g)
	rankedBoth(t, g, d, "after concurrent writes")
}
