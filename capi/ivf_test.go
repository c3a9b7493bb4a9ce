package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIVFThroughC: an ASTRAL_KIND_IVF index made through C trains at its
// training size and, probing every partition, answers as a flat index of
// the same records, single and batched; an older struct_size (no IVF
// fields) gets the defaults, which validate.
func TestIVFThroughC(t *testing.T) {
	lockThread(t)
	withRuntime(t, 1)
	const dim, n = 8, 4096 // TrainSize(4)
	r := rand.New(rand.NewPCG(21, 8))
	vecs := make([]float32, n*dim)
	for i := range vecs {
		vecs[i] = float32(r.NormFloat64())
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	ivf, st := createIndex(options{dim: dim, kind: kindIVF, nlist: 4, nprobe: 4, seed: 7})
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(ivf)
	flat, st := createIndex(options{dim: dim, kind: kindFlat})
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(flat)
	for _, h := range []uint64{ivf, flat} {
		require.Equal(t, statusOK, addVectors(h, ids, vecs), lastError())
	}
	s, st := indexStats(ivf)
	require.Equal(t, statusOK, st)
	require.Equal(t, uint32(kindIVF), s.kind)
	require.Equal(t, uint64(n), s.count)
	qs := vecs[:4*dim]
	want, st := queryBatch(flat, qs, 4, dim, 10, 40)
	require.Equal(t, statusOK, st)
	got, st := queryBatch(ivf, qs, 4, dim, 10, 40)
	require.Equal(t, statusOK, st, lastError())
	require.Equal(t, want, got)
	for i := range 4 {
		res, st := query(ivf, qs[i*dim:(i+1)*dim], 10, 10)
		require.Equal(t, statusOK, st)
		require.Equal(t, want[i], res)
	}
	old, st := createIndex(options{size: 48, dim: dim, kind: kindIVF}) // the layout before the IVF fields
	require.Equal(t, statusOK, st, lastError())
	destroyIndex(old)
}

// TestIVFPersistThroughC: a trained ASTRAL_KIND_IVF index saves to a file
// and a buffer and loads back from both (mapped and copied) with the same
// answers and stats; the mapped copy takes writes.
func TestIVFPersistThroughC(t *testing.T) {
	lockThread(t)
	withRuntime(t, 1)
	const dim, n = 8, 4096 // TrainSize(4)
	r := rand.New(rand.NewPCG(21, 9))
	vecs := randomRows(r, n, dim)
	h, st := createIndex(options{dim: dim, kind: kindIVF, nlist: 4, nprobe: 2, seed: 7})
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(h)
	require.Equal(t, statusOK, addVectors(h, ids(1, n), vecs), lastError())
	qs := vecs[:4*dim]
	want, st := queryBatch(h, qs, 4, dim, 10, 40)
	require.Equal(t, statusOK, st, lastError())
	_, need, _ := saveBuffer(h, 0)
	file, size, st := saveBuffer(h, need)
	require.Equal(t, statusOK, st, lastError())
	require.Equal(t, need, size)
	path := filepath.Join(t.TempDir(), "ivf.idx")
	require.Equal(t, statusOK, saveFile(h, path), lastError())
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, file, onDisk)
	mem, st := loadMemory(file)
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(mem)
	mapped, st := loadFile(path)
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(mapped)
	for _, y := range []uint64{mem, mapped} {
		got, st := queryBatch(y, qs, 4, dim, 10, 40)
		require.Equal(t, statusOK, st, lastError())
		require.Equal(t, want, got)
		s, st := indexStats(y)
		require.Equal(t, statusOK, st)
		require.Equal(t, uint32(kindIVF), s.kind)
		require.Equal(t, uint64(n), s.count)
	}
	fresh := randomRows(r, 1, dim)
	require.Equal(t, statusOK, addVectors(mapped, []uint64{n + 5}, fresh), lastError())
	got, _ := query(mapped, fresh, 1, 1)
	require.Equal(t, uint64(n+5), got[0].ID)
}
