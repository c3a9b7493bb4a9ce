package file

import (
	"os"
	"sync"
	"sync/atomic"
)

// Mapping is a file mapped read-only, so its sections are used where they
// lie; where mapping is not available, the file read into memory.
type Mapping struct {
	Data     []byte
	mapped   bool
	info     os.FileInfo // the file's identity, for SameFile
	once     sync.Once
	released atomic.Bool
	err      error
}

// Map maps f, the index file at path, opened for reading; the caller
// closes f (the mapping outlives it). It refuses what is no regular file
// (ErrIO) and a length no index file has (ErrCorrupt); the file must not
// change in place while mapped (replacing it, as WriteFile does, is safe).
func Map(f *os.File, path string) (*Mapping, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, Errorf(ErrIO, "%v", err)
	}
	size := fi.Size()
	switch {
	case !fi.Mode().IsRegular():
		return nil, Errorf(ErrIO, "%s is not a regular file", path)
	case size < HeaderLen:
		return nil, Errorf(ErrCorrupt, "%s: truncated: %d bytes, less than the %d-byte header", path, size, HeaderLen)
	case uint64(size) > maxSections*maxSectionLen || int64(int(size)) != size:
		return nil, Errorf(ErrCorrupt, "%s: %d bytes is larger than any index file", path, size)
	}
	data, mapped, err := mapFile(f, int(size))
	if err != nil {
		return nil, Errorf(ErrIO, "mapping %s: %v", path, err)
	}
	return &Mapping{Data: data, mapped: mapped, info: fi}, nil
}

// Mapped reports whether Data is a mapping (false: memory of its own,
// which needs no release).
func (m *Mapping) Mapped() bool { return m.mapped }

// SameFile reports whether fi describes the mapped file (whatever path
// names it now).
func (m *Mapping) SameFile(fi os.FileInfo) bool { return os.SameFile(m.info, fi) }

// Release unmaps the file, once; Data must not be read after.
func (m *Mapping) Release() error {
	m.once.Do(func() {
		if m.mapped {
			m.err = unmapFile(m.Data)
		}
		m.released.Store(true)
	})
	return m.err
}

// Released reports whether Release has run.
func (m *Mapping) Released() bool { return m.released.Load() }
