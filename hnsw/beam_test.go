package hnsw

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
	"github.com/stretchr/testify/require"
)

// TestBeamWalksAsTheHeaps: from the same entries, the construction
// search's beam keeps the nodes the heap search keeps, in the same order,
// with deleted nodes on the way, ties broken by id, and small and large ef.
func TestBeamWalksAsTheHeaps(t *testing.T) {
	const dim = 32
	n := sized(3000, 800)
	set, err := fixture.Generate("clustered", n, 1, dim)
	require.NoError(t, err)
	k, err := kernel.New(nil, dim, kernel.Int8)
	require.NoError(t, err)
	stride := k.Stride()
	r := rand.New(rand.NewPCG(5, 6))
	recs, adj, ids := make([]byte, n*stride), make([]float32, n), make([]uint64, n)
	for i := range n {
		row := set.Row(i)
		if i%10 == 9 { // an exact copy of an earlier row: equal scores
			row = set.Row(r.IntN(i))
		}
		adj[i] = kernel.Encode(kernel.Int8, recs[i*stride:(i+1)*stride], row)
		ids[i] = r.Uint64() >> 1 // ids out of slot order
	}
	for _, efc := range []int{4, 40, 200} {
		g, err := New(k, score.AdjustScale, Config{M: 8, EfConstruction: efc, Seed: 3})
		require.NoError(t, err)
		require.NoError(t, g.Build(ids, recs, adj, nil, nil, nil, true))
		for i := 0; i < n; i += 6 {
			require.NoError(t, g.Delete(ids[i]))
		}
		st := g.st.Load()
		s := g.scratch()
		for q := 1; q < n; q += max(1, n/150) {
			slot := uint32(q)
			g.buffers(s)
			qp, own := g.prepare(st, s, slot, s.q)
			s.begin(st.cap, g.maxM0, g.cfg.EfConstruction)
			entries := []score.Entry{g.score1(st, s, qp, own, uint32(r.IntN(n)))}
			for _, keep := range []bool{false, true} {
				g.searchLayer(st, s, qp, own, entries, 0, slot, keep)
				want := slices.Clone(s.res.Sorted())
				g.searchBuild(st, s, qp, own, entries, 0, slot, keep)
				got := s.beam.appendLive(g, st, nil)
				require.Equal(t, want, got, "efc %d, query slot %d, deleted kept %v", efc, q, keep)
			}
		}
		g.release(s)
	}
}

func TestScoreKeyOrdersAsScores(t *testing.T) {
	inf := float32(math.Inf(1))
	vals := []float32{-inf, -3.5, -1e-40, float32(math.Copysign(0, -1)), 0, 1e-40, 1, 2.25, inf}
	for i, a := range vals {
		require.Equal(t, math.Float32bits(a+0), math.Float32bits(keyScore(scoreKey(a))))
		for _, b := range vals[i:] {
			require.Equal(t, a < b, scoreKey(a) < scoreKey(b), "%v %v", a, b)
			require.Equal(t, a == b, scoreKey(a) == scoreKey(b), "%v %v", a, b)
		}
	}
}
