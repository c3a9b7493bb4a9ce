//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBuildRefusesSpecialOutputs: build saves through SaveFile, so an
// --out naming a FIFO, directory or symbolic link fails and leaves it as
// it was, and a 0600 file it replaces stays 0600.
func TestBuildRefusesSpecialOutputs(t *testing.T) {
	dir := t.TempDir()
	fifo, sub, link := filepath.Join(dir, "fifo"), filepath.Join(dir, "sub"), filepath.Join(dir, "link.idx")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.Symlink("elsewhere.idx", link))
	for _, out := range []string{fifo, sub, link} {
		before, err := os.Lstat(out)
		require.NoError(t, err)
		err = runBuild([]string{"--data", "random", "--n", "100", "--dim", "8", "--index", "flat", "--out", out})
		require.ErrorContains(t, err, "only a regular file is replaced by a save", out)
		after, err := os.Lstat(out)
		require.NoError(t, err)
		require.Equal(t, before.Mode(), after.Mode(), out)
	}
	private := filepath.Join(dir, "private.idx")
	require.NoError(t, os.WriteFile(private, nil, 0o600))
	require.NoError(t, runBuild([]string{"--data", "random", "--n", "100", "--dim", "8", "--index", "flat", "--out", private}))
	fi, err := os.Stat(private)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode())
}
