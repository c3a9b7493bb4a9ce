//go:build unix

package file

import (
	"os"

	"github.com/astral-engine/astral/internal/mem"
	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only; mapped is true.
func mapFile(f *os.File, size int) (data []byte, mapped bool, err error) {
	data, err = unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, false, err
	}
	// Where the file system caches in large folios, an uncached file then
	// fills 2 MiB folios that map with one fault each.
	mem.AdviseHuge(data)
	return data, true, nil
}

func unmapFile(data []byte) error { return unix.Munmap(data) }

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// ReplaceBlockedByMapping: a mapped file can be renamed over; the mapping
// keeps the old file's pages.
const ReplaceBlockedByMapping = false
