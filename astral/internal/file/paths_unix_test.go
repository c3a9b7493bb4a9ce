//go:build unix

package file

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOpenNonBlocking: the open that follows the path check returns at
// once on a FIFO swapped in meanwhile, and the check on the open file
// refuses it.
func TestOpenNonBlocking(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	done := make(chan error, 1)
	go func() {
		f, err := openNonBlocking(fifo)
		if err == nil {
			fi, serr := f.Stat()
			require.NoError(t, serr)
			require.Equal(t, "a FIFO", fileKind(fi.Mode()))
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("opening a FIFO blocked")
	}
	_, err := OpenRegular(fifo)
	require.ErrorIs(t, err, ErrIO)
	require.Contains(t, err.Error(), "is a FIFO")
}
