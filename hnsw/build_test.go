package hnsw

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/stretchr/testify/require"
)

// TestReusedSelectionsChangeNothing: an Int8 graph built in three Builds,
// with the heuristic skipping the checks an earlier choice already made
// (and scoring the rest by column) and without, is the same graph, for
// every adjustment: the column's scores must be the row's, bit for bit.
func TestReusedSelectionsChangeNothing(t *testing.T) {
	const dim = 100
	n := sized(6000, 1200)
	k, recs, scale := fixtureInt8(t, "clustered", n, dim)
	stride := k.Stride()
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(7 + 3*i)
	}
	for _, adjust := range allAdjusts {
		adj, mul := adjustInputs(adjust, scale)
		build := func(reuse bool) uint64 {
			was := reuseSelections
			reuseSelections = reuse
			defer func() { reuseSelections = was }()
			p, err := pool.New(pool.Options{Workers: 1})
			require.NoError(t, err)
			defer p.Close()
			g, err := New(k, adjust, Config{M: 8, Seed: 3})
			require.NoError(t, err)
			for _, part := range [][2]int{{0, n / 3}, {n / 3, 2 * n / 3}, {2 * n / 3, n}} {
				lo, hi := part[0], part[1]
				var a, m []float32
				if adj != nil {
					a = adj[lo:hi]
				}
				if mul != nil {
					m = mul[lo:hi]
				}
				require.NoError(t, g.Build(ids[lo:hi], recs[lo*stride:hi*stride], a, m, nil, p, true))
			}
			return g.Digest()
		}
		require.Equal(t, build(false), build(true), "adjust %v", adjust)
	}
}

// TestInt8SelectsAsRows: the Int8 heuristic (the first kept node scoring
// the candidates by windows, the others gathered a few at a time, clean
// candidates scored by column) keeps what the one-by-one check (rowSelect)
// keeps, for every adjustment, for lists of a new node's size and of a
// full list, with and without clean marks.
func TestInt8SelectsAsRows(t *testing.T) {
	const dim = 48
	n := sized(3000, 800)
	k, recs, scale := fixtureInt8(t, "spectral", n, dim)
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(11 + 5*i)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, adjust := range allAdjusts {
		adj, mul := adjustInputs(adjust, scale)
		g, err := New(k, adjust, Config{M: 8, Seed: 3})
		require.NoError(t, err)
		require.NoError(t, g.Build(ids, recs, adj, mul, nil, nil, true))
		st := g.st.Load()
		s := g.scratch()
		for q := 0; q < n; q += max(1, n/100) {
			slot := uint32(q)
			qp, own, entries := g.constructionQuery(st, s, slot, r)
			cands := g.searchLayerLive(st, s, qp, own, entries, 0, slot, nil)
			for _, m := range []int{g.ownM0, g.maxM0} {
				want := g.rowSelect(st, s, cands, m, nil)
				s.marked = false
				require.Equal(t, want, slices.Clone(g.selectNeighbors(st, s, cands, m)), "adjust %v m %d", adjust, m)
				// A choice among part of the candidates is clean.
				var part []score.Entry
				for _, e := range cands {
					if r.IntN(3) > 0 {
						part = append(part, e)
					}
				}
				clean := slots(nil, g.rowSelect(st, s, part, m, nil))
				require.Equal(t, want, g.rowSelect(st, s, cands, m, clean), "the row check with marks")
				s.mark(st.cap, clean)
				got := slices.Clone(g.selectNeighbors(st, s, cands, m))
				s.marked = false
				require.Equal(t, want, got, "adjust %v m %d, %d clean", adjust, m, len(clean))
			}
		}
		g.release(s)
	}
}

// rowSelect is the Int8 heuristic checked one candidate at a time, each
// the query against every kept node (the clean ones only against those
// not clean): the reference selectNeighbors must match.
func (g *Graph) rowSelect(st *storage, s *Searcher, cands []score.Entry, m int, clean []uint32) []score.Entry {
	var sel []score.Entry
	var kept []uint32
	q := make([]float32, g.kern.QueryLen())
	for _, e := range cands {
		if len(sel) >= m {
			break
		}
		qp, own := g.prepare(st, s, e.Slot, q)
		good := true
		for _, k := range kept {
			if contains(clean, e.Slot) && contains(clean, k) {
				continue
			}
			out := []float32{0}
			g.kern.ScanIDs(qp, st.bytes, g.bstride, []uint32{k}, out)
			g.adjustScores(st, []uint32{k}, out, own)
			if out[0] > e.Score {
				good = false
				break
			}
		}
		if good {
			sel, kept = append(sel, e), append(kept, e.Slot)
		}
	}
	return sel
}
