package astral

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	container "github.com/astral-engine/astral/astral/internal/file"

	"github.com/stretchr/testify/require"
)

// v5Index is what testdata/v5-KIND.astral holds: main's last version-5
// files, with tag names, attributes, times and importances.
func v5Index(t testing.TB, kind Kind) *Index {
	x := withTagNames(t, withAttrs(t, testIndex(t, nil, kind, Cosine, 0, 8), 40))
	s := newScoped(40, 8, 40)
	require.NoError(t, x.Touch(s.ids[:5], 77))
	require.NoError(t, x.SetImportance(s.ids[2:5], 0.5))
	return x
}

// ivfIndex is a trained IVF index of n scoped records (nlist 8) with
// tombstones, times and importances, and its records.
func ivfIndex(t testing.TB, rt *Runtime, n int, opts ...Option) (*Index, *scoped) {
	t.Helper()
	s := newScoped(n, 16, uint64(n))
	x := s.index(t, rt, append([]Option{WithKind(KindIVF), WithIVF(8, 3), withIVFTrainAt(n / 2)}, opts...)...)
	require.NoError(t, x.Remove(s.ids[3], s.ids[n-2], s.ids[n/2]))
	require.NoError(t, x.Touch(s.ids[:3], 42))
	require.NoError(t, x.SetImportance(s.ids[5:9], 0.25))
	x.Wait()
	_, trained := x.IVFStats()
	require.True(t, trained)
	return x, s
}

// ivfAnswers is x's answers to plain and filtered queries, single and
// batched, at nprobe 3 and 8, and every record's attributes.
func ivfAnswers(t testing.TB, x *Index, s *scoped) []any {
	t.Helper()
	out := []any{answers(t, x, 6)}
	for _, np := range []int{3, 8} {
		require.NoError(t, x.SetNProbe(np))
		for _, f := range []Filter{{AnyTags: 1}, {Owner: 101}, {Allow: s.ids[:30]}} {
			res, _, err := x.QueryWith(nil, s.vecs[:16], QueryOptions{K: 7, Filter: f})
			require.NoError(t, err)
			out = append(out, res)
		}
	}
	require.NoError(t, x.SetNProbe(3))
	for _, id := range s.ids {
		a, err := x.Attributes(id)
		out = append(out, a, err == nil)
	}
	return out
}

// TestIVFRoundTrip: a trained IVF file loads every way with the same
// ids, score bits and attributes, and saves again to the same bytes; an
// untrained one (records still flat) too, and it trains once loaded.
func TestIVFRoundTrip(t *testing.T) {
	n := sized(1200, 600)
	for _, c := range []struct {
		metric  Metric
		storage Storage
	}{{Cosine, E5M2}, {L2, Int8}, {Dot, F16}} {
		x, s := ivfIndex(t, nil, n, WithMetric(c.metric), WithStorage(c.storage))
		want := ivfAnswers(t, x, s)
		file := saved(t, x)
		st, _ := x.IVFStats()
		require.Zero(t, st.Dirty, "a save cleans")
		for _, l := range loaders {
			y, err := l.load(t, nil, file)
			require.NoError(t, err, l.name)
			require.NoError(t, y.Verify())
			require.Equal(t, want, ivfAnswers(t, y, s), "%v %v %s", c.metric, c.storage, l.name)
			yst, ok := y.IVFStats()
			require.True(t, ok)
			require.Equal(t, st.Partitions, yst.Partitions)
			require.Equal(t, st.Tombstones, yst.Tombstones)
			cx, cy := x.Config(), y.Config()
			cx.ivfTrainAt = 0
			require.Equal(t, cx, cy)
			require.Equal(t, file, saved(t, y), "%s: saved again, different bytes", l.name)
			// Writes copy the mapped partitions; the file stays as it was.
			require.NoError(t, y.AddWith(seqIDs(90000, 2), s.vecs[:32], nil))
			require.NoError(t, y.Remove(s.ids[10]))
			yst, _ = y.IVFStats()
			dirty := yst.Dirty
			require.True(t, dirty >= 1 && dirty <= 3, "%d partitions changed by 2 adds and a remove", dirty)
			z, err := LoadBytes(nil, saved(t, y))
			require.NoError(t, err)
			yst, _ = y.IVFStats()
			require.Zero(t, yst.Dirty, "a save cleans")
			require.Equal(t, answers(t, y, 4), answers(t, z, 4))
			require.NoError(t, y.Close())
		}
	}
	// Untrained: saved flat, loads as an IVF index that trains later.
	s := newScoped(20, 16, 5)
	x := s.index(t, nil, WithKind(KindIVF), WithIVF(4, 2), withIVFTrainAt(100))
	_, trained := x.IVFStats()
	require.False(t, trained)
	file := saved(t, x)
	for _, l := range loaders {
		y, err := l.load(t, nil, file)
		require.NoError(t, err, l.name)
		require.Equal(t, KindIVF, y.Config().Kind)
		require.Equal(t, answers(t, x, 4), answers(t, y, 4), l.name)
		require.Equal(t, file, saved(t, y), l.name)
	}
}

// smallIVF is a trained IVF index of 40 records in 4 partitions, with
// attributes and tombstones: small enough for the every-bit tests.
func smallIVF(t testing.TB, opts ...Option) *Index {
	t.Helper()
	x := withAttrs(t, testIndex(t, nil, KindIVF, Cosine, 0, 8, append([]Option{WithIVF(4, 2), withIVFTrainAt(20)}, opts...)...), 40)
	_, trained := x.IVFStats()
	require.True(t, trained)
	return x
}

// TestVersion5FileLoads: files written by main before the IVF format
// (version 6) load every way, as they were, and save as version 6 (a
// flat or HNSW index is written as version 6 still).
func TestVersion5FileLoads(t *testing.T) {
	for _, kind := range oldFileKinds {
		file, err := os.ReadFile("testdata/v5-" + kind.String() + ".astral")
		require.NoError(t, err)
		require.EqualValues(t, 5, binary.LittleEndian.Uint32(file[8:]))
		want := v5Index(t, kind)
		s := newScoped(40, 8, 40)
		for _, l := range loaders {
			y, err := l.load(t, nil, file)
			require.NoError(t, err, "%v/%s", kind, l.name)
			require.Equal(t, answers(t, want, 5), answers(t, y, 5), "%v/%s", kind, l.name)
			sameAttributes(t, want, y, s.ids, fmt.Sprintf("%v/%s", kind, l.name))
			again := saved(t, y)
			require.EqualValues(t, ivfVersion, binary.LittleEndian.Uint32(again[8:]))
			require.Equal(t, saved(t, want), again)
		}
	}
}

// ivfSection is where section k lies in an IVF file.
func ivfSection(t testing.TB, file []byte, k container.Kind) (at, n int) {
	h, err := decodeHeader(file[:binary.LittleEndian.Uint32(file[16:])])
	require.NoError(t, err)
	s := h.Find(k)
	require.NotNil(t, s, "section %d", k)
	return int(s.Offset), int(s.Length)
}

// TestCorruptIVF: each IVF section and header field forged, checksums
// resealed, is ErrCorrupt naming the problem, every way.
func TestCorruptIVF(t *testing.T) {
	x := smallIVF(t)
	require.NoError(t, x.Remove(1003, 1004, 1017))
	require.NoError(t, x.SetImportance([]uint64{1006}, 0.5)) // the segment holds importances
	file := saved(t, x)
	cents, _ := ivfSection(t, file, secCentroids)
	dir, ndir := ivfSection(t, file, secIVFDirectory)
	dead, _ := ivfSection(t, file, secTombstones)
	seg, nseg := ivfSection(t, file, secIVFSegment)
	ids := seg + segmentHead
	le := binary.LittleEndian
	nl := int(le.Uint64(file[80:]))
	ext := dir + dirEntryLen*nl
	// The first partition with a tombstone, and the live slots (one
	// segment: the partitions' slots in order).
	p := 0
	for le.Uint32(file[dir+dirEntryLen*p+4:]) == 0 {
		p++
	}
	var live []int
	for i, slot, d := 0, 0, dead; i < nl; i++ {
		n, nd := int(le.Uint32(file[dir+dirEntryLen*i:])), int(le.Uint32(file[dir+dirEntryLen*i+4:]))
		gone := map[int]bool{}
		for range nd {
			gone[int(le.Uint32(file[d:]))] = true
			d += 4
		}
		for j := range n {
			if !gone[j] {
				live = append(live, slot+j)
			}
		}
		slot += n
	}
	slots := int(le.Uint64(file[seg:]))
	require.Equal(t, (ndir/dirEntryLen - nl), int(le.Uint64(file[136:])), "extents in the header")
	require.Zero(t, le.Uint64(file[seg+8:])&(absentImps|absentOwners), "the segment holds owners and importances")
	imps := seg + nseg - int(container.AlignUp(uint64(4*slots)))
	cases := []struct {
		name, why string
		edit      func(b []byte)
	}{
		{"centroid NaN", "not finite", func(b []byte) { put32(b, cents+4, 0x7fc00000) }},
		{"centroid infinite", "not finite", func(b []byte) { put32(b, cents, 0x7f800000) }},
		{"partition slots past its extents", "extents of", func(b []byte) { put32(b, dir, le.Uint32(b[dir:])+1) }},
		{"more tombstones than slots", "tombstones", func(b []byte) { put32(b, dir+dirEntryLen*p+4, le.Uint32(b[dir+dirEntryLen*p:])+1) }},
		{"reserved directory word", "reserved directory word", func(b []byte) { put32(b, dir+12, 1) }},
		{"extent in a missing segment", "the file has 1", func(b []byte) { put32(b, ext, 1) }},
		{"extent past its segment", "past segment", func(b []byte) { put64(b, ext+8, uint64(slots)) }},
		{"empty extent", "past segment", func(b []byte) { put32(b, ext+4, 0) }},
		{"extents overlap", "share slot", func(b []byte) {
			// Partition 1's first extent starts inside partition 0's.
			n0 := le.Uint32(b[dir+8:])
			put64(b, ext+dirEntryLen*int(n0)+8, 1)
		}},
		{"segment slots", "bytes for", func(b []byte) { put64(b, seg, uint64(slots+1)) }},
		{"segment head", "reserved head", func(b []byte) { b[seg+17] = 1 }},
		{"unknown absent column", "unknown absent columns", func(b []byte) { b[seg+9] = 1 }},
		{"absent column, length kept", "bytes for", func(b []byte) { b[seg+8] |= byte(absentOwners) }},
		{"importance NaN", "importance", func(b []byte) { put32(b, imps, 0x7fc00000) }},
		{"tombstone past its partition", "out of order or past", func(b []byte) { put32(b, dead, 1<<20) }},
		{"live id twice", "stored twice", func(b []byte) { copy(b[ids+8*live[1]:], b[ids+8*live[0]:ids+8*live[0]+8]) }},
		{"no partitions", "IVF partitions", func(b []byte) { put64(b, 80, 0) }},
		{"too many partitions", "IVF partitions", func(b []byte) { put64(b, 80, MaxNList+1) }},
		{"split size", "split size", func(b []byte) { put64(b, 72, 1<<40) }},
		{"nlist 0", "nlist", func(b []byte) { put32(b, 88, 0) }},
		{"nprobe past nlist", "nprobe", func(b []byte) { put32(b, 92, 5) }},
		{"IVF structure, flat kind", "stores a ivf structure", func(b []byte) { b[29] = byte(KindFlat) }},
		{"version 6 with a slot header", "sections in a", func(b []byte) { put32(b, 8, 6) }},
		{"generation 0", "generation 0", func(b []byte) { put64(b, 128, 0) }},
		{"reserved extension", "reserved header bytes", func(b []byte) { b[150] = 1 }},
		{"absurd extents", "IVF extents", func(b []byte) { put64(b, 136, 1<<40) }},
		{"sections overlap", "overlaps", func(b []byte) {
			h, _ := decodeHeader(b[:le.Uint32(b[16:])])
			for i, sc := range h.Sections {
				if sc.Kind == secIVFDirectory {
					put64(b, 160+32*i+8, uint64(cents))
				}
			}
		}},
		{"section before the slots", "want a multiple", func(b []byte) { put64(b, 160+8, 4096) }},
		{"segment missing", "the file has 0", func(b []byte) {
			h, _ := decodeHeader(b[:le.Uint32(b[16:])])
			for i, sc := range h.Sections {
				if sc.Kind == secIVFSegment {
					// An unknown optional kind, which a reader skips.
					put32(b, 160+32*i, uint32(container.KindMetadata+100))
					put32(b, 160+32*i+4, container.Optional)
				}
			}
		}},
	}
	for _, c := range cases {
		bad := forge(file, c.edit)
		mustFail(t, bad, ErrCorrupt, c.name)
		_, err := LoadBytes(nil, bad)
		require.ErrorContains(t, err, c.why, c.name)
	}
	// Two slots of one generation; a torn slot 0 with nothing in slot 1.
	twin := append([]byte{}, file...)
	copy(twin[container.SlotSize:], twin[:container.SlotSize])
	mustFail(t, twin, ErrCorrupt, "both slots one generation")
	torn := append([]byte{}, file...)
	torn[200] ^= 1
	mustFail(t, torn, ErrCorrupt, "torn slot 0, empty slot 1")
	// Bytes after the last section are an interrupted append: loaded.
	y, err := LoadBytes(nil, append(append([]byte{}, file...), 1, 2, 3))
	require.NoError(t, err)
	require.Equal(t, answers(t, x, 4), answers(t, y, 4))
	// An untrained IVF file with a graph field set.
	flatFile := saved(t, testIndex(t, nil, KindIVF, Cosine, 10, 8, WithIVF(4, 2)))
	mustFail(t, forge(flatFile, func(b []byte) { put64(b, 80, 3) }), ErrCorrupt, "untrained with partitions")
	// A flat file may not be version 7.
	mustFail(t, forge(flatFile, func(b []byte) { put32(b, 8, 7) }), ErrCorrupt, "flat version 7")
}
