package astral

import (
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/astral-engine/astral/hnsw"
)

// FileInfo describes an index file: its header and sections (InspectFile).
type FileInfo struct {
	Size       int64 // the file's length in bytes
	Version    uint32
	HeaderLen  int
	HeaderCRC  uint32
	Dim        int
	Metric     Metric
	Kind       Kind // as configured: auto, flat or hnsw
	Structure  Kind // what the file holds: flat or hnsw
	Storage    Storage
	Stride     int // bytes per record
	M          int
	EfConstr   int
	EfSearch   int
	FlatLimit  int64
	Count      uint64 // live vectors
	Slots      uint64 // flat: Count; hnsw: nodes, tombstones included
	Entry      uint64 // hnsw entry point, level<<32 | slot; NoEntry when none
	UpperWords uint64 // hnsw: words of upper-level lists
	BlockWords int    // hnsw: words per level-0 block
	Seed       uint64 // hnsw level seed
	KeepPruned bool
	// Rerank is the rerank copy's kind (0: none) and RerankFactor its factor.
	Rerank       Storage
	RerankFactor int
	Sections     []SectionInfo
	Metadata     string // the metadata section, when present and whole
}

// NoEntry is FileInfo.Entry of a file with no graph or an empty one.
const NoEntry = hnsw.NoEntry

// SectionInfo describes one section of an index file.
type SectionInfo struct {
	Name     string
	Kind     uint32
	Optional bool
	Offset   uint64
	Length   uint64
	CRC      uint32 // as the header records it
	Computed uint32 // as computed from the file, when Checked
	Checked  bool   // the file holds the whole section
}

// OK reports whether the section is whole and its checksum matches.
func (s SectionInfo) OK() bool { return s.Checked && s.CRC == s.Computed }

// InspectFile reads the header of the index file at path and checksums
// every section, reading the file piece by piece. It returns what it
// found and the first problem (ErrCorrupt, ErrVersion or ErrIO): a nil
// FileInfo when the header itself cannot be trusted. It checks the
// sections' bytes, not their meaning: OpenFile checks every count and
// link as well.
func InspectFile(path string) (*FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errorf(ErrIO, "%v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errorf(ErrIO, "%v", err)
	}
	size := fi.Size()
	var fixed [fixedHeaderLen]byte
	if _, err := f.ReadAt(fixed[:], 0); err != nil {
		return nil, readError(err, "the header")
	}
	hl, err := prefix(fixed[:])
	if err != nil {
		return nil, err
	}
	hb := make([]byte, hl)
	if _, err := f.ReadAt(hb, 0); err != nil {
		return nil, readError(err, "the header")
	}
	h, err := decodeHeader(hb)
	if err != nil {
		return nil, err
	}
	info := &FileInfo{Size: size, Version: h.version, HeaderLen: hl, HeaderCRC: headerCRC(hb), Dim: int(h.dim),
		Metric: h.metric, Kind: h.kind, Structure: h.structure, Storage: h.storage, Stride: int(h.stride),
		Rerank: h.rerank, RerankFactor: int(h.rerankFactor),
		M: int(h.m), EfConstr: int(h.efConstruction), EfSearch: int(h.efSearch), FlatLimit: int64(h.flatLimit),
		Count: h.count, Slots: h.slots, Entry: h.entry, UpperWords: h.upperWords, BlockWords: int(h.blockWords),
		Seed: h.seed, KeepPruned: h.graphFlags&graphKeepPruned != 0}
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	if want := h.fileLen(); uint64(size) < want {
		note(errorf(ErrCorrupt, "truncated: %d bytes, the header describes %d", size, want))
	} else if uint64(size) > want {
		note(errorf(ErrCorrupt, "%d bytes after the end the header describes (%d bytes)", uint64(size)-want, want))
	}
	buf := make([]byte, 1<<20)
	for _, s := range h.sections {
		si := SectionInfo{Name: s.kind.String(), Kind: uint32(s.kind), Optional: s.flags&sectionOptional != 0,
			Offset: s.offset, Length: s.length, CRC: s.crc}
		r := io.NewSectionReader(f, int64(s.offset), int64(s.length))
		var crc uint32
		var meta []byte
		var got uint64
		for {
			n, err := r.Read(buf)
			got += uint64(n)
			crc = crc32Update(crc, buf[:n])
			if s.kind == secMetadata {
				meta = append(meta, buf[:n]...)
			}
			if err == io.EOF {
				si.Checked = got == s.length
				break
			}
			if err != nil {
				note(errorf(ErrIO, "reading section %v: %v", s.kind, err))
				break
			}
		}
		si.Computed = crc
		switch {
		case !si.Checked:
			note(errorf(ErrCorrupt, "truncated in section %v", s.kind))
		case crc != s.crc:
			note(crcError(s, crc))
		case s.kind == secMetadata:
			info.Metadata = printable(string(meta))
		}
		info.Sections = append(info.Sections, si)
	}
	return info, first
}

// printable keeps metadata safe to print: no control characters but
// newlines.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || (unicode.IsPrint(r) && r != unicode.ReplacementChar) {
			return r
		}
		return '?'
	}, s)
}
