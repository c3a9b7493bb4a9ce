package astral

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// ivfPartial is s in an IVF index of 16 partitions that probes nprobe.
func ivfPartial(t testing.TB, s *scoped, rt *Runtime, nprobe int) *Index {
	return s.index(t, rt, WithKind(KindIVF), WithIVF(16, nprobe))
}

// TestIVFRankedPartialProbe: probing a few partitions, ranked answers are
// stored matches with their exact combined scores, best first, and find
// most of the exact ranking; an old-but-vital or a just-touched memory in
// a partition the query does not probe still comes first.
func TestIVFRankedPartialProbe(t *testing.T) {
	s := withMemories(newScoped(sized(3000, 1200), 24, 41), 11)
	x := ivfPartial(t, s, newRuntime(t, 1), 2)
	qs := randomVectors(rand.New(rand.NewPCG(41, 1)), 6, s.dim)
	hits, total := 0, 0
	for _, rname := range []string{"equal", "importance heavy", "short half-life"} {
		r := rankings[rname]
		for _, fname := range []string{"none", "tag half", "owner"} {
			f := s.filters()[fname]
			for i := range 6 {
				q := qs[i*s.dim : (i+1)*s.dim]
				got, _, err := x.QueryWith(nil, q, QueryOptions{K: 10, Filter: f, Rank: r})
				require.NoError(t, err)
				all := s.rankedReference(t, f, r, q, len(s.ids))
				requireValidSubset(t, all, got, []any{"%s/%s query %d", rname, fname, i})
				require.Len(t, got, min(10, len(all)))
				hits += overlap(got, all[:min(10, len(all))])
				total += min(10, len(all))
			}
		}
	}
	recall := float64(hits) / float64(total)
	t.Logf("recall against the exact ranking at nprobe 2 of 16: %.3f", recall)
	require.GreaterOrEqual(t, recall, 0.8)

	// The record least similar to q lies far from the probed partitions.
	q := qs[:s.dim]
	far := s.rankedReference(t, Filter{}, Rank{}, q, len(s.ids))
	vital, recent := far[len(far)-1].ID, far[len(far)-2].ID
	require.NoError(t, x.SetImportance([]uint64{vital}, 1000))
	got, _, err := x.QueryWith(nil, q, QueryOptions{K: 5, Rank: Rank{Relevance: 1, Importance: 1}})
	require.NoError(t, err)
	require.Equal(t, vital, got[0].ID, "old but vital")
	require.NoError(t, x.Touch([]uint64{recent}, 1<<40))
	got, _, err = x.QueryWith(nil, q, QueryOptions{K: 5, Rank: Rank{Relevance: 1, Recency: 50, Decay: 0.5, Now: 1 << 40}})
	require.NoError(t, err)
	require.Equal(t, recent, got[0].ID, "just touched")
}

// TestIVFRankedPartialSameEveryThreadCountAndBatch: ranked queries that
// probe a few partitions (so the second phase runs) give the same ids,
// score bits and order for threads 0 to 3, batched or not.
func TestIVFRankedPartialSameEveryThreadCountAndBatch(t *testing.T) {
	s := withMemories(newScoped(sized(4000, 1500), 32, 42), 12)
	nq := sized(19, 5)
	qs := randomVectors(rand.New(rand.NewPCG(42, 2)), nq, s.dim)
	filters := map[string]Filter{"none": {}, "tag": {AllTags: 1}, "rare": {AllTags: 4}, "deny": {Deny: s.ids[:100]}}
	threadStep := 1
	if testsize.Reduced() {
		threadStep = 3
	}
	var want map[string][]Result
	for threads := 0; threads <= 3; threads += threadStep {
		x := ivfPartial(t, s, newRuntime(t, threads), 3)
		got := map[string][]Result{}
		for fname, f := range filters {
			for _, rname := range []string{"equal", "future now", "recency only"} {
				o := QueryOptions{K: 9, Filter: f, Rank: rankings[rname]}
				var single []Result
				for i := range nq {
					res, _, err := x.QueryWith(nil, qs[i*s.dim:(i+1)*s.dim], o)
					require.NoError(t, err)
					single = append(single, res...)
				}
				counts := make([]int, nq)
				batch, _, err := x.QueryBatchWith(nil, counts, qs, o)
				require.NoError(t, err)
				var joined []Result
				for i := range nq {
					joined = append(joined, batch[i*9:i*9+counts[i]]...)
				}
				require.Equal(t, single, joined, "%s/%s/threads %d: batch", fname, rname, threads)
				got[fname+"/"+rname] = single
			}
		}
		if want == nil {
			want = got
		}
		require.Equal(t, want, got, "threads %d", threads)
	}
}

// TestIVFRankedAndBudgetedAllocateNothing: ranked and budgeted IVF queries
// allocate nothing once warm, probing some partitions or all.
func TestIVFRankedAndBudgetedAllocateNothing(t *testing.T) {
	testsize.SkipUnderRace(t, "allocation counts are the plain build's; the determinism tests run these queries under -race")
	s := withMemories(newScoped(3000, 32, 43), 13)
	q := s.vecs[:s.dim]
	for _, nprobe := range []int{2, 16} {
		x := ivfPartial(t, s, newRuntime(t, 2), nprobe)
		dst := make([]Result, 0, 10)
		for _, f := range []Filter{{}, {AllTags: 1}, {AllTags: 4}, {Owner: 100}, {Allow: s.ids[:300]}} {
			for _, o := range []QueryOptions{{K: 10, Filter: f, Rank: rankings["equal"]}, {K: 10, Filter: f}} {
				for _, b := range []time.Duration{0, time.Nanosecond, time.Hour} {
					run := func() {
						var err error
						if b == 0 {
							_, _, err = x.QueryWith(dst, q, o)
						} else {
							_, _, err = x.QueryWithin(dst, q, o, b)
						}
						if err != nil {
							panic(err)
						}
					}
					run()
					require.Zero(t, testing.AllocsPerRun(20, run), "nprobe %d %+v budget %v", nprobe, o, b)
				}
			}
		}
	}
}

// ivfBudgetCases are budgetCases plus rankings, for an IVF index probing
// a few partitions or all of them.
func ivfBudgetOptions(s *scoped) []QueryOptions {
	var out []QueryOptions
	for _, c := range budgetCases(s) {
		out = append(out, QueryOptions{K: 10, Filter: c.f}, QueryOptions{K: 10, Filter: c.f, Rank: rankings["equal"]})
	}
	return out
}

// TestIVFQueryWithinGenerousBudgetIsExact: a budget that cannot run out
// gives QueryWith's ids, score bits, order and plan, reported complete,
// for every plan, ranked or not, at any thread count and nprobe.
func TestIVFQueryWithinGenerousBudgetIsExact(t *testing.T) {
	s := withMemories(newScoped(sized(4000, 1500), 64, 44), 14)
	qs := randomVectors(rand.New(rand.NewPCG(44, 9)), 4, s.dim)
	for _, threads := range []int{0, 2} {
		for _, nprobe := range []int{3, 16} {
			x := ivfPartial(t, s, newRuntime(t, threads), nprobe)
			for oi, o := range ivfBudgetOptions(s) {
				for i := range 4 {
					q := qs[i*s.dim : (i+1)*s.dim]
					want, plan, err := x.QueryWith(nil, q, o)
					require.NoError(t, err)
					got, cov, err := x.QueryWithin(nil, q, o, time.Hour)
					require.NoError(t, err)
					what := []any{"threads %d nprobe %d options %d query %d", threads, nprobe, oi, i}
					require.Equal(t, want, got, what...)
					require.Equal(t, Coverage{Complete: true, Covered: 1, Plan: plan}, cov, what...)
				}
			}
		}
	}
}

// TestIVFQueryWithinTinyBudget: a budget that has run out before the
// search begins returns at once with the first task's answer: stored
// matches with their true scores, sorted, reported incomplete.
func TestIVFQueryWithinTinyBudget(t *testing.T) {
	s := withMemories(newScoped(sized(4000, 1500), 64, 45), 15)
	qs := randomVectors(rand.New(rand.NewPCG(45, 9)), 3, s.dim)
	incomplete := 0
	for _, threads := range []int{0, 2} {
		x := ivfPartial(t, s, newRuntime(t, threads), 8)
		for oi, o := range ivfBudgetOptions(s) {
			for i := range 3 {
				q := qs[i*s.dim : (i+1)*s.dim]
				ref := s.rankedReference(t, o.Filter, o.Rank, q, len(s.ids))
				got, cov, err := x.QueryWithin(nil, q, o, time.Nanosecond)
				require.NoError(t, err)
				what := []any{"threads %d options %d query %d", threads, oi, i}
				requireValidSubset(t, ref, got, what)
				if cov.Complete { // a plan of one task: its first always runs
					want, _, err := x.QueryWith(nil, q, o)
					require.NoError(t, err)
					require.Equal(t, want, got, what...)
					require.Equal(t, 1.0, cov.Covered, what...)
					continue
				}
				incomplete++
				require.Greater(t, cov.Covered, 0.0, what...)
				require.Less(t, cov.Covered, 1.0, what...)
			}
		}
	}
	require.Greater(t, incomplete, 0)
}

// TestIVFQueryWithinCoverageRises: on average over queries, a longer
// budget covers at least as much, up to all of it.
func TestIVFQueryWithinCoverageRises(t *testing.T) {
	s := newScoped(sized(4000, 1500), 64, 46)
	qs := randomVectors(rand.New(rand.NewPCG(46, 9)), 16, s.dim)
	x := ivfPartial(t, s, newRuntime(t, 1), 16)
	var prev float64
	for _, b := range []time.Duration{time.Nanosecond, 50 * time.Microsecond, time.Hour} {
		sum := 0.0
		for i := range 16 {
			_, cov, err := x.QueryWithin(nil, qs[i*s.dim:(i+1)*s.dim], QueryOptions{K: 10}, b)
			require.NoError(t, err)
			sum += cov.Covered
		}
		mean := sum / 16
		require.GreaterOrEqual(t, mean, prev, "budget %v", b)
		prev = mean
	}
	require.Equal(t, 1.0, prev)
}

// TestIVFNProbePerQuery: a query's NProbe overrides the index's for that
// query only (past the partition count it probes all: the flat answer);
// other kinds ignore it; out of range is refused.
func TestIVFNProbePerQuery(t *testing.T) {
	s := withMemories(newScoped(sized(3000, 1200), 24, 47), 16)
	rt := newRuntime(t, 1)
	x := ivfPartial(t, s, rt, 1)
	f := s.index(t, rt, WithKind(KindFlat))
	qs := randomVectors(rand.New(rand.NewPCG(47, 9)), 4, s.dim)
	for i := range 4 {
		q := qs[i*s.dim : (i+1)*s.dim]
		for _, r := range []Rank{{}, rankings["equal"]} {
			for _, fl := range []Filter{{}, {AllTags: 1}} {
				want, _, err := f.QueryWith(nil, q, QueryOptions{K: 10, Filter: fl, Rank: r})
				require.NoError(t, err)
				for _, np := range []int{16, MaxNList} {
					got, _, err := x.QueryWith(nil, q, QueryOptions{K: 10, NProbe: np, Filter: fl, Rank: r})
					require.NoError(t, err)
					require.Equal(t, want, got, "query %d nprobe %d", i, np)
				}
				fg, _, err := f.QueryWith(nil, q, QueryOptions{K: 10, NProbe: 3, Filter: fl, Rank: r})
				require.NoError(t, err)
				require.Equal(t, want, fg, "flat ignores NProbe")
			}
		}
		one, _, err := x.QueryWith(nil, q, QueryOptions{K: 10})
		require.NoError(t, err)
		got, _, err := x.QueryWith(nil, q, QueryOptions{K: 10, NProbe: 1})
		require.NoError(t, err)
		require.Equal(t, one, got, "NProbe 1 is the index's 1")
		require.NoError(t, x.SetNProbe(4))
		want, _, err := x.QueryWith(nil, q, QueryOptions{K: 10})
		require.NoError(t, err)
		require.NoError(t, x.SetNProbe(1))
		got, _, err = x.QueryWith(nil, q, QueryOptions{K: 10, NProbe: 4})
		require.NoError(t, err)
		require.Equal(t, want, got, "NProbe 4 is SetNProbe(4)")
	}
	for _, np := range []int{-1, MaxNList + 1} {
		_, _, err := x.QueryWith(nil, qs[:s.dim], QueryOptions{K: 10, NProbe: np})
		require.ErrorIs(t, err, ErrInvalidArgument, "nprobe %d", np)
	}
}
