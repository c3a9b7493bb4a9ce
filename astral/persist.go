package astral

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/astral-engine/astral/astral/internal/file"
	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/fpenv"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/ivf"
)

// Persistence errors; test with errors.Is. A file that is damaged, forged
// or truncated gives ErrCorrupt; one of another format version (or byte
// order) ErrVersion; a failing file system ErrIO. Big-endian hosts get
// errors.ErrUnsupported.
var (
	ErrCorrupt        = file.ErrCorrupt
	ErrVersion        = file.ErrVersion
	ErrIO             = file.ErrIO
	ErrBufferTooSmall = errors.New("astral: buffer too small")
)

// metadata is the optional section every saved file carries.
var metadata = []byte("writer=astral " + Version + "\n")

// Save writes the index to w in the index file format (docs/FORMAT.md).
//
// The file is a snapshot of one moment: Add and Remove wait until Save
// returns, while queries keep running. The bytes depend only on the calls
// made before, never on timing: a graph compaction a Remove started
// finishes first, and so does an auto index's background switch to a
// graph (order.go).
func (x *Index) Save(w io.Writer) error {
	x.saves.mu.Lock()
	defer x.saves.mu.Unlock()
	_, _, err := x.save(func(int64) (io.Writer, error) { return w, nil }, false)
	return err
}

// SaveBuffer writes the index into buf, as Save would, and returns the
// file's length. When buf is shorter it writes nothing and returns the
// length needed with an error wrapping ErrBufferTooSmall (the index may
// grow before the next call: retry with room to spare).
func (x *Index) SaveBuffer(buf []byte) (int, error) {
	x.saves.mu.Lock()
	defer x.saves.mu.Unlock()
	n, _, err := x.save(func(size int64) (io.Writer, error) {
		if size > int64(len(buf)) {
			return nil, errorf(ErrBufferTooSmall, "the index file takes %d bytes, the buffer holds %d", size, len(buf))
		}
		return file.SliceWriter(buf[:size]), nil
	}, false)
	return int(n), err
}

// SaveFile writes the index to path so that a crash at any moment leaves
// either the previous file or the new one, whole: it writes a temporary
// file in the same directory, syncs it, renames it over path and syncs the
// directory. A process killed mid-save may leave the temporary file
// (".NAME.tmp-*") behind; the file at path is never partial. Saving over a
// file an index has open by mapping is safe: the mapping keeps the old
// contents. Only a regular file is replaced, keeping its permission bits
// (a new file gets 0644); a symbolic link, directory, FIFO, socket or
// device at path is refused and left alone. Failures of the file system,
// and such refusals, wrap ErrIO.
//
// A trained IVF index saved again to the file it last saved to or opened,
// unchanged since, appends what changed instead (docs/FORMAT.md,
// "Appending saves"): the slots each partition gained, a new directory
// and header, as crash-safe as the whole write; a process that maps the
// file keeps reading what it read. Once half the file would be dead, or
// anything else changed the file, the save writes it whole as above.
// Stats().LastSaveBytes says what the last save wrote.
func (x *Index) SaveFile(path string) error {
	mode, err := file.SaveTarget(path)
	if err != nil {
		return err
	}
	x.saves.mu.Lock()
	defer x.saves.mu.Unlock()
	if done, err := x.saveAppending(path); done {
		return err
	}
	x.saves.file = nil
	recheck := func() error {
		if _, err := file.SaveTarget(path); err != nil {
			return err
		}
		if detachBeforeReplace {
			return detachMappingsOf(path)
		}
		return nil
	}
	var h *file.Header
	var size int64
	err = file.WriteFile(path, mode, recheck, func(w io.Writer) error {
		var err error
		size, h, err = x.save(func(int64) (io.Writer, error) { return w, nil }, true)
		return err
	})
	if err == nil && h != nil && h.Slotted() {
		// The next save to path may append: remember the file as written.
		if fi, serr := os.Stat(path); serr == nil && fi.Size() == size {
			x.saves.file = &savedFile{path: path, info: fi, size: size, generation: h.Generation, header: h.Encode()}
		}
	}
	return err
}

// mapping is a file OpenFile mapped; the index reads its sections in place
// until the first write copies them (ownMemory).
type mapping = file.Mapping

// bigEndian refuses index files on a big-endian host: their sections are
// used in place as little-endian words.
func bigEndian() error {
	if file.LittleEndianHost() {
		return nil
	}
	return fmt.Errorf("astral: index files on a big-endian host: %w", errors.ErrUnsupported)
}

// save writes the index whole through the writer open returns once the
// file's length is known, and returns that length and the header written.
// toFile: SaveFile's temporary file, which a later save may append to.
// Hold saves.mu.
func (x *Index) save(open func(size int64) (io.Writer, error), toFile bool) (size int64, h *file.Header, err error) {
	defer func() {
		if err == nil {
			x.saves.bytes.Store(size)
			x.saves.appended.Store(false)
		}
	}()
	if x.faults.mapped.Load() {
		defer x.endGuard(debug.SetPanicOnFault(true), &err)
	}
	if err := bigEndian(); err != nil {
		return 0, nil, err
	}
	// Writers wait; queries go on. writeMu also fixes which structure is
	// live: the switch to a graph takes it.
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.settle() // the same calls, the same bytes: no race with background work
	if err := x.Verify(); err != nil {
		return 0, nil, err // a damaged file would be saved with fresh checksums
	}
	if s, ok := x.live.(*ivfStructure); ok {
		if s.ix == nil {
			size, err = x.saveFlat(s.buf, open)
			return size, nil, err
		}
		if size, h, err = x.saveIVF(s, open); err == nil {
			// The dirty set is what changed since the last save.
			x.mu.Lock()
			s.ix.MarkClean()
			if toFile {
				s.ix.MarkSaved()
			}
			x.mu.Unlock()
		}
		return size, h, err
	}
	if g, ok := x.live.(graphStructure); ok {
		err := g.View(func(v *hnsw.View) error {
			var err error
			size, err = x.saveGraph(g.Graph, v, open)
			return err
		})
		return size, nil, err
	}
	size, err = x.saveFlat(x.live.(flatStructure).Index, open)
	return size, nil, err
}

// newHeader fills the fields every file has.
func (x *Index) newHeader(structure Kind) *file.Header {
	c := x.cfg
	// Only a trained IVF index needs version 8's segments; the others
	// keep writing version 6, which older readers read.
	version := uint32(ivfVersion)
	if structure == KindIVF {
		version = columnsVersion
	}
	h := &file.Header{Version: version, Dim: uint32(c.Dim), Metric: uint8(c.Metric), Kind: uint8(c.Kind),
		Structure: uint8(structure), Storage: uint8(c.Storage), Stride: uint32(x.kern.Stride()), M: uint32(c.M),
		EfConstruction: uint32(c.EfConstruction), EfSearch: uint32(x.efSearch.Load()), FlatLimit: uint64(c.FlatLimitBytes),
		Entry: hnsw.NoEntry, Rerank: uint8(c.Rerank), RerankFactor: uint32(c.RerankFactor)}
	if c.Kind == KindIVF || structure == KindIVF {
		nlist := c.NList
		if s, ok := x.live.(*ivfStructure); ok {
			nlist = s.nlist // an auto index's derived one
		}
		h.BlockWords, h.GraphFlags, h.Seed = uint32(nlist), uint32(x.nprobe.Load()), c.IVFSeed
	}
	return h
}

// flatSections turns a flat index's parts into sections of the kinds
// given: ids, records, then adjust values and multipliers where adjust
// has them.
func flatSections(p flat.Parts, adjust score.Adjust, ids, recs, adj, scales file.Kind) []file.Part {
	out := []file.Part{{Kind: ids, Bytes: file.BytesOf(p.IDs)}, {Kind: recs, Bytes: p.Records}}
	if adjust != score.AdjustNone {
		out = append(out, file.Part{Kind: adj, Bytes: file.BytesOf(p.Adjust)})
	}
	if adjust == score.AdjustScaleSubtract {
		out = append(out, file.Part{Kind: scales, Bytes: file.BytesOf(p.Scales)})
	}
	return out
}

// attrSections are the version-3 sections: tags and owners per slot,
// and the payloads (setting h.PayloadBytes); version 4's tag names
// (setting h.TagNameBytes); and version 5's times and importances per
// slot. Hold writeMu.
func (x *Index) attrSections(h *file.Header, tags, owners []uint64, times []int64, imps []float32) []file.Part {
	x.attrs.mu.RLock()
	pay := x.attrs.encodePayloads()
	x.attrs.mu.RUnlock()
	slots := int(h.Slots)
	parts := []file.Part{{Kind: secTags, Bytes: file.BytesOf(column(tags, slots))}, {Kind: secOwners, Bytes: file.BytesOf(column(owners, slots))},
		{Kind: secTimes, Bytes: file.BytesOf(column(times, slots))}, {Kind: secImportances, Bytes: file.BytesOf(column(imps, slots))}}
	if h.PayloadBytes = uint64(len(pay)); pay != nil {
		parts = append(parts, file.Part{Kind: secPayloads, Bytes: pay})
	}
	names := x.names.encode()
	if h.TagNameBytes = uint32(len(names)); names != nil {
		parts = append(parts, file.Part{Kind: secTagNames, Bytes: names})
	}
	return parts
}

// tail appends the rerank copy's sections, if any, and the metadata.
func (x *Index) tail(parts []file.Part) []file.Part {
	if x.rerank != nil {
		// A rerank copy has no multipliers: it is f16 or f32.
		parts = append(parts, flatSections(x.rerank.Parts(), x.rerank.Adjust(), secRerankIDs, secRerankRecords, secRerankAdjust, 0)...)
	}
	return append(parts, file.Part{Kind: file.KindMetadata, Flags: file.Optional, Bytes: metadata})
}

func (x *Index) saveFlat(f *flat.Index, open func(int64) (io.Writer, error)) (int64, error) {
	p := f.Parts()
	h := x.newHeader(KindFlat)
	h.Count, h.Slots = uint64(len(p.IDs)), uint64(len(p.IDs))
	parts := flatSections(p, x.adjust, secIDs, secRecords, secAdjust, secScales)
	parts = x.tail(append(parts, x.attrSections(h, p.Tags, p.Owners, p.Times, p.Imps)...))
	return file.Write(h, parts, x.rt.checksummers(), open)
}

// level0Chunk is how many bytes of level-0 blocks a graph save normalizes
// at a time.
const level0Chunk = 1 << 20

func (x *Index) saveGraph(g *hnsw.Graph, v *hnsw.View, open func(int64) (io.Writer, error)) (int64, error) {
	h := x.newHeader(KindHNSW)
	n, bw := v.Nodes(), v.BlockWords()
	h.Count, h.Slots, h.Entry = uint64(v.Live()), uint64(n), v.Entry()
	h.UpperWords, h.BlockWords = uint64(v.UpperLen()), uint32(bw)
	h.Seed = g.Config().Seed
	if g.Config().KeepPruned {
		h.GraphFlags |= graphKeepPruned
	}
	// The level-0 blocks are normalized (hnsw.View.Level0) a chunk at a
	// time, twice: once for the CRC the header needs first, once to write.
	per := max(1, level0Chunk/(bw*4))
	var buf []uint32
	level0 := func(each func([]byte)) {
		for lo := 0; lo < n; lo += per {
			buf = v.Level0(buf[:0], lo, min(lo+per, n))
			each(file.BytesOf(buf))
		}
	}
	attrs := v.Attrs(nil, 0, n)
	tags, owners, times, imps := make([]uint64, n), make([]uint64, n), make([]int64, n), make([]float32, n)
	for i, a := range attrs {
		tags[i], owners[i], times[i], imps[i] = a.Tags, a.Owner, a.Time, a.Importance
	}
	parts := x.tail(append([]file.Part{
		{Kind: secTombstones, Bytes: file.BytesOf(v.Tombstones(nil))},
		{Kind: secLevel0, Length: uint64(n) * uint64(bw) * 4, Pieces: level0},
		{Kind: secUpper, Bytes: file.BytesOf(v.Upper(nil))},
	}, x.attrSections(h, tags, owners, times, imps)...))
	return file.Write(h, parts, x.rt.checksummers(), open)
}

// checksummers is the runtime's workers for the container's checksums,
// nil (the caller alone) without a runtime.
func (r *Runtime) checksummers() file.Workers {
	if p := r.workers(); p != nil {
		return p
	}
	return nil
}

// LoadBytes loads an index from b, a whole index file (a save game, a
// packed asset), and copies what it keeps: the caller may reuse or free b
// as soon as it returns. Every checksum, count, offset and link is checked
// first; damage gives ErrCorrupt and another format version ErrVersion.
// rt may be nil, as for NewIndex.
func LoadBytes(rt *Runtime, b []byte) (*Index, error) {
	if err := bigEndian(); err != nil {
		return nil, err
	}
	x, _, err := decodeBytes(rt, b, false, false)
	return x, err
}

// decodeBytes loads the file in b; with alias the index reads b in place
// (b must stay valid and unchanged), otherwise the sections are copied
// before they are checked. With later (VerifyInBackground, alias only) it
// leaves the bulk's checks to the function it returns, nil otherwise.
func decodeBytes(rt *Runtime, b []byte, alias, later bool) (*Index, func() error, error) {
	h, bufs, err := fileFormat.FromBytes(b, alias)
	if err != nil {
		return nil, nil, err
	}
	mode := checked
	switch {
	case later:
		mode = checkLater
	case Kind(h.Structure) == KindHNSW:
		mode = checkLevel0
	}
	if err := fileFormat.CheckCRCs(rt.checksummers(), h, bufs, mode.leaves); err != nil {
		return nil, nil, err
	}
	x, check, err := assemble(rt, h, bufs, mode)
	if err == nil && h.Slotted() && alias {
		x.saves.loaded = h
	}
	return x, check, err
}

// bulk reports the sections VerifyInBackground leaves unread: those as
// large as the records, which no search needs whole to be safe (any bits
// of a record score; the graph's links are checked as they are read).
func bulk(k file.Kind) bool {
	return k == secLevel0 || k == secRecords || k == secRerankRecords || k == secIVFSegment
}

// Load reads an index file from r: the header, then each section into
// memory of the index's own, checked as LoadBytes checks. It reads exactly
// the file's length, so r may hold more after it. Memory follows the bytes
// that actually arrive, whatever the header claims: when r is an
// io.Seeker the claimed length is checked against what is left first,
// otherwise each section grows as it is read. A short stream gives
// ErrCorrupt; another read failure ErrIO.
func Load(rt *Runtime, r io.Reader) (*Index, error) {
	if err := bigEndian(); err != nil {
		return nil, err
	}
	h, bufs, err := fileFormat.Read(r)
	if err != nil {
		return nil, err
	}
	x, _, err := assemble(rt, h, bufs, checked)
	return x, err
}

// checkMode is what assemble checks beyond what its caller did.
type checkMode uint8

const (
	checked     checkMode = iota // every checksum has been checked
	checkLevel0                  // but the level-0 blocks': the graph's check computes it as it goes, chunk by chunk while in cache
	checkLater                   // but the bulk's (bulk): returned as a function, with the graph's full check
)

// leaves reports whether the caller of assemble leaves k's checksum to it.
func (m checkMode) leaves(k file.Kind) bool {
	switch m {
	case checkLevel0:
		return k == secLevel0
	case checkLater:
		return bulk(k)
	}
	return false
}

// flatParts turns sections of the kinds given back into a flat index's
// parts (see flatSections).
func flatParts(sec func(file.Kind) []byte, adjust score.Adjust, ids, recs, adj, scales file.Kind) flat.Parts {
	p := flat.Parts{Records: sec(recs), IDs: file.WordsOf[uint64](sec(ids))}
	if adjust != score.AdjustNone {
		p.Adjust = file.WordsOf[float32](sec(adj))
	}
	if adjust == score.AdjustScaleSubtract {
		p.Scales = file.WordsOf[float32](sec(scales))
	}
	return p
}

// assemble builds the index over the sections, used in place. With
// checkLater it returns the checks it left (a graph's links and ids, the
// bulk's checksums, the rerank copy's ids) as later; nil otherwise.
func assemble(rt *Runtime, h *file.Header, bufs [][]byte, mode checkMode) (x *Index, later func() error, err error) {
	c := headerConfig(h)
	if err := c.check(false); err != nil {
		return nil, nil, err
	}
	if x, err = newIndex(rt, c); err != nil {
		return nil, nil, errorf(ErrCorrupt, "options: %v", err)
	}
	k := x.kern
	sec := func(kind file.Kind) []byte {
		for i, s := range h.Sections {
			if s.Kind == kind {
				return bufs[i]
			}
		}
		return nil
	}
	if err := x.names.decode(sec(secTagNames)); err != nil {
		return nil, nil, err
	}
	workers := rt.checksummers()
	// The bulk's checksums, for later.
	bulkCRCs := func() error {
		return fileFormat.CheckCRCs(workers, h, bufs, func(k file.Kind) bool { return !bulk(k) || k == secLevel0 })
	}
	if c.Rerank != 0 {
		ra := x.rerank.Adjust()
		p := flatParts(sec, ra, secRerankIDs, secRerankRecords, secRerankAdjust, 0)
		if x.rerank, err = flat.FromParts(x.rkern, ra, p); err != nil {
			return nil, nil, errorf(ErrCorrupt, "rerank copy: %v", err)
		}
	}
	var tags, owners []uint64 // nil before version 3: all zero
	if h.Version >= attrsVersion {
		tags, owners = file.WordsOf[uint64](sec(secTags)), file.WordsOf[uint64](sec(secOwners))
	}
	var times []int64 // nil before version 5: all zero
	var imps []float32
	if h.Version >= memoryVersion {
		times, imps = file.WordsOf[int64](sec(secTimes)), file.WordsOf[float32](sec(secImportances))
		for i, v := range imps {
			if !finite32(v) {
				return nil, nil, errorf(ErrCorrupt, "importance of slot %d is %v", i, v)
			}
		}
	}
	// flatDone ends the load of the kinds whose records need no graph
	// check: the rerank ids and payloads now, the bulk checksums now or
	// later.
	flatDone := func() (*Index, func() error, error) {
		if err := x.checkRerankIDs(); err != nil {
			return nil, nil, err
		}
		if err := x.loadAttrs(sec(secPayloads)); err != nil {
			return nil, nil, err
		}
		if mode == checkLater {
			later = bulkCRCs
		}
		return x, later, nil
	}
	if Kind(h.Structure) == KindIVF && h.Slotted() {
		var segs [][]byte
		for i, s := range h.Sections {
			if s.Kind == secIVFSegment {
				segs = append(segs, bufs[i])
			}
		}
		if err := x.assembleSegments(h, sec, segs); err != nil {
			return nil, nil, err
		}
		return flatDone()
	}
	if Kind(h.Structure) == KindIVF {
		if err := x.assembleIVF(h, sec, tags, owners, times, imps); err != nil {
			return nil, nil, err
		}
		return flatDone()
	}
	if Kind(h.Structure) == KindFlat {
		fp := flatParts(sec, x.adjust, secIDs, secRecords, secAdjust, secScales)
		fp.Tags, fp.Owners, fp.Times, fp.Imps = tags, owners, times, imps
		f, err := flat.FromParts(k, x.adjust, fp)
		if err != nil {
			return nil, nil, errorf(ErrCorrupt, "%v", err)
		}
		x.live = flatStructure{f}
		if c.Kind == KindIVF {
			// Not trained yet: the records wait in a flat index.
			s := x.newIVF(c.NList)
			s.buf = f
			x.live = s
		}
		return flatDone()
	}
	parts := hnsw.Parts{Nodes: int(h.Slots), Level0: file.WordsOf[uint32](sec(secLevel0)),
		Upper: file.WordsOf[uint32](sec(secUpper)), Entry: h.Entry,
		Tombstones: file.WordsOf[uint32](sec(secTombstones)), Tags: tags, Owners: owners, Times: times, Imps: imps}
	cfg := hnsw.Config{M: c.M, EfConstruction: c.EfConstruction, Seed: h.Seed, KeepPruned: h.GraphFlags&graphKeepPruned != 0}
	var sums *file.ChunkSums
	if mode != checked {
		per := hnsw.ChunkNodes(int(h.Stride), c.M, x.adjust)
		sums = file.NewChunkSums((int(h.Slots) + per - 1) / per)
		parts.Visit = func(i int, words []uint32) { sums.Visit(i, file.BytesOf(words)) }
	}
	// graphChecked ends the graph's check (err its result): a failed
	// level-0 checksum explains a failed check best, so it comes first.
	graphChecked := func(err error) error {
		if mode != checked {
			s := *h.Find(secLevel0)
			got, ok := sums.Sum()
			if !ok {
				got = file.Checksums(workers, [][]byte{sec(secLevel0)})[0]
			}
			if got != s.CRC {
				return fileFormat.CRCError(s, got)
			}
		}
		if err != nil {
			return errorf(ErrCorrupt, "%v", err)
		}
		return nil
	}
	if mode == checkLater {
		g, finish, err := hnsw.OpenParts(k, x.adjust, cfg, parts, rt.workers())
		if err != nil {
			return nil, nil, errorf(ErrCorrupt, "%v", err)
		}
		x.live = graphStructure{g}
		x.attrs.ready.Store(false)
		later = func() error {
			if err := graphChecked(finish()); err != nil {
				return err
			}
			if err := bulkCRCs(); err != nil {
				return err
			}
			if err := x.checkRerankIDs(); err != nil {
				return err
			}
			return x.loadAttrs(sec(secPayloads))
		}
		return x, later, nil
	}
	g, err := hnsw.FromParts(k, x.adjust, cfg, parts, rt.workers())
	if err := graphChecked(err); err != nil {
		return nil, nil, err
	}
	// The tombstones were checked against the deleted nodes, and their
	// number against the header's counts: the graph holds count live nodes.
	x.live = graphStructure{g}
	if err := x.checkRerankIDs(); err != nil {
		return nil, nil, err
	}
	if err := x.loadAttrs(sec(secPayloads)); err != nil {
		return nil, nil, err
	}
	return x, nil, nil
}

// assembleIVF builds a trained IVF index over the sections (saveIVF),
// used in place: a partition is copied before its first write.
func (x *Index) assembleIVF(h *file.Header, sec func(file.Kind) []byte, tags, owners []uint64, times []int64, imps []float32) error {
	dir := file.WordsOf[uint32](sec(secPartitions))
	nl := len(dir) / 2
	fp := flatParts(sec, x.adjust, secIDs, secRecords, secAdjust, secScales)
	dead := file.WordsOf[uint32](sec(secTombstones))
	ps := ivf.Parts{Centroids: file.WordsOf[float32](sec(secCentroids)), SplitAt: int(ivfSplitAt(h)),
		Partitions: make([]ivf.PartitionParts, nl)}
	// Each partition's share of the sections, checked against their
	// lengths (the header's counts) before any is cut.
	var at, deadAt uint64
	stride := uint64(h.Stride)
	for i := range nl {
		n, nd := uint64(dir[2*i]), uint64(dir[2*i+1])
		if n > math.MaxInt32 || nd > n || at+n > h.Slots || deadAt+nd > uint64(len(dead)) {
			return errorf(ErrCorrupt, "partition %d: %d slots, %d tombstones, past the file's %d slots and %d tombstones",
				i, n, nd, h.Slots, len(dead))
		}
		pp := ivf.PartitionParts{IDs: fp.IDs[at : at+n], Records: fp.Records[at*stride : (at+n)*stride],
			Tombstones: dead[deadAt : deadAt+nd]}
		if fp.Adjust != nil {
			pp.Adjust = fp.Adjust[at : at+n]
		}
		if fp.Scales != nil {
			pp.Scales = fp.Scales[at : at+n]
		}
		if tags != nil {
			pp.Tags, pp.Owners = tags[at:at+n], owners[at:at+n]
		}
		if times != nil {
			pp.Times, pp.Imps = times[at:at+n], imps[at:at+n]
		}
		ps.Partitions[i] = pp
		at, deadAt = at+n, deadAt+nd
	}
	if at != h.Slots || deadAt != uint64(len(dead)) {
		return errorf(ErrCorrupt, "the partitions hold %d slots and %d tombstones, the header says %d and %d",
			at, deadAt, h.Slots, len(dead))
	}
	return x.liveIVF(ps)
}

// liveIVF makes the IVF index over a file's partitions ps the live
// structure; a refusal is the file's corruption.
func (x *Index) liveIVF(ps ivf.Parts) error {
	s := x.newIVF(x.cfg.NList)
	ix, err := s.mk()
	if err != nil {
		return errorf(ErrCorrupt, "options: %v", err)
	}
	if err := ivf.FromParts(ix, ps); err != nil {
		return errorf(ErrCorrupt, "%v", err)
	}
	s.ix, s.buf = ix, nil
	x.live = s
	return nil
}

// loadAttrs fills a loaded index's payloads (from the section pay, nil
// for none), owner postings and tag counts.
func (x *Index) loadAttrs(pay []byte) error {
	s := x.attrs
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.decodePayloads(pay, x.hasLocked); err != nil {
		return err
	}
	s.rebuild(x.live.eachAttr)
	return nil
}

// checkRerankIDs checks that the rerank copy holds exactly the index's ids
// (a query looks every candidate up in it). The counts are equal (the
// header's), and both sides' ids are distinct, so one direction suffices.
func (x *Index) checkRerankIDs() error {
	if x.rerank == nil {
		return nil
	}
	for _, id := range x.rerank.Parts().IDs {
		if !x.hasLocked(id) {
			return errorf(ErrCorrupt, "rerank copy holds id %d, which the index does not", id)
		}
	}
	return nil
}

// OpenFile opens the index file at path by mapping it read-only: the
// records (flat) or the graph (HNSW) are searched where they lie in the
// file, so a large index opens in milliseconds, with no rebuild and no
// copy, after every checksum, count, offset and link has been checked
// (with VerifyInBackground, only what a search relies on: see there).
// The first Add or Remove copies them into memory of the index's own
// (queries wait for that copy once); Close, or the collector when the
// index is no longer used, unmaps the file.
//
// While mapped the file must not be modified or truncated in place (as
// with any mapping, the process would see the change or fault):
// SaveFile, which replaces the file, is safe (on Windows, which refuses to
// replace a mapped file, it first copies every index that maps the file
// into memory of its own, as a first write would). Where mapping is not
// available (neither Unix nor Windows) the file is read into memory. Anything but a regular
// file (or a symbolic link to one) is refused with ErrIO before it is
// opened, so a FIFO cannot block the call.
func OpenFile(rt *Runtime, path string, opts ...OpenOption) (*Index, error) {
	if err := bigEndian(); err != nil {
		return nil, err
	}
	var oc openConfig
	for _, o := range opts {
		o(&oc)
	}
	f, err := file.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, file.Errorf(ErrIO, "%v", err)
	}
	m, err := file.Map(f, path)
	f.Close()
	if err != nil {
		return nil, err
	}
	x, later, err := decodeBytes(rt, m.Data, true, oc.background)
	if err != nil {
		m.Release()
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	if h := x.saves.loaded; h != nil {
		// A save to path may append to what was opened.
		x.saves.file = &savedFile{path: path, info: fi, size: int64(len(m.Data)), generation: h.Generation, header: h.Encode()}
	}
	if m.Mapped() {
		x.mapped = m
		x.faults.mapped.Store(true)
		runtime.AddCleanup(x, func(m *mapping) { m.Release() }, m)
		if detachBeforeReplace {
			trackMapping(x, m)
		}
	}
	if later != nil {
		x.verifyLater(func() error {
			if err := later(); err != nil {
				return fmt.Errorf("%w (file %s)", err, path)
			}
			return nil
		})
	}
	return x, nil
}

// An OpenOption changes how OpenFile opens a file.
type OpenOption func(*openConfig)

type openConfig struct {
	background bool
}

// VerifyInBackground makes OpenFile return before it reads the bulk of
// the file (the records, the graph's level-0 blocks): it checks the header,
// the small sections' checksums, and what a search needs to stay inside
// the file and to end (every node's state word and upper-level offset,
// the entry point), then leaves the rest — the bulk's checksums, every
// link, the ids — to a check in the background, on the runtime's workers.
// A game opens a packed index this way within a frame.
//
// Queries answered before that check ends are memory-safe whatever the
// file holds (links outside the graph are skipped) but read bytes not
// yet checked. Verify waits for the check. If it fails, the index answers
// every query, write and save with its ErrCorrupt; writes and saves wait
// for it anyway.
func VerifyInBackground() OpenOption {
	return func(c *openConfig) { c.background = true }
}

// fileCheck is VerifyInBackground's check of an opened file.
type fileCheck struct {
	done chan struct{} // closed when the check ends
	err  error         // its result, set before done is closed
	bad  atomic.Bool   // err != nil: queries test it without waiting
}

// verifyLater runs check in the background as x's file check.
func (x *Index) verifyLater(check func() error) {
	c := &fileCheck{done: make(chan struct{})}
	x.check = c
	x.bg.Add(1)
	go func() {
		defer x.bg.Done() // also keeps x, and so its mapping, alive meanwhile
		// This thread may carry a host's FTZ/DAZ (threads inherit it).
		defer fpenv.Leave(fpenv.Enter())
		c.err = x.guarded(check)
		c.bad.Store(c.err != nil)
		close(c.done)
	}()
}

// Verify waits for the background check of an index OpenFile opened with
// VerifyInBackground and returns its result: nil when every checksum,
// count, offset, link and id passed, otherwise the ErrCorrupt that names
// the first problem (the index then refuses queries, writes and saves).
// Any other index was checked whole before it was returned: nil at once.
func (x *Index) Verify() error {
	if err := x.faults.failed(); err != nil {
		return err
	}
	x.mu.RLock()
	c := x.check
	x.mu.RUnlock()
	if c == nil {
		return nil
	}
	<-c.done
	return c.err
}

// damaged is the failed background check's error, without waiting for
// one still running; hold mu.
func (x *Index) damaged() error {
	if err := x.faults.failed(); err != nil {
		return err
	}
	if c := x.check; c != nil && c.bad.Load() {
		return c.err
	}
	return nil
}

// ownMemory copies a mapped index's sections into the heap before its
// first write, then unmaps the file; it waits for a background check
// first and returns its error. Hold writeMu.
func (x *Index) ownMemory() error {
	if err := x.Verify(); err != nil {
		return err
	}
	m := x.mapped
	if m == nil {
		return nil
	}
	if err := x.detach(); err != nil {
		return err
	}
	m.Release()
	return nil
}

// Mapped reports whether the index still reads a file OpenFile mapped
// (no Add or Remove since, no Close).
func (x *Index) Mapped() bool {
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	return x.mapped != nil
}

// Close releases the index's memory at once, unmapping the file of an
// index OpenFile opened; without Close the collector does it once the
// index is unreachable. Queries in flight finish first. The index stays
// usable, empty: later queries find nothing and later Adds start afresh.
func (x *Index) Close() error {
	x.Wait()
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.mu.Lock()
	if s, ok := x.live.(*ivfStructure); ok {
		x.live = x.newIVF(s.nlist) // an auto index's derived nlist
	} else {
		x.live, _ = x.emptyStructure(x.live.kind())
	}
	if x.rerank != nil {
		x.rerank = flat.New(x.rkern, x.rerank.Adjust())
	}
	x.pending = nil
	x.check = nil
	x.attrs = newAttrStore()
	m := x.mapped
	x.mapped = nil
	x.mu.Unlock()
	if m != nil {
		if err := m.Release(); err != nil {
			return errorf(ErrIO, "unmapping: %v", err)
		}
	}
	return nil
}

// GraphStats returns the graph's shape (levels, links, tombstones) and
// true when the index searches a graph.
func (x *Index) GraphStats() (hnsw.Stats, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	g, ok := x.live.(graphStructure)
	if !ok {
		return hnsw.Stats{}, false
	}
	return g.Stats(), true
}
