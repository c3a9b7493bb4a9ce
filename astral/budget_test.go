package astral

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// budgetData is newScoped's data sized for kind: a flat index large
// enough to split between four participants (64 KiB of records each), a
// graph small enough to build quickly under the race detector.
func budgetData(kind Kind, seed uint64) *scoped {
	if kind == KindFlat {
		return newScoped(sized(8000, 4200), 64, seed)
	}
	return newScoped(sized(4000, 1500), 64, seed)
}

// budgetThreads are the worker counts a test runs kind with: every one
// from 0 to 3 for flat, whose split they change; fewer for a graph,
// whose walk runs on the caller (only its exact plans split).
func budgetThreads(kind Kind) []int {
	if kind == KindFlat {
		return []int{0, 1, 2, 3}
	}
	return []int{0, 2}
}

// budgetCases are a query of each plan over newScoped's data.
func budgetCases(s *scoped) []struct {
	name string
	f    Filter
} {
	allow := make([]uint64, 0, 300)
	for i := 0; i < len(s.ids); i += len(s.ids) / 300 {
		allow = append(allow, s.ids[i])
	}
	return []struct {
		name string
		f    Filter
	}{
		{"plain", Filter{}},
		{"tags", Filter{AllTags: 1}},
		{"rare-tag", Filter{AllTags: 1 << 2}},
		{"owner", Filter{Owner: 101}},
		{"allow", Filter{Allow: allow, NoTags: 1 << 3}},
		{"deny", Filter{Deny: s.ids[:50]}},
	}
}

// TestQueryWithinGenerousBudgetIsExact: a budget that cannot run out gives
// QueryWith's ids, score bits, order and plan, reported complete, for
// every plan, thread count and index kind.
func TestQueryWithinGenerousBudgetIsExact(t *testing.T) {
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		s := budgetData(kind, 3)
		qs := randomVectors(rand.New(rand.NewPCG(9, 9)), 8, s.dim)
		for _, threads := range budgetThreads(kind) {
			x := s.index(t, newRuntime(t, threads), WithKind(kind))
			for _, c := range budgetCases(s) {
				for i := range 8 {
					q := qs[i*s.dim : (i+1)*s.dim]
					o := QueryOptions{K: 10, Filter: c.f}
					if i%2 == 1 { // ranked by importance too (records' importance 0 here, times 0)
						o.Rank = Rank{Relevance: 1, Recency: 0.5, Importance: 0.25, Decay: 0.99, Now: 100}
					}
					want, plan, err := x.QueryWith(nil, q, o)
					require.NoError(t, err)
					got, cov, err := x.QueryWithin(nil, q, o, time.Hour)
					require.NoError(t, err)
					what := []any{"%v threads %d %s query %d", kind, threads, c.name, i}
					require.Equal(t, want, got, what...)
					require.Equal(t, Coverage{Complete: true, Covered: 1, Plan: plan}, cov, what...)
				}
			}
		}
	}
}

// TestQueryWithinTinyBudget: a budget that has run out before the search
// begins returns at once with a valid answer: sorted, each result a
// stored record with its true score, reported incomplete.
func TestQueryWithinTinyBudget(t *testing.T) {
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		s := budgetData(kind, 4)
		qs := randomVectors(rand.New(rand.NewPCG(10, 9)), 4, s.dim)
		var all [][]Result // per case and query: every match, scored
		for ti, threads := range budgetThreads(kind) {
			x := s.index(t, newRuntime(t, threads), WithKind(kind))
			for ci, c := range budgetCases(s) {
				for i := range 4 {
					q := qs[i*s.dim : (i+1)*s.dim]
					if ti == 0 {
						ref, _, err := x.QueryWith(nil, q, QueryOptions{K: MaxK, Filter: c.f})
						require.NoError(t, err)
						all = append(all, ref)
					}
					ref := all[ci*4+i]
					got, cov, err := x.QueryWithin(nil, q, QueryOptions{K: 10, Filter: c.f}, time.Nanosecond)
					require.NoError(t, err)
					what := []any{"%v threads %d %s query %d", kind, threads, c.name, i}
					requireValidSubset(t, ref, got, what)
					if len(ref) > 0 {
						require.False(t, cov.Complete, what...)
					}
					require.GreaterOrEqual(t, cov.Covered, 0.0, what...)
					require.Less(t, cov.Covered, 1.0, what...)
				}
			}
		}
	}
}

// requireValidSubset checks that got is sorted best first (ties by id)
// and that each result is in all (every matching record's true score)
// with its score bits.
func requireValidSubset(t *testing.T, all, got []Result, what []any) {
	t.Helper()
	scores := make(map[uint64]float32, len(all))
	for _, r := range all {
		scores[r.ID] = r.Score
	}
	for i, r := range got {
		want, ok := scores[r.ID]
		require.True(t, ok, what...)
		require.Equal(t, math.Float32bits(want), math.Float32bits(r.Score), what...)
		if i > 0 {
			p := got[i-1]
			require.True(t, p.Score > r.Score || p.Score == r.Score && p.ID < r.ID, what...)
		}
	}
	require.True(t, slices.IsSortedFunc(got, func(a, b Result) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return int(a.ID) - int(b.ID)
	}), what...)
}

// TestQueryWithinCoverageRises: on average over queries, a longer budget
// covers at least as much; the extremes are fixed (no work, all of it).
func TestQueryWithinCoverageRises(t *testing.T) {
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		s := budgetData(kind, 5)
		qs := randomVectors(rand.New(rand.NewPCG(11, 9)), 16, s.dim)
		x := s.index(t, newRuntime(t, 1), WithKind(kind))
		var prev float64
		for _, b := range []time.Duration{time.Nanosecond, 50 * time.Microsecond, time.Hour} {
			sum := 0.0
			for i := range 16 {
				_, cov, err := x.QueryWithin(nil, qs[i*s.dim:(i+1)*s.dim], QueryOptions{K: 10}, b)
				require.NoError(t, err)
				sum += cov.Covered
			}
			mean := sum / 16
			require.GreaterOrEqual(t, mean, prev, "%v budget %v", kind, b)
			prev = mean
		}
		require.Equal(t, 1.0, prev)
	}
}

func TestQueryWithinRefusesBadBudget(t *testing.T) {
	s := newScoped(100, 8, 6)
	x := s.index(t, nil)
	for _, b := range []time.Duration{0, -time.Millisecond} {
		res, _, err := x.QueryWithin(make([]Result, 10), s.vecs[:8], QueryOptions{K: 10}, b)
		require.ErrorIs(t, err, ErrInvalidArgument)
		require.Empty(t, res)
	}
	_, _, err := x.QueryWithin(nil, s.vecs[:7], QueryOptions{K: 10}, time.Second)
	require.ErrorIs(t, err, ErrDimension)
	_, _, err = x.QueryWithin(nil, s.vecs[:8], QueryOptions{K: 0}, time.Second)
	require.ErrorIs(t, err, ErrInvalidArgument)
}

// TestQueryWithinAllocatesNothing: budgeted queries, cut short or whole,
// allocate nothing once warm.
func TestQueryWithinAllocatesNothing(t *testing.T) {
	testsize.SkipUnderRace(t, "allocation counts are the plain build's; the determinism tests run these queries under -race")
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		s := budgetData(kind, 7)
		x := s.index(t, newRuntime(t, 1), WithKind(kind))
		dst := make([]Result, 10)
		q := s.vecs[:64]
		for _, c := range budgetCases(s) {
			for _, b := range []time.Duration{time.Nanosecond, 20 * time.Microsecond, time.Hour} {
				o := QueryOptions{K: 10, Filter: c.f}
				_, _, _ = x.QueryWithin(dst, q, o, b)
				require.Zero(t, testing.AllocsPerRun(50, func() { _, _, _ = x.QueryWithin(dst, q, o, b) }), "%v %s budget %v", kind, c.name, b)
			}
		}
	}
}

// TestShortBudgetsRunOnTheCaller: a budget under soloBudget leaves the
// runtime's workers out; none, or a longer one, may use them.
func TestShortBudgetsRunOnTheCaller(t *testing.T) {
	rt := newRuntime(t, 2)
	require.NotNil(t, rt.workers())
	c := &queryCtx{}
	for _, b := range []struct {
		d    time.Duration
		solo bool
	}{{0, false}, {time.Nanosecond, true}, {soloBudget - 1, true}, {soloBudget, false}, {time.Hour, false}} {
		c.budget = frameBudget{start: time.Now(), d: b.d}
		if b.solo {
			require.Nil(t, c.workers(rt), "budget %v", b.d)
		} else {
			require.Same(t, rt.workers(), c.workers(rt), "budget %v", b.d)
		}
	}
}
