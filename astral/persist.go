package astral

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// Persistence errors; test with errors.Is. A file that is damaged, forged
// or truncated gives ErrCorrupt; one of another format version (or byte
// order) ErrVersion; a failing file system ErrIO. Big-endian hosts get
// errors.ErrUnsupported.
var (
	ErrCorrupt        = errors.New("astral: corrupt index data")
	ErrVersion        = errors.New("astral: index format version not supported")
	ErrIO             = errors.New("astral: i/o error")
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
	_, err := x.save(func(int64) (io.Writer, error) { return w, nil })
	return err
}

// SaveBuffer writes the index into buf, as Save would, and returns the
// file's length. When buf is shorter it writes nothing and returns the
// length needed with an error wrapping ErrBufferTooSmall (the index may
// grow before the next call: retry with room to spare).
func (x *Index) SaveBuffer(buf []byte) (int, error) {
	n, err := x.save(func(size int64) (io.Writer, error) {
		if size > int64(len(buf)) {
			return nil, errorf(ErrBufferTooSmall, "the index file takes %d bytes, the buffer holds %d", size, len(buf))
		}
		return &sliceWriter{b: buf[:0:size]}, nil
	})
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
func (x *Index) SaveFile(path string) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	mode, err := saveTarget(path)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return errorf(ErrIO, "%v", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := &chunkWriter{w: f, buf: make([]byte, 0, saveChunk)}
	if _, err := x.save(func(int64) (io.Writer, error) { return bw, nil }); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return errorf(ErrIO, "writing %s: %v", tmp, err)
	}
	if err := f.Chmod(mode); err != nil {
		return errorf(ErrIO, "%v", err)
	}
	if err := f.Sync(); err != nil {
		return errorf(ErrIO, "syncing %s: %v", tmp, err)
	}
	if err := f.Close(); err != nil {
		return errorf(ErrIO, "closing %s: %v", tmp, err)
	}
	if _, err := saveTarget(path); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return errorf(ErrIO, "%v", err)
	}
	if err := syncDir(dir); err != nil {
		return errorf(ErrIO, "syncing directory %s: %v", dir, err)
	}
	return nil
}

// saveChunk is the size and alignment of SaveFile's writes. Where the file
// system caches files in large folios (ext4 and XFS on Linux 6.16 and
// later), whole aligned 2 MiB writes leave the file cached as 2 MiB pages,
// which a later OpenFile maps with one fault each instead of one per
// 64 KiB: a mapped open of the 100k reference index takes 36 minor faults,
// not about 800 (BenchmarkOpen100k's map_faults; README, "Opening a saved
// index").
const saveChunk = 2 << 20

// chunkWriter passes its writes on in whole saveChunk-aligned pieces: it
// buffers up to a chunk boundary and writes runs of whole chunks directly.
type chunkWriter struct {
	w   io.Writer
	buf []byte // cap saveChunk
}

func (c *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(c.buf) == 0 && len(p) >= saveChunk {
			whole := len(p) &^ (saveChunk - 1)
			if _, err := c.w.Write(p[:whole]); err != nil {
				return n - len(p), err
			}
			p = p[whole:]
			continue
		}
		k := copy(c.buf[len(c.buf):cap(c.buf)], p)
		c.buf, p = c.buf[:len(c.buf)+k], p[k:]
		if len(c.buf) == cap(c.buf) {
			if err := c.Flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// Flush writes what is buffered: the file's last, partial chunk.
func (c *chunkWriter) Flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.w.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

// sliceWriter writes into a fixed slice (SaveBuffer checked its length).
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	if len(p) > cap(w.b)-len(w.b) {
		return 0, io.ErrShortWrite
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

// fileWriter writes a file's parts in order, padding each section.
type fileWriter struct {
	w   io.Writer
	off uint64
	err error
}

var zeros [sectionAlign]byte

func (fw *fileWriter) write(p []byte) {
	if fw.err != nil || len(p) == 0 {
		return
	}
	if _, err := fw.w.Write(p); err != nil {
		fw.err = errorf(ErrIO, "%v", err)
	}
	fw.off += uint64(len(p))
}

// pad writes zeros up to the next 64-byte boundary.
func (fw *fileWriter) pad() { fw.write(zeros[:align64(fw.off)-fw.off]) }

// save writes the index through the writer open returns once the file's
// length is known, and returns that length.
func (x *Index) save(open func(size int64) (io.Writer, error)) (size int64, err error) {
	if x.faults.mapped.Load() {
		defer x.endGuard(debug.SetPanicOnFault(true), &err)
	}
	if !littleEndianHost() {
		return 0, fmt.Errorf("astral: index files on a big-endian host: %w", errors.ErrUnsupported)
	}
	// Writers wait; queries go on. writeMu also fixes which structure is
	// live: the switch to a graph takes it.
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.settle() // the same calls, the same bytes: no race with background work
	if err := x.Verify(); err != nil {
		return 0, err // a damaged file would be saved with fresh checksums
	}
	if g := x.graph; g != nil {
		err := g.View(func(v *hnsw.View) error {
			var err error
			size, err = x.saveGraph(v, open)
			return err
		})
		return size, err
	}
	return x.saveFlat(open)
}

// newHeader fills the fields every file has.
func (x *Index) newHeader(structure Kind) *header {
	c := x.cfg
	return &header{version: FormatVersion, dim: uint32(c.Dim), metric: c.Metric, kind: c.Kind, structure: structure,
		storage: c.Storage, stride: uint32(x.kern.Stride()), m: uint32(c.M), efConstruction: uint32(c.EfConstruction),
		efSearch: uint32(x.efSearch.Load()), flatLimit: uint64(c.FlatLimitBytes), entry: hnsw.NoEntry,
		rerank: c.Rerank, rerankFactor: uint32(c.RerankFactor)}
}

// rerankSections returns the rerank copy's sections and their bytes.
func (x *Index) rerankSections() ([]section, [][]byte) {
	if x.rerank == nil {
		return nil, nil
	}
	recs, ids, bias := x.rerank.Parts()
	secs := []section{{kind: secRerankIDs}, {kind: secRerankRecords}}
	bufs := [][]byte{bytesOf(ids), recs}
	if x.rerank.Adjust() != score.AdjustNone {
		secs = append(secs, section{kind: secRerankAdjust})
		bufs = append(bufs, bytesOf(bias))
	}
	return secs, bufs
}

func (x *Index) saveFlat(open func(int64) (io.Writer, error)) (int64, error) {
	recs, ids, bias := x.flat.Parts()
	h := x.newHeader(KindFlat)
	h.count, h.slots = uint64(len(ids)), uint64(len(ids))
	bufs := [][]byte{bytesOf(ids), recs}
	h.sections = []section{{kind: secIDs}, {kind: secRecords}}
	if x.adjust != score.AdjustNone {
		bufs = append(bufs, bytesOf(bias))
		h.sections = append(h.sections, section{kind: secAdjust})
	}
	if x.adjust == score.AdjustScaleSubtract {
		bufs = append(bufs, bytesOf(x.flat.Scales()))
		h.sections = append(h.sections, section{kind: secScales})
	}
	rs, rb := x.rerankSections()
	h.sections, bufs = append(h.sections, rs...), append(bufs, rb...)
	bufs = append(bufs, metadata)
	h.sections = append(h.sections, section{kind: secMetadata, flags: sectionOptional})
	for i, c := range checksums(x.rt.workers(), bufs) {
		h.sections[i].length, h.sections[i].crc = uint64(len(bufs[i])), c
	}
	h.layout()
	w, err := open(int64(h.fileLen()))
	if err != nil {
		return int64(h.fileLen()), err
	}
	fw := &fileWriter{w: w}
	fw.write(h.encode())
	fw.pad()
	for _, b := range bufs {
		fw.write(b)
		fw.pad()
	}
	return int64(fw.off), fw.err
}

// level0Chunk is how many bytes of level-0 blocks a graph save normalizes
// at a time.
const level0Chunk = 1 << 20

func (x *Index) saveGraph(v *hnsw.View, open func(int64) (io.Writer, error)) (int64, error) {
	g := x.graph
	h := x.newHeader(KindHNSW)
	n, bw := v.Nodes(), v.BlockWords()
	h.count, h.slots, h.entry = uint64(v.Live()), uint64(n), v.Entry()
	h.upperWords, h.blockWords = uint64(v.UpperLen()), uint32(bw)
	h.seed = g.Config().Seed
	if g.Config().KeepPruned {
		h.graphFlags |= graphKeepPruned
	}
	tomb := bytesOf(v.Tombstones(nil))
	upper := bytesOf(v.Upper(nil))
	// The level-0 blocks are normalized (hnsw.View.Level0) a chunk at a
	// time, twice: once for the CRC the header needs first, once to write.
	per := max(1, level0Chunk/(bw*4))
	var buf []uint32
	level0 := func(each func([]byte)) {
		for lo := 0; lo < n; lo += per {
			buf = v.Level0(buf[:0], lo, min(lo+per, n))
			each(bytesOf(buf))
		}
	}
	var crc0 uint32
	level0(func(b []byte) { crc0 = crc32Update(crc0, b) })
	h.sections = []section{
		{kind: secTombstones, length: uint64(len(tomb)), crc: crc32Update(0, tomb)},
		{kind: secLevel0, length: uint64(n) * uint64(bw) * 4, crc: crc0},
		{kind: secUpper, length: uint64(len(upper)), crc: crc32Update(0, upper)},
	}
	rs, rb := x.rerankSections()
	for i, c := range checksums(x.rt.workers(), rb) {
		rs[i].length, rs[i].crc = uint64(len(rb[i])), c
	}
	h.sections = append(h.sections, rs...)
	h.sections = append(h.sections, section{kind: secMetadata, flags: sectionOptional, length: uint64(len(metadata)), crc: crc32Update(0, metadata)})
	h.layout()
	w, err := open(int64(h.fileLen()))
	if err != nil {
		return int64(h.fileLen()), err
	}
	fw := &fileWriter{w: w}
	fw.write(h.encode())
	fw.pad()
	fw.write(tomb)
	fw.pad()
	level0(fw.write)
	fw.pad()
	fw.write(upper)
	fw.pad()
	for _, b := range rb {
		fw.write(b)
		fw.pad()
	}
	fw.write(metadata)
	fw.pad()
	return int64(fw.off), fw.err
}

// bytesOf views a slice of words as its bytes (in host order: callers
// check the host is little-endian).
func bytesOf[T uint32 | uint64 | float32](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// wordsOf views b (its length a multiple of T's size) as a slice of T,
// copying it to aligned memory if it is not aligned. Empty b gives an
// empty, non-nil slice.
func wordsOf[T uint32 | uint64 | float32](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b) == 0 {
		return []T{}
	}
	if uintptr(unsafe.Pointer(&b[0]))%uintptr(size) != 0 {
		b = append(alignedBytes(0, len(b)), b...)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size)
}

// alignedBytes returns a slice of length n and capacity c starting on a
// 64-byte boundary.
func alignedBytes(n, c int) []byte {
	b := make([]byte, c+sectionAlign)
	off := (sectionAlign - int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))&(sectionAlign-1))) & (sectionAlign - 1)
	return b[off : off+n : off+c]
}

// LoadBytes loads an index from b, a whole index file (a save game, a
// packed asset), and copies what it keeps: the caller may reuse or free b
// as soon as it returns. Every checksum, count, offset and link is checked
// first; damage gives ErrCorrupt and another format version ErrVersion.
// rt may be nil, as for NewIndex.
func LoadBytes(rt *Runtime, b []byte) (*Index, error) {
	if !littleEndianHost() {
		return nil, fmt.Errorf("astral: index files on a big-endian host: %w", errors.ErrUnsupported)
	}
	x, _, err := decodeBytes(rt, b, false, false)
	return x, err
}

// decodeBytes loads the file in b; with alias the index reads b in place
// (b must stay valid and unchanged), otherwise the sections are copied
// before they are checked. With later (VerifyInBackground, alias only) it
// leaves the bulk's checks to the function it returns, nil otherwise.
func decodeBytes(rt *Runtime, b []byte, alias, later bool) (*Index, func() error, error) {
	if len(b) < fixedHeaderLen {
		return nil, nil, errorf(ErrCorrupt, "truncated: %d bytes, less than the %d-byte header", len(b), fixedHeaderLen)
	}
	hl, err := prefix(b)
	if err != nil {
		return nil, nil, err
	}
	if len(b) < hl {
		return nil, nil, errorf(ErrCorrupt, "truncated: %d bytes, less than the %d-byte header", len(b), hl)
	}
	h, err := decodeHeader(b[:hl])
	if err != nil {
		return nil, nil, err
	}
	if size := h.fileLen(); uint64(len(b)) != size {
		if uint64(len(b)) < size {
			return nil, nil, errorf(ErrCorrupt, "truncated: %d bytes, the header describes %d", len(b), size)
		}
		return nil, nil, errorf(ErrCorrupt, "%d bytes after the end the header describes (%d bytes)", uint64(len(b))-size, size)
	}
	if err := zeroPadding(b[hl:align64(uint64(hl))], "the header"); err != nil {
		return nil, nil, err
	}
	bufs := make([][]byte, len(h.sections))
	for i, s := range h.sections {
		end := s.offset + s.length
		if err := zeroPadding(b[end:align64(end)], s.kind.String()); err != nil {
			return nil, nil, err
		}
		bufs[i] = b[s.offset:end:end]
		if !alias {
			bufs[i] = append(alignedBytes(0, len(bufs[i])), bufs[i]...)
		}
	}
	mode := checked
	switch {
	case later:
		mode = checkLater
	case h.structure == KindHNSW:
		mode = checkLevel0
	}
	if err := checkCRCs(rt, h, bufs, mode.leaves); err != nil {
		return nil, nil, err
	}
	return assemble(rt, h, bufs, mode)
}

// bulk reports the sections VerifyInBackground leaves unread: those as
// large as the records, which no search needs whole to be safe (any bits
// of a record score; the graph's links are checked as they are read).
func bulk(k sectionKind) bool {
	return k == secLevel0 || k == secRecords || k == secRerankRecords
}

func zeroPadding(p []byte, after string) error {
	for _, c := range p {
		if c != 0 {
			return errorf(ErrCorrupt, "padding after %s is not zero", after)
		}
	}
	return nil
}

// checkCRCs checks the checksums of the sections but those skip names.
func checkCRCs(rt *Runtime, h *header, bufs [][]byte, skip func(sectionKind) bool) error {
	var todo [][]byte
	var secs []section
	for i, s := range h.sections {
		if !skip(s.kind) {
			todo, secs = append(todo, bufs[i]), append(secs, s)
		}
	}
	for i, c := range checksums(rt.workers(), todo) {
		if c != secs[i].crc {
			return crcError(secs[i], c)
		}
	}
	return nil
}

func crcError(s section, got uint32) error {
	return errorf(ErrCorrupt, "section %v: checksum %#08x, header says %#08x", s.kind, got, s.crc)
}

// chunkCRCs collects the checksums of the level-0 chunks hnsw.FromParts
// visits, from several goroutines.
type chunkCRCs struct {
	mu     sync.Mutex
	crcs   []uint32
	lens   []int64
	visits int
}

func (c *chunkCRCs) visit(i int, words []uint32) {
	crc := crc32Update(0, bytesOf(words))
	c.mu.Lock()
	c.crcs[i], c.lens[i] = crc, int64(len(words))*4
	c.visits++
	c.mu.Unlock()
}

// sum combines the chunks' checksums; ok is false unless all were visited.
func (c *chunkCRCs) sum() (crc uint32, ok bool) {
	if c.visits != len(c.crcs) {
		return 0, false
	}
	for i, v := range c.crcs {
		if i == 0 {
			crc = v
		} else {
			crc = crcCombine(crc, v, c.lens[i])
		}
	}
	return crc, true
}

// Load reads an index file from r: the header, then each section into
// memory of the index's own, checked as LoadBytes checks. It reads exactly
// the file's length, so r may hold more after it. Memory follows the bytes
// that actually arrive, whatever the header claims: when r is an
// io.Seeker the claimed length is checked against what is left first,
// otherwise each section grows as it is read. A short stream gives
// ErrCorrupt; another read failure ErrIO.
func Load(rt *Runtime, r io.Reader) (*Index, error) {
	if !littleEndianHost() {
		return nil, fmt.Errorf("astral: index files on a big-endian host: %w", errors.ErrUnsupported)
	}
	var fixed [fixedHeaderLen]byte
	if _, err := io.ReadFull(r, fixed[:]); err != nil {
		return nil, readError(err, "the header")
	}
	hl, err := prefix(fixed[:])
	if err != nil {
		return nil, err
	}
	hb := make([]byte, hl)
	copy(hb, fixed[:])
	if _, err := io.ReadFull(r, hb[fixedHeaderLen:]); err != nil {
		return nil, readError(err, "the header")
	}
	h, err := decodeHeader(hb)
	if err != nil {
		return nil, err
	}
	size := h.fileLen()
	left, sized := remaining(r)
	if sized && uint64(left) < size-uint64(hl) {
		return nil, errorf(ErrCorrupt, "truncated: %d bytes, the header describes %d", uint64(left)+uint64(hl), size)
	}
	pos := uint64(hl)
	bufs := make([][]byte, len(h.sections))
	crcs := make([]uint32, len(h.sections))
	var pad [sectionAlign]byte
	skip := func(to uint64, after string) error {
		p := pad[:to-pos]
		if _, err := io.ReadFull(r, p); err != nil {
			return readError(err, "padding after "+after)
		}
		pos = to
		return zeroPadding(p, after)
	}
	after := "the header"
	for i, s := range h.sections {
		if err := skip(s.offset, after); err != nil {
			return nil, err
		}
		if bufs[i], crcs[i], err = readSection(r, s, sized); err != nil {
			return nil, err
		}
		pos += s.length
		after = s.kind.String()
	}
	if err := skip(align64(pos), after); err != nil {
		return nil, err
	}
	for i, s := range h.sections {
		if crcs[i] != s.crc {
			return nil, errorf(ErrCorrupt, "section %v: checksum %#08x, header says %#08x", s.kind, crcs[i], s.crc)
		}
	}
	x, _, err := assemble(rt, h, bufs, checked)
	return x, err
}

// remaining is how many bytes r has left, when r can tell.
func remaining(r io.Reader) (int64, bool) {
	s, ok := r.(io.Seeker)
	if !ok {
		return 0, false
	}
	cur, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false
	}
	end, err := s.Seek(0, io.SeekEnd)
	if _, err2 := s.Seek(cur, io.SeekStart); err != nil || err2 != nil || end < cur {
		return 0, false
	}
	return end - cur, true
}

// readStep is the most a section's buffer grows ahead of the bytes read.
const readStep = 16 << 20

// readSection reads section s into aligned memory and checksums it. When
// the stream's length is known (sized) and holds the section, the buffer
// is allocated whole; otherwise it grows as bytes arrive, so a lying
// header costs no more memory than the stream really holds.
func readSection(r io.Reader, s section, sized bool) ([]byte, uint32, error) {
	n := int(s.length)
	buf := alignedBytes(0, min(n, readStep))
	if sized {
		buf = alignedBytes(0, n)
	}
	var crc uint32
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = append(alignedBytes(0, min(n, max(2*cap(buf), readStep))), buf...)
		}
		next := buf[len(buf):min(n, cap(buf), len(buf)+readStep)]
		if _, err := io.ReadFull(r, next); err != nil {
			return nil, 0, readError(err, "section "+s.kind.String())
		}
		crc = crc32Update(crc, next)
		buf = buf[:len(buf)+len(next)]
	}
	return buf, crc, nil
}

// readError classifies a read failure: the stream ending early is damage,
// anything else the reader's fault.
func readError(err error, what string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errorf(ErrCorrupt, "truncated in %s", what)
	}
	return errorf(ErrIO, "reading %s: %v", what, err)
}

// checkMode is what assemble checks beyond what its caller did.
type checkMode uint8

const (
	checked     checkMode = iota // every checksum has been checked
	checkLevel0                  // but the level-0 blocks': the graph's check computes it as it goes, chunk by chunk while in cache
	checkLater                   // but the bulk's (bulk): returned as a function, with the graph's full check
)

// leaves reports whether the caller of assemble leaves k's checksum to it.
func (m checkMode) leaves(k sectionKind) bool {
	switch m {
	case checkLevel0:
		return k == secLevel0
	case checkLater:
		return bulk(k)
	}
	return false
}

// assemble builds the index over the sections, used in place. With
// checkLater it returns the checks it left (a graph's links and ids, the
// bulk's checksums, the rerank copy's ids) as later; nil otherwise.
func assemble(rt *Runtime, h *header, bufs [][]byte, mode checkMode) (x *Index, later func() error, err error) {
	c := Config{Dim: int(h.dim), Metric: h.metric, Kind: h.kind, Storage: h.storage, FlatLimitBytes: int64(h.flatLimit),
		M: int(h.m), EfConstruction: int(h.efConstruction), EfSearch: int(h.efSearch),
		Rerank: h.rerank, RerankFactor: int(h.rerankFactor)}
	if err := c.validate(); err != nil {
		return nil, nil, errorf(ErrCorrupt, "options: %v", err)
	}
	k, err := kernel.New(nil, c.Dim, c.Storage)
	if err != nil {
		return nil, nil, errorf(ErrCorrupt, "options: %v", err)
	}
	x = &Index{cfg: c, rt: rt, adjust: adjustOf(c.Metric, c.Storage), kern: k}
	x.efSearch.Store(int32(c.EfSearch))
	sec := func(kind sectionKind) []byte {
		for i, s := range h.sections {
			if s.kind == kind {
				return bufs[i]
			}
		}
		return nil
	}
	// The bulk's checksums, for later.
	bulkCRCs := func() error {
		return checkCRCs(rt, h, bufs, func(k sectionKind) bool { return !bulk(k) || k == secLevel0 })
	}
	if c.Rerank != 0 {
		if x.rkern, err = kernel.New(nil, c.Dim, c.Rerank); err != nil {
			return nil, nil, errorf(ErrCorrupt, "options: %v", err)
		}
		ra := adjustOf(c.Metric, c.Rerank)
		var bias []float32
		if ra != score.AdjustNone {
			bias = wordsOf[float32](sec(secRerankAdjust))
		}
		if x.rerank, err = flat.FromParts(x.rkern, ra, sec(secRerankRecords), wordsOf[uint64](sec(secRerankIDs)), bias); err != nil {
			return nil, nil, errorf(ErrCorrupt, "rerank copy: %v", err)
		}
	}
	if h.structure == KindFlat {
		var bias, scales []float32
		if x.adjust != score.AdjustNone {
			bias = wordsOf[float32](sec(secAdjust))
		}
		if x.adjust == score.AdjustScaleSubtract {
			scales = wordsOf[float32](sec(secScales))
		}
		f, err := flat.FromPartsScaled(k, x.adjust, sec(secRecords), wordsOf[uint64](sec(secIDs)), bias, scales)
		if err != nil {
			return nil, nil, errorf(ErrCorrupt, "%v", err)
		}
		x.flat = f
		if err := x.checkRerankIDs(); err != nil {
			return nil, nil, err
		}
		if mode == checkLater {
			later = bulkCRCs
		}
		return x, later, nil
	}
	parts := hnsw.Parts{Nodes: int(h.slots), Level0: wordsOf[uint32](sec(secLevel0)), Upper: wordsOf[uint32](sec(secUpper)),
		Entry: h.entry, Tombstones: wordsOf[uint32](sec(secTombstones))}
	cfg := hnsw.Config{M: c.M, EfConstruction: c.EfConstruction, Seed: h.seed, KeepPruned: h.graphFlags&graphKeepPruned != 0}
	var crcs chunkCRCs
	if mode != checked {
		per := hnsw.ChunkNodes(int(h.stride), c.M, x.adjust)
		chunks := (int(h.slots) + per - 1) / per
		crcs.crcs, crcs.lens = make([]uint32, chunks), make([]int64, chunks)
		parts.Visit = crcs.visit
	}
	// graphChecked ends the graph's check (err its result): a failed
	// level-0 checksum explains a failed check best, so it comes first.
	graphChecked := func(err error) error {
		if mode != checked {
			s := *h.find(secLevel0)
			got, ok := crcs.sum()
			if !ok {
				got = checksums(rt.workers(), [][]byte{sec(secLevel0)})[0]
			}
			if got != s.crc {
				return crcError(s, got)
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
		x.graph = g
		later = func() error {
			if err := graphChecked(finish()); err != nil {
				return err
			}
			if err := bulkCRCs(); err != nil {
				return err
			}
			return x.checkRerankIDs()
		}
		return x, later, nil
	}
	g, err := hnsw.FromParts(k, x.adjust, cfg, parts, rt.workers())
	if err := graphChecked(err); err != nil {
		return nil, nil, err
	}
	// The tombstones were checked against the deleted nodes, and their
	// number against the header's counts: the graph holds count live nodes.
	x.graph = g
	if err := x.checkRerankIDs(); err != nil {
		return nil, nil, err
	}
	return x, nil, nil
}

// checkRerankIDs checks that the rerank copy holds exactly the index's ids
// (a query looks every candidate up in it). The counts are equal (the
// header's), and both sides' ids are distinct, so one direction suffices.
func (x *Index) checkRerankIDs() error {
	if x.rerank == nil {
		return nil
	}
	_, ids, _ := x.rerank.Parts()
	for _, id := range ids {
		if !x.hasLocked(id) {
			return errorf(ErrCorrupt, "rerank copy holds id %d, which the index does not", id)
		}
	}
	return nil
}

// mapping is a file OpenFile mapped; the index reads its sections in place
// until the first write copies them (ownMemory).
type mapping struct {
	data []byte
	once sync.Once
	err  error
}

func (m *mapping) release() error {
	m.once.Do(func() { m.err = unmapFile(m.data) })
	return m.err
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
// SaveFile, which replaces the file, is safe. Where mapping is not
// available the file is read into memory instead. Anything but a regular
// file (or a symbolic link to one) is refused with ErrIO before it is
// opened, so a FIFO cannot block the call.
func OpenFile(rt *Runtime, path string, opts ...OpenOption) (*Index, error) {
	if !littleEndianHost() {
		return nil, fmt.Errorf("astral: index files on a big-endian host: %w", errors.ErrUnsupported)
	}
	var oc openConfig
	for _, o := range opts {
		o(&oc)
	}
	f, err := openIndexFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errorf(ErrIO, "%v", err)
	}
	size := fi.Size()
	switch {
	case !fi.Mode().IsRegular():
		return nil, errorf(ErrIO, "%s is not a regular file", path)
	case size < fixedHeaderLen:
		return nil, errorf(ErrCorrupt, "%s: truncated: %d bytes, less than the %d-byte header", path, size, fixedHeaderLen)
	case uint64(size) > maxSections*maxSectionLen || int64(int(size)) != size:
		return nil, errorf(ErrCorrupt, "%s: %d bytes is larger than any index file", path, size)
	}
	data, mapped, err := mapFile(f, int(size))
	if err != nil {
		return nil, errorf(ErrIO, "mapping %s: %v", path, err)
	}
	x, later, err := decodeBytes(rt, data, true, oc.background)
	if err != nil {
		if mapped {
			unmapFile(data)
		}
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	if mapped {
		m := &mapping{data: data}
		x.mapped = m
		x.faults.mapped.Store(true)
		runtime.AddCleanup(x, func(m *mapping) { m.release() }, m)
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
	m.release()
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
	if x.graph != nil {
		x.graph, _ = x.newGraph()
	} else {
		x.flat = flat.New(x.kern, x.adjust)
	}
	if x.rerank != nil {
		x.rerank = flat.New(x.rkern, x.rerank.Adjust())
	}
	x.pending = nil
	x.check = nil
	m := x.mapped
	x.mapped = nil
	x.mu.Unlock()
	if m != nil {
		if err := m.release(); err != nil {
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
	if x.graph == nil {
		return hnsw.Stats{}, false
	}
	return x.graph.Stats(), true
}
