package astral

import (
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// recallAgainst is the share of want's ids that got finds too.
func recallAgainst(want, got []Result) float64 {
	ids := map[uint64]bool{}
	for _, r := range want {
		ids[r.ID] = true
	}
	hit := 0
	for _, r := range got {
		if ids[r.ID] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

func TestHNSWIndexRecall(t *testing.T) {
	// Short: 1,000 records (-race and qemu spent minutes building 4,000).
	set, err := fixture.Generate("clustered", sized(4000, 1000), 50, 64)
	require.NoError(t, err)
	rt := newRuntime(t, 1)
	exact, err := NewIndex(rt, WithDim(64), WithKind(KindFlat))
	require.NoError(t, err)
	graph, err := NewIndex(rt, WithDim(64), WithKind(KindHNSW), WithEfSearch(200))
	require.NoError(t, err)
	ids := seqIDs(0, set.N())
	require.NoError(t, exact.Add(ids, set.Base))
	require.NoError(t, graph.Add(ids, set.Base))
	require.Equal(t, KindHNSW, graph.Stats().Kind)

	sum := 0.0
	counts := make([]int, set.NQ())
	batch, err := graph.QueryBatch(nil, counts, set.Queries, 10)
	require.NoError(t, err)
	for i := 0; i < set.NQ(); i++ {
		want, err := exact.Query(nil, set.Query(i), 10)
		require.NoError(t, err)
		got, err := graph.Query(nil, set.Query(i), 10)
		require.NoError(t, err)
		require.Equal(t, got, batch[i*10:i*10+counts[i]], "batch = single")
		sum += recallAgainst(want, got)
		for j := range got { // scores are the exact scores of those records
			if j < len(want) && got[j].ID == want[j].ID {
				require.Equal(t, want[j].Score, got[j].Score)
			}
		}
	}
	require.GreaterOrEqual(t, sum/float64(set.NQ()), 0.98)

	// Removes leave results at once.
	top, _ := graph.Query(nil, set.Query(0), 1)
	require.NoError(t, graph.Remove(top[0].ID))
	again, _ := graph.Query(nil, set.Query(0), 10)
	for _, r := range again {
		require.NotEqual(t, top[0].ID, r.ID)
	}
	require.ErrorIs(t, graph.Remove(top[0].ID), ErrNotFound)
	require.ErrorIs(t, graph.Add([]uint64{1}, set.Row(1)), ErrDuplicateID)
	require.Equal(t, set.N()-1, graph.Len())
}

// TestAutoGrowsIntoGraph feeds an auto index one vector at a time past its
// flat limit: it answers every query along the way and switches kind
// exactly once, to HNSW. The limit is lowered: the switch is the same code
// at any limit, and a default index carries DefaultFlatLimitBytes (checked
// here). The default's own size (60,000 × 384 past 16 MiB: minutes of
// graph building on 2 cores) runs in make test-long.
func TestAutoGrowsIntoGraph(t *testing.T) {
	def, err := NewIndex(nil, WithDim(8))
	require.NoError(t, err)
	require.Equal(t, int64(DefaultFlatLimitBytes), def.Config().FlatLimitBytes)
	n, dim, limit := 12000, 128, int64(8000*128)
	switch {
	case testsize.Long():
		n, dim, limit = 60000, 384, DefaultFlatLimitBytes
	case testing.Short():
		n, dim, limit = 1500, 64, 1000*64
	}
	set, err := fixture.Generate("spectral", n, 20, dim)
	require.NoError(t, err)
	x, err := NewIndex(newRuntime(t, 1), WithDim(dim), WithFlatLimitBytes(limit))
	require.NoError(t, err)
	kinds := []Kind{x.Stats().Kind}
	dst := make([]Result, 0, 10)
	for i := 0; i < n; i++ {
		require.NoError(t, x.Add([]uint64{uint64(i)}, set.Row(i)))
		if i%97 == 0 || i == n-1 {
			res, err := x.Query(dst, set.Query(i%set.NQ()), 10)
			require.NoError(t, err)
			require.Len(t, res, min(10, i+1), "after %d adds", i+1)
		}
		if k := x.Stats().Kind; k != kinds[len(kinds)-1] {
			kinds = append(kinds, k)
		}
	}
	x.Wait()
	if k := x.Stats().Kind; k != kinds[len(kinds)-1] {
		kinds = append(kinds, k)
	}
	require.Equal(t, []Kind{KindFlat, KindHNSW}, kinds, "one switch, flat to HNSW")
	require.Equal(t, n, x.Len(), "no vector lost across the switch")
	res, err := x.Query(nil, set.Row(n/2), 1)
	require.NoError(t, err)
	require.Equal(t, uint64(n/2), res[0].ID, "a stored vector finds itself")
}
