package file

import (
	"io"
)

// FromBytes checks the file in b up to its sections' contents: the
// header, the file's length, the padding. It returns the header and each
// section's bytes; with alias they are b's own (b must stay valid and
// unchanged while they are used), otherwise aligned copies. No section's
// checksum is checked yet (CheckCRCs).
func (f *Format) FromBytes(b []byte, alias bool) (*Header, [][]byte, error) {
	if len(b) < HeaderLen {
		return nil, nil, Errorf(ErrCorrupt, "truncated: %d bytes, less than the %d-byte header", len(b), HeaderLen)
	}
	var h *Header
	hl, err := Prefix(b)
	if err == nil && len(b) < hl {
		err = Errorf(ErrCorrupt, "truncated: %d bytes, less than the %d-byte header", len(b), hl)
	}
	if err == nil {
		h, err = f.DecodeHeader(b[:hl])
	}
	// A version-7 file, or slot 0 torn: the slots decide.
	if err != nil || h.Slotted() {
		if h, err = f.PickSlot(b[:min(len(b), DataStart)], h, err); err != nil {
			return nil, nil, err
		}
	}
	if size := h.FileLen(); uint64(len(b)) != size {
		if uint64(len(b)) < size {
			return nil, nil, Errorf(ErrCorrupt, "truncated: %d bytes, the header describes %d", len(b), size)
		}
		if !h.Slotted() {
			return nil, nil, Errorf(ErrCorrupt, "%d bytes after the end the header describes (%d bytes)", uint64(len(b))-size, size)
		}
	}
	if !h.Slotted() {
		if err := zeroPadding(b[hl:AlignUp(uint64(hl))], "the header"); err != nil {
			return nil, nil, err
		}
	}
	bufs := make([][]byte, len(h.Sections))
	for i, s := range h.Sections {
		end := s.Offset + s.Length
		if err := zeroPadding(b[end:AlignUp(end)], f.Name(s.Kind)); err != nil {
			return nil, nil, err
		}
		bufs[i] = b[s.Offset:end:end]
		if !alias {
			bufs[i] = append(alignedBytes(0, len(bufs[i])), bufs[i]...)
		}
	}
	return h, bufs, nil
}

// PickSlot returns the current header of a version-7 file whose first
// bytes (up to DataStart) are b, given what slot 0 decoded to (h0, err0):
// of the two slots that decode, the one of the larger generation. A slot
// a crash tore fails its checksum and is passed over; when neither
// decodes, slot 0's error is returned.
func (f *Format) PickSlot(b []byte, h0 *Header, err0 error) (*Header, error) {
	if err0 == nil && !h0.Slotted() {
		return h0, nil
	}
	if len(b) < DataStart {
		if err0 != nil {
			return nil, err0
		}
		return nil, Errorf(ErrCorrupt, "truncated: %d bytes, less than a version-%d file's %d header bytes", len(b), h0.Version, DataStart)
	}
	h1, err1 := f.decodeSlot(b[SlotSize:DataStart])
	if err1 == nil && !h1.Slotted() {
		err1 = Errorf(ErrCorrupt, "header slot 1 holds a version-%d header", h1.Version)
	}
	switch {
	case err0 != nil && err1 != nil:
		return nil, err0
	case err0 != nil:
		h1.Slot = 1
		return h1, nil
	case err1 != nil || h0.Generation > h1.Generation:
		return h0, nil
	case h0.Generation == h1.Generation:
		return nil, Errorf(ErrCorrupt, "both header slots hold generation %d", h0.Generation)
	}
	h1.Slot = 1
	return h1, nil
}

// decodeSlot decodes the header at the start of b.
func (f *Format) decodeSlot(b []byte) (*Header, error) {
	hl, err := Prefix(b)
	if err != nil {
		return nil, err
	}
	if hl > len(b) {
		return nil, Errorf(ErrCorrupt, "header length %d past its slot", hl)
	}
	return f.DecodeHeader(b[:hl])
}

// ReadSlots reads a file's current header from r, positioned at the
// file's start, and returns it with the bytes read so far.
func (f *Format) readHeader(r io.Reader) (*Header, []byte, error) {
	var fixed [HeaderLen]byte
	if _, err := io.ReadFull(r, fixed[:]); err != nil {
		return nil, nil, readError(err, "the header")
	}
	got := fixed[:]
	hl, err := Prefix(fixed[:])
	var h *Header
	if err == nil {
		hb := make([]byte, hl)
		copy(hb, fixed[:])
		if _, err := io.ReadFull(r, hb[HeaderLen:]); err != nil {
			return nil, nil, readError(err, "the header")
		}
		got = hb
		h, err = f.DecodeHeader(hb)
		if err == nil && !h.Slotted() {
			return h, got, nil
		}
	}
	// Version 7, or a header that does not decode: perhaps a torn slot 0.
	if len(got) < DataStart {
		more := make([]byte, DataStart)
		copy(more, got)
		if _, rerr := io.ReadFull(r, more[len(got):]); rerr != nil {
			if err != nil {
				return nil, nil, err
			}
			return nil, nil, readError(rerr, "the header slots")
		}
		got = more
	}
	h, err = f.PickSlot(got, h, err)
	return h, got, err
}

func zeroPadding(p []byte, after string) error {
	for _, c := range p {
		if c != 0 {
			return Errorf(ErrCorrupt, "padding after %s is not zero", after)
		}
	}
	return nil
}

// CheckCRCs checks the checksums of h's sections, bufs, but those skip
// names, on w's workers.
func (f *Format) CheckCRCs(w Workers, h *Header, bufs [][]byte, skip func(Kind) bool) error {
	var todo [][]byte
	var secs []Section
	for i, s := range h.Sections {
		if !skip(s.Kind) {
			todo, secs = append(todo, bufs[i]), append(secs, s)
		}
	}
	for i, c := range Checksums(w, todo) {
		if c != secs[i].CRC {
			return f.CRCError(secs[i], c)
		}
	}
	return nil
}

// Read reads a file from r: the header, then each section into memory of
// its own, checking the padding and every checksum. It reads exactly the
// file's length, so r may hold more after it. Memory follows the bytes
// that actually arrive, whatever the header claims: when r is an
// io.Seeker the claimed length is checked against what is left first,
// otherwise each section grows as it is read. A short stream gives
// ErrCorrupt; another read failure ErrIO.
func (f *Format) Read(r io.Reader) (*Header, [][]byte, error) {
	h, hb, err := f.readHeader(r)
	if err != nil {
		return nil, nil, err
	}
	hl := len(hb)
	size := h.FileLen()
	left, sized := remaining(r)
	if sized && uint64(left) < size-uint64(hl) {
		return nil, nil, Errorf(ErrCorrupt, "truncated: %d bytes, the header describes %d", uint64(left)+uint64(hl), size)
	}
	pos := uint64(hl)
	bufs := make([][]byte, len(h.Sections))
	crcs := make([]uint32, len(h.Sections))
	var pad [Align]byte
	// skip reads up to offset to: the zero padding after the previous
	// section (or a version-6 header), then, in a version-7 file, bytes
	// this table does not name (the other header slot, an older table's
	// sections), dropped.
	skip := func(to uint64, after string) error {
		padEnd := AlignUp(pos)
		if h.Slotted() && after == "the header" {
			padEnd = pos
		}
		p := pad[:padEnd-pos]
		if _, err := io.ReadFull(r, p); err != nil {
			return readError(err, "padding after "+after)
		}
		if err := zeroPadding(p, after); err != nil {
			return err
		}
		pos = padEnd
		if to > pos {
			if _, err := io.CopyN(io.Discard, r, int64(to-pos)); err != nil {
				return readError(err, "bytes before a section")
			}
		}
		pos = to
		return nil
	}
	after := "the header"
	for _, i := range h.ByOffset() {
		s := h.Sections[i]
		if err := skip(s.Offset, after); err != nil {
			return nil, nil, err
		}
		if bufs[i], crcs[i], err = f.readSection(r, s, sized); err != nil {
			return nil, nil, err
		}
		pos += s.Length
		after = f.Name(s.Kind)
	}
	if err := skip(AlignUp(pos), after); err != nil {
		return nil, nil, err
	}
	for i, s := range h.Sections {
		if crcs[i] != s.CRC {
			return nil, nil, f.CRCError(s, crcs[i])
		}
	}
	return h, bufs, nil
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
func (f *Format) readSection(r io.Reader, s Section, sized bool) ([]byte, uint32, error) {
	n := int(s.Length)
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
			return nil, 0, readError(err, "section "+f.Name(s.Kind))
		}
		crc = update(crc, next)
		buf = buf[:len(buf)+len(next)]
	}
	return buf, crc, nil
}
