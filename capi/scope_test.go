package main

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"

	"github.com/astral-engine/astral/astral"
)

// scopedFixture is n records with tags, owners and some payloads, laid out
// the same for the C and the Go index.
type scopedFixture struct {
	ids, tags, owners []uint64
	payloads          [][]byte
	base              []float32
}

func newScopedFixture(r *rand.Rand, n, dim int) scopedFixture {
	f := scopedFixture{ids: ids(1, n), tags: make([]uint64, n), owners: make([]uint64, n), payloads: make([][]byte, n), base: randomRows(r, n, dim)}
	for i := range n {
		f.tags[i] = uint64(1)<<(i%6) | uint64(i%3)<<10
		f.owners[i] = uint64(i % 25) // owner 0: none
		if i%4 == 0 {
			f.payloads[i] = fmt.Appendf(nil, "memory %d", i)
		}
	}
	return f
}

func (f scopedFixture) attributes() []astral.Attributes {
	a := make([]astral.Attributes, len(f.ids))
	for i := range a {
		a[i] = astral.Attributes{Tags: f.tags[i], Owner: f.owners[i], Payload: f.payloads[i]}
	}
	return a
}

// scopedFilters covers every condition, alone and combined, and filters
// that match nothing.
func scopedFilters(n int) map[string]filter {
	allow := []uint64{}
	for i := n + 40; i > 0; i -= 7 { // unsorted, with ids never stored
		allow = append(allow, uint64(i), uint64(i))
	}
	return map[string]filter{
		"none":          {},
		"owner":         {owner: 3},
		"all tags":      {allTags: 1<<1 | 1<<10},
		"any tags":      {anyTags: 1<<2 | 1<<4},
		"no tags":       {noTags: 1<<0 | 1<<11},
		"allow":         {allow: allow},
		"deny":          {deny: []uint64{5, 1, 9, 9}},
		"combined":      {owner: 4, anyTags: 1<<0 | 1<<4 | 1<<5, deny: []uint64{5, 30}, allow: allow},
		"unknown owner": {owner: 1 << 40},
		"empty allow":   {allow: []uint64{}},
		"absent ids":    {allow: []uint64{uint64(n) + 100, uint64(n) + 200}},
	}
}

// orNil makes an empty result list nil, so that lists compare by content.
func orNil(r []astral.Result) []astral.Result {
	if len(r) == 0 {
		return nil
	}
	return r
}

func (f filter) goFilter() astral.Filter {
	return astral.Filter{Owner: f.owner, AllTags: f.allTags, AnyTags: f.anyTags, NoTags: f.noTags, Allow: f.allow, Deny: f.deny}
}

// TestScopedMatchesGoAPI: records added with attributes through
// astral_index_add_ex and queried through astral_index_query_ex and its
// batch twin give the Go API's results, plans, payloads and stats, flat
// and HNSW, bit for bit.
func TestScopedMatchesGoAPI(t *testing.T) {
	testsize.SkipUnderRace(t, "C's answers against Go's: the plain run compares them; TestConcurrentQueryAddRemove and TestPersistConcurrent run the C layer under -race")
	lockThread(t)
	withRuntime(t, 1)
	const dim, n, nq, k = 32, 1500, 20, 10
	r := rand.New(rand.NewPCG(21, 22))
	fx, qs := newScopedFixture(r, n, dim), randomRows(r, nq, dim)
	for _, o := range []options{{dim: dim, kind: kindFlat}, {dim: dim, kind: kindHNSW, m: 8, efc: 64}} {
		t.Run(fmt.Sprintf("kind=%d", o.kind), func(t *testing.T) {
			h, st := createIndex(o)
			require.Equal(t, stOK, st, lastError())
			defer destroyIndex(h)
			x, err := astral.NewIndex(nil, goOptions(o)...)
			require.NoError(t, err)
			require.Equal(t, stOK, addEx(h, fx.ids, fx.base, fx.tags, fx.owners, fx.payloads), lastError())
			require.NoError(t, x.AddWith(fx.ids, fx.base, fx.attributes()))

			for name, f := range scopedFilters(n) {
				for _, ef := range []int{0, 200} {
					opts := astral.QueryOptions{K: k, Ef: ef, Filter: f.goFilter()}
					batch, bplan, st := queryBatchEx(h, qs, nq, k, ef, f)
					require.Equal(t, stOK, st, "%s: %s", name, lastError())
					// The Go index answers the batch too, so both count
					// the same plans.
					counts := make([]int, nq)
					wantBatch, wantBPlan, err := x.QueryBatchWith(nil, counts, qs, opts)
					require.NoError(t, err)
					require.Equal(t, wantBPlan, bplan, name)
					for i := range nq {
						require.Equal(t, orNil(wantBatch[i*k:i*k+counts[i]]), orNil(batch[i]), "%s, ef %d: batch query %d", name, ef, i)
					}
					for i := range nq {
						q := qs[i*dim : (i+1)*dim]
						want, plan, err := x.QueryWith(nil, q, opts)
						require.NoError(t, err)
						got, gplan, st := queryEx(h, q, k, ef, f)
						require.Equal(t, stOK, st, "%s: %s", name, lastError())
						require.Equal(t, orNil(want), orNil(got), "%s, ef %d, query %d", name, ef, i)
						require.Equal(t, plan, gplan, name)
						require.Equal(t, orNil(want), orNil(batch[i]), "%s, ef %d: batch query %d against single", name, ef, i)
					}
				}
			}

			for i, id := range fx.ids {
				tags, owner, st := attributes(h, id)
				require.Equal(t, stOK, st)
				require.Equal(t, fx.tags[i], tags)
				require.Equal(t, fx.owners[i], owner)
				p, size, st := payload(h, id, astral.MaxPayload)
				require.Equal(t, stOK, st)
				require.Equal(t, len(fx.payloads[i]), size)
				require.Equal(t, string(fx.payloads[i]), string(p))
			}
			want, plans := x.Stats(), x.PlanCounts()
			got, st := indexScopedStats(h)
			require.Equal(t, stOK, st)
			require.Equal(t, scopedStats{uint64(want.Payloads), uint64(want.PayloadBytes), uint64(want.Owners),
				plans.Scan, plans.Direct, plans.Graph}, got)
			require.Positive(t, got.payloads)
			require.EqualValues(t, 24, got.owners)

			// Retagged through C and Go alike: the same answers again.
			retag := fx.ids[:300]
			newTags := make([]uint64, len(retag))
			for i := range newTags {
				newTags[i] = 1 << 20
			}
			require.Equal(t, stOK, setTags(h, retag, newTags), lastError())
			require.NoError(t, x.SetTags(retag, newTags))
			f := filter{allTags: 1 << 20, deny: []uint64{1}}
			want2, _, err := x.QueryWith(nil, qs[:dim], astral.QueryOptions{K: k, Filter: f.goFilter()})
			require.NoError(t, err)
			got2, _, st := queryEx(h, qs[:dim], k, 0, f)
			require.Equal(t, stOK, st)
			require.Len(t, got2, k)
			require.Equal(t, want2, got2)
		})
	}
}

// TestPayloadBuffer: the payload comes back whole in a buffer of its size
// or more; a shorter one (or none) gets BUFFER_TOO_SMALL and the size.
func TestPayloadBuffer(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	h := newIndex(t, 4)
	defer destroyIndex(h)
	big := make([]byte, astral.MaxPayload)
	for i := range big {
		big[i] = byte(i * 7)
	}
	vecs := []float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}
	require.Equal(t, stOK, addEx(h, []uint64{1, 2, 3}, vecs, nil, nil, [][]byte{big, nil, []byte("abc")}), lastError())
	for _, capacity := range []int{astral.MaxPayload, astral.MaxPayload + 10} {
		p, size, st := payload(h, 1, capacity)
		require.Equal(t, stOK, st)
		require.Equal(t, astral.MaxPayload, size)
		require.Equal(t, big, p)
	}
	_, size, st := payload(h, 1, 0)
	requireFails(t, stBufferTooSmall, st, "astral_index_get_payload", "holds 4096 bytes")
	require.Equal(t, astral.MaxPayload, size, "the size needed")
	_, size, st = payload(h, 3, 2)
	requireFails(t, stBufferTooSmall, st, "astral_index_get_payload", "capacity 2")
	require.Equal(t, 3, size)
	p, size, st := payload(h, 3, 3)
	require.Equal(t, stOK, st)
	require.Equal(t, "abc", string(p))
	require.Equal(t, 3, size)
	_, size, st = payload(h, 2, 0)
	require.Equal(t, stOK, st, "no payload: size 0")
	require.Zero(t, size)
	_, size, st = payload(h, 99, 16)
	requireFails(t, stNotFound, st, "astral_index_get_payload", "id 99")
	require.Zero(t, size)
}
