package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/astral-engine/astral/astral"
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

	// Saved back to the file it was loaded from: appended, a fraction of it.
	bytes, appended, st := lastSave(mapped, false)
	require.Equal(t, statusOK, st)
	require.Zero(t, bytes)
	require.False(t, appended)
	require.Equal(t, statusOK, saveFile(mapped, path), lastError())
	bytes, appended, st = lastSave(mapped, false)
	require.Equal(t, statusOK, st)
	require.True(t, appended)
	require.Positive(t, bytes)
	require.Less(t, bytes, uint64(len(file))/4)
	again, st := loadFile(path)
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(again)
	got, _ = query(again, fresh, 1, 1)
	require.Equal(t, uint64(n+5), got[0].ID)
	// A whole save: appended 0, its bytes the file's.
	require.Equal(t, statusOK, saveFile(h, path), lastError())
	bytes, appended, _ = lastSave(h, false)
	require.False(t, appended)
	require.Equal(t, uint64(len(file)), bytes)
	_, _, st = lastSave(h, true)
	requireFails(t, stInvalid, st, "astral_index_last_save", "NULL")
	_, _, st = lastSave(1<<40, false)
	require.Equal(t, stStale, st)
}

// TestIVFNProbeAndStatsThroughC: AstralQueryOptions' nprobe overrides the
// index's for one query (past the partitions: the flat answer, ranked or
// not); the layout before it (struct_size 112) gets the index's; reserved3
// and an nprobe past 2^20 are refused. AstralStats reports the partitions,
// the largest and its share, and the dirty ones until a save.
func TestIVFNProbeAndStatsThroughC(t *testing.T) {
	lockThread(t)
	withRuntime(t, 1)
	const dim, n = 8, 4096 // TrainSize(4)
	r := rand.New(rand.NewPCG(21, 10))
	vecs := randomRows(r, n, dim)
	ivf, st := createIndex(options{dim: dim, kind: kindIVF, nlist: 4, nprobe: 1, seed: 7})
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(ivf)
	flat, st := createIndex(options{dim: dim, kind: kindFlat})
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(flat)
	for _, h := range []uint64{ivf, flat} {
		require.Equal(t, statusOK, addVectors(h, ids(1, n), vecs), lastError())
	}
	s, st := indexStats(ivf)
	require.Equal(t, statusOK, st)
	require.Equal(t, uint32(4), s.ivfPartitions)
	require.Equal(t, uint32(4), s.ivfDirty, "nothing saved yet")
	require.Greater(t, s.ivfLargest, uint64(n/4-1))
	require.InDelta(t, float64(s.ivfLargest)/n, s.ivfShare, 1e-12)
	fs, st := indexStats(flat)
	require.Equal(t, statusOK, st)
	require.Zero(t, fs.ivfPartitions+fs.ivfDirty)
	_, need, _ := saveBuffer(ivf, 0)
	_, _, st = saveBuffer(ivf, need)
	require.Equal(t, statusOK, st, lastError())
	s, _ = indexStats(ivf)
	require.Zero(t, s.ivfDirty, "a save clears the dirty set")

	ranked := astral.Rank{Relevance: 1, Importance: 1}
	for i := range 4 {
		q := vecs[i*dim : (i+1)*dim]
		for _, rk := range []astral.Rank{{}, ranked} {
			want, st := queryNProbe(flat, q, 10, rk, 0, 0, 0)
			require.Equal(t, statusOK, st, lastError())
			for _, np := range []uint32{4, 1 << 20} {
				got, st := queryNProbe(ivf, q, 10, rk, np, 0, 0)
				require.Equal(t, statusOK, st, lastError())
				require.Equal(t, want, got, "query %d nprobe %d", i, np)
			}
		}
		one, st := queryNProbe(ivf, q, 10, astral.Rank{}, 1, 0, 0)
		require.Equal(t, statusOK, st)
		old, st := queryNProbe(ivf, q, 10, astral.Rank{}, 4, 0, queryOptionsV2Size())
		require.Equal(t, statusOK, st, lastError())
		require.Equal(t, one, old, "the layout before nprobe: the index's")
	}
	_, st = queryNProbe(ivf, vecs[:dim], 10, astral.Rank{}, 0, 1, 0)
	require.Equal(t, stInvalid, st)
	require.Contains(t, lastError(), "reserved3")
	_, st = queryNProbe(ivf, vecs[:dim], 10, astral.Rank{}, 1<<20+1, 0, 0)
	require.Equal(t, stInvalid, st)
	require.Contains(t, lastError(), "nprobe")
}

// TestAutoIVFThroughC: an ASTRAL_KIND_AUTO index past ivf_limit_records
// grows into IVF (a save finishes the switch) and, probing every
// partition, answers as a flat index; a negative limit keeps it flat, and
// the layout before the limit (struct_size 64) gets the default.
func TestAutoIVFThroughC(t *testing.T) {
	lockThread(t)
	withRuntime(t, 1)
	const dim, n = 8, 600
	vecs := randomRows(rand.New(rand.NewPCG(21, 10)), n, dim)
	auto, st := createIndex(options{dim: dim, kind: kindAuto, nlist: 4, nprobe: 4, ivfLimit: 500})
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(auto)
	never, st := createIndex(options{dim: dim, kind: kindAuto, ivfLimit: -1})
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(never)
	flat, st := createIndex(options{dim: dim, kind: kindFlat})
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(flat)
	for _, h := range []uint64{auto, never, flat} {
		require.Equal(t, statusOK, addVectors(h, ids(1, n), vecs), lastError())
		_, need, _ := saveBuffer(h, 0)
		_, _, st = saveBuffer(h, need)
		require.Equal(t, statusOK, st, lastError())
	}
	for h, kind := range map[uint64]int{auto: kindIVF, never: kindFlat} {
		s, st := indexStats(h)
		require.Equal(t, statusOK, st)
		require.Equal(t, uint32(kind), s.kind)
	}
	s, _ := indexStats(auto)
	require.Equal(t, uint32(4), s.ivfPartitions)
	qs := vecs[:4*dim]
	want, st := queryBatch(flat, qs, 4, dim, 10, 40)
	require.Equal(t, statusOK, st)
	got, st := queryBatch(auto, qs, 4, dim, 10, 40)
	require.Equal(t, statusOK, st, lastError())
	require.Equal(t, want, got)
	old, st := createIndex(options{size: 64, dim: dim, ivfLimit: 1}) // the layout before the limit: not read
	require.Equal(t, statusOK, st, lastError())
	defer destroyIndex(old)
	require.Equal(t, statusOK, addVectors(old, ids(1, 4), vecs[:4*dim]), lastError())
	_, need, _ := saveBuffer(old, 0)
	_, _, st = saveBuffer(old, need)
	require.Equal(t, statusOK, st, lastError())
	s, _ = indexStats(old)
	require.Equal(t, uint32(kindFlat), s.kind)
}
