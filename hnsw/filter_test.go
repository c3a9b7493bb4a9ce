package hnsw

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// testAttrs draws attributes for d's records from a fixed seed: tag bits
// 0..7 each held by about half the records, bit 8 by a tenth, and one of
// five owners (0 included).
func testAttrs(d *data) []match.Attr {
	r := rand.New(rand.NewPCG(5, 17))
	attrs := make([]match.Attr, d.n())
	for i := range attrs {
		attrs[i].Tags = r.Uint64() & 0xff
		if r.IntN(10) == 0 {
			attrs[i].Tags |= 1 << 8
		}
		attrs[i].Owner = uint64(r.IntN(5))
	}
	return attrs
}

// filteredGraph builds d's graph with testAttrs and deletes every 13th
// record; it returns the graph, the attributes and the live check.
func filteredGraph(t testing.TB, d *data) (*Graph, []match.Attr, func(i int) bool) {
	g := newGraph(t, d, Config{M: 8, EfConstruction: 64, Seed: 3})
	attrs := testAttrs(d)
	require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, attrs, nil, true))
	live := func(i int) bool { return i%13 != 5 }
	for i := range d.n() {
		if !live(i) {
			require.NoError(t, g.Delete(d.ids[i]))
		}
	}
	return g, attrs, live
}

// testFilters are filters over testAttrs of every kind and selectivity;
// allow and deny lists draw on d's ids, plus ids never stored.
func testFilters(d *data) []match.Filter {
	var allow, deny match.Filter
	var ids []uint64
	for i := 0; i < d.n(); i += 7 {
		ids = append(ids, d.ids[i])
	}
	ids = append(ids, 1, 2, 999999) // not stored
	allow.Allow.Build(ids, nil)
	deny.Deny.Build(ids, nil)
	both := match.Filter{AnyTags: 0x3, Owner: 2, Allow: allow.Allow, Deny: match.IDSet{}}
	both.Deny.Build([]uint64{d.ids[14], d.ids[28]}, nil)
	return []match.Filter{
		{},
		{AllTags: 1},
		{AllTags: 1 << 8},
		{AllTags: 0x7, NoTags: 0x8},
		{AnyTags: 0x30},
		{Owner: 3},
		{Owner: 4, AllTags: 1 << 8},
		allow,
		deny,
		both,
		{Owner: 77}, // no owner matches
	}
}

// bruteForce is the k best live records passing f by exactScore, ranked
// by the one order.
func bruteForce(d *data, attrs []match.Attr, live func(i int) bool, qp []float32, k int, f *match.Filter, cands []uint64) []score.Result {
	var all []score.Result
	for i := range d.n() {
		if !live(i) || !f.Match(d.ids[i], attrs[i]) || cands != nil && !slices.Contains(cands, d.ids[i]) {
			continue
		}
		all = append(all, score.Result{ID: d.ids[i], Score: exactScore(d, qp, i)})
	}
	slices.SortFunc(all, score.CompareResults)
	return all[:min(k, len(all))]
}

// TestAttributesSurvive: attributes given to Insert and Build read back by
// id, the same for every worker count of a deterministic build, after
// SetTags, growth and Delete + Compact; tombstones and unknown ids have
// none.
func TestAttributesSurvive(t *testing.T) {
	d := load(t, "clustered", sized(1500, 600), 4, 32, score.AdjustScale)
	attrs := testAttrs(d)
	var first *Graph
	for _, workers := range []int{0, 2} {
		g := newGraph(t, d, Config{M: 8, EfConstruction: 32})
		require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, attrs, newTestPool(t, workers), true))
		for i, id := range d.ids {
			a, ok := g.Attr(id)
			require.True(t, ok)
			require.Equal(t, attrs[i], a)
		}
		if first != nil {
			require.Equal(t, first.Digest(), g.Digest())
		}
		first = g
	}
	plain := newGraph(t, d, Config{M: 8, EfConstruction: 32})
	require.NoError(t, plain.Build(d.ids, d.recs, d.adj, nil, nil, nil, true))
	require.NotEqual(t, first.Digest(), plain.Digest(), "the digest covers attributes")
	// Inserts one at a time, through growth.
	g := newGraph(t, d, Config{M: 8, EfConstruction: 32})
	for i := range d.n() {
		require.NoError(t, g.Insert(d.ids[i], d.rec(i), d.adj[i], 1, attrs[i]))
	}
	require.True(t, g.SetTags(d.ids[3], 0xabc))
	attrs = slices.Clone(attrs)
	attrs[3].Tags = 0xabc
	for i := 0; i < d.n(); i += 3 {
		require.NoError(t, g.Delete(d.ids[i]))
	}
	require.False(t, g.SetTags(d.ids[0], 1), "deleted")
	require.False(t, g.SetTags(12345678, 1), "never stored")
	_, ok := g.Attr(d.ids[0])
	require.False(t, ok)
	g.Compact(newTestPool(t, 1))
	for i, id := range d.ids {
		a, ok := g.Attr(id)
		require.Equal(t, i%3 != 0, ok)
		if ok {
			require.Equal(t, attrs[i], a, "id %d", id)
		}
	}
	var none *Graph = newGraph(t, d, Config{M: 8})
	require.NoError(t, none.Build(d.ids[:10], d.recs[:10*d.k.Stride()], d.adj[:10], nil, nil, nil, true))
	a, ok := none.Attr(d.ids[4])
	require.True(t, ok)
	require.Zero(t, a, "Build without attributes: all zero")
	require.Error(t, none.Build(d.ids[10:12], d.recs[10*d.k.Stride():12*d.k.Stride()], d.adj[10:12], nil, attrs[:1], nil, true))
}

// TestExactIsBruteForce: Exact over every slot and over candidate lists
// (with repeats of nothing, missing and deleted ids, any order) gives the
// brute-force filtered top-k, bit for bit, for every filter and for 0 to 3
// workers.
func TestExactIsBruteForce(t *testing.T) {
	n := sized(2500, 1200)
	if testsize.Reduced() {
		// The same split and merge code on fewer records.
		n = 400
	}
	d := load(t, "spectral", n, 8, 256, score.AdjustScale)
	g, attrs, live := filteredGraph(t, d)
	var cands []uint64
	for i := 0; i < d.n(); i += 2 {
		cands = append(cands, d.ids[i])
	}
	cands = append(cands, 5, 77777) // missing
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	filters := testFilters(d)
	e := NewExactSearcher(4)
	counts := []int{-1, 0, 1, 2, 3}
	if testsize.Emulated() {
		// Under qemu none against 3 workers: the arm64 kernels score the
		// same candidates in each; the other counts are the native runs'.
		counts = []int{-1, 3}
	}
	for _, workers := range counts {
		var p *pool.Pool // -1: none; 0: a pool of no workers
		if workers >= 0 {
			var err error
			p, err = pool.New(pool.Options{Workers: workers})
			require.NoError(t, err)
			defer p.Close()
		}
		for fi := range filters {
			f := &filters[fi]
			for j, qp := range d.qps {
				for _, k := range []int{1, 10, 50} {
					want := bruteForce(d, attrs, live, qp, k, f, nil)
					require.Equal(t, want, g.Exact(e, p, qp, k, nil, f, nil), "workers %d filter %d query %d k %d", workers, fi, j, k)
					want = bruteForce(d, attrs, live, qp, k, f, cands)
					require.Equal(t, want, g.Exact(e, p, qp, k, cands, f, nil), "cands: workers %d filter %d query %d k %d", workers, fi, j, k)
				}
			}
		}
	}
	require.Empty(t, g.Exact(e, nil, d.qps[0], 10, []uint64{}, nil, nil), "empty candidate list")
	require.Empty(t, g.Exact(e, nil, d.qps[0], 0, nil, nil, nil))
	require.Equal(t, bruteForce(d, attrs, live, d.qps[1], 10, &match.Filter{}, nil), g.Exact(e, nil, d.qps[1], 10, nil, nil, nil), "nil filter")
}

// TestSearchFiltered: with a filter that passes everything the graph plan
// is Search; otherwise its results pass the filter, are live, carry exact
// scores, and find most of Exact's at a wide enough ef.
func TestSearchFiltered(t *testing.T) {
	testsize.SkipSerialUnderRace(t)
	d := load(t, "spectral", sized(3000, 1200), 16, 64, score.AdjustScale)
	g, attrs, _ := filteredGraph(t, d)
	s, e := NewSearcher(), NewExactSearcher(1)
	all := &match.Filter{}
	for _, qp := range d.qps {
		for _, ef := range []int{10, 64} {
			require.Equal(t, g.Search(s, qp, 10, ef, nil), g.SearchFiltered(s, qp, 10, ef, all, nil))
			require.Equal(t, g.Search(s, qp, 10, ef, nil), g.SearchFiltered(s, qp, 10, ef, nil, nil))
		}
	}
	for fi, f := range testFilters(d) {
		hit, total := 0, 0
		for _, qp := range d.qps {
			res := g.SearchFiltered(s, qp, 10, 256, &f, nil)
			checkResults(t, d, qp, res)
			for _, r := range res {
				i := int(r.ID - 1000)
				require.True(t, f.Match(r.ID, attrs[i]), "filter %d: id %d fails it", fi, r.ID)
				require.True(t, g.Has(r.ID), "filter %d: id %d deleted", fi, r.ID)
			}
			want := g.Exact(e, nil, qp, 10, nil, &f, nil)
			require.LessOrEqual(t, len(res), len(want))
			hit += overlap(res, want)
			total += len(want)
		}
		if total > 0 {
			require.GreaterOrEqual(t, float64(hit)/float64(total), 0.8, "filter %d recall", fi)
		}
	}
	require.Empty(t, g.SearchFiltered(s, d.qps[0], 0, 10, nil, nil))
	empty := newGraph(t, d, Config{})
	require.Empty(t, empty.SearchFiltered(s, d.qps[0], 10, 10, nil, nil))
	require.Empty(t, empty.Exact(e, nil, d.qps[0], 10, nil, nil, nil))
}

// TestFilteredAllocs: warmed up, a filtered search and an exact scan (over
// slots and over candidates, on workers) allocate nothing.
func TestFilteredAllocs(t *testing.T) {
	testsize.SkipUnderRace(t, "allocation counts are the plain build's; the determinism tests run these queries under -race")
	d := load(t, "spectral", sized(2500, 1200), 4, 256, score.AdjustScale)
	g, _, _ := filteredGraph(t, d)
	p := newTestPool(t, 2)
	s, e := NewSearcher(), NewExactSearcher(3)
	res := make([]score.Result, 0, 10)
	f := testFilters(d)[9] // tags, owner, allow and deny
	cands := d.ids[:d.n()/2]
	qp := d.qps[0]
	run := func() {
		res = g.SearchFiltered(s, qp, 10, 128, &f, res)
		res = g.Exact(e, p, qp, 10, nil, &f, res)
		res = g.Exact(e, p, qp, 10, cands, &f, res)
	}
	run()
	require.Zero(t, testing.AllocsPerRun(20, run))
}

// TestSetTagsBesideSearches: SetTags on many goroutines, beside filtered
// searches, exact scans and inserts, under -race. Writers only flip bit 1,
// so the filter on bit 0 must keep returning the same set's members.
func TestSetTagsBesideSearches(t *testing.T) {
	d := load(t, "clustered", sized(2000, 700), 8, 32, score.AdjustScale)
	half := d.n() / 2
	attrs := make([]match.Attr, d.n())
	for i := range attrs {
		attrs[i].Tags = uint64(i % 2)
	}
	g := newGraph(t, d, Config{M: 8, EfConstruction: 32})
	require.NoError(t, g.Build(d.ids[:half], d.recs[:half*d.k.Stride()], d.adj[:half], nil, attrs[:half], nil, false))
	p := newTestPool(t, 1)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 9))
			for !stop.Load() {
				i := r.IntN(d.n())
				g.SetTags(d.ids[i], attrs[i].Tags|uint64(r.IntN(2))<<1)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := half; i < d.n(); i++ {
			if err := g.Insert(d.ids[i], d.rec(i), d.adj[i], 1, attrs[i]); err != nil {
				panic(err)
			}
		}
	}()
	s, e := NewSearcher(), NewExactSearcher(2)
	f := &match.Filter{AllTags: 1}
	for round := 0; round < sized(30, 6); round++ {
		for _, qp := range d.qps {
			for _, res := range [][]score.Result{
				g.SearchFiltered(s, qp, 10, 64, f, nil),
				g.Exact(e, p, qp, 10, nil, f, nil),
			} {
				for _, r := range res {
					require.Equal(t, uint64(1), (r.ID-1000)%2, "id %d does not hold bit 0", r.ID)
				}
				require.True(t, slices.IsSortedFunc(res, score.CompareResults))
			}
		}
	}
	stop.Store(true)
	wg.Wait()
}

// TestAttrsPartsRoundTrip: attributes leave through View.Attrs and come
// back through FromParts and OpenParts (in place, then copied by Detach);
// nil columns read as zero, misaligned ones are copied, wrong lengths are
// ErrCorrupt.
func TestAttrsPartsRoundTrip(t *testing.T) {
	d := load(t, "clustered", sized(1500, 600), 8, 32, score.AdjustScale)
	g, attrs, live := filteredGraph(t, d)
	p := viewParts(t, g)
	require.NoError(t, g.View(func(v *View) error {
		as := v.Attrs(nil, 0, v.Nodes())
		require.Len(t, as, v.Nodes())
		for _, a := range as {
			p.Tags, p.Owners = append(p.Tags, a.Tags), append(p.Owners, a.Owner)
		}
		require.Equal(t, as[5:9], v.Attrs(nil, 5, 9))
		return nil
	}))
	e := NewExactSearcher(1)
	f := &match.Filter{AllTags: 1, Owner: 2}
	check := func(h *Graph) {
		for i, id := range d.ids {
			a, ok := h.Attr(id)
			require.Equal(t, live(i), ok)
			if ok {
				require.Equal(t, attrs[i], a)
			}
		}
		for _, qp := range d.qps {
			require.Equal(t, g.Exact(e, nil, qp, 10, nil, f, nil), h.Exact(e, nil, qp, 10, nil, f, nil))
		}
	}
	h, err := FromParts(d.k, d.adjust, g.Config(), p, nil)
	require.NoError(t, err)
	check(h)
	o, finish, err := OpenParts(d.k, d.adjust, g.Config(), p, newTestPool(t, 1))
	require.NoError(t, err)
	require.NoError(t, finish())
	check(o)

	// Detach copies: tag changes leave the parts alone.
	frozen := slices.Clone(p.Tags)
	h.Detach()
	require.True(t, h.SetTags(d.ids[1], 0xff00))
	require.Equal(t, frozen, p.Tags)
	a, _ := h.Attr(d.ids[1])
	require.Equal(t, uint64(0xff00), a.Tags)

	if !raceEnabled {
		// A column 4 bytes off alignment (a mapped file's section could be).
		raw := make([]uint64, len(p.Tags)+1)
		odd := unsafe.Slice((*uint64)(unsafe.Add(unsafe.Pointer(&raw[0]), 4)), len(p.Tags))
		copy(odd, p.Tags)
		q := p
		q.Tags = odd
		m, err := FromParts(d.k, d.adjust, g.Config(), q, nil)
		require.NoError(t, err)
		check(m)
	}

	q := p
	q.Tags, q.Owners = nil, nil
	z, err := FromParts(d.k, d.adjust, g.Config(), q, nil)
	require.NoError(t, err)
	a, ok := z.Attr(d.ids[1])
	require.True(t, ok)
	require.Zero(t, a)

	for _, bad := range []func(q *Parts){
		func(q *Parts) { q.Tags = q.Tags[:len(q.Tags)-1] },
		func(q *Parts) { q.Owners = append(slices.Clone(q.Owners), 0) },
		func(q *Parts) { q.Tags = []uint64{} },
	} {
		q = p
		bad(&q)
		_, err := FromParts(d.k, d.adjust, g.Config(), q, nil)
		require.ErrorIs(t, err, ErrCorrupt)
		_, _, err = OpenParts(d.k, d.adjust, g.Config(), q, nil)
		require.ErrorIs(t, err, ErrCorrupt)
	}
}
