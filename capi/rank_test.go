package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"

	"github.com/astral-engine/astral/astral"
)

// TestRankedMatchesGoAPI: records added with times and importances through
// astral_index_add_memories, touched and weighed through C, and queried
// with a ranking through astral_index_query_ex give the Go API's ids and
// score bits, flat and HNSW; a first-layout AstralQueryOptions ranks by
// similarity.
func TestRankedMatchesGoAPI(t *testing.T) {
	testsize.SkipUnderRace(t, "C's answers against Go's: the plain run compares them; TestConcurrentQueryAddRemove and TestPersistConcurrent run the C layer under -race")
	lockThread(t)
	withRuntime(t, 1)
	const dim, n, nq, k = 32, 1500, 12, 10
	r := rand.New(rand.NewPCG(41, 42))
	fx, qs := newScopedFixture(r, n, dim), randomRows(r, nq, dim)
	times, imps := make([]int64, n), make([]float32, n)
	attrs := fx.attributes()
	for i := range n {
		times[i] = 100000 - int64(math.Pow(r.Float64(), 0.3)*100000)
		imps[i] = float32(math.Pow(r.Float64(), 4))
		attrs[i].Time, attrs[i].Importance, attrs[i].Owner, attrs[i].Payload = times[i], imps[i], 0, nil
	}
	ranks := []astral.Rank{
		{Relevance: 1, Recency: 1, Importance: 1, Decay: math.Pow(0.5, 1.0/3000), Now: 100000},
		{Recency: 2, Decay: 0.999, Now: 100000},
		{Relevance: 0.5, Importance: 3},
	}
	for _, o := range []options{{dim: dim, kind: kindFlat}, {dim: dim, kind: kindHNSW, m: 8, efc: 64}} {
		t.Run(fmt.Sprintf("kind=%d", o.kind), func(t *testing.T) {
			h, st := createIndex(o)
			require.Equal(t, stOK, st, lastError())
			defer destroyIndex(h)
			x, err := astral.NewIndex(nil, goOptions(o)...)
			require.NoError(t, err)
			require.Equal(t, stOK, addMemories(h, fx.ids, fx.base, fx.tags, times, imps), lastError())
			require.NoError(t, x.AddWith(fx.ids, fx.base, attrs))
			touched := fx.ids[10:20]
			require.Equal(t, stOK, touch(h, touched, 100000), lastError())
			require.NoError(t, x.Touch(touched, 100000))
			require.Equal(t, stOK, setImportance(h, fx.ids[30:33], 5), lastError())
			require.NoError(t, x.SetImportance(fx.ids[30:33], 5))
			for ri, rk := range ranks {
				for _, f := range []filter{{}, {allTags: 1 << 1}, {deny: []uint64{11, 12}}} {
					for i := range nq {
						q := qs[i*dim : (i+1)*dim]
						want, _, err := x.QueryWith(nil, q, astral.QueryOptions{K: k, Rank: rk, Filter: f.goFilter()})
						require.NoError(t, err)
						got, st := queryRanked(h, q, k, f, rk, 0, 0)
						require.Equal(t, stOK, st, lastError())
						require.Equal(t, want, got, "rank %d, query %d", ri, i)
					}
				}
			}
			q := qs[:dim]
			plain, _, err := x.QueryWith(nil, q, astral.QueryOptions{K: k})
			require.NoError(t, err)
			got, st := queryRanked(h, q, k, filter{}, ranks[0], 0, queryOptionsV1Size())
			require.Equal(t, stOK, st, lastError())
			require.Equal(t, plain, got, "the first layout has no ranking")
			tm, imp, st := memory(h, fx.ids[12])
			require.Equal(t, stOK, st)
			require.Equal(t, int64(100000), tm)
			require.Equal(t, imps[12], imp)
			tm, imp, st = memory(h, fx.ids[31])
			require.Equal(t, stOK, st)
			require.Equal(t, times[31], tm)
			require.Equal(t, float32(5), imp)
		})
	}
}

// TestRankedBadInput: bad rankings and bad touch/importance calls get a
// status and a message, and change nothing.
func TestRankedBadInput(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	const dim = 8
	h := newIndex(t, dim)
	defer destroyIndex(h)
	r := rand.New(rand.NewPCG(43, 44))
	base := randomRows(r, 20, dim)
	require.Equal(t, stOK, addMemories(h, ids(1, 20), base, nil, nil, nil), lastError())
	q := base[:dim]
	nan := float32(math.NaN())
	for _, c := range []struct {
		r         astral.Rank
		reserved2 uint32
		want      string
	}{
		{astral.Rank{Relevance: -1, Importance: 1}, 0, "relevance weight"},
		{astral.Rank{Importance: nan}, 0, "importance weight"},
		{astral.Rank{Recency: 1}, 0, "decay"},
		{astral.Rank{Recency: 1, Decay: 2}, 0, "decay"},
		{astral.Rank{Importance: 1}, 7, "reserved2"},
	} {
		_, st := queryRanked(h, q, 3, filter{}, c.r, c.reserved2, 0)
		require.Equal(t, stInvalid, st, "%+v", c.r)
		require.Contains(t, lastError(), c.want)
	}
	require.Equal(t, stNotFound, touch(h, []uint64{1, 99}, 5))
	require.Contains(t, lastError(), "id 99")
	require.Equal(t, stDuplicateID, setImportance(h, []uint64{2, 2}, 1))
	require.Equal(t, stNonFinite, setImportance(h, []uint64{2}, float32(math.Inf(1))))
	require.Equal(t, stOK, touch(h, nil, 5)) // NULL with count 0
	require.Equal(t, stOK, touch(h, []uint64{}, 5))
	tm, imp, st := memory(h, 1)
	require.Equal(t, stOK, st)
	require.Zero(t, tm)
	require.Zero(t, imp)
	_, _, st = memory(h, 99)
	require.Equal(t, stNotFound, st)
	bad := []float32{1, nan}
	require.Equal(t, stNonFinite, addMemories(h, ids(100, 2), randomRows(r, 2, dim), nil, nil, bad))
	_, _, st = memory(h, 100)
	require.Equal(t, stNotFound, st, "all or nothing")
}

// TestUpsertMemories: astral_index_upsert_memories replaces a stored
// record's vector, tags, time and importance in one call and adds a new
// one, as the Go Upsert does; bad input changes nothing.
func TestUpsertMemories(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	const dim = 8
	r := rand.New(rand.NewPCG(45, 46))
	base := randomRows(r, 20, dim)
	for _, o := range []options{{dim: dim, kind: kindFlat}, {dim: dim, kind: kindHNSW, m: 8, efc: 32}} {
		h, st := createIndex(o)
		require.Equal(t, stOK, st, lastError())
		x, err := astral.NewIndex(nil, goOptions(o)...)
		require.NoError(t, err)
		times, imps := make([]int64, 20), make([]float32, 20)
		attrs := make([]astral.Attributes, 20)
		for i := range 20 {
			times[i], imps[i] = int64(10*i), float32(i)/4
			attrs[i] = astral.Attributes{Time: times[i], Importance: imps[i]}
		}
		require.Equal(t, stOK, addMemories(h, ids(1, 20), base, nil, times, imps), lastError())
		require.NoError(t, x.AddWith(ids(1, 20), base, attrs))

		up := randomRows(r, 2, dim)
		upIDs := []uint64{3, 50} // stored, new
		require.Equal(t, stOK, upsertMemories(h, upIDs, up, []uint64{4, 8}, []int64{-7, 900}, []float32{2.5, 0.125}), lastError())
		require.NoError(t, x.Upsert(upIDs, up, []astral.Attributes{{Tags: 4, Time: -7, Importance: 2.5}, {Tags: 8, Time: 900, Importance: 0.125}}))
		for i, id := range upIDs {
			tm, imp, st := memory(h, id)
			require.Equal(t, stOK, st, lastError())
			require.Equal(t, []any{[]int64{-7, 900}[i], []float32{2.5, 0.125}[i]}, []any{tm, imp}, "id %d", id)
		}
		rk := astral.Rank{Relevance: 1, Recency: 1, Importance: 1, Decay: 0.99, Now: 1000}
		want, _, err := x.QueryWith(nil, up[:dim], astral.QueryOptions{K: 5, Rank: rk})
		require.NoError(t, err)
		got, st := queryRanked(h, up[:dim], 5, filter{}, rk, 0, 0)
		require.Equal(t, stOK, st, lastError())
		require.Equal(t, want, got)

		// NULL times and importances: the replaced record's become 0.
		require.Equal(t, stOK, upsertMemories(h, []uint64{4}, base[:dim], nil, nil, nil), lastError())
		tm, imp, st := memory(h, 4)
		require.Equal(t, stOK, st)
		require.Zero(t, tm)
		require.Zero(t, imp)

		// Bad input: nothing changes, not even the good rows.
		nan := float32(math.NaN())
		require.Equal(t, stNonFinite, upsertMemories(h, []uint64{5, 60}, base[:2*dim], nil, []int64{1, 2}, []float32{1, nan}))
		require.Contains(t, lastError(), "astral_index_upsert_memories")
		require.Equal(t, stDuplicateID, upsertMemories(h, []uint64{5, 5}, base[:2*dim], nil, []int64{1, 2}, nil))
		require.Equal(t, stDimension, upsertMemories(h, []uint64{5, 60}, base[:dim], nil, []int64{1, 2}, nil))
		tm, imp, st = memory(h, 5)
		require.Equal(t, stOK, st)
		require.Equal(t, []any{times[4], imps[4]}, []any{tm, imp})
		_, _, st = memory(h, 60)
		require.Equal(t, stNotFound, st, "all or nothing")
		destroyIndex(h)
		require.Equal(t, stStale, upsertMemories(h, []uint64{5}, base[:dim], nil, nil, nil))
		x.Close()
	}
}
