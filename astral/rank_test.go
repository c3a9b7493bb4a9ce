package astral

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// withMemories gives s's records times (a few recent, most old) and
// importances (most low, a few high) from seed.
func withMemories(s *scoped, seed uint64) *scoped {
	r := rand.New(rand.NewPCG(seed, 23))
	for i := range s.attrs {
		a := &s.attrs[i]
		a.Time = 100000 - int64(math.Pow(r.Float64(), 0.25)*100000)
		a.Importance = float32(math.Pow(r.Float64(), 4) * 10)
		if i%11 == 0 {
			a.Importance = -float32(r.Float64()) // any finite value the game assigns
		}
	}
	return s
}

// rankings are the rankings the tests try, all at the fixture's now.
var rankings = map[string]Rank{
	"equal":            {Relevance: 1, Recency: 1, Importance: 1, Decay: math.Pow(0.5, 1.0/2000), Now: 100000},
	"recency only":     {Recency: 1, Decay: 0.999, Now: 100000},
	"importance heavy": {Relevance: 1, Importance: 0.5, Now: 1},
	"short half-life":  {Relevance: 2, Recency: 3, Importance: 0.1, Decay: 0.5, Now: 100000},
	"decay 1":          {Relevance: 1, Recency: 1, Decay: 1, Now: 5},
	"future now":       {Relevance: 1, Recency: 0.3, Importance: 0.2, Decay: 0.99999, Now: math.MaxInt64},
	"past now":         {Relevance: 1, Recency: 0.3, Decay: 0.9, Now: math.MinInt64},
}

// refScore is the ranking's definition written out once more.
func refScore(r Rank, sim float32, t int64, imp float32) float32 {
	var rec float32
	if r.Recency != 0 {
		age := uint64(0)
		if t < r.Now {
			age = uint64(r.Now) - uint64(t)
		}
		rec = float32(r.Recency * float32(rank.Pow(r.Decay, age)))
	}
	c := float32(r.Relevance * sim)
	c = float32(c + rec)
	return float32(c + float32(r.Importance*imp))
}

// rankedReference ranks every record passing f by r from the similarities
// plain flat queries over the same stored vectors give (each of at most
// MaxK records, k = all of them: a record's score does not depend on the
// others).
func (s *scoped) rankedReference(t testing.TB, f Filter, r Rank, q []float32, k int) []Result {
	t.Helper()
	all := []Result{}
	for lo := 0; lo < len(s.ids); lo += MaxK {
		hi := min(lo+MaxK, len(s.ids))
		x, err := NewIndex(nil, WithDim(s.dim), WithKind(KindFlat))
		require.NoError(t, err)
		require.NoError(t, x.AddWith(s.ids[lo:hi], s.vecs[lo*s.dim:hi*s.dim], s.attrs[lo:hi]))
		res, _, err := x.QueryWith(nil, q, QueryOptions{K: hi - lo, Filter: f})
		require.NoError(t, err)
		all = append(all, res...)
	}
	if r.Recency == 0 && r.Importance == 0 {
		slices.SortFunc(all, byScoreThenID)
		return all[:min(k, len(all))] // ranking off: a plain query
	}
	at := map[uint64]Attributes{}
	for i, id := range s.ids {
		at[id] = s.attrs[i]
	}
	for i := range all {
		a := at[all[i].ID]
		all[i].Score = refScore(r, all[i].Score, a.Time, a.Importance)
	}
	slices.SortFunc(all, byScoreThenID)
	return all[:min(k, len(all))]
}

func byScoreThenID(a, b Result) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return cmp.Compare(a.ID, b.ID)
}

// TestRankedExactPlansMatchReference: flat, and the exact plans of a
// graph, give the reference's ids and score bits in order for every
// ranking and filter; the graph walk finds most of them.
func TestRankedExactPlansMatchReference(t *testing.T) {
	s := withMemories(newScoped(1000, 24, 31), 1)
	rt := newRuntime(t, 2)
	nq := sized(4, 2)
	qs := randomVectors(rand.New(rand.NewPCG(9, 9)), nq, s.dim)
	filters := s.filters()
	filters["none"] = Filter{}
	rnames, fnames := slices.Sorted(maps.Keys(rankings)), slices.Sorted(maps.Keys(filters))
	for ki, kind := range rankedKinds {
		x := s.index(t, rt, WithKind(kind), WithEfSearch(64))
		for ri, rname := range rnames {
			r := rankings[rname]
			for fi, fname := range fnames {
				// Reduced (-race, noasm, qemu): half the pairs of each
				// kind, every ranking and filter still in some kind.
				if !testsize.Rotate(ki+ri+fi, 2) {
					continue
				}
				f := filters[fname]
				for qi := range nq {
					q := qs[qi*s.dim : (qi+1)*s.dim]
					res, plan, err := x.QueryWith(nil, q, QueryOptions{K: 10, Filter: f, Rank: r})
					require.NoError(t, err)
					want := s.rankedReference(t, f, r, q, 10)
					if plan == PlanGraph {
						require.GreaterOrEqual(t, overlap(res, want), len(want)*8/10, "%v/%s/%s: graph recall", kind, rname, fname)
						continue
					}
					require.Equal(t, want, res, "%v/%s/%s (plan %v)", kind, rname, fname, plan)
				}
			}
		}
	}
}

// TestRankedZeroWeightsAreAPlainQuery: a ranking with only relevance (or
// none) gives a plain query's results bit for bit.
func TestRankedZeroWeightsAreAPlainQuery(t *testing.T) {
	s := withMemories(newScoped(2000, 16, 32), 2)
	q := s.vecs[5*s.dim : 6*s.dim]
	for _, kind := range rankedKinds {
		x := s.index(t, newRuntime(t, 1), WithKind(kind))
		plain, _, err := x.QueryWith(nil, q, QueryOptions{K: 20})
		require.NoError(t, err)
		for _, r := range []Rank{{}, {Relevance: 1}, {Relevance: 3, Decay: 0.5, Now: 7}, {Relevance: 0.5, Decay: 7}} {
			got, _, err := x.QueryWith(nil, q, QueryOptions{K: 20, Rank: r})
			require.NoError(t, err)
			require.Equal(t, plain, got, "%v %+v", kind, r)
		}
	}
}

// TestRankedSameEveryThreadCountAndBatch: ranked queries give the same
// ids, score bits and order for threads 0 to 3, batched or not.
func TestRankedSameEveryThreadCountAndBatch(t *testing.T) {
	s := withMemories(newScoped(sized(6000, 1500), 32, 33), 3)
	nq := sized(19, 5)
	qs := randomVectors(rand.New(rand.NewPCG(4, 4)), nq, s.dim)
	filters := map[string]Filter{"none": {}, "tag": {AllTags: 1}, "rare": {AllTags: 4}, "owner": {Owner: 101}, "deny": {Deny: s.ids[:100]}}
	ranks := rankings
	if testing.Short() {
		ranks = map[string]Rank{"equal": rankings["equal"], "future now": rankings["future now"]}
	}
	threadStep := 1
	if testsize.Reduced() {
		// Serial against 3 workers: the same code as every count between.
		threadStep = 3
	}
	for _, kind := range rankedKinds {
		var want map[string][]Result
		for threads := 0; threads <= 3; threads += threadStep {
			x := s.index(t, newRuntime(t, threads), WithKind(kind))
			got := map[string][]Result{}
			for fname, f := range filters {
				for rname, r := range ranks {
					o := QueryOptions{K: 9, Filter: f, Rank: r}
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
					require.Equal(t, single, joined, "%v/%s/%s/threads %d: batch", kind, fname, rname, threads)
					got[fname+"/"+rname] = single
				}
			}
			if want == nil {
				want = got
			}
			require.Equal(t, want, got, "%v: threads %d", kind, threads)
		}
	}
}

// TestRankedQueryAllocatesNothing: a ranked query allocates nothing once
// its scratch has grown, filtered or not.
func TestRankedQueryAllocatesNothing(t *testing.T) {
	testsize.SkipUnderRace(t, "allocation counts are the plain build's; the determinism tests run these queries under -race")
	s := withMemories(newScoped(3000, 32, 34), 4)
	q := s.vecs[:s.dim]
	for _, kind := range rankedKinds {
		x := s.index(t, newRuntime(t, 2), WithKind(kind))
		dst := make([]Result, 0, 10)
		for _, f := range []Filter{{}, {AllTags: 1}, {AllTags: 4}, {Owner: 100}, {Allow: s.ids[:300]}} {
			o := QueryOptions{K: 10, Filter: f, Rank: rankings["equal"]}
			_, _, err := x.QueryWith(dst, q, o)
			require.NoError(t, err)
			allocs := testing.AllocsPerRun(20, func() {
				if _, _, err := x.QueryWith(dst, q, o); err != nil {
					panic(err)
				}
			})
			require.Zero(t, allocs, "%v %+v", kind, f)
		}
	}
}

// TestRankValidation: bad weights and decays are refused, as is l2.
func TestRankValidation(t *testing.T) {
	s := withMemories(newScoped(100, 8, 35), 5)
	x := s.index(t, nil, WithKind(KindFlat))
	q := s.vecs[:s.dim]
	nan := float32(math.NaN())
	for _, r := range []Rank{
		{Relevance: -1, Importance: 1}, {Recency: nan, Decay: 0.5}, {Importance: float32(math.Inf(1))},
		{Recency: 1}, {Recency: 1, Decay: 1.5}, {Recency: 1, Decay: -0.5}, {Recency: 1, Decay: math.NaN()},
		{Relevance: -0.5},
	} {
		_, _, err := x.QueryWith(nil, q, QueryOptions{K: 3, Rank: r})
		require.ErrorIs(t, err, ErrInvalidArgument, "%+v", r)
		_, _, err = x.QueryBatchWith(nil, make([]int, 1), q, QueryOptions{K: 3, Rank: r})
		require.ErrorIs(t, err, ErrInvalidArgument, "%+v", r)
	}
	l2 := s.index(t, nil, WithKind(KindFlat), WithMetric(L2))
	_, _, err := l2.QueryWith(nil, q, QueryOptions{K: 3, Rank: Rank{Importance: 1}})
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, _, err = l2.QueryWith(nil, q, QueryOptions{K: 3, Rank: Rank{Relevance: 1}})
	require.NoError(t, err)
}

// TestTouchAndSetImportance: both change every id given or, if one is
// missing or repeated, none; AddWith and Upsert set them; bad values are
// refused.
func TestTouchAndSetImportance(t *testing.T) {
	s := withMemories(newScoped(sized(3000, 1000), 16, 36), 6)
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		x := s.index(t, nil, WithKind(kind))
		a, err := x.Attributes(s.ids[7])
		require.NoError(t, err)
		require.Equal(t, s.attrs[7].Time, a.Time)
		require.Equal(t, s.attrs[7].Importance, a.Importance)
		ids := []uint64{s.ids[1], s.ids[2], s.ids[3]}
		require.NoError(t, x.Touch(ids, 123456))
		require.NoError(t, x.SetImportance(ids[:2], 42.5))
		for i, id := range ids {
			a, err := x.Attributes(id)
			require.NoError(t, err)
			require.Equal(t, int64(123456), a.Time)
			if i < 2 {
				require.Equal(t, float32(42.5), a.Importance)
			} else {
				require.Equal(t, s.attrs[3].Importance, a.Importance)
			}
			require.Equal(t, s.attrs[i+1].Tags, a.Tags)
		}
		require.ErrorIs(t, x.Touch([]uint64{s.ids[4], 1}, 9), ErrNotFound)
		require.ErrorIs(t, x.SetImportance([]uint64{s.ids[4], s.ids[4]}, 9), ErrDuplicateID)
		require.ErrorIs(t, x.SetImportance([]uint64{s.ids[4]}, float32(math.Inf(-1))), ErrNonFinite)
		a, err = x.Attributes(s.ids[4])
		require.NoError(t, err)
		require.Equal(t, s.attrs[4].Time, a.Time)
		require.Equal(t, s.attrs[4].Importance, a.Importance)
		bad := slices.Clone(s.attrs[:1])
		bad[0].Importance = float32(math.NaN())
		require.ErrorIs(t, x.AddWith([]uint64{1}, s.vecs[:s.dim], bad), ErrNonFinite)
		require.NoError(t, x.Upsert(ids[:1], s.vecs[:s.dim], []Attributes{{Time: -5, Importance: 2}}))
		a, err = x.Attributes(ids[0])
		require.NoError(t, err)
		require.Equal(t, Attributes{Time: -5, Importance: 2}, a)
		// A touched memory moves up a recency ranking.
		r := Rank{Recency: 1, Decay: 0.9, Now: 123456}
		res, _, err := x.QueryWith(nil, s.vecs[:s.dim], QueryOptions{K: 1, Rank: r})
		require.NoError(t, err)
		require.Equal(t, []Result{{ID: ids[1], Score: 1}}, res)
		x.Close()
	}
}

// TestRankedConcurrentTouch: ranked queries run beside Touch and
// SetImportance (under -race) and see a whole value each.
func TestRankedConcurrentTouch(t *testing.T) {
	testsize.SkipEmulated(t, "a concurrency stress: qemu keeps the host's memory order, so it proves nothing arm64 adds")
	s := withMemories(newScoped(sized(3000, 1500), 16, 37), 7)
	for _, kind := range rankedKinds {
		// IVF probes 2 of 16 here, so its second phase reads the columns
		// the writers change.
		x := s.index(t, newRuntime(t, 2), WithKind(kind), WithIVF(16, 2))
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 1))
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					ids := []uint64{s.ids[r.IntN(len(s.ids))]}
					if w == 0 {
						require.NoError(t, x.Touch(ids, int64(200000+i)))
					} else {
						require.NoError(t, x.SetImportance(ids, 100))
					}
				}
			}()
		}
		for i := range 200 {
			q := s.vecs[(i%50)*s.dim : (i%50+1)*s.dim]
			res, _, err := x.QueryWith(nil, q, QueryOptions{K: 5, Rank: Rank{Relevance: 1, Recency: 1, Importance: 0.01, Decay: 0.999, Now: 300000}})
			require.NoError(t, err)
			require.Len(t, res, 5)
		}
		close(stop)
		wg.Wait()
		x.Close()
	}
}

// rankedAnswers are x's answers to one query under every ranking.
func rankedAnswers(t testing.TB, x *Index, s *scoped) map[string][]Result {
	out := map[string][]Result{}
	q := s.vecs[11*s.dim : 12*s.dim]
	for name, r := range rankings {
		res, _, err := x.QueryWith(nil, q, QueryOptions{K: 8, Rank: r})
		require.NoError(t, err)
		out[name] = res
	}
	return out
}

// TestRankedRoundTrip: times and importances, set at add and changed
// later, survive a save through every loader; a loaded (mapped) index
// takes Touch and SetImportance.
func TestRankedRoundTrip(t *testing.T) {
	s := withMemories(newScoped(sized(1500, 600), 16, 38), 8)
	rt := newRuntime(t, 1)
	for _, kind := range rankedKinds {
		x := s.index(t, rt, WithKind(kind))
		require.NoError(t, x.Remove(s.ids[3], s.ids[14]))
		require.NoError(t, x.Touch([]uint64{s.ids[20], s.ids[21]}, 99999))
		require.NoError(t, x.SetImportance([]uint64{s.ids[22]}, -7.5))
		file := saved(t, x)
		want := rankedAnswers(t, x, s)
		for _, l := range loaders {
			y, err := l.load(t, rt, file)
			require.NoError(t, err, l.name)
			require.Equal(t, want, rankedAnswers(t, y, s), "%v/%s", kind, l.name)
			for i := 0; i < len(s.ids); i += 7 {
				wa, werr := x.Attributes(s.ids[i])
				ya, yerr := y.Attributes(s.ids[i])
				require.Equal(t, werr == nil, yerr == nil)
				require.Equal(t, wa, ya, "%v/%s: id %d", kind, l.name, s.ids[i])
			}
			tm, imp, err := y.Memory(s.ids[22])
			require.NoError(t, err)
			require.Equal(t, s.attrs[22].Time, tm)
			require.Equal(t, float32(-7.5), imp)
			require.True(t, bytes.Equal(file, saved(t, y)), "%v/%s: saves again to the same bytes", kind, l.name)
			require.NoError(t, y.Touch([]uint64{s.ids[30]}, 5))
			require.NoError(t, y.SetImportance([]uint64{s.ids[30]}, 6))
			tm, imp, err = y.Memory(s.ids[30])
			require.NoError(t, err)
			require.Equal(t, int64(5), tm)
			require.Equal(t, float32(6), imp)
			tm, _, err = x.Memory(s.ids[30])
			require.NoError(t, err)
			require.Equal(t, s.attrs[30].Time, tm, "the loaded copy is its own")
		}
	}
}

// TestVersion4FileLoads: files written by main before version 5 (with
// attributes and tag names) load every way with time and importance 0,
// rank by similarity alone, and save as version 5.
func TestVersion4FileLoads(t *testing.T) {
	for _, kind := range oldFileKinds {
		file, err := os.ReadFile("testdata/v4-" + kind.String() + ".astral")
		require.NoError(t, err)
		require.EqualValues(t, 4, binary.LittleEndian.Uint32(file[8:]))
		want := withTagNames(t, withAttrs(t, testIndex(t, nil, kind, Cosine, 0, 8), 40))
		s := newScoped(40, 8, 40)
		for _, l := range loaders {
			y, err := l.load(t, nil, file)
			require.NoError(t, err, "%v/%s", kind, l.name)
			require.Equal(t, "Threat", y.TagName(0))
			require.Equal(t, answers(t, want, 5), answers(t, y, 5), "%v/%s", kind, l.name)
			for _, id := range s.ids {
				wa, werr := want.Attributes(id)
				ya, yerr := y.Attributes(id)
				require.Equal(t, werr == nil, yerr == nil, "id %d", id)
				require.Equal(t, wa, ya, "%v/%s: id %d", kind, l.name, id)
				if yerr == nil {
					require.Zero(t, ya.Time)
					require.Zero(t, ya.Importance)
				}
			}
			q := s.vecs[:8]
			plain, _, err := y.QueryWith(nil, q, QueryOptions{K: 5})
			require.NoError(t, err)
			ranked, _, err := y.QueryWith(nil, q, QueryOptions{K: 5, Rank: Rank{Relevance: 1, Importance: 1}})
			require.NoError(t, err)
			require.Equal(t, plain, ranked, "importance 0 everywhere adds 0")
			require.NoError(t, y.Touch([]uint64{s.ids[0]}, 9))
			z, err := LoadBytes(nil, saved(t, y))
			require.NoError(t, err)
			tm, _, err := z.Memory(s.ids[0])
			require.NoError(t, err)
			require.Equal(t, int64(9), tm)
		}
	}
}

// TestCorruptImportances: a non-finite importance in a file is ErrCorrupt
// every way, as is a version-5 file without the sections.
func TestCorruptImportances(t *testing.T) {
	for _, kind := range rankedKinds {
		s := withMemories(newScoped(30, 8, 39), 9)
		x := s.index(t, nil, WithKind(kind))
		file := saved(t, x)
		h, err := decodeHeader(file[:binary.LittleEndian.Uint32(file[16:])])
		require.NoError(t, err)
		sec := h.Find(secImportances)
		if kind == KindIVF && h.Version >= 7 {
			// Its importances are in its segments: TestCorruptIVF forges them.
			require.Nil(t, sec)
			continue
		}
		require.NotNil(t, sec)
		require.EqualValues(t, h.Slots*4, sec.Length)
		require.NotNil(t, h.Find(secTimes))
		for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
			bad := forge(file, func(b []byte) { put32(b, int(sec.Offset)+8, math.Float32bits(v)) })
			mustFail(t, bad, ErrCorrupt, "importance of slot 2")
		}
	}
}

// withMemoryValues touches and weighs some of x's records.
func withMemoryValues(t testing.TB, x *Index) *Index {
	t.Helper()
	s := newScoped(x.Len()+2, x.Config().Dim, uint64(x.Len()+2))
	var ids []uint64
	for _, id := range s.ids {
		if x.Contains(id) {
			ids = append(ids, id)
		}
	}
	require.NoError(t, x.Touch(ids[:len(ids)/2], 1234))
	require.NoError(t, x.SetImportance(ids[len(ids)/3:], 0.75))
	return x
}

// FuzzRankedQuery: any ranking (weights, decay, now, including the
// extremes of int64 and decays next to 0 and 1) and any tag filter give a
// flat index the reference's ids and score bits, and a graph's exact
// plans too; invalid rankings are refused, never run.
func FuzzRankedQuery(f *testing.F) {
	f.Add(float32(1), float32(1), float32(1), 0.999, int64(100000), uint64(0), uint8(0))
	f.Add(float32(0), float32(3), float32(0), 0.5, int64(math.MaxInt64), uint64(2), uint8(7))
	f.Add(float32(2), float32(0), float32(0.25), 0.0, int64(math.MinInt64), uint64(1), uint8(3))
	f.Add(float32(1), float32(1e30), float32(1e-30), 1e-300, int64(-5), uint64(8), uint8(39))
	s := withMemories(newScoped(300, 8, 12), 10)
	rt := newRuntime(f, 2)
	flatIdx := s.index(f, rt, WithKind(KindFlat))
	graph := s.index(f, rt, WithKind(KindHNSW))
	f.Fuzz(func(t *testing.T, rel, rec, imp float32, decay float64, now int64, tags uint64, qi uint8) {
		r := Rank{Relevance: rel, Recency: rec, Importance: imp, Decay: decay, Now: now}
		fl := Filter{AllTags: tags & 0xf}
		q := s.vecs[int(qi%40)*s.dim : int(qi%40+1)*s.dim]
		o := QueryOptions{K: 10, Filter: fl, Rank: r}
		got, _, err := flatIdx.QueryWith(nil, q, o)
		valid := finite32(rel) && finite32(rec) && finite32(imp) && rel >= 0 && rec >= 0 && imp >= 0 &&
			(rec == 0 || decay > 0 && decay <= 1)
		if !valid {
			require.ErrorIs(t, err, ErrInvalidArgument)
			return
		}
		require.NoError(t, err)
		want := s.rankedReference(t, fl, r, q, 10)
		require.Equal(t, want, got)
		got, plan, err := graph.QueryWith(nil, q, o)
		require.NoError(t, err)
		if plan != PlanGraph {
			require.Equal(t, want, got, "plan %v", plan)
		}
	})
}

// TestRankedAutoBeforeAndAfterSwitch: an auto index ranks the same before
// its switch (flat) and after it (graph, exact plan), and times and
// importances set while the graph was building reach it.
func TestRankedAutoBeforeAndAfterSwitch(t *testing.T) {
	s := withMemories(newScoped(2000, 16, 40), 11)
	x, err := NewIndex(newRuntime(t, 1), WithDim(s.dim), WithKind(KindAuto), WithHNSW(8, 40), WithFlatLimitBytes(1500*64))
	require.NoError(t, err)
	half := 1400
	require.NoError(t, x.AddWith(s.ids[:half], s.vecs[:half*s.dim], s.attrs[:half]))
	require.Equal(t, KindFlat, x.Stats().Kind)
	q := s.vecs[7*s.dim : 8*s.dim]
	r := Rank{Relevance: 1, Recency: 1, Importance: 1, Decay: 0.999, Now: 200000}
	first := &scoped{dim: s.dim, ids: s.ids[:half], vecs: s.vecs[:half*s.dim], attrs: s.attrs[:half]}
	before, _, err := x.QueryWith(nil, q, QueryOptions{K: 10, Rank: r})
	require.NoError(t, err)
	require.Equal(t, first.rankedReference(t, Filter{}, r, q, 10), before)
	// Past the limit: the graph builds in the background; touch meanwhile.
	require.NoError(t, x.AddWith(s.ids[half:], s.vecs[half*s.dim:], s.attrs[half:]))
	touched := s.ids[:40]
	require.NoError(t, x.Touch(touched, 200000))
	require.NoError(t, x.SetImportance(s.ids[40:45], 50))
	x.Wait()
	x.writeMu.Lock()
	x.settle()
	x.writeMu.Unlock()
	require.Equal(t, KindHNSW, x.Stats().Kind)
	for i := range 45 {
		s.attrs[i].Time = 200000
		if i >= 40 {
			s.attrs[i].Time, s.attrs[i].Importance = withMemories(newScoped(2000, 16, 40), 11).attrs[i].Time, 50
		}
		a, err := x.Attributes(s.ids[i])
		require.NoError(t, err)
		require.Equal(t, s.attrs[i].Time, a.Time, "id %d", s.ids[i])
		require.Equal(t, s.attrs[i].Importance, a.Importance, "id %d", s.ids[i])
	}
	// An allowlist of every id is the exact direct plan over the graph.
	o := QueryOptions{K: 10, Rank: r, Filter: Filter{Allow: s.ids}}
	after, plan, err := x.QueryWith(nil, q, o)
	require.NoError(t, err)
	require.NotEqual(t, PlanGraph, plan)
	require.Equal(t, s.rankedReference(t, Filter{}, r, q, 10), after)
	walk, _, err := x.QueryWith(nil, q, QueryOptions{K: 10, Rank: r})
	require.NoError(t, err)
	require.GreaterOrEqual(t, overlap(walk, after), 8)
}

// rankedKinds are the kinds that rank. scoped.index makes an IVF index
// that probes every partition, so its ranked answers are exact.
var rankedKinds = []Kind{KindFlat, KindHNSW, KindIVF}

// oldFileKinds are the kinds of the files in testdata from before IVF.
var oldFileKinds = []Kind{KindFlat, KindHNSW}
