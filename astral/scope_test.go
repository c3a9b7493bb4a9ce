package astral

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	container "github.com/astral-engine/astral/astral/internal/file"
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// scoped is a data set with attributes: tag 0 on about half the
// records, tag 1 on a tenth, tag 2 on a hundredth, tag 3 on a third;
// every seventh record belongs to one of three owners; some carry a
// payload.
type scoped struct {
	dim   int
	ids   []uint64
	vecs  []float32
	attrs []Attributes
}

func newScoped(n, dim int, seed uint64) *scoped {
	r := rand.New(rand.NewPCG(seed, 17))
	s := &scoped{dim: dim, ids: seqIDs(1000, n), vecs: randomVectors(r, n, dim), attrs: make([]Attributes, n)}
	for i := range s.attrs {
		a := &s.attrs[i]
		for bit, share := range []float64{0.5, 0.1, 0.01, 0.33} {
			if r.Float64() < share {
				a.Tags |= 1 << bit
			}
		}
		if i%7 == 0 {
			a.Owner = 100 + uint64(i%3)
		}
		if i%5 == 0 {
			a.Payload = []byte(fmt.Sprintf("memory %d", i))
		}
	}
	return s
}

func (s *scoped) index(t testing.TB, rt *Runtime, opts ...Option) *Index {
	t.Helper()
	x, err := NewIndex(rt, append([]Option{WithDim(s.dim), WithHNSW(8, 60), WithIVF(16, 16), withIVFTrainAt(len(s.ids) / 2)}, opts...)...)
	require.NoError(t, err)
	require.NoError(t, x.AddWith(s.ids, s.vecs, s.attrs))
	x.Wait()
	return x
}

// matching is s restricted to the records f lets through.
func (s *scoped) matching(f Filter) (ids []uint64, vecs []float32) {
	in := func(set []uint64, id uint64) bool { return slices.Contains(set, id) }
	for i, id := range s.ids {
		a := s.attrs[i]
		ok := a.Tags&f.AllTags == f.AllTags && (f.AnyTags == 0 || a.Tags&f.AnyTags != 0) && a.Tags&f.NoTags == 0 &&
			(f.Owner == 0 || a.Owner == f.Owner) && (f.Allow == nil || in(f.Allow, id)) && !in(f.Deny, id)
		if ok {
			ids = append(ids, id)
			vecs = append(vecs, s.vecs[i*s.dim:(i+1)*s.dim]...)
		}
	}
	return ids, vecs
}

// reference answers q under f exactly: a flat index of just the matches.
func (s *scoped) reference(t testing.TB, f Filter, q []float32, k int, opts ...Option) []Result {
	t.Helper()
	ids, vecs := s.matching(f)
	x, err := NewIndex(nil, append([]Option{WithDim(s.dim), WithKind(KindFlat)}, opts...)...)
	require.NoError(t, err)
	if len(ids) == 0 {
		return []Result{}
	}
	require.NoError(t, x.Add(ids, vecs))
	res, err := x.Query(nil, q, k)
	require.NoError(t, err)
	return res
}

func (s *scoped) filters() map[string]Filter {
	pick := func(every int) []uint64 {
		var out []uint64
		for i := 0; i < len(s.ids); i += every {
			out = append(out, s.ids[i])
		}
		return out
	}
	shuffled := pick(3)
	rand.New(rand.NewPCG(5, 5)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	return map[string]Filter{
		"tag half":           {AllTags: 1},
		"tag tenth":          {AllTags: 2},
		"tag hundredth":      {AllTags: 4},
		"any of two":         {AnyTags: 2 | 4},
		"none of":            {NoTags: 1},
		"all and none":       {AllTags: 1 | 8, NoTags: 2},
		"owner":              {Owner: 101},
		"owner and tag":      {Owner: 101, AllTags: 1},
		"allow small":        {Allow: pick(37)},
		"allow large":        {Allow: shuffled},
		"allow repeats":      {Allow: append(pick(41), pick(41)...)},
		"allow and deny":     {Allow: pick(13), Deny: pick(26)},
		"allow and owner":    {Allow: pick(2), Owner: 100},
		"deny":               {Deny: pick(4)},
		"deny self":          {Deny: []uint64{s.ids[3]}},
		"empty allowlist":    {Allow: []uint64{}},
		"unknown owner":      {Owner: 999},
		"unheld tag":         {AllTags: 1 << 40},
		"unknown ids":        {Allow: []uint64{1, 2, 3}},
		"everything by tags": {NoTags: 1 << 63},
	}
}

// scopedKinds: IVF probes every partition here (exact, so every plan
// meets the reference) and trains at half the records.
var scopedKinds = []Kind{KindFlat, KindHNSW, KindIVF}

// fileKinds are the kinds an index file holds (IVF has no sections yet).
var fileKinds = []Kind{KindFlat, KindHNSW}

// TestScopedExactPlansMatchReference: every plan that is exact gives the
// reference's ids and score bits, in order, for every filter.
func TestScopedExactPlansMatchReference(t *testing.T) {
	s := newScoped(sized(3000, 1200), 24, 1)
	rt := newRuntime(t, 2)
	qs := randomVectors(rand.New(rand.NewPCG(9, 9)), 6, s.dim)
	nq := 6
	if testsize.Reduced() {
		// Under -race, noasm and qemu every kind, metric and filter on 2
		// queries: each reaches the race detector and the other kernels
		// through every plan's parallel scan; the plain run takes all 6.
		nq = 2
	}
	for _, kind := range scopedKinds {
		for _, metric := range []Metric{Cosine, Dot, L2} {
			x := s.index(t, rt, WithKind(kind), WithMetric(metric), WithEfSearch(64))
			for name, f := range s.filters() {
				for qi := range nq {
					q := qs[qi*s.dim : (qi+1)*s.dim]
					res, plan, err := x.QueryWith(nil, q, QueryOptions{K: 10, Filter: f})
					require.NoError(t, err, name)
					want := s.reference(t, f, q, 10, WithMetric(metric))
					if plan == PlanGraph {
						require.GreaterOrEqual(t, overlap(res, want), len(want)*6/10, "%v/%v/%s: graph plan recall", kind, metric, name)
						continue
					}
					require.Equal(t, want, res, "%v/%v/%s (plan %v)", kind, metric, name, plan)
				}
			}
		}
	}
}

func overlap(a, b []Result) int {
	n := 0
	for _, r := range a {
		if slices.ContainsFunc(b, func(w Result) bool { return w.ID == r.ID }) {
			n++
		}
	}
	return n
}

// TestScopedPlans: the planner picks the cheap plan the selectivity calls
// for, and Stats counts them.
func TestScopedPlans(t *testing.T) {
	testsize.SkipEmulated(t, "a plan is chosen by counting matches, the same Go code natively; no score decides it")
	s := newScoped(sized(4000, 3000), 16, 2)
	q := s.vecs[:s.dim]
	plans := func(x *Index) map[string]Plan {
		out := map[string]Plan{}
		for name, f := range map[string]Filter{
			"none": {}, "owner": {Owner: 100}, "allow": {Allow: s.ids[:50]}, "rare tag": {AllTags: 4},
			"common tag": {AllTags: 1}, "deny": {Deny: s.ids[:3]},
		} {
			_, plan, err := x.QueryWith(nil, q, QueryOptions{K: 5, Filter: f})
			require.NoError(t, err)
			out[name] = plan
		}
		return out
	}
	flat := s.index(t, nil, WithKind(KindFlat))
	require.Equal(t, map[string]Plan{"none": PlanScan, "owner": PlanDirect, "allow": PlanDirect, "rare tag": PlanScan,
		"common tag": PlanScan, "deny": PlanScan}, plans(flat))
	require.Equal(t, PlanCounts{Scan: 4, Direct: 2}, flat.PlanCounts())
	graph := s.index(t, nil, WithKind(KindHNSW))
	require.Equal(t, map[string]Plan{"none": PlanGraph, "owner": PlanDirect, "allow": PlanDirect, "rare tag": PlanScan,
		"common tag": PlanGraph, "deny": PlanGraph}, plans(graph))
	require.Equal(t, "direct", PlanDirect.String())
}

// TestScopedSameResultsEveryThreadCountAndBatch: ids, score bits and tie
// order do not depend on the thread count or on batching.
func TestScopedSameResultsEveryThreadCountAndBatch(t *testing.T) {
	s := newScoped(sized(6000, 2500), 32, 3)
	nq, threadStep := 21, 1
	if testsize.Reduced() {
		// Under -race, noasm and qemu serial against 3 workers on fewer
		// queries: the plans are the same code, the other thread counts
		// and queries are the default build's to prove.
		nq, threadStep = 7, 3
	}
	qs := randomVectors(rand.New(rand.NewPCG(4, 4)), nq, s.dim)
	for _, kind := range scopedKinds {
		var want map[string][]Result
		for threads := 0; threads <= 3; threads += threadStep {
			x := s.index(t, newRuntime(t, threads), WithKind(kind))
			got := map[string][]Result{}
			for name, f := range s.filters() {
				o := QueryOptions{K: 7, Filter: f}
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
					joined = append(joined, batch[i*7:i*7+counts[i]]...)
				}
				require.Equal(t, single, joined, "%v/%s/threads %d: batch", kind, name, threads)
				got[name] = single
			}
			if want == nil {
				want = got
			}
			require.Equal(t, want, got, "%v: threads %d", kind, threads)
		}
	}
}

// TestScopedQueryAllocatesNothing: a filtered query allocates nothing
// once its scratch has grown, whatever the plan.
func TestScopedQueryAllocatesNothing(t *testing.T) {
	testsize.SkipUnderRace(t, "allocation counts are the plain build's; the determinism tests run these queries under -race")
	s := newScoped(3000, 32, 4)
	q := s.vecs[:s.dim]
	for _, kind := range scopedKinds {
		x := s.index(t, newRuntime(t, 2), WithKind(kind))
		dst := make([]Result, 0, 10)
		counts := make([]int, 4)
		qs := s.vecs[:4*s.dim]
		for name, f := range s.filters() {
			o := QueryOptions{K: 10, Filter: f}
			run := func() {
				var err error
				if _, _, err = x.QueryWith(dst, q, o); err == nil {
					_, _, err = x.QueryBatchWith(dst[:0:0], counts, qs, o)
				}
				if err != nil {
					panic(err)
				}
			}
			run()
			single := testing.AllocsPerRun(20, func() {
				if _, _, err := x.QueryWith(dst, q, o); err != nil {
					panic(err)
				}
			})
			require.Zero(t, single, "%v/%s", kind, name)
		}
	}
}

// TestScopedAutoBeforeAndAfterSwitch: an auto index answers filters the
// same before its switch (flat) and after it (graph) for exact plans, and
// tags set while the graph was building reach it.
func TestScopedAutoBeforeAndAfterSwitch(t *testing.T) {
	s := newScoped(2000, 16, 5)
	x, err := NewIndex(newRuntime(t, 1), WithDim(s.dim), WithKind(KindAuto), WithHNSW(8, 40), WithFlatLimitBytes(1500*64))
	require.NoError(t, err)
	half := 1400
	require.NoError(t, x.AddWith(s.ids[:half], s.vecs[:half*s.dim], s.attrs[:half]))
	require.Equal(t, KindFlat, x.Stats().Kind)
	q := s.vecs[7*s.dim : 8*s.dim]
	owner := QueryOptions{K: 10, Filter: Filter{Owner: 102}}
	first := &scoped{dim: s.dim, ids: s.ids[:half], vecs: s.vecs[:half*s.dim], attrs: s.attrs[:half]}
	before, plan, err := x.QueryWith(nil, q, owner)
	require.NoError(t, err)
	require.Equal(t, PlanDirect, plan)
	require.Equal(t, first.reference(t, owner.Filter, q, 10), before)
	// Past the limit: the graph builds in the background; retag meanwhile.
	require.NoError(t, x.AddWith(s.ids[half:], s.vecs[half*s.dim:], s.attrs[half:]))
	retag := s.ids[:40]
	require.NoError(t, x.SetTags(retag, slices.Repeat([]uint64{1 << 20}, len(retag))))
	x.Wait()
	x.writeMu.Lock()
	x.settle()
	x.writeMu.Unlock()
	require.Equal(t, KindHNSW, x.Stats().Kind)
	after, plan, err := x.QueryWith(nil, q, owner)
	require.NoError(t, err)
	require.Equal(t, PlanDirect, plan)
	require.Equal(t, s.reference(t, owner.Filter, q, 10), after)
	res, _, err := x.QueryWith(nil, q, QueryOptions{K: 50, Filter: Filter{AllTags: 1 << 20}})
	require.NoError(t, err)
	got := make([]uint64, len(res))
	for i, r := range res {
		got[i] = r.ID
	}
	slices.Sort(got)
	require.Equal(t, retag, got)
}

// TestSetTagsAndPayloads: tags change without re-adding; payloads come
// back by id; removal forgets both; bad input changes nothing.
func TestSetTagsAndPayloads(t *testing.T) {
	s := newScoped(500, 8, 6)
	for _, kind := range scopedKinds {
		x := s.index(t, nil, WithKind(kind))
		q := s.vecs[:s.dim]
		require.NoError(t, x.SetTags([]uint64{s.ids[10], s.ids[20]}, []uint64{1 << 33, 1 << 33}))
		res, _, err := x.QueryWith(nil, q, QueryOptions{K: 10, Filter: Filter{AnyTags: 1 << 33}})
		require.NoError(t, err)
		require.ElementsMatch(t, []uint64{s.ids[10], s.ids[20]}, []uint64{res[0].ID, res[1].ID})
		require.Len(t, res, 2)

		require.ErrorIs(t, x.SetTags([]uint64{s.ids[1], 5}, []uint64{1, 1}), ErrNotFound)
		require.ErrorIs(t, x.SetTags([]uint64{s.ids[1], s.ids[1]}, []uint64{1, 1}), ErrDuplicateID)
		require.ErrorIs(t, x.SetTags([]uint64{s.ids[1]}, nil), ErrInvalidArgument)
		a, err := x.Attributes(s.ids[1])
		require.NoError(t, err)
		require.Equal(t, s.attrs[1].Tags, a.Tags, "a failed SetTags changes nothing")

		p, err := x.Payload(s.ids[5], make([]byte, 0, 64))
		require.NoError(t, err)
		require.Equal(t, "memory 5", string(p))
		p, err = x.Payload(s.ids[6], nil)
		require.NoError(t, err)
		require.Empty(t, p)
		n, err := x.PayloadLen(s.ids[5])
		require.NoError(t, err)
		require.Equal(t, 8, n)
		_, err = x.Payload(7, nil)
		require.ErrorIs(t, err, ErrNotFound)
		st := x.Stats()
		require.Equal(t, 100, st.Payloads)
		require.Equal(t, 3, st.Owners)

		buf := make([]byte, 0, 64)
		require.Zero(t, testing.AllocsPerRun(20, func() { buf, _ = x.Payload(s.ids[5], buf) }))

		require.NoError(t, x.Remove(s.ids[5], s.ids[7]))
		_, err = x.Payload(s.ids[5], nil)
		require.ErrorIs(t, err, ErrNotFound)
		require.Equal(t, 99, x.Stats().Payloads)
		res, _, err = x.QueryWith(nil, q, QueryOptions{K: 100, Filter: Filter{Owner: 100}})
		require.NoError(t, err)
		for _, r := range res {
			require.NotEqual(t, s.ids[7], r.ID, "a removed record leaves its owner's posting")
		}
		// Re-adding an id with another owner moves it.
		require.NoError(t, x.AddWith([]uint64{s.ids[7]}, s.vecs[7*s.dim:8*s.dim], []Attributes{{Owner: 555, Payload: []byte("x")}}))
		res, _, err = x.QueryWith(nil, q, QueryOptions{K: 5, Filter: Filter{Owner: 555}})
		require.NoError(t, err)
		require.Len(t, res, 1)
	}
	x := s.index(t, nil)
	big := make([]byte, MaxPayload+1)
	err := x.AddWith([]uint64{1}, s.vecs[:s.dim], []Attributes{{Payload: big}})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.ErrorIs(t, x.AddWith([]uint64{1}, s.vecs[:s.dim], []Attributes{{}, {}}), ErrInvalidArgument)
	_, _, err = x.QueryWith(nil, s.vecs[:s.dim], QueryOptions{K: 5, Ef: -1})
	require.ErrorIs(t, err, ErrInvalidArgument)
}

// TestScopedRoundTrip: attributes and payloads survive every loader and
// save to the same bytes again.
func TestScopedRoundTrip(t *testing.T) {
	s := newScoped(sized(1500, 600), 16, 7)
	rt := newRuntime(t, 1)
	for _, kind := range fileKinds {
		x := s.index(t, rt, WithKind(kind))
		require.NoError(t, x.Remove(s.ids[3], s.ids[14]))
		require.NoError(t, x.SetTags([]uint64{s.ids[20]}, []uint64{1 << 50}))
		file := saved(t, x)
		want := scopedAnswers(t, x, s)
		for _, l := range loaders {
			y, err := l.load(t, rt, file)
			require.NoError(t, err, l.name)
			require.Equal(t, want, scopedAnswers(t, y, s), "%v/%s", kind, l.name)
			for i := 0; i < len(s.ids); i += 9 {
				a, err := y.Attributes(s.ids[i])
				if i == 3 || i == 14 {
					require.ErrorIs(t, err, ErrNotFound)
					continue
				}
				require.NoError(t, err)
				wa, _ := x.Attributes(s.ids[i])
				require.Equal(t, wa, a, "%v/%s: id %d", kind, l.name, s.ids[i])
			}
			require.Equal(t, x.Stats().PayloadBytes, y.Stats().PayloadBytes)
			require.True(t, bytes.Equal(file, saved(t, y)), "%v/%s: saves again to the same bytes", kind, l.name)
		}
	}
}

func scopedAnswers(t testing.TB, x *Index, s *scoped) map[string][]Result {
	out := map[string][]Result{}
	q := s.vecs[11*s.dim : 12*s.dim]
	for name, f := range s.filters() {
		res, _, err := x.QueryWith(nil, q, QueryOptions{K: 8, Filter: f})
		require.NoError(t, err)
		out[name] = res
	}
	return out
}

// TestScopedConcurrentRetag: writers change tags and add and remove
// records while filtered queries run (run it under -race); every result
// passes the filter as the writers leave it at some point.
func TestScopedConcurrentRetag(t *testing.T) {
	s := newScoped(sized(3000, 800), 16, 8)
	for _, kind := range scopedKinds {
		x := s.index(t, newRuntime(t, 2), WithKind(kind))
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(1, 2))
			for i := 0; !stop.Load(); i++ {
				id := s.ids[r.IntN(len(s.ids))]
				_ = x.SetTags([]uint64{id}, []uint64{r.Uint64() | 1<<62})
				if i%10 == 0 {
					extra := uint64(1<<40 + i)
					_ = x.AddWith([]uint64{extra}, s.vecs[:s.dim], []Attributes{{Tags: 1 << 62, Owner: 100}})
					_ = x.Remove(extra)
				}
			}
		}()
		go func() {
			defer wg.Done()
			dst := make([]Result, 0, 10)
			for i := 0; i < sized(400, 100); i++ {
				q := s.vecs[(i%50)*s.dim : (i%50+1)*s.dim]
				for _, f := range []Filter{{AllTags: 1 << 62}, {Owner: 100}, {Allow: s.ids[:30]}, {NoTags: 1 << 62}} {
					res, _, err := x.QueryWith(dst, q, QueryOptions{K: 10, Filter: f})
					if err != nil {
						panic(err)
					}
					for _, r := range res {
						if f.Allow != nil && !slices.Contains(f.Allow, r.ID) {
							panic(fmt.Sprintf("id %d outside the allowlist", r.ID))
						}
					}
				}
			}
			stop.Store(true)
		}()
		wg.Wait()
		x.Wait()
		// Quiet now: the counts the planner uses match the records.
		x.attrs.mu.RLock()
		var want [64]int64
		x.live.eachAttr(func(_ uint64, a match.Attr) {
			for b := range 64 {
				if a.Tags&(1<<b) != 0 {
					want[b]++
				}
			}
		})
		require.Equal(t, want, x.attrs.tagCount, "%v: tag counts", kind)
		x.attrs.mu.RUnlock()
	}
}

// withAttrs adds n records with tags, owners and payloads to x, removes a
// few, and returns x.
func withAttrs(t testing.TB, x *Index, n int) *Index {
	t.Helper()
	s := newScoped(n, x.Config().Dim, uint64(n))
	require.NoError(t, x.AddWith(s.ids, s.vecs, s.attrs))
	require.NoError(t, x.Remove(s.ids[5], s.ids[11]))
	x.Wait()
	return x
}

// TestPreviousFormatLoads: a version-2 file (no attribute sections) loads
// every way, with empty attributes, answers as before and takes writes
// with attributes.
func TestPreviousFormatLoads(t *testing.T) {
	for _, kind := range fileKinds {
		x := testIndex(t, nil, kind, Cosine, 300, 8)
		want := answers(t, x, 5)
		h, bufs, err := fileFormat.FromBytes(saved(t, x), false)
		require.NoError(t, err)
		var parts []container.Part
		for i, sec := range h.Sections {
			if sec.Kind != secTags && sec.Kind != secOwners && sec.Kind != secPayloads && sec.Kind != secTimes && sec.Kind != secImportances {
				parts = append(parts, container.Part{Kind: sec.Kind, Flags: sec.Flags, Bytes: bufs[i]})
			}
		}
		h.Version = 2
		var old bytes.Buffer
		_, err = container.Write(h, parts, nil, func(int64) (io.Writer, error) { return &old, nil })
		require.NoError(t, err)
		for _, l := range loaders {
			y, err := l.load(t, nil, old.Bytes())
			require.NoError(t, err, "%v/%s", kind, l.name)
			require.Equal(t, want, answers(t, y, 5), "%v/%s", kind, l.name)
			a, err := y.Attributes(11)
			require.NoError(t, err)
			require.Equal(t, Attributes{}, a)
			res, _, err := y.QueryWith(nil, make([]float32, 8), QueryOptions{K: 3, Filter: Filter{AnyTags: 1}})
			require.NoError(t, err)
			require.Empty(t, res)
			require.NoError(t, y.AddWith([]uint64{1 << 40}, make([]float32, 8), []Attributes{{Tags: 1, Payload: []byte("p")}}))
		}
		// A version-2 header may not claim payloads.
		bad := forge(old.Bytes(), func(b []byte) { put64(b, 112, 64) })
		mustFail(t, bad, ErrCorrupt, "payload bytes in a version-2 file")
	}
}

// TestCorruptPayloads: a payloads section whose inside disagrees with
// itself or with the index is ErrCorrupt, with a reason, every way.
func TestCorruptPayloads(t *testing.T) {
	for _, kind := range fileKinds {
		file := saved(t, withAttrs(t, testIndex(t, nil, kind, Cosine, 0, 8), 40))
		h, err := decodeHeader(file[:binary.LittleEndian.Uint32(file[16:])])
		require.NoError(t, err)
		sec := h.Find(secPayloads)
		require.NotNil(t, sec)
		at := int(sec.Offset)
		n := int(binary.LittleEndian.Uint64(file[at:]))
		lens := at + 8 + 8*n
		cases := []struct {
			name, why string
			edit      func(b []byte)
		}{
			{"count zero", "absurd count", func(b []byte) { put64(b, at, 0) }},
			{"count huge", "absurd count", func(b []byte) { put64(b, at, 1<<40) }},
			{"ids not ascending", "not ascending", func(b []byte) { copy(b[at+16:at+24], b[at+8:at+16]) }},
			{"id not stored", "does not hold", func(b []byte) { put64(b, at+8, 3) }},
			{"length zero", "want 1 to", func(b []byte) { put32(b, lens, 0) }},
			{"length too long", "want 1 to", func(b []byte) { put32(b, lens, MaxPayload+1) }},
			{"lengths disagree", "add up to", func(b []byte) { put32(b, lens, binary.LittleEndian.Uint32(b[lens:])+1) }},
			{"payload bytes past the bound", "absurd count", func(b []byte) { put64(b, 112, 1<<50) }},
		}
		for _, c := range cases {
			bad := forge(file, c.edit)
			mustFail(t, bad, ErrCorrupt, fmt.Sprintf("%v: %s", kind, c.name))
			_, err := LoadBytes(nil, bad)
			require.ErrorContains(t, err, c.why, "%v: %s", kind, c.name)
		}
	}
}
