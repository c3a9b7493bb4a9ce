package file

import (
	"errors"
	"fmt"
	"io"
)

// The container's errors; the engine exports them as its own (astral's
// ErrCorrupt, ErrVersion, ErrIO), so their text names the library.
var (
	ErrCorrupt = errors.New("astral: corrupt index data")
	ErrVersion = errors.New("astral: index format version not supported")
	ErrIO      = errors.New("astral: i/o error")
)

// Errorf wraps a sentinel with detail, keeping errors.Is working.
func Errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}

// CRCError reports section s's checksum as got where the header says
// otherwise.
func (f *Format) CRCError(s Section, got uint32) error {
	return Errorf(ErrCorrupt, "section %v: checksum %#08x, header says %#08x", f.Name(s.Kind), got, s.CRC)
}

// readError classifies a read failure: the stream ending early is damage,
// anything else the reader's fault.
func readError(err error, what string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return Errorf(ErrCorrupt, "truncated in %s", what)
	}
	return Errorf(ErrIO, "reading %s: %v", what, err)
}
