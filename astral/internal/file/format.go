// Package file is the container of Astral's index files
// (docs/FORMAT.md): the header, the section table, writing sections
// aligned and checksummed, reading them back from bytes, a stream or a
// mapped file, and inspecting a file. It knows the layout and the
// checksums, not what the sections mean: the engine says which sections
// a header needs and checks its fields (Format), and the flat and graph
// structures turn themselves into sections and back.
package file

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// Version is the format version this library writes; it reads
// OldestVersion to Version. Version 2 added the storage kinds besides
// E5M2, the scales section and the rerank copy; version 3 the records'
// attributes (tags, owners, payloads); version 4 the tag names; version 5
// the records' times and importances; version 6 the IVF structure;
// version 7 two header slots with a generation, sections anywhere after
// them and repeatable kinds (appending saves); version 8 lets an IVF
// segment leave out its all-zero attribute columns. An older file is a
// newer one without what was added since.
const (
	Version       = 8
	OldestVersion = 1
	// SlotVersion is the first version with two header slots.
	SlotVersion = 7
)

const (
	magic = "ASTRALIX"
	// EndianMark is the byte-order mark, little-endian in the file:
	// 04 03 02 01.
	EndianMark = 0x01020304
	// HeaderLen is the fixed part of the header, SectionEntryLen one
	// entry of the section table after it.
	HeaderLen       = 128
	SectionEntryLen = 32
	maxSections     = 16
	// maxHeaderLen bounds the header any version may declare, so a reader
	// never allocates more for it.
	maxHeaderLen = 64 << 10
	// Align is every section's alignment in the file.
	Align = 64
	// HeaderCRCOff is where the header's own checksum lies.
	HeaderCRCOff = 124
	// maxSectionLen and maxMetadataLen bound what a header may declare.
	maxSectionLen  = 1 << 44
	maxMetadataLen = 64 << 10
	// SlotSize is the room of each of a version-7 file's two header
	// slots (at 0 and SlotSize); its sections start at DataStart.
	SlotSize  = 4096
	DataStart = 2 * SlotSize
	// extLen is version 7's header extension after the fixed part: the
	// generation and the engine's extent count, then 16 reserved bytes.
	extLen = 32
	// maxSlotSections bounds a version-7 table (it fits a slot).
	maxSlotSections = (SlotSize - HeaderLen - extLen) / SectionEntryLen
)

// Kind names a section; numbered once, never reused. The container owns
// the metadata section; the engine numbers and names the others (Format).
type Kind uint32

// KindMetadata holds "key=value\n" lines, UTF-8; optional.
const KindMetadata Kind = 7

// Optional marks a section a reader that does not know its kind may skip
// (after checking its CRC).
const Optional = 1

// Section is one entry of the section table.
type Section struct {
	Kind           Kind
	Flags          uint32
	Offset, Length uint64
	CRC            uint32
}

// Header is a file header, its fields as the file holds them; the engine
// gives them meaning (Format.CheckFields).
type Header struct {
	Version                     uint32
	HeaderLen                   uint32
	Dim                         uint32
	Metric                      uint8
	Kind                        uint8 // as configured: auto, flat, hnsw or ivf
	Structure                   uint8 // what the sections hold: flat, hnsw or ivf
	Storage                     uint8
	Stride                      uint32
	M, EfConstruction, EfSearch uint32
	FlatLimit                   uint64
	Count                       uint64 // live vectors
	Slots                       uint64 // flat: Count; graph: nodes, tombstones included
	Entry                       uint64 // graph entry point
	UpperWords                  uint64
	BlockWords                  uint32
	GraphFlags                  uint32
	Seed                        uint64
	Rerank                      uint8 // storage of the rerank copy, 0 for none
	RerankFactor                uint32
	PayloadBytes                uint64 // version 3: the length of the payloads section, 0 for none
	TagNameBytes                uint32 // version 4: the length of the tag-names section, 0 for none
	// Version 7: Generation orders the two header slots (the larger is
	// current; a full write has 1), Extents is the engine's (an IVF
	// file's partition extents).
	Generation, Extents uint64
	// Slot is the version-7 slot the header was read from (0 or 1); not
	// written.
	Slot     int
	Sections []Section
}

// Slotted reports whether h is a version-7 header: two slots, sections
// anywhere after them.
func (h *Header) Slotted() bool { return h.Version >= SlotVersion }

// fixedLen is the header's length before its section table.
func (h *Header) fixedLen() int {
	if h.Slotted() {
		return HeaderLen + extLen
	}
	return HeaderLen
}

// Format is what the container needs from the engine to read a header:
// the names of its section kinds, the checks of its fields, and the
// sections each header needs.
type Format struct {
	// Library names this library in version errors.
	Library string
	// Names names the engine's section kinds (errors, inspection), and
	// Structures the header's structure values.
	Names      map[Kind]string
	Structures map[uint8]string
	// CheckFields checks the header's fields against each other; it runs
	// after the container's own checks, before the section table's.
	CheckFields func(h *Header) error
	// Needs returns the sections h's structure needs, with their lengths:
	// a file holds each of them and no other but optional ones.
	Needs func(h *Header) map[Kind]uint64
	// Repeated names the kinds a version-7 file may hold several times,
	// of any length: the engine checks them.
	Repeated map[Kind]bool
}

// Name is k's name: "metadata", the engine's name, or "unknown-N".
func (f *Format) Name(k Kind) string {
	if k == KindMetadata {
		return "metadata"
	}
	if n, ok := f.Names[k]; ok {
		return n
	}
	return fmt.Sprintf("unknown-%d", uint32(k))
}

func (f *Format) structureName(h *Header) string { return f.Structures[h.Structure] }

// AlignUp rounds n up to the sections' alignment.
func AlignUp(n uint64) uint64 { return (n + Align - 1) &^ (Align - 1) }

// FileLen is the length of the whole file the header describes: for
// version 7 the end of its last section (a longer file holds an
// interrupted append's bytes after it).
func (h *Header) FileLen() uint64 {
	if h.Slotted() {
		end := uint64(DataStart)
		for _, s := range h.Sections {
			end = max(end, AlignUp(s.Offset+s.Length))
		}
		return end
	}
	end := AlignUp(uint64(h.HeaderLen))
	if n := len(h.Sections); n > 0 {
		end = AlignUp(h.Sections[n-1].Offset + h.Sections[n-1].Length)
	}
	return end
}

// Find returns the section of kind k, nil if there is none.
func (h *Header) Find(k Kind) *Section {
	for i := range h.Sections {
		if h.Sections[i].Kind == k {
			return &h.Sections[i]
		}
	}
	return nil
}

// Encode lays the header and its section table out, CRC included.
func (h *Header) Encode() []byte {
	le := binary.LittleEndian
	fixed := h.fixedLen()
	b := make([]byte, fixed+SectionEntryLen*len(h.Sections))
	copy(b, magic)
	le.PutUint32(b[8:], h.Version)
	le.PutUint32(b[12:], EndianMark)
	le.PutUint32(b[16:], uint32(len(b)))
	le.PutUint32(b[20:], uint32(len(h.Sections)))
	le.PutUint32(b[24:], h.Dim)
	b[28], b[29], b[30], b[31] = h.Metric, h.Kind, h.Structure, h.Storage
	le.PutUint32(b[32:], h.Stride)
	le.PutUint32(b[36:], h.M)
	le.PutUint32(b[40:], h.EfConstruction)
	le.PutUint32(b[44:], h.EfSearch)
	le.PutUint64(b[48:], h.FlatLimit)
	le.PutUint64(b[56:], h.Count)
	le.PutUint64(b[64:], h.Slots)
	le.PutUint64(b[72:], h.Entry)
	le.PutUint64(b[80:], h.UpperWords)
	le.PutUint32(b[88:], h.BlockWords)
	le.PutUint32(b[92:], h.GraphFlags)
	le.PutUint64(b[96:], h.Seed)
	b[104] = h.Rerank
	le.PutUint32(b[108:], h.RerankFactor)
	le.PutUint64(b[112:], h.PayloadBytes)
	le.PutUint32(b[120:], h.TagNameBytes)
	if h.Slotted() {
		le.PutUint64(b[HeaderLen:], h.Generation)
		le.PutUint64(b[HeaderLen+8:], h.Extents)
	}
	for i, s := range h.Sections {
		e := b[fixed+i*SectionEntryLen:]
		le.PutUint32(e[0:], uint32(s.Kind))
		le.PutUint32(e[4:], s.Flags)
		le.PutUint64(e[8:], s.Offset)
		le.PutUint64(e[16:], s.Length)
		le.PutUint32(e[24:], s.CRC)
	}
	le.PutUint32(b[HeaderCRCOff:], HeaderCRC(b))
	return b
}

// HeaderCRC is the CRC-32C of the header bytes with the CRC field as zero.
func HeaderCRC(b []byte) uint32 {
	var zero [4]byte
	c := update(0, b[:HeaderCRCOff])
	c = update(c, zero[:])
	return update(c, b[HeaderCRCOff+4:])
}

// layout assigns the sections' offsets: each aligned, right after the
// previous one.
func (h *Header) layout() {
	h.HeaderLen = uint32(h.fixedLen() + SectionEntryLen*len(h.Sections))
	off := AlignUp(uint64(h.HeaderLen))
	if h.Slotted() {
		off = DataStart
	}
	for i := range h.Sections {
		h.Sections[i].Offset = off
		off = AlignUp(off + h.Sections[i].Length)
	}
}

// Prefix checks the first HeaderLen bytes far enough to know how long
// the header is: magic, byte order and header length, which keep their
// places in every format version.
func Prefix(b []byte) (headerLen int, err error) {
	le := binary.LittleEndian
	if string(b[:8]) != magic {
		return 0, Errorf(ErrCorrupt, "not an Astral index file (magic %q, want %q)", b[:8], magic)
	}
	switch e := le.Uint32(b[12:]); e {
	case EndianMark:
	case 0x04030201:
		return 0, Errorf(ErrVersion, "big-endian index file: this library reads little-endian files only")
	default:
		return 0, Errorf(ErrCorrupt, "byte-order mark %#08x, want %#08x", e, EndianMark)
	}
	n := le.Uint32(b[16:])
	if n < HeaderLen || n > maxHeaderLen {
		return 0, Errorf(ErrCorrupt, "header length %d: want %d to %d", n, HeaderLen, maxHeaderLen)
	}
	return int(n), nil
}

// DecodeHeader parses and checks a whole header (Prefix's length). It
// checks the CRC first, then the version, then every field (the
// engine's CheckFields) and the section table; the sections' contents are
// checked later.
func (f *Format) DecodeHeader(b []byte) (*Header, error) {
	le := binary.LittleEndian
	if want, got := le.Uint32(b[HeaderCRCOff:]), HeaderCRC(b); want != got {
		return nil, Errorf(ErrCorrupt, "header checksum %#08x, header says %#08x", got, want)
	}
	h := &Header{Version: le.Uint32(b[8:]), HeaderLen: uint32(len(b))}
	if h.Version < OldestVersion || h.Version > Version {
		return nil, Errorf(ErrVersion, "index file format version %d: this library (%s) reads versions %d to %d", h.Version, f.Library, OldestVersion, Version)
	}
	nsec := le.Uint32(b[20:])
	fixed, most := h.fixedLen(), uint32(maxSections)
	if h.Slotted() {
		most = maxSlotSections
	}
	if nsec > most || len(b) != fixed+SectionEntryLen*int(nsec) {
		return nil, Errorf(ErrCorrupt, "%d sections in a %d-byte header (at most %d sections of %d bytes after %d)", nsec, len(b), most, SectionEntryLen, fixed)
	}
	if h.Slotted() {
		h.Generation, h.Extents = le.Uint64(b[HeaderLen:]), le.Uint64(b[HeaderLen+8:])
		for _, c := range b[HeaderLen+16 : HeaderLen+extLen] {
			if c != 0 {
				return nil, Errorf(ErrCorrupt, "reserved header bytes 144..159 are not zero")
			}
		}
		if h.Generation == 0 {
			return nil, Errorf(ErrCorrupt, "header generation 0")
		}
	}
	h.Dim = le.Uint32(b[24:])
	h.Metric, h.Kind, h.Structure, h.Storage = b[28], b[29], b[30], b[31]
	h.Stride = le.Uint32(b[32:])
	h.M, h.EfConstruction, h.EfSearch = le.Uint32(b[36:]), le.Uint32(b[40:]), le.Uint32(b[44:])
	h.FlatLimit = le.Uint64(b[48:])
	h.Count, h.Slots, h.Entry = le.Uint64(b[56:]), le.Uint64(b[64:]), le.Uint64(b[72:])
	h.UpperWords = le.Uint64(b[80:])
	h.BlockWords, h.GraphFlags = le.Uint32(b[88:]), le.Uint32(b[92:])
	h.Seed = le.Uint64(b[96:])
	h.Rerank, h.RerankFactor = b[104], le.Uint32(b[108:])
	h.PayloadBytes = le.Uint64(b[112:])
	// Bytes 120..123 were reserved before version 4.
	reservedTo := 108
	if h.Version >= 4 {
		h.TagNameBytes = le.Uint32(b[120:])
	} else {
		reservedTo = HeaderCRCOff
	}
	for i, c := range b[105:reservedTo] {
		if c != 0 && (i+105 < 108 || i+105 >= 120) {
			return nil, Errorf(ErrCorrupt, "reserved header bytes 105..107, 120..123 (before version 4) are not zero")
		}
	}
	if err := f.CheckFields(h); err != nil {
		return nil, err
	}
	off := AlignUp(uint64(len(b)))
	seen := map[Kind]bool{}
	for i := range int(nsec) {
		e := b[fixed+i*SectionEntryLen:]
		s := Section{Kind: Kind(le.Uint32(e)), Flags: le.Uint32(e[4:]), Offset: le.Uint64(e[8:]),
			Length: le.Uint64(e[16:]), CRC: le.Uint32(e[24:])}
		switch {
		case s.Flags&^Optional != 0 || le.Uint32(e[28:]) != 0:
			return nil, Errorf(ErrCorrupt, "section %d (%v): unknown flags %#x or reserved bits set", i, f.Name(s.Kind), s.Flags)
		case s.Flags&Optional != 0 && s.Kind != KindMetadata && f.Names[s.Kind] != "":
			// Only a kind this reader does not know may be skipped.
			return nil, Errorf(ErrCorrupt, "section %d (%v): a required kind marked optional", i, f.Name(s.Kind))
		case seen[s.Kind] && !(h.Slotted() && f.Repeated[s.Kind]):
			return nil, Errorf(ErrCorrupt, "section %v appears twice", f.Name(s.Kind))
		case s.Length > maxSectionLen:
			return nil, Errorf(ErrCorrupt, "section %d (%v): absurd length %d", i, f.Name(s.Kind), s.Length)
		case h.Slotted() && (s.Offset%Align != 0 || s.Offset < DataStart || s.Offset > maxSectionLen<<4):
			return nil, Errorf(ErrCorrupt, "section %d (%v) at offset %d: want a multiple of %d from %d", i, f.Name(s.Kind), s.Offset, Align, DataStart)
		case !h.Slotted() && s.Offset != off:
			return nil, Errorf(ErrCorrupt, "section %d (%v) at offset %d, want %d (64-byte aligned, right after the previous one)", i, f.Name(s.Kind), s.Offset, off)
		}
		seen[s.Kind] = true
		off = AlignUp(s.Offset + s.Length)
		h.Sections = append(h.Sections, s)
	}
	if h.Slotted() {
		if err := f.checkOverlap(h); err != nil {
			return nil, err
		}
	}
	if err := f.checkSections(h); err != nil {
		return nil, err
	}
	return h, nil
}

// checkSections checks that the sections h needs are all there, each of
// the length the engine gives, and no other but optional ones.
func (f *Format) checkSections(h *Header) error {
	want := f.Needs(h)
	for _, s := range h.Sections {
		n, needed := want[s.Kind]
		switch {
		case h.Slotted() && f.Repeated[s.Kind]:
		case needed:
			if s.Length != n {
				return Errorf(ErrCorrupt, "section %v is %d bytes, the header's counts make %d", f.Name(s.Kind), s.Length, n)
			}
			delete(want, s.Kind)
		case s.Kind == KindMetadata:
			if s.Length > maxMetadataLen {
				return Errorf(ErrCorrupt, "metadata of %d bytes (at most %d)", s.Length, maxMetadataLen)
			}
		case s.Flags&Optional == 0:
			return Errorf(ErrCorrupt, "section %v does not belong in a %v index file", f.Name(s.Kind), f.structureName(h))
		}
	}
	// Name the lowest missing kind: the same one whatever the map's order.
	var missing Kind
	for k := range want {
		if missing == 0 || k < missing {
			missing = k
		}
	}
	if len(want) > 0 {
		return Errorf(ErrCorrupt, "section %v is missing", f.Name(missing))
	}
	return nil
}

// checkOverlap checks that no two of a version-7 file's sections share
// a byte (padding to the alignment included).
func (f *Format) checkOverlap(h *Header) error {
	order := make([]Section, len(h.Sections))
	copy(order, h.Sections)
	slices.SortFunc(order, func(a, b Section) int { return cmp.Compare(a.Offset, b.Offset) })
	end := uint64(DataStart)
	for _, s := range order {
		if s.Offset < end {
			return Errorf(ErrCorrupt, "section %v at offset %d overlaps the one before it (which ends at %d)", f.Name(s.Kind), s.Offset, end)
		}
		end = AlignUp(s.Offset + s.Length)
	}
	return nil
}

// ByOffset returns h's sections' indexes in file order.
func (h *Header) ByOffset() []int {
	order := make([]int, len(h.Sections))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(h.Sections[a].Offset, h.Sections[b].Offset) })
	return order
}
