package astral

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/astral-engine/astral/astral/internal/file"
	"github.com/astral-engine/astral/internal/mem"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/ivf"
)

// A version-7 IVF file (docs/FORMAT.md, "IVF files and appending
// saves") keeps its partitions' slots in segments: a segment is a run of
// slots with every column a slot has (id, record, adjust, scale, tags,
// owner, time, importance), each column 64-byte aligned inside it. The
// directory cuts each partition out of the segments as extents (runs of
// a segment's slots), so an appending save writes one new segment with
// the slots each partition gained since the last save, a new directory,
// and keeps every other byte where it lies. From version 8 a segment
// leaves out each attribute column whose values are all zero (bits of
// its head's second word, absentTags to absentImps): an index without
// attributes saves 28 bytes a slot, and a mapped open keeps them out of
// memory.

const (
	// dirEntryLen is one directory entry: a partition's (slots,
	// tombstones, extents, reserved: uint32 each) or an extent's
	// (segment, count: uint32; first slot: uint64).
	dirEntryLen = 16
	// segmentHead is a segment's head: its slots and its absent columns
	// (uint64 each), zero padding.
	segmentHead = 64
	// maxIVFExtents bounds a header's extent count.
	maxIVFExtents = 1 << 32
	// maxSegments keeps an appending save's table inside its slot; one
	// more segment than this compacts instead.
	maxSegments = 64
	// compactDead: an appending save that would leave more than this
	// share of the file dead writes the whole file instead.
	compactDead = 0.5
)

// A segment's absent columns: its head's second word.
const (
	absentTags uint64 = 1 << iota
	absentOwners
	absentTimes
	absentImps
	absentAll = absentTags | absentOwners | absentTimes | absentImps
)

// segment is one segment's columns, n slots each.
type segment struct {
	n            uint64
	ids          []uint64
	recs         []byte
	adj, scales  []float32
	tags, owners []uint64
	times        []int64
	imps         []float32
	absent       uint64 // the columns left out (nil here), all zero
}

// segmentWidths is the bytes per slot of each column a segment holds, in
// order: ids, records, adjust and scales (where the metric has them),
// tags, owners, times, importances.
func (x *Index) segmentWidths(absent uint64) []uint64 {
	w := []uint64{8, uint64(x.kern.Stride())}
	if x.adjust != score.AdjustNone {
		w = append(w, 4)
	}
	if x.adjust == score.AdjustScaleSubtract {
		w = append(w, 4)
	}
	for i, cw := range []uint64{8, 8, 8, 4} {
		if absent&(1<<i) == 0 {
			w = append(w, cw)
		}
	}
	return w
}

// absentColumns are the attribute columns of seg whose values are all
// zero (importances bit for bit).
func absentColumns(seg *segment) uint64 {
	var a uint64
	if !slices.ContainsFunc(seg.tags, isNonzero) {
		a |= absentTags
	}
	if !slices.ContainsFunc(seg.owners, isNonzero) {
		a |= absentOwners
	}
	if !slices.ContainsFunc(seg.times, func(t int64) bool { return t != 0 }) {
		a |= absentTimes
	}
	if !slices.ContainsFunc(seg.imps, func(v float32) bool { return math.Float32bits(v) != 0 }) {
		a |= absentImps
	}
	return a
}

func isNonzero(v uint64) bool { return v != 0 }

// segmentLen is the length of a segment of n slots.
func segmentLen(widths []uint64, n uint64) uint64 {
	l := uint64(segmentHead)
	for _, w := range widths {
		l += file.AlignUp(w * n)
	}
	return l
}

// segmentPart writes seg (its record column in the pieces recs) as a
// section.
func (x *Index) segmentPart(seg *segment, recs func(each func([]byte))) file.Part {
	var head [segmentHead]byte
	seg.absent = absentColumns(seg)
	binary.LittleEndian.PutUint64(head[:], seg.n)
	binary.LittleEndian.PutUint64(head[8:], seg.absent)
	var zero [file.Align]byte
	pieces := func(each func([]byte)) {
		each(head[:])
		col := func(b []byte) {
			each(b)
			if pad := file.AlignUp(uint64(len(b))) - uint64(len(b)); pad > 0 {
				each(zero[:pad])
			}
		}
		col(file.BytesOf(seg.ids))
		var n uint64
		recs(func(b []byte) { each(b); n += uint64(len(b)) })
		if pad := file.AlignUp(n) - n; pad > 0 {
			each(zero[:pad])
		}
		if x.adjust != score.AdjustNone {
			col(file.BytesOf(seg.adj))
		}
		if x.adjust == score.AdjustScaleSubtract {
			col(file.BytesOf(seg.scales))
		}
		if seg.absent&absentTags == 0 {
			col(file.BytesOf(seg.tags))
		}
		if seg.absent&absentOwners == 0 {
			col(file.BytesOf(seg.owners))
		}
		if seg.absent&absentTimes == 0 {
			col(file.BytesOf(seg.times))
		}
		if seg.absent&absentImps == 0 {
			col(file.BytesOf(seg.imps))
		}
	}
	return file.Part{Kind: secIVFSegment, Length: segmentLen(x.segmentWidths(seg.absent), seg.n), Pieces: pieces}
}

// parseSegment cuts a segment section of a file of version v into its
// columns, in place.
func (x *Index) parseSegment(b []byte, i int, v uint32) (segment, error) {
	if len(b) < segmentHead {
		return segment{}, errorf(ErrCorrupt, "segment %d: %d bytes, shorter than its head", i, len(b))
	}
	n, absent, err := x.segmentShape(b[:16], uint64(len(b)), v)
	if err != nil {
		return segment{}, errorf(ErrCorrupt, "segment %d: %v", i, err)
	}
	for _, c := range b[16:segmentHead] {
		if c != 0 {
			return segment{}, errorf(ErrCorrupt, "segment %d: reserved head bytes are not zero", i)
		}
	}
	at := uint64(segmentHead)
	next := func(w uint64) []byte {
		c := b[at : at+w*n : at+w*n]
		at += file.AlignUp(w * n)
		return c
	}
	seg := segment{n: n, absent: absent, ids: file.WordsOf[uint64](next(8)), recs: next(uint64(x.kern.Stride()))}
	if x.adjust != score.AdjustNone {
		seg.adj = file.WordsOf[float32](next(4))
	}
	if x.adjust == score.AdjustScaleSubtract {
		seg.scales = file.WordsOf[float32](next(4))
	}
	if absent&absentTags == 0 {
		seg.tags = file.WordsOf[uint64](next(8))
	}
	if absent&absentOwners == 0 {
		seg.owners = file.WordsOf[uint64](next(8))
	}
	if absent&absentTimes == 0 {
		seg.times = file.WordsOf[int64](next(8))
	}
	if absent&absentImps == 0 {
		seg.imps = file.WordsOf[float32](next(4))
	}
	return seg, nil
}

// segmentShape reads a segment's slots and absent columns from the first
// 16 bytes of its head and checks them against its length l (a file of
// version v).
func (x *Index) segmentShape(head []byte, l uint64, v uint32) (n, absent uint64, err error) {
	n, absent = binary.LittleEndian.Uint64(head), binary.LittleEndian.Uint64(head[8:])
	switch {
	case absent != 0 && v < columnsVersion:
		return 0, 0, fmt.Errorf("absent columns %#x in a version-%d file", absent, v)
	case absent&^absentAll != 0:
		return 0, 0, fmt.Errorf("unknown absent columns %#x", absent)
	case n > maxIVFSlots || segmentLen(x.segmentWidths(absent), n) != l:
		return 0, 0, fmt.Errorf("%d bytes for %d slots", l, n)
	}
	return n, absent, nil
}

// extent is a run of a partition's slots in a segment.
type extent struct {
	seg          int // the segment's place among the table's segments
	first, count uint64
}

// dirPartition is a partition as a directory holds it.
type dirPartition struct {
	slots, tombstones uint64
	extents           []extent
}

// encodeDirectory lays a directory out.
func encodeDirectory(parts []dirPartition) (b []byte, extents uint64) {
	for _, p := range parts {
		extents += uint64(len(p.extents))
	}
	b = make([]byte, (uint64(len(parts))+extents)*dirEntryLen)
	le := binary.LittleEndian
	e := b[len(parts)*dirEntryLen:]
	for i, p := range parts {
		d := b[i*dirEntryLen:]
		le.PutUint32(d, uint32(p.slots))
		le.PutUint32(d[4:], uint32(p.tombstones))
		le.PutUint32(d[8:], uint32(len(p.extents)))
		for _, x := range p.extents {
			le.PutUint32(e, uint32(x.seg))
			le.PutUint32(e[4:], uint32(x.count))
			le.PutUint64(e[8:], x.first)
			e = e[dirEntryLen:]
		}
	}
	return b, extents
}

// decodeDirectory parses a directory of nl partitions (its length the
// header's) and checks it against the segments' slots: each partition's
// extents add up to its slots, each lies inside its segment, no two
// share a slot, and the partitions' slots and tombstones add up to the
// header's.
func decodeDirectory(b []byte, nl int, segSlots []uint64, slots, tombstones uint64) ([]dirPartition, error) {
	le := binary.LittleEndian
	parts := make([]dirPartition, nl)
	ext := b[nl*dirEntryLen:]
	var all []extent
	var sumSlots, sumDead uint64
	for i := range parts {
		d := b[i*dirEntryLen:]
		n, nd, ne := uint64(le.Uint32(d)), uint64(le.Uint32(d[4:])), uint64(le.Uint32(d[8:]))
		switch {
		case le.Uint32(d[12:]) != 0:
			return nil, errorf(ErrCorrupt, "partition %d: reserved directory word is not zero", i)
		case n > math.MaxInt32 || nd > n:
			return nil, errorf(ErrCorrupt, "partition %d: %d slots, %d tombstones", i, n, nd)
		case ne*dirEntryLen > uint64(len(ext)):
			return nil, errorf(ErrCorrupt, "partition %d: %d extents, past the directory's", i, ne)
		}
		p := dirPartition{slots: n, tombstones: nd, extents: make([]extent, ne)}
		var got uint64
		for j := range p.extents {
			x := extent{seg: int(le.Uint32(ext)), count: uint64(le.Uint32(ext[4:])), first: le.Uint64(ext[8:])}
			ext = ext[dirEntryLen:]
			switch {
			case x.seg >= len(segSlots):
				return nil, errorf(ErrCorrupt, "partition %d: extent in segment %d, the file has %d", i, x.seg, len(segSlots))
			case x.count == 0 || x.first > segSlots[x.seg] || x.count > segSlots[x.seg]-x.first:
				return nil, errorf(ErrCorrupt, "partition %d: extent of %d slots from %d, past segment %d's %d slots", i, x.count, x.first, x.seg, segSlots[x.seg])
			}
			got += x.count
			p.extents[j] = x
		}
		if got != n {
			return nil, errorf(ErrCorrupt, "partition %d: extents of %d slots, the directory says %d", i, got, n)
		}
		all = append(all, p.extents...)
		sumSlots, sumDead = sumSlots+n, sumDead+nd
		parts[i] = p
	}
	if len(ext) != 0 {
		return nil, errorf(ErrCorrupt, "%d directory bytes after the last extent", len(ext))
	}
	if sumSlots != slots || sumDead != tombstones {
		return nil, errorf(ErrCorrupt, "the partitions hold %d slots and %d tombstones, the header says %d and %d", sumSlots, sumDead, slots, tombstones)
	}
	slices.SortFunc(all, func(a, b extent) int {
		if a.seg != b.seg {
			return a.seg - b.seg
		}
		return cmp.Compare(a.first, b.first)
	})
	for i := 1; i < len(all); i++ {
		if p, q := all[i-1], all[i]; p.seg == q.seg && p.first+p.count > q.first {
			return nil, errorf(ErrCorrupt, "two extents share slot %d of segment %d", q.first, q.seg)
		}
	}
	return parts, nil
}

// gather is a partition's column cut from its extents: in place for one
// extent, a copy for several.
func gather[T any](segs []segment, exts []extent, col func(*segment) []T) []T {
	if len(exts) == 1 {
		e := exts[0]
		c := col(&segs[e.seg])
		if c == nil {
			return nil // left out: all zero
		}
		return c[e.first : e.first+e.count : e.first+e.count]
	}
	if !slices.ContainsFunc(exts, func(e extent) bool { return col(&segs[e.seg]) != nil }) {
		return nil
	}
	var out []T
	for _, e := range exts {
		if c := col(&segs[e.seg]); c != nil {
			out = append(out, c[e.first:e.first+e.count]...)
		} else {
			out = append(out, make([]T, e.count)...)
		}
	}
	return out
}

// assembleSegments builds a trained IVF index over a version-7 file's
// sections: its partitions' columns gathered from the segments.
func (x *Index) assembleSegments(h *file.Header, sec func(file.Kind) []byte, segBufs [][]byte) error {
	segs := make([]segment, len(segBufs))
	segSlots := make([]uint64, len(segBufs))
	for i, b := range segBufs {
		var err error
		if segs[i], err = x.parseSegment(b, i, h.Version); err != nil {
			return err
		}
		segSlots[i] = segs[i].n
	}
	nl := int(ivfPartitions(h))
	dead := file.WordsOf[uint32](sec(secTombstones))
	dir, err := decodeDirectory(sec(secIVFDirectory), nl, segSlots, h.Slots, uint64(len(dead)))
	if err != nil {
		return err
	}
	ps := ivf.Parts{Centroids: file.WordsOf[float32](sec(secCentroids)), SplitAt: int(ivfSplitAt(h)),
		Partitions: make([]ivf.PartitionParts, nl)}
	stride := uint64(h.Stride)
	var deadAt uint64
	for i, d := range dir {
		pp := ivf.PartitionParts{Tombstones: dead[deadAt : deadAt+d.tombstones]}
		deadAt += d.tombstones
		if len(d.extents) == 1 {
			e := d.extents[0]
			s := &segs[e.seg]
			pp.Records = s.recs[e.first*stride : (e.first+e.count)*stride : (e.first+e.count)*stride]
		} else if len(d.extents) > 1 {
			pp.Records = mem.Bytes(int(d.slots * stride))[:0]
			for _, e := range d.extents {
				pp.Records = append(pp.Records, segs[e.seg].recs[e.first*stride:(e.first+e.count)*stride]...)
			}
		}
		pp.IDs = gather(segs, d.extents, func(s *segment) []uint64 { return s.ids })
		if x.adjust != score.AdjustNone {
			pp.Adjust = gather(segs, d.extents, func(s *segment) []float32 { return s.adj })
		}
		if x.adjust == score.AdjustScaleSubtract {
			pp.Scales = gather(segs, d.extents, func(s *segment) []float32 { return s.scales })
		}
		pp.Tags = gather(segs, d.extents, func(s *segment) []uint64 { return s.tags })
		pp.Owners = gather(segs, d.extents, func(s *segment) []uint64 { return s.owners })
		pp.Times = gather(segs, d.extents, func(s *segment) []int64 { return s.times })
		pp.Imps = gather(segs, d.extents, func(s *segment) []float32 { return s.imps })
		for j, v := range pp.Imps {
			if !finite32(v) {
				return errorf(ErrCorrupt, "partition %d: importance of slot %d is %v", i, j, v)
			}
		}
		if pp.IDs == nil {
			pp.IDs = []uint64{}
		}
		ps.Partitions[i] = pp
	}
	return x.liveIVF(ps)
}

// ivfSlots are the slots [from, to) of a partition as a segment holds
// them: their columns appended to seg, their records to recs.
func (x *Index) appendSlots(seg *segment, recs *[][]byte, pp *ivf.PartitionParts, from, to int) {
	stride := x.kern.Stride()
	*recs = append(*recs, pp.Records[from*stride:to*stride])
	seg.ids = append(seg.ids, pp.IDs[from:to]...)
	if x.adjust != score.AdjustNone {
		seg.adj = append(seg.adj, pp.Adjust[from:to]...)
	}
	if x.adjust == score.AdjustScaleSubtract {
		seg.scales = append(seg.scales, pp.Scales[from:to]...)
	}
	seg.tags, seg.owners = appendColumn(seg.tags, pp.Tags, from, to), appendColumn(seg.owners, pp.Owners, from, to)
	d := pp.Tombstones
	for len(d) > 0 && int(d[0]) < from {
		d = d[1:]
	}
	for i := from; i < to; i++ {
		var t int64
		var imp float32
		if len(d) > 0 && d[0] == uint32(i) {
			d = d[1:] // a dead slot's are 0, as before the columns
		} else {
			if pp.Times != nil {
				t = pp.Times[i]
			}
			if pp.Imps != nil {
				imp = pp.Imps[i]
			}
		}
		seg.times, seg.imps = append(seg.times, t), append(seg.imps, imp)
	}
	seg.n += uint64(to - from)
}

// appendColumn appends slots [from, to) of column c to dst, zeros for a
// nil column (a partition leaves an all-zero column out).
func appendColumn(dst, c []uint64, from, to int) []uint64 {
	if c == nil {
		return append(dst, make([]uint64, to-from)...)
	}
	return append(dst, c[from:to]...)
}

// ivfSmallSections are a version-7 IVF file's sections besides the
// directory and the segments: centroids and tombstones first, then
// payloads, tag names (setting h's lengths) and the rerank copy and
// metadata (tail). Hold writeMu.
func (x *Index) ivfSmallSections(h *file.Header, ps *ivf.Parts) (head, rest []file.Part) {
	var dead []uint32
	for _, p := range ps.Partitions {
		dead = append(dead, p.Tombstones...)
	}
	head = []file.Part{{Kind: secCentroids, Bytes: file.BytesOf(ps.Centroids)}, {Kind: secTombstones, Bytes: file.BytesOf(dead)}}
	x.attrs.mu.RLock()
	pay := x.attrs.encodePayloads()
	x.attrs.mu.RUnlock()
	if h.PayloadBytes = uint64(len(pay)); pay != nil {
		rest = append(rest, file.Part{Kind: secPayloads, Bytes: pay})
	}
	names := x.names.encode()
	if h.TagNameBytes = uint32(len(names)); names != nil {
		rest = append(rest, file.Part{Kind: secTagNames, Bytes: names})
	}
	return head, x.tail(rest)
}

// ivfHeader is a version-7 IVF file's header for the index as ps holds it.
func (x *Index) ivfHeader(s *ivfStructure, ps *ivf.Parts) *file.Header {
	h := x.newHeader(KindIVF)
	for _, p := range ps.Partitions {
		h.Slots += uint64(len(p.IDs))
	}
	h.Count = uint64(s.ix.Len())
	h.UpperWords, h.Entry = uint64(len(ps.Partitions)), uint64(int64(ps.SplitAt))
	return h
}

// saveIVF writes a trained IVF index whole: its centroids, directory and
// tombstones, then one segment of every partition's slots, partition
// after partition (deleted slots included). Hold writeMu.
func (x *Index) saveIVF(s *ivfStructure, open func(int64) (io.Writer, error)) (int64, *file.Header, error) {
	ps := s.ix.Parts()
	h := x.ivfHeader(s, &ps)
	seg := &segment{}
	var recs [][]byte
	dir := make([]dirPartition, len(ps.Partitions))
	for i := range ps.Partitions {
		pp := &ps.Partitions[i]
		n := len(pp.IDs)
		dir[i] = dirPartition{slots: uint64(n), tombstones: uint64(len(pp.Tombstones))}
		if n > 0 {
			dir[i].extents = []extent{{seg: 0, first: seg.n, count: uint64(n)}}
		}
		x.appendSlots(seg, &recs, pp, 0, n)
	}
	db, extents := encodeDirectory(dir)
	h.Extents = extents
	head, rest := x.ivfSmallSections(h, &ps)
	parts := append(head, file.Part{Kind: secIVFDirectory, Bytes: db},
		x.segmentPart(seg, func(each func([]byte)) {
			for _, r := range recs {
				each(r)
			}
		}))
	parts = append(parts, rest...)
	size, err := file.Write(h, parts, x.rt.checksummers(), open)
	return size, h, err
}

// savedFile is the file an appending save may continue: the one the
// index last saved to or opened, as it was then.
type savedFile struct {
	path       string
	info       os.FileInfo
	size       int64
	generation uint64
	header     []byte // its current header, encoded
}

// saveAppending saves x to the file at path by appending what changed
// since it last saved to or opened that very file (x.saves.file, which
// must still be as it was), and reports whether it did; false with a nil
// error means a whole write is due: another file, a file changed since,
// too much of it dead, or an index an appending save does not cover
// (untrained, with a rerank copy). Hold saves.mu.
func (x *Index) saveAppending(path string) (done bool, err error) {
	sf := x.saves.file
	if sf == nil || sf.path != path {
		return false, nil
	}
	a, err := fileFormat.OpenAppend(path)
	if err != nil {
		return false, nil // whatever is there, a whole write replaces it
	}
	defer a.Close()
	h0 := a.Header
	if !os.SameFile(a.Info, sf.info) || a.Size != sf.size || h0.Generation != sf.generation ||
		string(h0.Encode()) != string(sf.header) {
		return false, nil
	}
	if x.faults.mapped.Load() {
		defer x.endGuard(debug.SetPanicOnFault(true), &err)
	}
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.settle()
	if err := x.Verify(); err != nil {
		return true, err
	}
	s, ok := x.live.(*ivfStructure)
	if !ok || s.ix == nil || x.rerank != nil {
		return false, nil
	}
	var oldSegs []file.Section
	var segSlots []uint64
	for _, sc := range h0.Sections {
		if sc.Kind == secIVFSegment {
			// Its head gives its slots, checked against its length; a
			// head the file no longer holds as written means a whole write.
			head, err := a.ReadPrefix(sc, 16)
			if err != nil {
				return false, nil
			}
			n, _, err := x.segmentShape(head, sc.Length, h0.Version)
			if err != nil {
				return false, nil
			}
			oldSegs = append(oldSegs, sc)
			segSlots = append(segSlots, n)
		}
	}
	ds := h0.Find(secIVFDirectory)
	if ds == nil || Kind(h0.Structure) != KindIVF || h0.Stride != uint32(x.kern.Stride()) {
		return false, nil
	}
	db, err := a.ReadSection(*ds)
	if err != nil {
		return false, nil
	}
	old, err := decodeDirectory(db, int(ivfPartitions(h0)), segSlots, h0.Slots, h0.Slots-h0.Count)
	if err != nil {
		return false, nil
	}
	ps := s.ix.Parts()
	h := x.ivfHeader(s, &ps)
	seg := &segment{}
	var recs [][]byte
	dir := make([]dirPartition, len(ps.Partitions))
	used := make([]bool, len(oldSegs))
	// An upper bound: a segment may leave columns out.
	widths := x.segmentWidths(0)
	var perSlot uint64
	for _, w := range widths {
		perSlot += w
	}
	var liveSlots uint64
	for i := range ps.Partitions {
		pp := &ps.Partitions[i]
		n, saved := len(pp.IDs), pp.Saved
		d := dirPartition{slots: uint64(n), tombstones: uint64(len(pp.Tombstones))}
		if saved > 0 {
			if i >= len(old) || old[i].slots < uint64(saved) {
				return false, nil // unreachable: the file holds what was saved
			}
			left := uint64(saved)
			for _, e := range old[i].extents {
				if left == 0 {
					break
				}
				e.count = min(e.count, left)
				left -= e.count
				d.extents = append(d.extents, e)
				used[e.seg] = true
			}
		}
		if n > saved {
			d.extents = append(d.extents, extent{seg: -1, first: seg.n, count: uint64(n - saved)})
			x.appendSlots(seg, &recs, pp, saved, n)
		}
		liveSlots += uint64(n)
		dir[i] = d
	}
	// The table: the old segments still used, in their order, then the new.
	renumber := make([]int, len(oldSegs))
	var segParts []file.Part
	for i := range oldSegs {
		if used[i] {
			renumber[i] = len(segParts)
			segParts = append(segParts, file.Part{Keep: &oldSegs[i]})
		}
	}
	if seg.n > 0 {
		segParts = append(segParts, x.segmentPart(seg, func(each func([]byte)) {
			for _, r := range recs {
				each(r)
			}
		}))
	}
	for i := range dir {
		for j, e := range dir[i].extents {
			if e.seg < 0 {
				dir[i].extents[j].seg = len(segParts) - 1
			} else {
				dir[i].extents[j].seg = renumber[e.seg]
			}
		}
	}
	db, h.Extents = encodeDirectory(dir)
	head, rest := x.ivfSmallSections(h, &ps)
	// A small section whose bytes the file holds already is kept.
	keep := func(p file.Part) file.Part {
		if o := h0.Find(p.Kind); o != nil && o.Length == uint64(len(p.Bytes)) && p.Pieces == nil {
			if b, err := a.ReadSection(*o); err == nil && string(b) == string(p.Bytes) {
				return file.Part{Keep: o}
			}
		}
		return p
	}
	var parts []file.Part
	for _, p := range head {
		parts = append(parts, keep(p))
	}
	parts = append(parts, keep(file.Part{Kind: secIVFDirectory, Bytes: db}))
	parts = append(parts, segParts...)
	for _, p := range rest {
		parts = append(parts, keep(p))
	}
	// Compact (write whole) past maxSegments or compactDead.
	var grow, live uint64
	for _, p := range parts {
		switch {
		case p.Keep != nil && p.Keep.Kind != secIVFSegment:
			live += file.AlignUp(p.Keep.Length)
		case p.Keep == nil && p.Kind == secIVFSegment:
			grow += file.AlignUp(p.Length)
		case p.Keep == nil:
			grow += file.AlignUp(uint64(len(p.Bytes)))
			live += file.AlignUp(uint64(len(p.Bytes)))
		}
	}
	live += liveSlots*perSlot + uint64(len(segParts))*segmentHead
	end := file.AlignUp(max(uint64(a.Size), h0.FileLen())) + grow
	if len(segParts) > maxSegments || float64(end-file.DataStart-min(live, end-file.DataStart)) > compactDead*float64(end) {
		return false, nil
	}
	written, err := a.Append(h, parts, x.rt.checksummers())
	if err != nil {
		x.saves.file = nil // the next save writes whole
		return true, err
	}
	x.mu.Lock()
	s.ix.MarkClean()
	s.ix.MarkSaved()
	x.mu.Unlock()
	sf.size, sf.generation, sf.header = a.Size, h.Generation, h.Encode()
	x.saves.bytes.Store(written)
	x.saves.appended.Store(true)
	return true, nil
}

// SaveStats describes the index's last save.
type SaveStats struct {
	// Bytes is what the last successful save wrote (0 before any): the
	// whole file, or for an appending save the appended sections and the
	// header slot.
	Bytes int64
	// Appended: the last save appended to the file (SaveFile of a
	// trained IVF index to the file it last saved to or opened) rather
	// than writing it whole.
	Appended bool
}

// SaveStats returns what the last save wrote.
func (x *Index) SaveStats() SaveStats {
	return SaveStats{Bytes: x.saves.bytes.Load(), Appended: x.saves.appended.Load()}
}

// saveState is what the saves share: mu serialises them (and guards
// file); bytes and appended describe the last one.
type saveState struct {
	mu       sync.Mutex
	file     *savedFile
	loaded   *file.Header // a version-7 header OpenFile read, until it records file
	bytes    atomic.Int64
	appended atomic.Bool
}
