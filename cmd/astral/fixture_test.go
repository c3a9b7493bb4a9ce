package main

import (
	"path/filepath"
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/stretchr/testify/require"
)

// TestFixtureWritesGenerate: the streamed .fvecs files hold Generate's
// vectors, bit for bit.
func TestFixtureWritesGenerate(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "fixture", "--data", "clustered", "--n", "20000", "--nq", "7", "--dim", "16",
		"--out", "b.fvecs", "--queries-out", "q.fvecs")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "wrote b.fvecs (20000 × 16) and q.fvecs (7 queries)")
	set, err := fixture.Generate("clustered", 20000, 7, 16)
	require.NoError(t, err)
	base, dim, err := fixture.LoadFvecsFile(filepath.Join(dir, "b.fvecs"))
	require.NoError(t, err)
	require.Equal(t, 16, dim)
	require.Equal(t, set.Base, base)
	qs, _, err := fixture.LoadFvecsFile(filepath.Join(dir, "q.fvecs"))
	require.NoError(t, err)
	require.Equal(t, set.Queries, qs)
}
