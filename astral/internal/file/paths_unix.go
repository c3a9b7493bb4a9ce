//go:build unix

package file

import (
	"os"
	"syscall"
)

// openNonBlocking opens path read-only without waiting: a FIFO's open
// returns at once instead of blocking until a writer comes. O_NONBLOCK
// changes nothing for the regular files that are then kept.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
