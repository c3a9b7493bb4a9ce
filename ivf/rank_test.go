package ivf

import (
	"math"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// rankedBruteForce ranks every live record by r from bruteForce's exact
// similarities and returns the k best.
func rankedBruteForce(x *Index, q []float32, k int, r *rank.Scorer) []score.Result {
	all := bruteForce(x, q, x.Len(), nil)
	for i := range all {
		a, _ := x.Attr(all[i].ID)
		all[i].Score = score.Ranked(r.Score(all[i].Score, a.Time, a.Importance))
	}
	slices.SortFunc(all, score.CompareResults)
	return all[:min(k, len(all))]
}

// checkBounds checks that every partition's bounds hold for its slots.
func checkBounds(t *testing.T, x *Index) {
	t.Helper()
	for pi, p := range x.parts {
		require.Len(t, p.times, p.slots(), "partition %d", pi)
		require.Len(t, p.imps, p.slots(), "partition %d", pi)
		for s := range p.ids {
			require.LessOrEqual(t, p.times[s], p.newest, "partition %d slot %d", pi, s)
			require.LessOrEqual(t, p.imps[s], p.most, "partition %d slot %d", pi, s)
		}
	}
}

// TestRankColumnsFollowWrites: times and importances stay with their
// records through adds, splits, Touch-like updates, removes and
// compaction, and a load from parts; the partition bounds hold; ranked
// searches probing every partition equal a brute-force ranking, and
// probing a few still return records with their exact combined scores.
func TestRankColumnsFollowWrites(t *testing.T) {
	n := testsize.Sized(4000, 1500)
	d := newData(t, n, 4, 64, score.AdjustScale)
	x, err := New(d.kern, d.adjust, Config{Dim: 64, NList: 6, Seed: 5, SplitAt: n / 8})
	require.NoError(t, err)
	half := n / 2
	require.NoError(t, Build(x, d.recs[:half*x.stride], d.ids[:half], d.bias[:half], nil, d.tags[:half], d.owners[:half], nil))
	times, imps := map[uint64]int64{}, map[uint64]float32{}
	for i := half; i < n; i++ {
		a := match.Attr{Time: int64(i * 37 % 1000), Importance: float32(i%13) / 4}
		times[d.ids[i]], imps[d.ids[i]] = a.Time, a.Importance
		require.NoError(t, x.Add(d.ids[i], d.recs[i*x.stride:(i+1)*x.stride], d.bias[i], 1, a))
	}
	require.Greater(t, x.Stats().Splits, 0, "the adds split partitions")
	for i := 0; i < half; i++ {
		id := d.ids[i]
		times[id], imps[id] = int64(i%500), float32(i%7)-2
		require.True(t, x.SetTime(id, times[id]))
		require.True(t, x.SetImportance(id, imps[id]))
	}
	for i := 0; i < n; i += 3 {
		require.NoError(t, x.Remove(d.ids[i]))
		delete(times, d.ids[i])
	}
	require.False(t, x.SetTime(d.ids[0], 1), "removed")
	checkBounds(t, x)
	parts := x.Parts()
	cp := Parts{Centroids: slices.Clone(parts.Centroids), SplitAt: parts.SplitAt}
	for _, p := range parts.Partitions {
		cp.Partitions = append(cp.Partitions, PartitionParts{Records: slices.Clone(p.Records), IDs: slices.Clone(p.IDs),
			Adjust: slices.Clone(p.Adjust), Tags: slices.Clone(p.Tags), Owners: slices.Clone(p.Owners),
			Tombstones: slices.Clone(p.Tombstones), Times: slices.Clone(p.Times), Imps: slices.Clone(p.Imps)})
	}
	y, err := New(d.kern, d.adjust, x.Config())
	require.NoError(t, err)
	require.NoError(t, FromParts(y, cp))
	checkBounds(t, y)
	for _, z := range []*Index{x, y} {
		for id, tm := range times {
			a, ok := z.Attr(id)
			require.True(t, ok)
			require.Equal(t, tm, a.Time, "id %d", id)
			require.Equal(t, imps[id], a.Importance, "id %d", id)
		}
	}
	p := rank.Params{Relevance: 1, Recency: 0.5, Importance: 0.25, Decay: math.Pow(0.5, 1.0/100), Now: 1000}
	r := rank.NewScorer(&p)
	s := NewSearcher(1)
	s.SetRank(&r)
	for i := 0; i < 4; i++ {
		q := d.query(i)
		want := rankedBruteForce(x, q, 10, &r)
		require.Equal(t, want, search(x, s, nil, 10, x.NList(), nil, q)[0], "query %d", i)
		require.Equal(t, want, search(y, s, nil, 10, x.NList(), nil, q)[0], "loaded: query %d", i)
		all := rankedBruteForce(x, q, x.Len(), &r)
		exact := map[uint64]float32{}
		for _, e := range all {
			exact[e.ID] = e.Score
		}
		for _, e := range search(x, s, nil, 10, 1, nil, q)[0] {
			require.Equal(t, math.Float32bits(exact[e.ID]), math.Float32bits(e.Score), "query %d nprobe 1 id %d", i, e.ID)
		}
	}

	bad := cp
	bad.Partitions = slices.Clone(cp.Partitions)
	bad.Partitions[0].Times = bad.Partitions[0].Times[1:]
	z, err := New(d.kern, d.adjust, x.Config())
	require.NoError(t, err)
	require.ErrorIs(t, FromParts(z, bad), ErrCorrupt)
}
