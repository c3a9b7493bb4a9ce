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
// and without, is the same graph.
func TestReusedSelectionsChangeNothing(t *testing.T) {
	const dim = 100
	n := sized(9000, 1500)
	set, err := fixture.Generate("clustered", n, 1, dim)
	require.NoError(t, err)
	k, recs, adj := int8Records(t, n, dim, set.Row)
	stride := k.Stride()
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(7 + 3*i)
	}
	build := func(reuse bool) uint64 {
		was := reuseSelections
		reuseSelections = reuse
		defer func() { reuseSelections = was }()
		p, err := pool.New(pool.Options{Workers: 1})
		require.NoError(t, err)
		defer p.Close()
		g, err := New(k, score.AdjustScale, Config{M: 8, Seed: 3})
		require.NoError(t, err)
		for _, part := range [][2]int{{0, n / 3}, {n / 3, 2 * n / 3}, {2 * n / 3, n}} {
			lo, hi := part[0], part[1]
			require.NoError(t, g.Build(ids[lo:hi], recs[lo*stride:hi*stride], adj[lo:hi], nil, nil, p, true))
		}
		return g.Digest()
	}
	require.Equal(t, build(false), build(true))
}
