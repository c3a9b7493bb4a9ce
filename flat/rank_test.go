package flat

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
	"github.com/stretchr/testify/require"
)

// requireCeilings checks that every aligned chunk's bounds hold its
// records' times and importances, one bound per chunk.
func requireCeilings(t *testing.T, x *Index) {
	t.Helper()
	require.Len(t, x.newest, chunks(x.Len()))
	require.Len(t, x.most, chunks(x.Len()))
	for i := range x.ids {
		require.GreaterOrEqual(t, x.newest[i/chunk], x.times[i], "slot %d", i)
		require.GreaterOrEqual(t, x.most[i/chunk], x.imps[i], "slot %d", i)
	}
}

// bruteForceRanked scores every record, combines as r does and sorts.
func bruteForceRanked(x *Index, q []float32, k int, r *rank.Scorer) []score.Result {
	all := bruteForce(x, q, x.Len())
	for i := range all {
		a, _ := x.Attr(all[i].ID)
		all[i].Score = r.Score(all[i].Score, a.Time, a.Importance)
	}
	slices.SortFunc(all, score.CompareResults)
	return all[:min(k, len(all))]
}

// TestRankCeilingsFollowChanges keeps the chunk bounds through adds,
// removes (the last record moved into the hole), time and importance
// changes and a rebuild from parts, and checks that a ranked scan, which
// skips by them, still finds the exact combined top-k.
func TestRankCeilingsFollowChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 26))
	const dim = 64
	x, _ := newTestIndex(t, r, 3*chunk+17, dim, 0)
	ids := slices.Clone(x.ids)
	next := uint64(1 << 40)
	for step := range 2000 {
		id := ids[r.IntN(len(ids))]
		switch op := r.IntN(8); {
		case op < 3:
			require.True(t, x.SetTime(id, r.Int64N(2000)-1000))
		case op < 6:
			require.True(t, x.SetImportance(id, float32(r.Float64()*2-1)))
		case op == 6 && x.Len() > chunk/2:
			require.NoError(t, x.Remove(id))
			ids = slices.DeleteFunc(ids, func(v uint64) bool { return v == id })
		default:
			rec, _, _, _ := x.Entry(ids[0])
			a := match.Attr{Time: r.Int64N(2000) - 1000, Importance: float32(r.Float64())}
			require.NoError(t, x.Add(next, rec, 0, 1, a))
			ids = append(ids, next)
			next++
		}
		if step%100 == 0 {
			requireCeilings(t, x)
		}
	}
	requireCeilings(t, x)
	y, err := FromParts(x.kern, x.adjust, x.Parts())
	require.NoError(t, err)
	requireCeilings(t, y)

	scorer := rank.NewScorer(&rank.Params{Relevance: 1, Recency: 0.5, Importance: 0.3, Decay: math.Pow(0.5, 1.0/100), Now: 900})
	s := NewSearcher(1)
	for _, idx := range []*Index{x, y} {
		for range 5 {
			q := randomQuery(r, dim)
			s.SetRank(&scorer)
			got := search(idx, s, nil, 10, q)[0]
			require.Equal(t, bruteForceRanked(idx, q, 10, &scorer), got)
		}
	}
}
