package astral

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// saveScript runs one fixed sequence of adds and removes, saving after the
// removes that start a compaction (and after the adds that start an auto
// index's switch to a graph), and returns the saved files.
func saveScript(t *testing.T, rt *Runtime, opts ...Option) [][]byte {
	t.Helper()
	const dim = 32
	x, err := NewIndex(rt, append([]Option{WithDim(dim), WithHNSW(8, 40)}, opts...)...)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(5, 6))
	var files [][]byte
	save := func() {
		var b bytes.Buffer
		require.NoError(t, x.Save(&b))
		files = append(files, b.Bytes())
	}
	require.NoError(t, x.Add(seqIDs(0, 300), randomVectors(r, 300, dim))) // one parallel build
	save()
	for i := range 4 {
		require.NoError(t, x.Add(seqIDs(1000+10*i, 10), randomVectors(r, 10, dim))) // inserts
	}
	require.NoError(t, x.Remove(seqIDs(0, 30)...))
	require.NoError(t, x.Remove(seqIDs(100, 60)...)) // a fifth deleted: a compaction starts
	save()
	require.NoError(t, x.Add(seqIDs(2000, 20), randomVectors(r, 20, dim)))
	require.NoError(t, x.Remove(seqIDs(200, 70)...)) // and another
	save()
	require.NoError(t, x.Remove(1000, 1001))
	save()
	return files
}

// TestSaveDeterministic: the same calls give the same bytes, whether or not
// a background compaction or switch to a graph has run by the time of the
// save, for every index kind and storage, with or without workers.
func TestSaveDeterministic(t *testing.T) {
	// Each round repeats the script against the serial first run, cycling
	// through 3 workers, 1 and none. Two rounds already compare both
	// worker counts with the serial run; more rounds only give the
	// background work more chances to finish at other moments. Under qemu
	// one round (3 workers against serial): the timing-dependent rounds are
	// the native runs' job, this proves the arm64 kernels' graphs save alike.
	rounds := sized(6, 2)
	if testsize.Emulated() {
		rounds = 1
	}
	rts := []*Runtime{newRuntime(t, 3), newRuntime(t, 1), nil}
	storages := []struct {
		name string
		opts []Option
	}{
		{"e5m2", []Option{WithStorage(E5M2)}},
		{"e4m3", []Option{WithStorage(E4M3), WithMetric(L2)}},
		{"int8", []Option{WithStorage(Int8), WithMetric(Dot)}},
		{"f16", []Option{WithStorage(F16)}},
		{"f32", []Option{WithStorage(F32), WithMetric(L2)}},
		{"e5m2+rerank", []Option{WithStorage(E5M2), WithRerank(F32, 4)}},
	}
	kinds := []struct {
		name string
		opts []Option
	}{
		{"flat", []Option{WithKind(KindFlat)}},
		{"hnsw", []Option{WithKind(KindHNSW)}},
		// 300 records of 64 bytes and more pass 8000 bytes: the first Add
		// starts a switch that the later calls race.
		{"auto", []Option{WithKind(KindAuto), WithFlatLimitBytes(8000)}},
		// Trained by the first Add, on its workers; then partitions change.
		{"ivf", []Option{WithKind(KindIVF), WithIVF(8, 3), withIVFTrainAt(200)}},
	}
	for ki, k := range kinds {
		for si, s := range storages {
			if !testsize.Rotate(ki+si, 3) {
				continue // Reduced: each kind with 2 storages, each storage with a kind
			}
			t.Run(k.name+"/"+s.name, func(t *testing.T) {
				opts := append(append([]Option{}, k.opts...), s.opts...)
				want := saveScript(t, nil, opts...)
				for round := range rounds {
					got := saveScript(t, rts[round%len(rts)], opts...)
					for i := range want {
						require.True(t, bytes.Equal(want[i], got[i]),
							fmt.Sprintf("round %d, save %d: %d bytes, first run %d", round, i, len(got[i]), len(want[i])))
					}
				}
			})
		}
	}
}
