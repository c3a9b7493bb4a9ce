package hnsw

import (
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
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
	set, err := fixture.Generate("clustered", n, 1, dim)
	require.NoError(t, err)
	k, recs, scale := int8Records(t, n, dim, set.Row)
	stride := k.Stride()
	ids := make([]uint64, n)
	terms := make([]float32, n) // subtracted terms, as norms would be
	for i := range ids {
		ids[i] = uint64(7 + 3*i)
		terms[i] = float32(i%97) / 193
	}
	for _, adjust := range []score.Adjust{score.AdjustNone, score.AdjustScale, score.AdjustSubtract, score.AdjustScaleSubtract} {
		var adj, mul []float32
		switch adjust {
		case score.AdjustScale:
			adj = scale
		case score.AdjustSubtract:
			adj = terms
		case score.AdjustScaleSubtract:
			adj, mul = terms, scale
		}
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
