package file

import (
	"io"
	"os"
	"path/filepath"
)

// A Part is one section to write: its kind and flags, and its bytes, or
// for a section too large to copy whole (the graph's level-0 blocks),
// its length and a function that produces its bytes in pieces, in
// order; Write calls it twice, for the checksum the header carries and
// then to write.
type Part struct {
	Kind   Kind
	Flags  uint32
	Bytes  []byte
	Length uint64
	Pieces func(each func([]byte))
	// Keep, for Appender.Append only: the section is already in the file,
	// here; nothing is written.
	Keep *Section
}

// Write checksums the parts (Bytes on w's workers), lays out h with them
// as its sections and writes the file through the writer open returns
// once the file's length is known. It returns that length. A version-7
// header goes into slot 0 with generation 1, slot 1 is left zero.
func Write(h *Header, parts []Part, w Workers, open func(size int64) (io.Writer, error)) (int64, error) {
	var whole [][]byte
	var at []int
	h.Sections = make([]Section, len(parts))
	for i, p := range parts {
		s := &h.Sections[i]
		s.Kind, s.Flags = p.Kind, p.Flags
		if p.Pieces != nil {
			s.Length = p.Length
			p.Pieces(func(b []byte) { s.CRC = update(s.CRC, b) })
			continue
		}
		s.Length = uint64(len(p.Bytes))
		whole, at = append(whole, p.Bytes), append(at, i)
	}
	for i, c := range Checksums(w, whole) {
		h.Sections[at[i]].CRC = c
	}
	h.layout()
	if h.Slotted() {
		h.Generation = 1
	}
	out, err := open(int64(h.FileLen()))
	if err != nil {
		return int64(h.FileLen()), err
	}
	fw := &fileWriter{w: out}
	fw.write(h.Encode())
	fw.pad()
	if h.Slotted() {
		// Slot 1 starts empty (zero): the next appending save fills it.
		for fw.off < DataStart && fw.err == nil {
			fw.write(zeros[:])
		}
	}
	for _, p := range parts {
		if p.Pieces != nil {
			p.Pieces(fw.write)
		} else {
			fw.write(p.Bytes)
		}
		fw.pad()
	}
	return int64(fw.off), fw.err
}

// fileWriter writes a file's parts in order, padding each section.
type fileWriter struct {
	w   io.Writer
	off uint64
	err error
}

var zeros [Align]byte

func (fw *fileWriter) write(p []byte) {
	if fw.err != nil || len(p) == 0 {
		return
	}
	if _, err := fw.w.Write(p); err != nil {
		fw.err = Errorf(ErrIO, "%v", err)
	}
	fw.off += uint64(len(p))
}

// pad writes zeros up to the next aligned offset.
func (fw *fileWriter) pad() { fw.write(zeros[:AlignUp(fw.off)-fw.off]) }

// SliceWriter writes into buf, whose length the caller checked against
// the file's.
func SliceWriter(buf []byte) io.Writer { return &sliceWriter{b: buf[:0:len(buf)]} }

type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	if len(p) > cap(w.b)-len(w.b) {
		return 0, io.ErrShortWrite
	}
	w.b = append(w.b, p...)
	return len(p), nil
}

// WriteFile writes a file to path through write so that a crash at any
// moment leaves either the previous file or the new one, whole: it writes
// a temporary file (".NAME.tmp-*") in the same directory with permission
// mode, syncs it, calls recheck (the caller's last look at what path
// holds: its error stops the save), renames the file over path and syncs
// the directory. Failures of the file system wrap ErrIO; write's and
// recheck's own errors are returned as they are.
func WriteFile(path string, mode os.FileMode, recheck func() error, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return Errorf(ErrIO, "%v", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := &chunkWriter{w: f, buf: make([]byte, 0, saveChunk)}
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return Errorf(ErrIO, "writing %s: %v", tmp, err)
	}
	if err := f.Chmod(mode); err != nil {
		return Errorf(ErrIO, "%v", err)
	}
	if err := f.Sync(); err != nil {
		return Errorf(ErrIO, "syncing %s: %v", tmp, err)
	}
	if err := f.Close(); err != nil {
		return Errorf(ErrIO, "closing %s: %v", tmp, err)
	}
	if err := recheck(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return Errorf(ErrIO, "%v", err)
	}
	if err := syncDir(dir); err != nil {
		return Errorf(ErrIO, "syncing directory %s: %v", dir, err)
	}
	return nil
}

// saveChunk is the size and alignment of WriteFile's writes. Where the
// file system caches files in large folios (ext4 and XFS on Linux 6.16
// and later), whole aligned 2 MiB writes leave the file cached as 2 MiB
// pages, which a later mapping maps with one fault each instead of one
// per 64 KiB: a mapped open of the 100k reference index takes 36 minor
// faults, not about 800 (BenchmarkOpen100k's map_faults; docs/BENCHMARKS.md, "Opening
// a saved index").
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

// An Appender adds sections to a version-7 file in place and then swaps
// its table: the crash-safe save that writes only what changed.
type Appender struct {
	f      *os.File
	format *Format
	// Header is the file's current header, Size its length, Info its
	// identity when opened.
	Header *Header
	Size   int64
	Info   os.FileInfo
}

// OpenAppend opens the version-7 file at path for Append. Failures of the
// file system wrap ErrIO; a file that is not a version-7 file, or whose
// header does not decode, gives the reader's error.
func (f *Format) OpenAppend(path string) (*Appender, error) {
	fd, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, Errorf(ErrIO, "%v", err)
	}
	a := &Appender{f: fd, format: f}
	if a.Info, err = fd.Stat(); err != nil {
		fd.Close()
		return nil, Errorf(ErrIO, "%v", err)
	}
	if !a.Info.Mode().IsRegular() {
		fd.Close()
		return nil, notRegular(path, a.Info.Mode(), "append to")
	}
	a.Size = a.Info.Size()
	if a.Header, _, err = f.readHeader(io.NewSectionReader(fd, 0, a.Size)); err != nil {
		fd.Close()
		return nil, err
	}
	if !a.Header.Slotted() {
		fd.Close()
		return nil, Errorf(ErrVersion, "a version-%d file cannot be appended to", a.Header.Version)
	}
	return a, nil
}

// Close closes the file.
func (a *Appender) Close() error { return a.f.Close() }

// ReadSection reads section s of the file and checks its checksum.
// ReadPrefix reads the first n bytes of section s unchecked: its checksum
// covers the whole section, so the caller checks what they say against
// the section's length.
func (a *Appender) ReadPrefix(s Section, n int) ([]byte, error) {
	if uint64(n) > s.Length || s.Offset+uint64(n) > uint64(a.Size) {
		return nil, Errorf(ErrCorrupt, "truncated in section %v", a.format.Name(s.Kind))
	}
	b := make([]byte, n)
	if _, err := a.f.ReadAt(b, int64(s.Offset)); err != nil {
		return nil, readError(err, "section "+a.format.Name(s.Kind))
	}
	return b, nil
}

func (a *Appender) ReadSection(s Section) ([]byte, error) {
	if s.Offset+s.Length > uint64(a.Size) {
		return nil, Errorf(ErrCorrupt, "truncated in section %v", a.format.Name(s.Kind))
	}
	b := alignedBytes(int(s.Length), int(s.Length))
	if _, err := a.f.ReadAt(b, int64(s.Offset)); err != nil {
		return nil, readError(err, "section "+a.format.Name(s.Kind))
	}
	if c := update(0, b); c != s.CRC {
		return nil, a.format.CRCError(s, c)
	}
	return b, nil
}

// Append writes the parts that are not kept after the file's end, each
// aligned and checksummed, syncs them, then writes h (its generation the
// current one's plus one; its table the parts in order) into the header
// slot that does not hold the current header, and syncs again. A crash
// at any moment leaves the old table or the new one current, whole: the
// appended bytes are on disk before the new slot names them, and a torn
// slot fails its checksum, so a reader takes the other. Nothing a reader
// of the old table reads is written. It returns the bytes written.
func (a *Appender) Append(h *Header, parts []Part, w Workers) (int64, error) {
	if len(parts) > maxSlotSections {
		return 0, Errorf(ErrCorrupt, "%d sections: a table holds at most %d", len(parts), maxSlotSections)
	}
	start := AlignUp(max(uint64(a.Size), a.Header.FileLen()))
	var whole [][]byte
	var at []int
	h.Sections = make([]Section, len(parts))
	off := start
	for i, p := range parts {
		s := &h.Sections[i]
		if p.Keep != nil {
			*s = *p.Keep
			continue
		}
		s.Kind, s.Flags, s.Offset = p.Kind, p.Flags, off
		if p.Pieces != nil {
			s.Length = p.Length
			p.Pieces(func(b []byte) { s.CRC = update(s.CRC, b) })
		} else {
			s.Length = uint64(len(p.Bytes))
			whole, at = append(whole, p.Bytes), append(at, i)
		}
		off = AlignUp(off + s.Length)
	}
	for i, c := range Checksums(w, whole) {
		h.Sections[at[i]].CRC = c
	}
	h.HeaderLen = uint32(h.fixedLen() + SectionEntryLen*len(parts))
	h.Generation = a.Header.Generation + 1
	cw := &chunkWriter{w: io.NewOffsetWriter(a.f, int64(start)), buf: make([]byte, 0, saveChunk)}
	fw := &fileWriter{w: cw, off: start}
	for _, p := range parts {
		if p.Keep != nil {
			continue
		}
		if p.Pieces != nil {
			p.Pieces(fw.write)
		} else {
			fw.write(p.Bytes)
		}
		fw.pad()
	}
	if fw.err != nil {
		return 0, fw.err
	}
	if err := cw.Flush(); err != nil {
		return 0, Errorf(ErrIO, "appending: %v", err)
	}
	if err := a.f.Sync(); err != nil {
		return 0, Errorf(ErrIO, "syncing: %v", err)
	}
	slot := make([]byte, SlotSize)
	copy(slot, h.Encode())
	h.Slot = 1 - a.Header.Slot
	if _, err := a.f.WriteAt(slot, int64(h.Slot*SlotSize)); err != nil {
		return 0, Errorf(ErrIO, "writing the header: %v", err)
	}
	if err := a.f.Sync(); err != nil {
		return 0, Errorf(ErrIO, "syncing the header: %v", err)
	}
	a.Header, a.Size = h, max(a.Size, int64(off))
	return int64(off-start) + SlotSize, nil
}
