package file

import (
	"io"
	"os"
	"strings"
	"unicode"
)

// Info is what Inspect finds in a file.
type Info struct {
	Size int64 // the file's length in bytes
	// Dead is, in a version-7 file, the bytes no section of the current
	// table holds (older tables' sections, the other header slot, an
	// interrupted append's tail); 0 before version 7.
	Dead      int64
	Header    *Header
	HeaderCRC uint32
	Sections  []SectionInfo
	Metadata  string // the metadata section, when present and whole
}

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

// Inspect reads the header of the index file at path and checksums every
// section, reading the file piece by piece. It returns what it found and
// the first problem (ErrCorrupt, ErrVersion or ErrIO): a nil Info when
// the header itself cannot be trusted. It checks the sections' bytes, not
// their meaning.
func (f *Format) Inspect(path string) (*Info, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, Errorf(ErrIO, "%v", err)
	}
	defer fd.Close()
	fi, err := fd.Stat()
	if err != nil {
		return nil, Errorf(ErrIO, "%v", err)
	}
	size := fi.Size()
	h, hb, err := f.readHeader(io.NewSectionReader(fd, 0, size))
	if err != nil {
		return nil, err
	}
	if h.Slotted() {
		at := h.Slot * SlotSize // the current slot's bytes, for its CRC
		hb = hb[at : at+int(h.HeaderLen)]
	}
	info := &Info{Size: size, Header: h, HeaderCRC: HeaderCRC(hb)}
	if h.Slotted() {
		info.Dead = size - SlotSize
		for _, s := range h.Sections {
			info.Dead -= int64(AlignUp(s.Length))
		}
	}
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	if want := h.FileLen(); uint64(size) < want {
		note(Errorf(ErrCorrupt, "truncated: %d bytes, the header describes %d", size, want))
	} else if uint64(size) > want && !h.Slotted() {
		note(Errorf(ErrCorrupt, "%d bytes after the end the header describes (%d bytes)", uint64(size)-want, want))
	}
	buf := make([]byte, 1<<20)
	for _, s := range h.Sections {
		si := SectionInfo{Name: f.Name(s.Kind), Kind: uint32(s.Kind), Optional: s.Flags&Optional != 0,
			Offset: s.Offset, Length: s.Length, CRC: s.CRC}
		r := io.NewSectionReader(fd, int64(s.Offset), int64(s.Length))
		var crc uint32
		var meta []byte
		var got uint64
		for {
			n, err := r.Read(buf)
			got += uint64(n)
			crc = update(crc, buf[:n])
			if s.Kind == KindMetadata {
				meta = append(meta, buf[:n]...)
			}
			if err == io.EOF {
				si.Checked = got == s.Length
				break
			}
			if err != nil {
				note(Errorf(ErrIO, "reading section %v: %v", f.Name(s.Kind), err))
				break
			}
		}
		si.Computed = crc
		switch {
		case !si.Checked:
			note(Errorf(ErrCorrupt, "truncated in section %v", f.Name(s.Kind)))
		case crc != s.CRC:
			note(f.CRCError(s, crc))
		case s.Kind == KindMetadata:
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
