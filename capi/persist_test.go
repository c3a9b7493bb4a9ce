package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPersistRoundTrips: save to a buffer and a file, load from memory and
// by mapping: the same answers; writes to a mapped index; destroy unmaps.
func TestPersistRoundTrips(t *testing.T) {
	lockThread(t)
	withRuntime(t, 1)
	r := rand.New(rand.NewPCG(1, 1))
	for _, kind := range []uint32{kindFlat, kindHNSW} {
		h, st := createIndex(options{dim: 12, kind: kind})
		require.Equal(t, stOK, st, lastError())
		require.Equal(t, stOK, addVectors(h, ids(0, 400), randomRows(r, 400, 12)))
		q := randomRows(r, 1, 12)
		want, st := query(h, q, 10, 10)
		require.Equal(t, stOK, st)

		_, need, st := saveBuffer(h, 0)
		requireFails(t, stBufferTooSmall, st, "astral_index_save_to_buffer", "needs")
		_, size, st := saveBuffer(h, need-1)
		requireFails(t, stBufferTooSmall, st, "astral_index_save_to_buffer", "needs")
		require.Equal(t, need, size)
		file, size, st := saveBuffer(h, need+100)
		require.Equal(t, stOK, st, lastError())
		require.Equal(t, need, size)

		mem, st := loadMemory(file)
		require.Equal(t, stOK, st, lastError())
		got, _ := query(mem, q, 10, 10)
		require.Equal(t, want, got)

		path := filepath.Join(t.TempDir(), "x.idx")
		require.Equal(t, stOK, saveFile(h, path), lastError())
		onDisk, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, file, onDisk)
		mapped, st := loadFile(path)
		require.Equal(t, stOK, st, lastError())
		got, _ = query(mapped, q, 10, 10)
		require.Equal(t, want, got)
		require.Equal(t, stOK, addVectors(mapped, []uint64{9999}, q))
		got, _ = query(mapped, q, 1, 1)
		require.Equal(t, uint64(9999), got[0].ID)

		for _, x := range []uint64{h, mem, mapped} {
			require.Equal(t, stOK, destroyIndex(x))
		}
	}
}

// TestPersistDamage: damaged data and bad arguments get their statuses.
func TestPersistDamage(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	h := newIndex(t, 8)
	defer destroyIndex(h)
	require.Equal(t, stOK, addVectors(h, ids(0, 50), randomRows(rand.New(rand.NewPCG(2, 2)), 50, 8)))
	file, _, st := saveBuffer(h, 1<<20)
	require.Equal(t, stOK, st)

	bad := append([]byte{}, file...)
	bad[len(bad)/2] ^= 1
	x, st := loadMemory(bad)
	requireFails(t, stCorrupt, st, "astral_index_load_from_memory", "checksum")
	require.Zero(t, x)
	_, st = loadMemory(file[:len(file)-1])
	requireFails(t, stCorrupt, st, "astral_index_load_from_memory", "truncated")
	_, st = loadMemory(nil)
	requireFails(t, stCorrupt, st, "astral_index_load_from_memory", "truncated")
	bad = append([]byte{}, file...)
	bad[8] = 9 // version 9, and a header checksum that no longer matches
	_, st = loadMemory(bad)
	requireFails(t, stCorrupt, st, "astral_index_load_from_memory", "header checksum")

	dir := t.TempDir()
	_, st = loadFile(filepath.Join(dir, "none.idx"))
	requireFails(t, stIO, st, "astral_index_load", "no such file")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.idx"), file[:300], 0o644))
	_, st = loadFile(filepath.Join(dir, "bad.idx"))
	requireFails(t, stCorrupt, st, "astral_index_load", "truncated")
	requireFails(t, stIO, saveFile(h, filepath.Join(dir, "no", "dir.idx")), "astral_index_save", "no such file")
	requireFails(t, stInvalid, saveFile(h, ""), "astral_index_save", "path")
	_, st = loadFile("")
	requireFails(t, stInvalid, st, "astral_index_load", "path")
}

// TestPersistConcurrent: saves, loads and destroys of mapped indexes from
// many goroutines beside queries (run under -race).
func TestPersistConcurrent(t *testing.T) {
	withRuntime(t, 1)
	h := newIndex(t, 16)
	defer destroyIndex(h)
	require.Equal(t, stOK, addVectors(h, ids(0, 300), randomRows(rand.New(rand.NewPCG(3, 3)), 300, 16)))
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := filepath.Join(dir, "idx"+string(rune('a'+g)))
			q := randomRows(rand.New(rand.NewPCG(uint64(g), 9)), 1, 16)
			for range 10 {
				if st := saveFile(h, path); st != stOK {
					errs <- "save: " + statusString(st)
					return
				}
				m, st := loadFile(path)
				if st != stOK {
					errs <- "load: " + statusString(st)
					return
				}
				if res, st := query(m, q, 5, 5); st != stOK || len(res) != 5 {
					errs <- "query: " + statusString(st)
				}
				if st := destroyIndex(m); st != stOK {
					errs <- "destroy: " + statusString(st)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
