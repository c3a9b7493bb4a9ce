package astral

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// The index file format (docs/FORMAT.md): a 128-byte header, a table of
// sections (32 bytes each), then the sections, each starting on a 64-byte
// boundary right after the previous one, padded with zeros. Little-endian
// throughout. The header's CRC-32C covers the header and the table; each
// section's covers its bytes.

// FormatVersion is the index file format this library writes. It reads
// versions oldestFormatVersion to FormatVersion; a file of another version
// fails to load with ErrVersion. Version 2 added the storage kinds besides
// E5M2, the scales section and the rerank copy; a version-1 file is a
// version-2 file without them.
const FormatVersion = 2

const oldestFormatVersion = 1

const (
	fileMagic       = "ASTRALIX"
	endianMark      = 0x01020304 // little-endian in the file: 04 03 02 01
	fixedHeaderLen  = 128
	sectionEntryLen = 32
	maxSections     = 16
	// maxHeaderLen bounds the header any version may declare, so a reader
	// never allocates more for it.
	maxHeaderLen = 64 << 10
	sectionAlign = 64
	headerCRCOff = 124
	// maxSectionLen and maxMetadataLen bound what a header may declare.
	maxSectionLen  = 1 << 44
	maxMetadataLen = 64 << 10
	// maxFlatRecords is flat's slot limit (int32 slots).
	maxFlatRecords = math.MaxInt32
	// maxGraphNodes is the graph's slot limit (uint32 slots, one value
	// reserved).
	maxGraphNodes = math.MaxUint32 - 1
)

// sectionKind names a section; numbered once, never reused.
type sectionKind uint32

const (
	secIDs        sectionKind = 1 // flat: ids, uint64 per record, slot order
	secRecords    sectionKind = 2 // flat: records, stride bytes each
	secAdjust     sectionKind = 3 // flat: adjust values, float32 per record (not for dot)
	secTombstones sectionKind = 4 // hnsw: deleted slots, uint32 ascending
	secLevel0     sectionKind = 5 // hnsw: level-0 blocks, blockWords uint32 each
	secUpper      sectionKind = 6 // hnsw: upper-level words, uint32
	secMetadata   sectionKind = 7 // "key=value\n" lines, UTF-8; optional
	secScales     sectionKind = 8 // flat, L2 over a scaled kind: multipliers, float32 per record
	// The rerank copy (header rerank storage set): a flat index of its own.
	secRerankIDs     sectionKind = 9  // ids, uint64 per record, its slot order
	secRerankRecords sectionKind = 10 // records, rerank stride bytes each
	secRerankAdjust  sectionKind = 11 // adjust values, float32 per record (not for dot)
)

func (k sectionKind) String() string {
	switch k {
	case secIDs:
		return "ids"
	case secRecords:
		return "records"
	case secAdjust:
		return "adjust"
	case secTombstones:
		return "tombstones"
	case secLevel0:
		return "graph-level0"
	case secUpper:
		return "graph-upper"
	case secMetadata:
		return "metadata"
	case secScales:
		return "scales"
	case secRerankIDs:
		return "rerank-ids"
	case secRerankRecords:
		return "rerank-records"
	case secRerankAdjust:
		return "rerank-adjust"
	}
	return fmt.Sprintf("unknown-%d", uint32(k))
}

// sectionOptional marks a section a reader that does not know its kind
// may skip (after checking its CRC).
const sectionOptional = 1

// graphKeepPruned is the header's graph flag for hnsw.Config.KeepPruned.
const graphKeepPruned = 1

type section struct {
	kind           sectionKind
	flags          uint32
	offset, length uint64
	crc            uint32
}

// header is a decoded file header.
type header struct {
	version                     uint32
	headerLen                   uint32
	dim                         uint32
	metric                      Metric
	kind                        Kind // as configured: auto, flat or hnsw
	structure                   Kind // what the sections hold: flat or hnsw
	storage                     Storage
	stride                      uint32
	m, efConstruction, efSearch uint32
	flatLimit                   uint64
	count                       uint64 // live vectors
	slots                       uint64 // flat: count; hnsw: nodes, tombstones included
	entry                       uint64 // hnsw entry point, hnsw.NoEntry when none
	upperWords                  uint64
	blockWords                  uint32
	graphFlags                  uint32
	seed                        uint64
	rerank                      Storage // 0: no rerank copy
	rerankFactor                uint32
	sections                    []section
}

func align64(n uint64) uint64 { return (n + sectionAlign - 1) &^ (sectionAlign - 1) }

// fileLen is the length of the whole file the header describes.
func (h *header) fileLen() uint64 {
	end := align64(uint64(h.headerLen))
	if n := len(h.sections); n > 0 {
		end = align64(h.sections[n-1].offset + h.sections[n-1].length)
	}
	return end
}

func (h *header) find(k sectionKind) *section {
	for i := range h.sections {
		if h.sections[i].kind == k {
			return &h.sections[i]
		}
	}
	return nil
}

// encode lays the header and its section table out, CRC included.
func (h *header) encode() []byte {
	le := binary.LittleEndian
	b := make([]byte, fixedHeaderLen+sectionEntryLen*len(h.sections))
	copy(b, fileMagic)
	le.PutUint32(b[8:], h.version)
	le.PutUint32(b[12:], endianMark)
	le.PutUint32(b[16:], uint32(len(b)))
	le.PutUint32(b[20:], uint32(len(h.sections)))
	le.PutUint32(b[24:], h.dim)
	b[28], b[29], b[30], b[31] = byte(h.metric), byte(h.kind), byte(h.structure), byte(h.storage)
	le.PutUint32(b[32:], h.stride)
	le.PutUint32(b[36:], h.m)
	le.PutUint32(b[40:], h.efConstruction)
	le.PutUint32(b[44:], h.efSearch)
	le.PutUint64(b[48:], h.flatLimit)
	le.PutUint64(b[56:], h.count)
	le.PutUint64(b[64:], h.slots)
	le.PutUint64(b[72:], h.entry)
	le.PutUint64(b[80:], h.upperWords)
	le.PutUint32(b[88:], h.blockWords)
	le.PutUint32(b[92:], h.graphFlags)
	le.PutUint64(b[96:], h.seed)
	b[104] = byte(h.rerank)
	le.PutUint32(b[108:], h.rerankFactor)
	for i, s := range h.sections {
		e := b[fixedHeaderLen+i*sectionEntryLen:]
		le.PutUint32(e[0:], uint32(s.kind))
		le.PutUint32(e[4:], s.flags)
		le.PutUint64(e[8:], s.offset)
		le.PutUint64(e[16:], s.length)
		le.PutUint32(e[24:], s.crc)
	}
	le.PutUint32(b[headerCRCOff:], headerCRC(b))
	return b
}

// headerCRC is the CRC-32C of the header bytes with the CRC field as zero.
func headerCRC(b []byte) uint32 {
	var zero [4]byte
	c := crc32Update(0, b[:headerCRCOff])
	c = crc32Update(c, zero[:])
	return crc32Update(c, b[headerCRCOff+4:])
}

// layout assigns the sections' offsets: each 64-byte aligned, right after
// the previous one.
func (h *header) layout() {
	h.headerLen = uint32(fixedHeaderLen + sectionEntryLen*len(h.sections))
	off := align64(uint64(h.headerLen))
	for i := range h.sections {
		h.sections[i].offset = off
		off = align64(off + h.sections[i].length)
	}
}

// prefix checks the first fixedHeaderLen bytes far enough to know how long
// the header is: magic, byte order and header length, which keep their
// places in every format version.
func prefix(b []byte) (headerLen int, err error) {
	le := binary.LittleEndian
	if string(b[:8]) != fileMagic {
		return 0, errorf(ErrCorrupt, "not an Astral index file (magic %q, want %q)", b[:8], fileMagic)
	}
	switch e := le.Uint32(b[12:]); e {
	case endianMark:
	case 0x04030201:
		return 0, errorf(ErrVersion, "big-endian index file: this library reads little-endian files only")
	default:
		return 0, errorf(ErrCorrupt, "byte-order mark %#08x, want %#08x", e, endianMark)
	}
	n := le.Uint32(b[16:])
	if n < fixedHeaderLen || n > maxHeaderLen {
		return 0, errorf(ErrCorrupt, "header length %d: want %d to %d", n, fixedHeaderLen, maxHeaderLen)
	}
	return int(n), nil
}

// decodeHeader parses and checks a whole header (prefix's length). It
// checks the CRC first, then the version, then every field against the
// others; the sections' contents are checked later.
func decodeHeader(b []byte) (*header, error) {
	le := binary.LittleEndian
	if want, got := le.Uint32(b[headerCRCOff:]), headerCRC(b); want != got {
		return nil, errorf(ErrCorrupt, "header checksum %#08x, header says %#08x", got, want)
	}
	h := &header{version: le.Uint32(b[8:]), headerLen: uint32(len(b))}
	if h.version < oldestFormatVersion || h.version > FormatVersion {
		return nil, errorf(ErrVersion, "index file format version %d: this library (%s) reads versions %d to %d", h.version, Version, oldestFormatVersion, FormatVersion)
	}
	nsec := le.Uint32(b[20:])
	if nsec > maxSections || len(b) != fixedHeaderLen+sectionEntryLen*int(nsec) {
		return nil, errorf(ErrCorrupt, "%d sections in a %d-byte header (at most %d sections of %d bytes after %d)", nsec, len(b), maxSections, sectionEntryLen, fixedHeaderLen)
	}
	h.dim = le.Uint32(b[24:])
	h.metric, h.kind, h.structure, h.storage = Metric(b[28]), Kind(b[29]), Kind(b[30]), Storage(b[31])
	h.stride = le.Uint32(b[32:])
	h.m, h.efConstruction, h.efSearch = le.Uint32(b[36:]), le.Uint32(b[40:]), le.Uint32(b[44:])
	h.flatLimit = le.Uint64(b[48:])
	h.count, h.slots, h.entry = le.Uint64(b[56:]), le.Uint64(b[64:]), le.Uint64(b[72:])
	h.upperWords = le.Uint64(b[80:])
	h.blockWords, h.graphFlags = le.Uint32(b[88:]), le.Uint32(b[92:])
	h.seed = le.Uint64(b[96:])
	h.rerank, h.rerankFactor = Storage(b[104]), le.Uint32(b[108:])
	for i, c := range b[105:headerCRCOff] {
		if c != 0 && (i+105 < 108 || i+105 >= 112) {
			return nil, errorf(ErrCorrupt, "reserved header bytes 105..107, 112..123 are not zero")
		}
	}
	if err := h.checkFields(); err != nil {
		return nil, err
	}
	off := align64(uint64(len(b)))
	seen := map[sectionKind]bool{}
	for i := range int(nsec) {
		e := b[fixedHeaderLen+i*sectionEntryLen:]
		s := section{kind: sectionKind(le.Uint32(e)), flags: le.Uint32(e[4:]), offset: le.Uint64(e[8:]),
			length: le.Uint64(e[16:]), crc: le.Uint32(e[24:])}
		switch {
		case s.flags&^sectionOptional != 0 || le.Uint32(e[28:]) != 0:
			return nil, errorf(ErrCorrupt, "section %d (%v): unknown flags %#x or reserved bits set", i, s.kind, s.flags)
		case s.flags&sectionOptional != 0 && s.kind >= secIDs && s.kind <= secRerankAdjust && s.kind != secMetadata:
			// Only a kind this reader does not know may be skipped.
			return nil, errorf(ErrCorrupt, "section %d (%v): a required kind marked optional", i, s.kind)
		case seen[s.kind]:
			return nil, errorf(ErrCorrupt, "section %v appears twice", s.kind)
		case s.offset != off:
			return nil, errorf(ErrCorrupt, "section %d (%v) at offset %d, want %d (64-byte aligned, right after the previous one)", i, s.kind, s.offset, off)
		case s.length > maxSectionLen:
			return nil, errorf(ErrCorrupt, "section %d (%v): absurd length %d", i, s.kind, s.length)
		}
		seen[s.kind] = true
		off = align64(s.offset + s.length)
		h.sections = append(h.sections, s)
	}
	if err := h.checkSections(); err != nil {
		return nil, err
	}
	return h, nil
}

// checkFields checks the header's fields against each other.
func (h *header) checkFields() error {
	if h.dim < 1 || h.dim > kernel.MaxDim {
		return errorf(ErrCorrupt, "dimension %d: want 1 to %d", h.dim, kernel.MaxDim)
	}
	switch h.metric {
	case Cosine, Dot, L2:
	default:
		return errorf(ErrCorrupt, "unknown metric %d", h.metric)
	}
	if msg := storageProblem(h.storage, h.rerank, int64(h.rerankFactor)); msg != "" {
		return errorf(ErrCorrupt, "%s", msg)
	}
	if want := kernel.Stride(int(h.dim), h.storage); h.stride != uint32(want) {
		return errorf(ErrCorrupt, "record stride %d, dimension %d stores %d", h.stride, h.dim, want)
	}
	switch {
	case h.kind > KindHNSW:
		return errorf(ErrCorrupt, "unknown index kind %d", h.kind)
	case h.structure != KindFlat && h.structure != KindHNSW:
		return errorf(ErrCorrupt, "unknown stored structure %d", h.structure)
	case h.kind != KindAuto && h.kind != h.structure:
		return errorf(ErrCorrupt, "a %v index stores a %v structure", h.kind, h.structure)
	case h.m < 2 || h.m > hnsw.MaxM:
		return errorf(ErrCorrupt, "M %d: want 2 to %d", h.m, hnsw.MaxM)
	case h.efConstruction < 1 || h.efConstruction > hnsw.MaxEf || h.efSearch < 1 || h.efSearch > hnsw.MaxEf:
		return errorf(ErrCorrupt, "efConstruction %d, efSearch %d: want 1 to %d", h.efConstruction, h.efSearch, hnsw.MaxEf)
	case h.flatLimit > math.MaxInt64:
		return errorf(ErrCorrupt, "flat limit %d bytes", h.flatLimit)
	case h.count > h.slots:
		return errorf(ErrCorrupt, "%d vectors in %d slots", h.count, h.slots)
	}
	if h.structure == KindFlat {
		switch {
		case h.slots > maxFlatRecords:
			return errorf(ErrCorrupt, "absurd count: %d vectors (a flat index holds at most %d)", h.slots, maxFlatRecords)
		case h.slots != h.count:
			return errorf(ErrCorrupt, "flat index with %d slots for %d vectors", h.slots, h.count)
		case h.entry != hnsw.NoEntry || h.upperWords != 0 || h.blockWords != 0 || h.graphFlags != 0 || h.seed != 0:
			return errorf(ErrCorrupt, "flat index with graph fields set")
		}
		return nil
	}
	switch {
	case h.slots > maxGraphNodes:
		return errorf(ErrCorrupt, "absurd count: %d graph nodes (at most %d)", h.slots, uint64(maxGraphNodes))
	case h.blockWords != uint32(hnsw.BlockWords(int(h.stride), int(h.m), adjustOf(h.metric, h.storage))):
		return errorf(ErrCorrupt, "level-0 block of %d words, stride %d and M %d make %d", h.blockWords, h.stride, h.m,
			hnsw.BlockWords(int(h.stride), int(h.m), adjustOf(h.metric, h.storage)))
	case h.upperWords < 1 || h.upperWords > math.MaxUint32:
		return errorf(ErrCorrupt, "absurd count: %d upper-level words", h.upperWords)
	case h.graphFlags&^graphKeepPruned != 0:
		return errorf(ErrCorrupt, "unknown graph flags %#x", h.graphFlags)
	}
	return nil
}

// checkSections checks that the structure's sections are all there, each
// of the length the counts give, and no other known section.
func (h *header) checkSections() error {
	want := map[sectionKind]uint64{}
	if h.structure == KindFlat {
		want[secIDs] = h.count * 8
		want[secRecords] = h.count * uint64(h.stride)
		if a := adjustOf(h.metric, h.storage); a != score.AdjustNone {
			want[secAdjust] = h.count * 4
		}
		if adjustOf(h.metric, h.storage) == score.AdjustScaleSubtract {
			want[secScales] = h.count * 4
		}
	} else {
		want[secTombstones] = (h.slots - h.count) * 4
		want[secLevel0] = h.slots * uint64(h.blockWords) * 4
		want[secUpper] = h.upperWords * 4
	}
	if h.rerank != 0 {
		want[secRerankIDs] = h.count * 8
		want[secRerankRecords] = h.count * uint64(kernel.Stride(int(h.dim), h.rerank))
		if h.metric != Dot {
			want[secRerankAdjust] = h.count * 4
		}
	}
	for _, s := range h.sections {
		n, needed := want[s.kind]
		switch {
		case needed:
			if s.length != n {
				return errorf(ErrCorrupt, "section %v is %d bytes, the header's counts make %d", s.kind, s.length, n)
			}
			delete(want, s.kind)
		case s.kind == secMetadata:
			if s.length > maxMetadataLen {
				return errorf(ErrCorrupt, "metadata of %d bytes (at most %d)", s.length, maxMetadataLen)
			}
		case s.flags&sectionOptional == 0:
			return errorf(ErrCorrupt, "section %v does not belong in a %v index file", s.kind, h.structure)
		}
	}
	for k := secIDs; k <= secRerankAdjust && len(want) > 0; k++ {
		if _, missing := want[k]; missing {
			return errorf(ErrCorrupt, "section %v is missing", k)
		}
	}
	return nil
}

// adjustOf is the per-record adjustment a metric uses over records of
// kind s: a per-vector scale multiplies dot products and L2 keys.
func adjustOf(m Metric, s Storage) score.Adjust {
	switch {
	case m == Cosine:
		return score.AdjustScale // 1/|x|, in which the scale cancels
	case m == L2 && s.Scaled():
		return score.AdjustScaleSubtract
	case m == L2:
		return score.AdjustSubtract
	case s.Scaled():
		return score.AdjustScale
	}
	return score.AdjustNone
}

// littleEndianHost reports whether this machine stores words little-endian,
// as index files do; their sections are used in place, so big-endian hosts
// cannot read or write them.
func littleEndianHost() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}
