//go:build unix

package file

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only; mapped is true.
func mapFile(f *os.File, size int) (data []byte, mapped bool, err error) {
	data, err = unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, false, err
	}
	adviseHugePages(data)
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
