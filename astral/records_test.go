package astral

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// recordCase is an index kind as the record calls see it: flat, HNSW, and
// auto before and after its switch to a graph.
type recordCase struct {
	name  string
	opts  []Option
	graph bool // a graph answers once the records are in
}

var recordCases = []recordCase{
	{"flat", []Option{WithKind(KindFlat)}, false},
	{"hnsw", []Option{WithKind(KindHNSW)}, true},
	{"auto-flat", []Option{WithKind(KindAuto)}, false},
	// 40 records of dimension 8 take 40 × 64 bytes of E5M2: past 1 KiB.
	{"auto-switched", []Option{WithKind(KindAuto), WithFlatLimitBytes(1024)}, true},
}

// recordIndex is a case's index of 40 records (ids 1000..1039) with
// attributes, settled.
func recordIndex(t testing.TB, c recordCase, extra ...Option) (*Index, *scoped) {
	t.Helper()
	x, err := NewIndex(newRuntime(t, 2), append([]Option{WithDim(8), WithHNSW(8, 40)}, append(c.opts, extra...)...)...)
	require.NoError(t, err)
	s := newScoped(40, 8, 3)
	require.NoError(t, x.AddWith(s.ids, s.vecs, s.attrs))
	x.Wait()
	require.Equal(t, c.graph, x.Stats().Kind == KindHNSW, c.name)
	return x, s
}

// withTagNames names a few tag bits of x and returns x.
func withTagNames(t testing.TB, x *Index) *Index {
	t.Helper()
	require.NoError(t, x.SetTagName(0, "Threat"))
	require.NoError(t, x.SetTagName(3, "Quest.Main"))
	require.NoError(t, x.SetTagName(63, "名前"))
	return x
}

func TestContains(t *testing.T) {
	for _, c := range recordCases {
		x, s := recordIndex(t, c)
		for _, id := range s.ids {
			require.True(t, x.Contains(id), "%s: %d", c.name, id)
		}
		require.False(t, x.Contains(1), c.name)
		require.NoError(t, x.Remove(s.ids[3]))
		require.False(t, x.Contains(s.ids[3]), c.name)
		id := s.ids[4]
		require.Zero(t, testing.AllocsPerRun(200, func() { x.Contains(id) }), "%s: Contains allocates", c.name)
	}
}

func TestClear(t *testing.T) {
	for _, c := range recordCases {
		x, s := recordIndex(t, c, WithRerank(F32, 2))
		withTagNames(t, x)
		require.NoError(t, x.Clear())
		st := x.Stats()
		require.Zero(t, st.Len, c.name)
		require.Zero(t, st.Payloads, c.name)
		require.Zero(t, st.Owners, c.name)
		require.Equal(t, 3, st.TagNames, "%s: tag names kept", c.name)
		require.Equal(t, "Threat", x.TagName(0))
		if x.Config().Kind == KindAuto {
			require.Equal(t, KindFlat, st.Kind, "%s: auto goes back to flat", c.name)
		}
		require.False(t, x.Contains(s.ids[0]))
		res, err := x.Query(nil, s.vecs[:8], 5)
		require.NoError(t, err)
		require.Empty(t, res)
		_, err = x.Payload(s.ids[0], nil)
		require.ErrorIs(t, err, ErrNotFound)
		// Add again: the same ids are new, and an auto index switches again.
		require.NoError(t, x.AddWith(s.ids, s.vecs, s.attrs))
		x.Wait()
		require.Equal(t, c.graph, x.Stats().Kind == KindHNSW, c.name)
		for i, id := range s.ids {
			a, err := x.Attributes(id)
			require.NoError(t, err)
			require.Equal(t, s.attrs[i], a, "%s: id %d", c.name, id)
		}
		res, err = x.Query(nil, s.vecs[5*8:6*8], 1)
		require.NoError(t, err)
		require.Equal(t, s.ids[5], res[0].ID, c.name)
	}
}

// TestClearMapped: Clear stops using a mapped file, and the index saves
// and loads empty with its names.
func TestClearMapped(t *testing.T) {
	for _, kind := range fileKinds {
		src := withTagNames(t, withAttrs(t, testIndex(t, nil, kind, Cosine, 0, 8), 30))
		x, err := OpenFile(nil, writeTemp(t, saved(t, src)), VerifyInBackground())
		require.NoError(t, err)
		require.True(t, x.Mapped())
		require.NoError(t, x.Clear())
		require.False(t, x.Mapped())
		require.NoError(t, x.Verify())
		y, err := LoadBytes(nil, saved(t, x))
		require.NoError(t, err)
		require.Zero(t, y.Len())
		require.Equal(t, "Quest.Main", y.TagName(3))
	}
}

// TestClearDuringSwitch: a Clear while an auto index builds its graph
// drops the build; the index stays flat and right.
func TestClearDuringSwitch(t *testing.T) {
	x, err := NewIndex(newRuntime(t, 2), WithDim(8), WithKind(KindAuto), WithFlatLimitBytes(1024), WithHNSW(8, 40))
	require.NoError(t, err)
	s := newScoped(400, 8, 5)
	require.NoError(t, x.AddWith(s.ids, s.vecs, s.attrs))
	require.NoError(t, x.Clear())
	x.Wait()
	require.Equal(t, KindFlat, x.Stats().Kind)
	require.Zero(t, x.Len())
	require.NoError(t, x.Add(s.ids[:5], s.vecs[:5*8]))
	x.Wait()
	require.Equal(t, 5, x.Len())
}

func TestUpsert(t *testing.T) {
	for _, c := range recordCases {
		x, s := recordIndex(t, c, WithStorage(F32))
		r := rand.New(rand.NewPCG(8, 8))
		// Two stored ids replaced, one new.
		ids := []uint64{s.ids[2], 7, s.ids[9]}
		vecs := randomVectors(r, 3, 8)
		attrs := []Attributes{{Tags: 1 << 20, Owner: 555, Payload: []byte("new two")}, {Tags: 1 << 21}, {}}
		require.NoError(t, x.Upsert(ids, vecs, attrs))
		x.Wait()
		require.Equal(t, 41, x.Len(), c.name)
		for i, id := range ids {
			a, err := x.Attributes(id)
			require.NoError(t, err)
			require.Equal(t, attrs[i], a, "%s: id %d", c.name, id)
			v, err := x.Vector(id, nil)
			require.NoError(t, err)
			want := append([]float32{}, vecs[i*8:(i+1)*8]...)
			normalize(want)
			require.Equal(t, want, v, "%s: id %d", c.name, id)
			res, _, err := x.QueryWith(nil, vecs[i*8:(i+1)*8], QueryOptions{K: 1, Ef: 64})
			require.NoError(t, err)
			require.Equal(t, id, res[0].ID, "%s: id %d found by its new vector", c.name, id)
		}
		// Owner 555 holds exactly the replaced record; the old owner's group lost it.
		res, plan, err := x.QueryWith(nil, vecs[:8], QueryOptions{K: 5, Filter: Filter{Owner: 555}})
		require.NoError(t, err)
		require.Equal(t, PlanDirect, plan)
		require.Len(t, res, 1)
		if s.attrs[2].Owner != 0 {
			res, _, err = x.QueryWith(nil, vecs[:8], QueryOptions{K: 40, Filter: Filter{Owner: s.attrs[2].Owner}})
			require.NoError(t, err)
			for _, r := range res {
				require.NotEqual(t, s.ids[2], r.ID)
			}
		}
		// A record replaced without a payload drops its old one.
		p, err := x.Payload(s.ids[9], nil)
		require.NoError(t, err)
		require.Empty(t, p)
		// Saved and loaded, the replaced records stay.
		y, err := LoadBytes(nil, saved(t, x))
		require.NoError(t, err)
		a, err := y.Attributes(s.ids[2])
		require.NoError(t, err)
		require.Equal(t, attrs[0], a, c.name)
	}
}

// TestUpsertAtomicOnFailure: bad input changes nothing.
func TestUpsertAtomicOnFailure(t *testing.T) {
	for _, c := range recordCases {
		x, s := recordIndex(t, c)
		before := saved(t, x)
		good := randomVectors(rand.New(rand.NewPCG(1, 2)), 2, 8)
		nan := append([]float32{}, good...)
		nan[9] = float32(math.NaN())
		cases := []struct {
			name  string
			ids   []uint64
			vecs  []float32
			attrs []Attributes
			want  error
		}{
			{"dimension", []uint64{s.ids[0], 5}, good[:15], nil, ErrDimension},
			{"NaN", []uint64{s.ids[0], 5}, nan, nil, ErrNonFinite},
			{"repeated", []uint64{s.ids[0], s.ids[0]}, good, nil, ErrDuplicateID},
			{"payload size", []uint64{s.ids[0], 5}, good, []Attributes{{}, {Payload: make([]byte, MaxPayload+1)}}, ErrInvalidArgument},
			{"attribute count", []uint64{s.ids[0], 5}, good, []Attributes{{}}, ErrInvalidArgument},
		}
		for _, k := range cases {
			require.ErrorIs(t, x.Upsert(k.ids, k.vecs, k.attrs), k.want, "%s: %s", c.name, k.name)
			require.True(t, bytes.Equal(before, saved(t, x)), "%s: %s changed the index", c.name, k.name)
		}
	}
}

// TestUpsertDuringSwitch: Upserts while an auto index builds its graph
// are replayed into it.
func TestUpsertDuringSwitch(t *testing.T) {
	x, err := NewIndex(newRuntime(t, 2), WithDim(8), WithKind(KindAuto), WithFlatLimitBytes(1024), WithHNSW(8, 40), WithStorage(F32))
	require.NoError(t, err)
	s := newScoped(300, 8, 6)
	require.NoError(t, x.AddWith(s.ids, s.vecs, s.attrs))
	r := rand.New(rand.NewPCG(3, 3))
	want := map[uint64][]float32{}
	for i := range 20 {
		id := s.ids[i*7]
		v := randomVectors(r, 1, 8)
		require.NoError(t, x.Upsert([]uint64{id, uint64(90000 + i)}, append(v, v...), []Attributes{{Tags: uint64(i)}, {Tags: uint64(i)}}))
		normalize(v)
		want[id], want[uint64(90000+i)] = v, v
	}
	x.Wait()
	require.Equal(t, KindHNSW, x.Stats().Kind)
	require.Equal(t, 320, x.Len())
	for id, v := range want {
		got, err := x.Vector(id, nil)
		require.NoError(t, err)
		require.Equal(t, v, got, "id %d", id)
	}
}

// TestUpsertConcurrentQueries: while one goroutine replaces a record over
// and over, every filtered query finds it (run under -race).
func TestUpsertConcurrentQueries(t *testing.T) {
	for _, c := range recordCases {
		x, s := recordIndex(t, c)
		target := s.ids[7]
		first := randomVectors(rand.New(rand.NewPCG(5, 5)), 1, 8)
		require.NoError(t, x.Upsert([]uint64{target}, first, []Attributes{{Tags: 1 << 40, Owner: 9}}))
		var stop atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(4, 4))
			for i := 0; !stop.Load(); i++ {
				v := randomVectors(r, 2, 8)
				if err := x.Upsert([]uint64{target, s.ids[8]}, v, []Attributes{{Tags: 1 << 40, Owner: 9}, {Tags: uint64(i)}}); err != nil {
					panic(err)
				}
			}
		}()
		dst := make([]Result, 0, 40)
		q := s.vecs[:8]
		for i := 0; i < sized(300, 80); i++ {
			for _, f := range []Filter{{Allow: []uint64{target}}, {Owner: 9}, {AllTags: 1 << 40}} {
				res, _, err := x.QueryWith(dst, q, QueryOptions{K: 40, Ef: 80, Filter: f})
				require.NoError(t, err)
				require.Len(t, res, 1, "%s: query %d, filter %+v", c.name, i, f)
				require.Equal(t, target, res[0].ID)
			}
			require.True(t, x.Contains(target))
		}
		stop.Store(true)
		wg.Wait()
	}
}

// vectorTolerance bounds |decoded - stored| / |stored| per storage kind:
// the rounding of 2, 3 and 7 mantissa bits, 8-bit codes, binary16.
var vectorTolerance = map[Storage]float64{E5M2: 0.13, E4M3: 0.07, Int8: 0.02, F16: 0.001, F32: 0}

func TestVector(t *testing.T) {
	const dim = 40
	r := rand.New(rand.NewPCG(11, 12))
	vecs := randomVectors(r, 30, dim)
	vecs[3*dim+5] = 1e-3 // a small component among large ones
	ran := 0
	for _, storage := range []Storage{E5M2, E4M3, Int8, F16, F32} {
		for _, metric := range []Metric{Cosine, Dot, L2} {
			for _, rerank := range []Storage{0, F16, F32} {
				for _, kind := range []Kind{KindFlat, KindHNSW} {
					opts := []Option{WithDim(dim), WithKind(kind), WithMetric(metric), WithStorage(storage), WithHNSW(8, 40)}
					tol := vectorTolerance[storage]
					if rerank != 0 {
						opts = append(opts, WithRerank(rerank, 2))
						tol = vectorTolerance[rerank]
					}
					name := fmt.Sprintf("%v/%v/%v/rerank %v", kind, storage, metric, rerank)
					x, err := NewIndex(nil, opts...)
					if err != nil {
						continue // a combination the options refuse
					}
					ran++
					require.NoError(t, x.Add(seqIDs(1, 30), vecs))
					dst := make([]float32, 0, dim)
					for i := range 30 {
						want := append([]float32{}, vecs[i*dim:(i+1)*dim]...)
						if metric == Cosine {
							normalize(want)
						}
						got, err := x.Vector(uint64(i+1), dst)
						require.NoError(t, err)
						require.Len(t, got, dim)
						if tol == 0 {
							require.Equal(t, want, got, "%s: id %d exact", name, i+1)
							continue
						}
						var d2, w2 float64
						for c := range want {
							d := float64(got[c]) - float64(want[c])
							d2 += d * d
							w2 += float64(want[c]) * float64(want[c])
						}
						require.LessOrEqual(t, math.Sqrt(d2/w2), tol, "%s: id %d", name, i+1)
					}
					_, err = x.Vector(999, nil)
					require.ErrorIs(t, err, ErrNotFound, name)
					// Loaded back, the same values.
					y, err := LoadBytes(nil, saved(t, x))
					require.NoError(t, err)
					a, _ := x.Vector(4, nil)
					b, _ := y.Vector(4, nil)
					require.Equal(t, a, b, name)
				}
			}
		}
	}
	require.GreaterOrEqual(t, ran, 60, "combinations tried")
}

// TestVectorEveryKind: Vector on flat, HNSW and auto before and after its
// switch, and through a mapped file.
func TestVectorEveryKind(t *testing.T) {
	for _, c := range recordCases {
		x, s := recordIndex(t, c, WithStorage(F32), WithMetric(Dot))
		for i, id := range s.ids {
			v, err := x.Vector(id, nil)
			require.NoError(t, err)
			require.Equal(t, s.vecs[i*8:(i+1)*8], v, "%s: id %d", c.name, id)
		}
		dst := make([]float32, 0, 8)
		require.Zero(t, testing.AllocsPerRun(100, func() { _, _ = x.Vector(s.ids[2], dst) }), "%s: Vector allocates", c.name)
		y, err := OpenFile(nil, writeTemp(t, saved(t, x)))
		require.NoError(t, err)
		v, err := y.Vector(s.ids[3], make([]float32, 0, 8))
		require.NoError(t, err)
		require.Equal(t, s.vecs[3*8:4*8], v, c.name)
	}
}

func TestTagNames(t *testing.T) {
	x, err := NewIndex(nil, WithDim(4))
	require.NoError(t, err)
	withTagNames(t, x)
	require.Equal(t, "Threat", x.TagName(0))
	require.Equal(t, "", x.TagName(1))
	require.Equal(t, "", x.TagName(64))
	require.Equal(t, "", x.TagName(-1))
	bit, ok := x.TagBit("Quest.Main")
	require.True(t, ok)
	require.Equal(t, 3, bit)
	_, ok = x.TagBit("quest.main")
	require.False(t, ok, "names are case-sensitive")
	_, ok = x.TagBit("")
	require.False(t, ok)
	require.Equal(t, 3, x.Stats().TagNames)
	bad := []struct {
		bit  int
		name string
		why  string
	}{
		{64, "x", "bit"},
		{-1, "x", "bit"},
		{5, strings.Repeat("a", MaxTagName+1), "bytes"},
		{5, "a\xffb", "UTF-8"},
		{5, "a\nb", "control"},
		{5, "a\x7fb", "control"},
		{5, "Threat", "already bit 0"},
	}
	for _, b := range bad {
		err := x.SetTagName(b.bit, b.name)
		require.ErrorIs(t, err, ErrInvalidArgument, "%d %q", b.bit, b.name)
		require.ErrorContains(t, err, b.why)
	}
	require.NoError(t, x.SetTagName(5, strings.Repeat("a", MaxTagName)))
	require.NoError(t, x.SetTagName(0, "Threat"), "the same name on the same bit")
	require.NoError(t, x.SetTagName(0, ""))
	_, ok = x.TagBit("Threat")
	require.False(t, ok)
	require.NoError(t, x.SetTagName(1, "Threat"), "free once cleared")
	require.Equal(t, 4, x.Stats().TagNames)
}

// TestTagNamesSurviveSave: names round-trip through every loader, saved
// files are the same bytes again, and a file without names has none.
func TestTagNamesSurviveSave(t *testing.T) {
	for _, kind := range fileKinds {
		x := withTagNames(t, withAttrs(t, testIndex(t, nil, kind, Cosine, 0, 8), 30))
		file := saved(t, x)
		h, err := decodeHeader(file[:binary.LittleEndian.Uint32(file[16:])])
		require.NoError(t, err)
		want := uint32(ivfVersion) // flat and graph files stay version 6
		if kind == KindIVF {
			want = FormatVersion
		}
		require.EqualValues(t, want, h.Version)
		require.NotNil(t, h.Find(secTagNames))
		for _, l := range loaders {
			y, err := l.load(t, nil, file)
			require.NoError(t, err, "%v/%s", kind, l.name)
			for bit := range TagBits {
				require.Equal(t, x.TagName(bit), y.TagName(bit), "%v/%s: bit %d", kind, l.name, bit)
			}
			require.Equal(t, 3, y.Stats().TagNames)
			require.True(t, bytes.Equal(file, saved(t, y)), "%v/%s: saves again to the same bytes", kind, l.name)
		}
		plain := saved(t, withAttrs(t, testIndex(t, nil, kind, Cosine, 0, 8), 30))
		h, err = decodeHeader(plain[:binary.LittleEndian.Uint32(plain[16:])])
		require.NoError(t, err)
		require.Nil(t, h.Find(secTagNames), "no section without names")
		require.Zero(t, h.TagNameBytes)
	}
}

// TestVersion3FileLoads: files written by v0.2.0 (format version 3, with
// attributes and payloads) load every way with no tag names, their
// records and attributes as the same calls make today.
func TestVersion3FileLoads(t *testing.T) {
	for _, kind := range fileKinds {
		file, err := os.ReadFile("testdata/v3-" + kind.String() + ".astral")
		require.NoError(t, err)
		require.EqualValues(t, 3, binary.LittleEndian.Uint32(file[8:]))
		want := withAttrs(t, testIndex(t, nil, kind, Cosine, 0, 8), 40)
		s := newScoped(40, 8, 40)
		for _, l := range loaders {
			y, err := l.load(t, nil, file)
			require.NoError(t, err, "%v/%s", kind, l.name)
			require.Zero(t, y.Stats().TagNames)
			require.Equal(t, want.Len(), y.Len())
			require.Equal(t, answers(t, want, 5), answers(t, y, 5), "%v/%s", kind, l.name)
			sameAttributes(t, want, y, s.ids, fmt.Sprintf("%v/%s", kind, l.name))
			require.Equal(t, want.Stats().PayloadBytes, y.Stats().PayloadBytes)
			require.NotZero(t, y.Stats().PayloadBytes)
			// Saved again, it is a version-4 file, names and all.
			require.NoError(t, y.SetTagName(2, "Seen"))
			z, err := LoadBytes(nil, saved(t, y))
			require.NoError(t, err)
			require.Equal(t, "Seen", z.TagName(2))
		}
		// A version-3 header with bytes 120..123 set is refused: they were reserved.
		bad := forge(file, func(b []byte) { put32(b, 120, 6) })
		mustFail(t, bad, ErrCorrupt, "reserved bytes of a version-3 file")
	}
}

// TestCorruptTagNames: a tag-names section that disagrees with itself is
// ErrCorrupt, with a reason, every way.
func TestCorruptTagNames(t *testing.T) {
	for _, kind := range fileKinds {
		x := testIndex(t, nil, kind, Cosine, 20, 8)
		require.NoError(t, x.SetTagName(2, "ab"))
		require.NoError(t, x.SetTagName(7, "cd"))
		file := saved(t, x)
		h, err := decodeHeader(file[:binary.LittleEndian.Uint32(file[16:])])
		require.NoError(t, err)
		sec := h.Find(secTagNames)
		require.NotNil(t, sec)
		require.EqualValues(t, 8, sec.Length)
		at := int(sec.Offset) // 2, 2, 'a', 'b', 7, 2, 'c', 'd'
		cases := []struct {
			name, why string
			edit      func(b []byte)
		}{
			{"bit 64", "bit 64", func(b []byte) { b[at+4] = 64 }},
			{"bits descending", "want ascending", func(b []byte) { b[at+4] = 1 }},
			{"bits repeated", "want ascending", func(b []byte) { b[at+4] = 2 }},
			{"length zero", "want 1 to", func(b []byte) { b[at+1] = 0 }},
			{"length past the section", "cut short", func(b []byte) { b[at+5] = 3 }},
			{"length too long", "want 1 to", func(b []byte) { b[at+5] = MaxTagName + 1 }},
			{"name repeated", "on bits 2 and 7", func(b []byte) { b[at+6], b[at+7] = 'a', 'b' }},
			{"invalid UTF-8", "UTF-8", func(b []byte) { b[at+2] = 0xff }},
			{"control character", "control", func(b []byte) { b[at+3] = 0 }},
			{"section length past the bound", "absurd count", func(b []byte) { put32(b, 120, tagNamesSectionMax+1) }},
			{"header length disagrees", "the header's counts make", func(b []byte) { put32(b, 120, 9) }},
		}
		for _, c := range cases {
			bad := forge(file, c.edit)
			mustFail(t, bad, ErrCorrupt, fmt.Sprintf("%v: %s", kind, c.name))
			_, err := LoadBytes(nil, bad)
			require.ErrorContains(t, err, c.why, "%v: %s", kind, c.name)
		}
		// A cut entry: the section shortened by one byte, header to match.
		short := forge(file, func(b []byte) {
			put32(b, 120, 7)
			hl := int(binary.LittleEndian.Uint32(b[16:]))
			for i := 0; i < (hl-128)/32; i++ {
				e := b[128+32*i:]
				if binary.LittleEndian.Uint32(e) == uint32(secTagNames) {
					put64(e, 16, 7)
				}
			}
		})
		_, err = LoadBytes(nil, short)
		require.ErrorIs(t, err, ErrCorrupt)
	}
}

// TestUpsertSameBytes: the same Adds, Removes and Upserts give the same
// file whether the Upserts land during an auto index's switch (replayed)
// or after it (on the graph), whatever the thread count.
func TestUpsertSameBytes(t *testing.T) {
	run := func(threads int, waitFirst bool) []byte {
		x, err := NewIndex(newRuntime(t, threads), WithDim(8), WithKind(KindAuto), WithFlatLimitBytes(1024), WithHNSW(8, 40))
		require.NoError(t, err)
		s := newScoped(300, 8, 9)
		require.NoError(t, x.AddWith(s.ids, s.vecs, s.attrs))
		if waitFirst {
			x.Wait()
		}
		r := rand.New(rand.NewPCG(6, 6))
		for i := range 30 {
			// Enough replacements to make the graph compact on the way.
			ids := []uint64{s.ids[i*3], s.ids[i*3+1], s.ids[i*3+2], uint64(50000 + i)}
			require.NoError(t, x.Upsert(ids, randomVectors(r, 4, 8), nil))
			if i%10 == 9 {
				require.NoError(t, x.Remove(s.ids[200+i]))
			}
		}
		x.Wait()
		require.Equal(t, KindHNSW, x.Stats().Kind)
		gs, _ := x.GraphStats()
		require.Less(t, gs.Deleted, 40, "the replaced records' tombstones were compacted")
		return saved(t, x)
	}
	want := run(0, true)
	for _, threads := range []int{0, 1, 3} {
		require.True(t, bytes.Equal(want, run(threads, false)), "threads %d, upserts during the switch", threads)
		require.True(t, bytes.Equal(want, run(threads, true)), "threads %d, upserts on the graph", threads)
	}
}

// sameAttributes requires y to hold the ids want holds, with the same
// attributes.
func sameAttributes(t *testing.T, want, y *Index, ids []uint64, what string) {
	t.Helper()
	for _, id := range ids {
		wa, werr := want.Attributes(id)
		ya, yerr := y.Attributes(id)
		require.Equal(t, werr == nil, yerr == nil, "%s: id %d", what, id)
		require.Equal(t, wa, ya, "%s: id %d", what, id)
	}
}
