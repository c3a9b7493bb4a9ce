//go:build !unix && !windows

package file

import (
	"io"
	"os"
)

// mapFile reads the file into aligned memory where mapping is not
// available; mapped is false, so the index owns the bytes.
func mapFile(f *os.File, size int) (data []byte, mapped bool, err error) {
	data = alignedBytes(size, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, false, err
	}
	return data, false, nil
}

func unmapFile([]byte) error { return nil }

// syncDir is a no-op: directories cannot be synced here (Windows makes
// the rename itself durable).
func syncDir(string) error { return nil }

// ReplaceBlockedByMapping: nothing is mapped here.
const ReplaceBlockedByMapping = false
