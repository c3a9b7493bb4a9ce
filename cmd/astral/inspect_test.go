package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/astral-engine/astral/astral"
)

// TestBuildInspect: build writes an index file that inspect verifies; on a
// damaged or truncated file inspect fails with a one-line reason.
func TestBuildInspect(t *testing.T) {
	dir := t.TempDir()
	for _, index := range []string{"flat", "hnsw", "auto"} {
		path := filepath.Join(dir, index+".idx")
		require.NoError(t, runBuild([]string{"--data", "clustered", "--n", "600", "--dim", "24", "--index", index, "--out", path}))
		require.NoError(t, runInspect([]string{path}))
	}
	good, err := os.ReadFile(filepath.Join(dir, "hnsw.idx"))
	require.NoError(t, err)
	for name, b := range map[string][]byte{
		"flipped":   flip(good, len(good)/2),
		"truncated": good[:len(good)/3],
		"header":    flip(good, 20),
		"tiny":      good[:10],
		"garbage":   []byte(strings.Repeat("not an index ", 20)),
	} {
		path := filepath.Join(dir, name+".idx")
		require.NoError(t, os.WriteFile(path, b, 0o644))
		err := runInspect([]string{path})
		require.Error(t, err, name)
		require.NotContains(t, err.Error(), "\n", name)
		require.Contains(t, err.Error(), "corrupt", name)
	}
	fvecs := filepath.Join(dir, "base.fvecs")
	require.NoError(t, runFixture([]string{"--data", "random", "--n", "300", "--nq", "2", "--dim", "16", "--out", fvecs, "--queries-out", filepath.Join(dir, "q.fvecs")}))
	require.NoError(t, runBuild([]string{"--data", fvecs, "--index", "flat", "--metric", "l2", "--out", filepath.Join(dir, "file.idx")}))
	require.NoError(t, runInspect([]string{filepath.Join(dir, "file.idx")}))
	require.Error(t, runInspect([]string{filepath.Join(dir, "missing.idx")}))
	require.Error(t, runBuild([]string{"--data", "random", "--index", "tree", "--out", filepath.Join(dir, "x.idx")}))
}

// TestBuildInspectIVF: build --index ivf saves a trained IVF index (or,
// below the training size, an untrained one) that inspect verifies and
// describes, and that opens with the partitions and nprobe it was built
// with.
func TestBuildInspectIVF(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	old := stdout
	stdout = &buf
	defer func() { stdout = old }()
	run := func(fn func([]string) error, args ...string) string {
		t.Helper()
		buf.Reset()
		require.NoError(t, fn(args))
		return buf.String()
	}
	path := filepath.Join(dir, "ivf.idx")
	n := astral.TrainSize(2) + 100
	out := run(runBuild, "--data", "random", "--n", fmt.Sprint(n), "--dim", "8",
		"--index", "ivf", "--nlist", "2", "--nprobe", "1", "--threads", "0", "--out", path)
	require.Contains(t, out, "ivf: 2 partitions, nprobe 1")
	out = run(runInspect, path)
	for _, w := range []string{"index      ivf (configured ivf)", "options    nlist 2, nprobe 1", "2 partitions, split size",
		"centroids", "partitions", "ivf        2 partitions, " + fmt.Sprint(n) + " records", "ok         every checksum"} {
		require.Contains(t, out, w)
	}
	x, err := astral.OpenFile(nil, path)
	require.NoError(t, err)
	require.Equal(t, n, x.Len())
	require.Equal(t, 1, x.Config().NProbe)
	require.NoError(t, x.Close())
	// astral add appends to the file; inspect shows the generation.
	out = run(runAdd, "--index-file", path, "--data", "random", "--n", "20", "--threads", "0")
	require.Contains(t, out, fmt.Sprintf("added 20 vectors (ids %d to %d)", 1<<32, 1<<32+19))
	require.Contains(t, out, ": appended, ")
	out = run(runInspect, path)
	require.Contains(t, out, "appends    generation 2")
	require.Contains(t, out, fmt.Sprintf("ivf        2 partitions, %d records", n+20))
	require.Error(t, runAdd([]string{"--index-file", path, "--data", "random", "--n", "20"}), "the same ids again")
	require.Error(t, runAdd([]string{"--data", "random"}), "no --index-file")
	small := filepath.Join(dir, "small.idx")
	out = run(runBuild, "--data", "random", "--n", "50", "--dim", "8", "--index", "ivf", "--nlist", "8", "--out", small)
	require.Contains(t, out, "not trained")
	out = run(runInspect, small)
	require.Contains(t, out, "not trained (an exact scan)")
}

func flip(b []byte, at int) []byte {
	c := append([]byte{}, b...)
	c[at] ^= 0x40
	return c
}

// TestBuildInspectAutoIVF: build --index auto past --ivf-limit saves an
// auto index grown into IVF, which inspect describes as such and which
// opens still auto, holding IVF.
func TestBuildInspectAutoIVF(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	old := stdout
	stdout = &buf
	defer func() { stdout = old }()
	path := filepath.Join(dir, "auto.idx")
	require.NoError(t, runBuild([]string{"--data", "random", "--n", "600", "--dim", "8", "--index", "auto",
		"--ivf-limit", "500", "--threads", "0", "--out", path}))
	require.Contains(t, buf.String(), "built ivf index (auto)")
	require.Contains(t, buf.String(), "ivf: 15 partitions, nprobe 1")
	buf.Reset()
	require.NoError(t, runInspect([]string{path}))
	for _, w := range []string{"index      ivf (configured auto)", "options    nlist 15, nprobe 1", "15 partitions, split size",
		"ok         every checksum"} {
		require.Contains(t, buf.String(), w)
	}
	x, err := astral.OpenFile(nil, path)
	require.NoError(t, err)
	require.Equal(t, astral.KindAuto, x.Config().Kind)
	require.Equal(t, astral.KindIVF, x.Stats().Kind)
	require.Equal(t, 1, x.NProbe())
	require.NoError(t, x.Close())
}

// TestInspectTagNames: inspect lists the tag-names section and the names.
func TestInspectTagNames(t *testing.T) {
	x, err := astral.NewIndex(nil, astral.WithDim(4))
	require.NoError(t, err)
	require.NoError(t, x.Add([]uint64{1}, []float32{1, 2, 3, 4}))
	require.NoError(t, x.SetTagName(0, "Threat"))
	require.NoError(t, x.SetTagName(12, "Quest.Main"))
	path := filepath.Join(t.TempDir(), "names.idx")
	require.NoError(t, x.SaveFile(path))
	var buf bytes.Buffer
	old := stdout
	stdout = &buf
	defer func() { stdout = old }()
	require.NoError(t, runInspect([]string{path}))
	require.Contains(t, buf.String(), "tag-names")
	require.Contains(t, buf.String(), `tag names  0 "Threat", 12 "Quest.Main"`)
	require.Contains(t, buf.String(), "format     version 6") // flat files stay version 6
}
