package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
	"github.com/stretchr/testify/require"
)

// savedInMemory is the index file the in-memory path saves: the whole set
// loaded, then buildIndex (addStep rows per Add), then SaveFile.
func savedInMemory(t *testing.T, set *fixture.Set, opts []astral.Option, threads int, path string) []byte {
	t.Helper()
	rt, err := astral.NewRuntime(astral.WithThreads(threads))
	require.NoError(t, err)
	defer rt.Close()
	x, _, err := buildIndex(rt, opts, set, "in memory")
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, x.SaveFile(path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// TestBuildStreamedSavesTheSameBytes: astral build, which streams --data a
// block at a time, saves the very bytes the in-memory path saves, for an
// .fvecs file and a generated fixture, for every index kind; its line
// gives the peak RSS on Linux.
func TestBuildStreamedSavesTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	const n, dim = 25_321, 24 // three Adds and a short one
	set, err := fixture.Generate("clustered", n, 0, dim)
	require.NoError(t, err)
	base := filepath.Join(dir, "base.fvecs")
	require.NoError(t, fixture.SaveFvecsFile(base, set.Base, dim))
	loaded, err := loadBase(base)
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		args  []string
		opts  []astral.Option
		small bool // HNSW: fewer rows, to stay fast
	}{
		{"flat", []string{"--index", "flat", "--storage", "int8"}, []astral.Option{astral.WithKind(astral.KindFlat), astral.WithStorage(astral.Int8)}, false},
		{"ivf", []string{"--index", "ivf", "--nlist", "16", "--nprobe", "3"}, []astral.Option{astral.WithKind(astral.KindIVF), astral.WithIVF(16, 3)}, false},
		{"auto", []string{"--index", "auto", "--ivf-limit", "20000"}, []astral.Option{astral.WithKind(astral.KindAuto), astral.WithIVFLimitRecords(20000)}, false},
		{"hnsw", []string{"--index", "hnsw", "--m", "8", "--ef-construction", "24", "--rerank", "2"},
			[]astral.Option{astral.WithKind(astral.KindHNSW), astral.WithHNSW(8, 24), astral.WithRerank(astral.F32, 2)}, true},
	} {
		file, fset := base, loaded
		if c.small {
			fset = &fixture.Set{Name: "small", Dim: dim, Base: set.Base[:12_345*dim]}
			file = filepath.Join(dir, "small.fvecs")
			require.NoError(t, fixture.SaveFvecsFile(file, fset.Base, dim))
		}
		opts := append([]astral.Option{astral.WithDim(dim), astral.WithMetric(astral.Cosine), astral.WithEfSearch(astral.DefaultEfSearch), astral.WithStorage(astral.E5M2)}, c.opts...)
		want := savedInMemory(t, fset, opts, 1, filepath.Join(dir, c.name+"-mem.idx"))
		out := filepath.Join(dir, c.name+"-streamed.idx")
		line := captured(t, func() error {
			return runBuild(append([]string{"--data", file, "--threads", "1", "--out", out}, c.args...))
		})
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "%s: the streamed build saves other bytes (%d vs %d)", c.name, len(got), len(want))
		if runtime.GOOS == "linux" {
			require.Regexp(t, `; peak RSS [0-9.]+ [KMG]iB \([0-9]+ bytes\)\n`, line, c.name)
		}
		if c.name == "flat" {
			// A generated fixture streams too: the same bytes as Generate's rows.
			out := filepath.Join(dir, "gen.idx")
			captured(t, func() error {
				return runBuild(append([]string{"--data", "clustered", "--n", "25321", "--dim", "24", "--threads", "1", "--out", out}, c.args...))
			})
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "generated: the streamed build saves other bytes")
		}
	}
	// A truncated file is refused before anything is written.
	bad := filepath.Join(dir, "bad.fvecs")
	raw, err := os.ReadFile(base)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, raw[:len(raw)-3], 0o644))
	out := filepath.Join(dir, "bad.idx")
	err = runBuild([]string{"--data", bad, "--index", "flat", "--out", out})
	require.ErrorIs(t, err, fixture.ErrFvecs)
	require.ErrorContains(t, err, "record 25320: truncated")
	require.NoFileExists(t, out)
}
