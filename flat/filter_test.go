package flat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/astral-engine/astral/kernel"
	"github.com/stretchr/testify/require"
)

// tagShares are the chances that each tag bit is set on a test record, so
// that filters on them run the scan plan's sparse, dense and empty paths.
var tagShares = []float64{0.5, 0.1, 0.01, 0.3, 0.9, 0.002, 0.05, 0.25}

// randomAttr draws a record's tags by tagShares and an owner from 0-5.
func randomAttr(r *rand.Rand) match.Attr {
	var a match.Attr
	for b, p := range tagShares {
		if r.Float64() < p {
			a.Tags |= 1 << b
		}
	}
	a.Owner = uint64(r.IntN(6))
	return a
}

// newAttrIndex fills an index of n records of kind s and adjustment adj
// with random vectors, adjust values and attributes; every 7th record
// repeats the one before (ties break by id), and ids run against slot order.
func newAttrIndex(t testing.TB, r *rand.Rand, n, dim int, s kernel.Storage, adj score.Adjust) *Index {
	k, err := kernel.New(nil, dim, s)
	require.NoError(t, err)
	x := New(k, adj)
	v := make([]float32, dim)
	rec := make([]byte, k.Stride())
	var bias, scale float32
	for i := range n {
		if i%7 != 1 {
			for c := range v {
				v[c] = float32(r.NormFloat64() * 0.1)
			}
			bias, scale = float32(0.5+r.Float64()), float32(0.5+r.Float64())
		}
		kernel.Encode(s, rec, v)
		require.NoError(t, x.Add(uint64(n-i)*5+3, rec, bias, scale, randomAttr(r)))
	}
	return x
}

// prepare lays out the queries as the index's kernel reads them.
func prepare(x *Index, s *Searcher, qs [][]float32) {
	buf := s.QueryBuffer(x, len(qs))
	ql := x.kern.QueryLen()
	for i, q := range qs {
		x.kern.PrepareQuery(buf[i*ql:(i+1)*ql], q)
	}
}

// bits is a result with its score's bits, so a comparison tells -0 from 0.
type bits struct {
	ID    uint64
	Score uint32
}

func toBits(res []score.Result) []bits {
	out := make([]bits, len(res))
	for i, r := range res {
		out[i] = bits{r.ID, math.Float32bits(r.Score)}
	}
	return out
}

// searchFunc runs one search of the laid-out queries into dst and counts.
type searchFunc func(x *Index, s *Searcher, p *pool.Pool, nq, k int, dst []score.Result, counts []int)

func run(x *Index, s *Searcher, p *pool.Pool, k int, qs [][]float32, fn searchFunc) [][]bits {
	prepare(x, s, qs)
	dst := make([]score.Result, len(qs)*k)
	counts := make([]int, len(qs))
	fn(x, s, p, len(qs), k, dst, counts)
	out := make([][]bits, len(qs))
	for i := range qs {
		out[i] = toBits(dst[i*k : i*k+counts[i]])
	}
	return out
}

func plain(x *Index, s *Searcher, p *pool.Pool, nq, k int, dst []score.Result, counts []int) {
	x.Search(s, p, nq, k, dst, counts)
}

func scanPlan(f *match.Filter) searchFunc {
	return func(x *Index, s *Searcher, p *pool.Pool, nq, k int, dst []score.Result, counts []int) {
		x.SearchFiltered(s, p, nq, k, f, dst, counts)
	}
}

func directPlan(cands []uint64, f *match.Filter) searchFunc {
	return func(x *Index, s *Searcher, p *pool.Pool, nq, k int, dst []score.Result, counts []int) {
		x.SearchIDs(s, p, nq, k, cands, f, dst, counts)
	}
}

// ownerPlan is the owner group's direct plan: flat's own posting of
// owner, tested against f.
func ownerPlan(owner uint64, f *match.Filter) searchFunc {
	return func(x *Index, s *Searcher, p *pool.Pool, nq, k int, dst []score.Result, counts []int) {
		x.SearchOwner(s, p, nq, k, owner, f, dst, counts)
	}
}

// naive scores each record on its own (one-record Scan, scalar adjust),
// keeps those that pass f and sorts: the reference every plan must equal.
func naive(x *Index, q []float32, k int, f *match.Filter) []bits {
	qp := x.kern.PrepareQuery(make([]float32, x.kern.QueryLen()), q)
	var all []score.Result
	out := make([]float32, 1)
	for i := range x.Len() {
		id := x.ID(i)
		a, ok := x.Attr(id)
		if !ok || !f.Match(id, a) {
			continue
		}
		x.kern.Scan(qp, x.Record(i), out)
		var v, sc float32
		if x.bias != nil {
			v = x.bias[i]
		}
		if x.scale != nil {
			sc = x.scale[i]
		}
		all = append(all, score.Result{ID: id, Score: score.Ranked(x.adjust.Of(out[0], v, sc))})
	}
	slices.SortFunc(all, score.CompareResults)
	return toBits(all[:min(k, len(all))])
}

// testFilter is a named filter; cands, when set, is a candidate list for
// the direct plan that holds every record the filter passes.
type testFilter struct {
	name  string
	f     match.Filter
	cands []uint64
}

// randomFilters draws filters over x's records: tag conditions of every
// share, owners, allow and deny lists (with ids that are not stored), and
// filters that match nothing.
func randomFilters(r *rand.Rand, x *Index) []testFilter {
	ids := x.Parts().IDs
	pick := func(n int) []uint64 {
		out := make([]uint64, 0, n)
		for range n {
			if r.IntN(8) == 0 {
				out = append(out, uint64(r.IntN(1<<20))*5+4) // never stored
			} else {
				out = append(out, ids[r.IntN(len(ids))])
			}
		}
		return out
	}
	set := func(s *match.IDSet, ids []uint64) { s.Build(ids, nil) }
	fs := []testFilter{
		{name: "zero"},
		{name: "all bit0 (50%)", f: match.Filter{AllTags: 1}},
		{name: "all bit1 (10%)", f: match.Filter{AllTags: 2}},
		{name: "all bit2 (1%)", f: match.Filter{AllTags: 4}},
		{name: "all bit5 (0.2%)", f: match.Filter{AllTags: 32}},
		{name: "all bits0+3", f: match.Filter{AllTags: 9}},
		{name: "any bits2,5", f: match.Filter{AnyTags: 36}},
		{name: "none bit4", f: match.Filter{NoTags: 16}},
		{name: "none bit0", f: match.Filter{NoTags: 1}},
		{name: "owner 3", f: match.Filter{Owner: 3}},
		{name: "owner 2, any bits1,6, none bit7", f: match.Filter{Owner: 2, AnyTags: 66, NoTags: 128}},
		{name: "nothing: absent tag", f: match.Filter{AllTags: 1 << 40}},
		{name: "nothing: owner", f: match.Filter{Owner: 99}},
		{name: "nothing: empty allowlist", f: match.Filter{Allow: match.IDSet{On: true}}},
	}
	for range 6 {
		var tf testFilter
		switch r.IntN(3) {
		case 0:
			set(&tf.f.Allow, pick(1+r.IntN(300)))
			tf.name = fmt.Sprintf("allow %d", tf.f.Allow.Len())
		case 1:
			set(&tf.f.Deny, pick(1+r.IntN(300)))
			tf.name = fmt.Sprintf("deny %d", tf.f.Deny.Len())
		default:
			set(&tf.f.Allow, pick(1+r.IntN(2000)))
			set(&tf.f.Deny, pick(1+r.IntN(50)))
			tf.name = fmt.Sprintf("allow %d deny %d", tf.f.Allow.Len(), tf.f.Deny.Len())
		}
		if r.IntN(2) == 0 {
			tf.f.AnyTags = 1 << r.IntN(len(tagShares))
			tf.name += fmt.Sprintf(" any %#x", tf.f.AnyTags)
		}
		if tf.f.Allow.On {
			tf.cands = tf.f.Allow.IDs()
		}
		fs = append(fs, tf)
	}
	// The owner group as an engine's posting would give it: unsorted.
	var posting []uint64
	for _, id := range ids {
		if a, _ := x.Attr(id); a.Owner == 4 {
			posting = append(posting, id)
		}
	}
	r.Shuffle(len(posting), func(i, j int) { posting[i], posting[j] = posting[j], posting[i] })
	return append(fs, testFilter{name: "owner 4 by posting", f: match.Filter{Owner: 4, NoTags: 2}, cands: posting})
}

// TestFilteredPlansAgree: for every storage kind and adjustment, the scan
// and direct plans give the naive filtered reference, bit for bit and in
// order, for every participant count and batch as single; with a zero
// filter both equal Search. E5M2 runs every adjustment; the other kinds,
// whose kernels are what differs, one each.
func TestFilteredPlansAgree(t *testing.T) {
	adjusts := []score.Adjust{score.AdjustNone, score.AdjustScale, score.AdjustSubtract, score.AdjustScaleSubtract}
	type combo struct {
		kind kernel.Storage
		adj  score.Adjust
	}
	var combos []combo
	for _, adj := range adjusts {
		combos = append(combos, combo{kernel.E5M2, adj})
	}
	for i, kind := range kernel.Storages[1:] {
		combos = append(combos, combo{kind, adjusts[(i+1)%len(adjusts)]})
	}
	if testing.Short() {
		combos = []combo{{kernel.E5M2, score.AdjustScaleSubtract}, {kernel.Int8, score.AdjustScale}}
	}
	pools := []*pool.Pool{nil, newPool(t, 1), newPool(t, 2), newPool(t, 3)}
	workers := []int{0, 1, 2, 3}
	if testsize.Emulated() {
		// Under qemu none against 3 workers: every plan still runs the
		// arm64 kernels over every participant; the other counts are
		// the native runs' to prove.
		workers = []int{0, 3}
	}
	r := rand.New(rand.NewPCG(17, 1))
	for _, c := range combos {
		kind, adj := c.kind, c.adj
		t.Run(fmt.Sprintf("%v/adjust=%d", kind, adj), func(t *testing.T) {
			// Four participants of two chunks each, the second partial.
			const n, dim = 1500, 384
			x := newAttrIndex(t, r, n, dim, kind, adj)
			require.Equal(t, 4, x.participants(pools[3], 4), "the index must split four ways")
			require.Equal(t, 4, x.participantsFor(n, pools[3], 4), "so must all its ids")
			all := slices.Clone(x.Parts().IDs)
			r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			qs := make([][]float32, 5)
			for i := range qs {
				qs[i] = randomQuery(r, dim)
			}
			s := NewSearcher(4)
			ks := []int{10}
			if kind == kernel.E5M2 {
				ks = []int{1, 10, 100}
			}
			for _, k := range ks {
				want := run(x, s, nil, k, qs, plain)
				for q := range qs {
					require.Equal(t, naive(x, qs[q], k, &match.Filter{}), want[q], "Search against the reference, k %d", k)
				}
				for _, tf := range randomFilters(r, x) {
					ref := make([][]bits, len(qs))
					for q := range qs {
						ref[q] = naive(x, qs[q], k, &tf.f)
					}
					plans := map[string]searchFunc{"scan": scanPlan(&tf.f), "direct over all": directPlan(all, &tf.f)}
					if tf.cands != nil {
						plans["direct over candidates"] = directPlan(tf.cands, &tf.f)
					}
					if tf.f.Owner != 0 {
						// As the engine runs it: the posting stands for
						// the owner test.
						fo := tf.f
						fo.Owner = 0
						plans["owner posting"] = ownerPlan(tf.f.Owner, &fo)
					}
					for name, fn := range plans {
						for _, w := range workers {
							p := pools[w]
							got := run(x, s, p, k, qs, fn)
							for q := range qs {
								require.Equal(t, ref[q], got[q], "%s, %s plan, k %d, %d workers, batch query %d", tf.name, name, k, w, q)
							}
							got = run(x, s, p, k, qs[2:3], fn)
							require.Equal(t, ref[2], got[0], "%s, %s plan, k %d, %d workers, single", tf.name, name, k, w)
						}
					}
				}
			}
		})
	}
}

// TestFilteredMaxBatch: a full batch of filtered queries, sparse and dense
// chunks alike, gives each query's single answer.
func TestFilteredMaxBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2))
	x := newAttrIndex(t, r, 2000, 100, kernel.E5M2, score.AdjustScale)
	qs := make([][]float32, MaxBatch)
	for i := range qs {
		qs[i] = randomQuery(r, 100)
	}
	s, p := NewSearcher(3), newPool(t, 2)
	for _, f := range []match.Filter{{AllTags: 1}, {AllTags: 4}, {AnyTags: 6, NoTags: 16}} {
		got := run(x, s, p, 10, qs, scanPlan(&f))
		direct := run(x, s, p, 10, qs, directPlan(x.Parts().IDs, &f))
		for q := range qs {
			want := naive(x, qs[q], 10, &f)
			require.Equal(t, want, got[q], "scan, filter %+v query %d", f, q)
			require.Equal(t, want, direct[q], "direct, filter %+v query %d", f, q)
		}
	}
}

// TestAttributesFollowTheirRecords: Remove moves the last record's
// attributes with it, SetTags changes only the tags, and filtered searches
// see both.
func TestAttributesFollowTheirRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 3))
	x := newAttrIndex(t, r, 600, 64, kernel.E5M2, score.AdjustNone)
	want := map[uint64]match.Attr{}
	for _, id := range x.Parts().IDs {
		a, ok := x.Attr(id)
		require.True(t, ok)
		want[id] = a
	}
	ids := slices.Clone(x.Parts().IDs)
	for i, id := range ids {
		switch i % 3 {
		case 0:
			require.NoError(t, x.Remove(id))
			delete(want, id)
		case 1:
			tags := r.Uint64()
			require.True(t, x.SetTags(id, tags))
			want[id] = match.Attr{Tags: tags, Owner: want[id].Owner}
		}
	}
	require.False(t, x.SetTags(ids[0], 1), "a removed id")
	_, ok := x.Attr(ids[0])
	require.False(t, ok)
	require.Equal(t, len(want), x.Len())
	for id, a := range want {
		got, ok := x.Attr(id)
		require.True(t, ok)
		require.Equal(t, a, got, "id %d", id)
	}
	q := randomQuery(r, 64)
	s := NewSearcher(1)
	for _, f := range []match.Filter{{AllTags: 1 << 33}, {Owner: 1, AnyTags: 5}, {NoTags: 1 << 63}} {
		require.Equal(t, naive(x, q, 20, &f), run(x, s, nil, 20, [][]float32{q}, scanPlan(&f))[0], "%+v", f)
	}
	require.GreaterOrEqual(t, x.Bytes(), x.Len()*(x.stride+3*8), "ids, tags and owners are counted")
}

// checkOwned requires x's owner postings to hold exactly the slots of
// each owner's records, with ownAt pointing back at each.
func checkOwned(t *testing.T, x *Index) {
	t.Helper()
	n := 0
	for i, o := range x.owners {
		if o == 0 {
			continue
		}
		n++
		p := x.owned[o]
		require.Less(t, int(x.ownAt[i]), len(p), "slot %d", i)
		require.EqualValues(t, i, p[x.ownAt[i]], "slot %d", i)
	}
	total := 0
	for o, p := range x.owned {
		require.NotEmpty(t, p, "owner %d: an empty posting is dropped", o)
		total += len(p)
	}
	require.Equal(t, n, total)
}

// TestOwnerPostingsFollowRecords: adds, removes (which move the last
// record) and loading from parts keep the owner postings exact, and the
// owner plan then equals the naive filter.
func TestOwnerPostingsFollowRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	x := newAttrIndex(t, r, 600, 64, kernel.E5M2, score.AdjustScale)
	checkOwned(t, x)
	rec := make([]byte, x.stride)
	for i, id := range slices.Clone(x.Parts().IDs) {
		switch i % 4 {
		case 0, 1:
			require.NoError(t, x.Remove(id))
		case 2:
			require.NoError(t, x.Add(id+1<<40, x.Record(r.IntN(x.Len())), 1, 1, randomAttr(r)))
		}
	}
	copy(rec, x.Record(0))
	require.NoError(t, x.Add(7, rec, 1, 1, match.Attr{Owner: 1 << 50}))
	checkOwned(t, x)
	require.Equal(t, 1, x.OwnerLen(1<<50))
	require.NoError(t, x.Remove(7))
	require.Zero(t, x.OwnerLen(1<<50), "the last record of an owner drops its posting")
	checkOwned(t, x)
	loaded, err := FromParts(x.kern, x.adjust, x.Parts())
	require.NoError(t, err)
	checkOwned(t, loaded)
	q := randomQuery(r, 64)
	s := NewSearcher(1)
	for _, y := range []*Index{x, loaded} {
		for o := range uint64(7) {
			want := naive(y, q, 200, &match.Filter{Owner: o})
			if o == 0 {
				want = nil // owner 0 is no owner: no posting
			}
			got := run(y, s, nil, 200, [][]float32{q}, ownerPlan(o, nil))[0]
			require.Equal(t, len(want), len(got), "owner %d", o)
			if len(want) > 0 {
				require.Equal(t, want, got, "owner %d", o)
			}
		}
	}
}

// TestFilteredSearchAllocatesNothing: after a warm-up, neither filtered
// plan allocates, single or batch.
func TestFilteredSearchAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	x := newAttrIndex(t, r, 1500, 384, kernel.E5M2, score.AdjustScale)
	p := newPool(t, 1)
	s := NewSearcher(2)
	var f match.Filter
	f.AnyTags = 1 | 4 // dense and sparse chunks both
	f.Deny.Build(x.Parts().IDs[:10], nil)
	cands := x.Parts().IDs[:1000]
	dst := make([]score.Result, MaxBatch*10)
	counts := make([]int, MaxBatch)
	qs := make([][]float32, MaxBatch)
	for i := range qs {
		qs[i] = randomQuery(r, 384)
	}
	for _, nq := range []int{1, MaxBatch} {
		prepare(x, s, qs[:nq])
		x.SearchFiltered(s, p, nq, 10, &f, dst, counts) // warm: scratch grows once
		x.SearchIDs(s, p, nq, 10, cands, &f, dst, counts)
		x.SearchOwner(s, p, nq, 10, 3, &f, dst, counts)
		require.Zero(t, testing.AllocsPerRun(10, func() { x.SearchOwner(s, p, nq, 10, 3, &f, dst, counts) }), "owner, batch %d", nq)
		require.Zero(t, testing.AllocsPerRun(10, func() { x.SearchFiltered(s, p, nq, 10, &f, dst, counts) }), "scan, batch %d", nq)
		require.Zero(t, testing.AllocsPerRun(10, func() { x.SearchIDs(s, p, nq, 10, cands, &f, dst, counts) }), "direct, batch %d", nq)
	}
}

// TestFilteredEdges: an empty index, nil filters, candidates none of which
// is stored, and k above the matches.
func TestFilteredEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	empty := newAttrIndex(t, r, 0, 16, kernel.E5M2, score.AdjustNone)
	s := NewSearcher(2)
	q := [][]float32{randomQuery(r, 16)}
	f := match.Filter{AllTags: 1}
	require.Empty(t, run(empty, s, nil, 5, q, scanPlan(&f))[0])
	require.Empty(t, run(empty, s, nil, 5, q, directPlan([]uint64{1, 2}, &f))[0])

	x := newAttrIndex(t, r, 300, 16, kernel.E5M2, score.AdjustNone)
	require.Equal(t, run(x, s, nil, 7, q, plain), run(x, s, nil, 7, q, scanPlan(nil)), "nil filter")
	require.Equal(t, naive(x, q[0], 7, &match.Filter{}), run(x, s, nil, 7, q, directPlan(x.Parts().IDs, nil))[0])
	require.Empty(t, run(x, s, nil, 7, q, directPlan([]uint64{4, 9, 14}, nil))[0], "no candidate is stored")
	rare := match.Filter{AllTags: 32}
	got := run(x, s, nil, MaxK, q, scanPlan(&rare))[0]
	require.Equal(t, naive(x, q[0], MaxK, &rare), got)
	require.Less(t, len(got), 20, "k above the matches returns the matches")
}
