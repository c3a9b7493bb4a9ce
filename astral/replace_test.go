package astral

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSaveOverMappedFileDetaches takes Windows' path on any system:
// saving over a file that indexes map first moves those indexes into their
// own memory (they answer as before); an index mapping another file stays
// mapped, and a closed or collected index is dropped from the list.
func TestSaveOverMappedFileDetaches(t *testing.T) {
	defer func(old bool) { detachBeforeReplace = old }(detachBeforeReplace)
	detachBeforeReplace = true
	dir := t.TempDir()
	path, other := filepath.Join(dir, "a.idx"), filepath.Join(dir, "b.idx")
	a := testIndex(t, nil, KindHNSW, Cosine, 300, 16)
	b := testIndex(t, nil, KindFlat, Dot, 200, 24)
	require.NoError(t, a.SaveFile(path))
	require.NoError(t, a.SaveFile(other))
	m1, err := OpenFile(nil, path)
	require.NoError(t, err)
	m2, err := OpenFile(nil, path)
	require.NoError(t, err)
	closed, err := OpenFile(nil, path)
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	elsewhere, err := OpenFile(nil, other)
	require.NoError(t, err)
	func() {
		_, err := OpenFile(nil, path) // unreachable at once
		require.NoError(t, err)
	}()
	runtime.GC()

	require.NoError(t, m1.SaveFile(path), "an index saved over its own file")
	require.False(t, m1.Mapped())
	require.False(t, m2.Mapped(), "another index mapping the same file")
	require.True(t, elsewhere.Mapped(), "an index mapping another file")
	require.Equal(t, answers(t, a, 5), answers(t, m1, 5))
	require.Equal(t, answers(t, a, 5), answers(t, m2, 5))

	m3, err := OpenFile(nil, path)
	require.NoError(t, err)
	require.NoError(t, b.SaveFile(path))
	require.False(t, m3.Mapped())
	require.Equal(t, answers(t, a, 5), answers(t, m3, 5))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, saved(t, b), got)

	mappedFiles.Lock()
	n := len(mappedFiles.list)
	mappedFiles.Unlock()
	require.Equal(t, 1, n, "only the index mapping the other file is left")
	runtime.KeepAlive(elsewhere)
}
