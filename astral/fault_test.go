package astral

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTruncatedMapping: another process truncates a mapped index file.
// Queries, one at a time and batched, on the caller and on workers, return
// ErrIO instead of killing the process, and the index then refuses writes
// and saves with the same error.
func TestTruncatedMapping(t *testing.T) {
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		for _, threads := range []int{0, 2} {
			t.Run(kind.String()+"/"+string(rune('0'+threads)), func(t *testing.T) {
				rt := newRuntime(t, threads)
				n := 20000 // enough records for the workers to share a flat scan
				if kind == KindHNSW {
					// Any graph whose records pass the 4096 bytes kept
					// faults: 600 records of 64 dims with an f32 copy take
					// 190 KB.
					n = sized(3000, 600)
				}
				x := testIndex(t, rt, kind, Cosine, n, 64, WithRerank(F32, 2))
				path := filepath.Join(t.TempDir(), "x.idx")
				require.NoError(t, x.SaveFile(path))
				y, err := OpenFile(rt, path)
				require.NoError(t, err)
				require.True(t, y.Mapped())
				if kind == KindFlat && threads > 0 {
					require.Greater(t, y.Stats().Participants, 1, "the workers read the mapping too")
				}
				q := make([]float32, 64)
				q[0] = 1
				_, err = y.Query(nil, q, 10)
				require.NoError(t, err)

				require.NoError(t, os.Truncate(path, 4096))
				_, err = y.Query(nil, q, 10)
				require.ErrorIs(t, err, ErrIO)
				counts := make([]int, 3)
				_, err = y.QueryBatch(nil, counts, append(append(q, q...), q...), 10)
				require.ErrorIs(t, err, ErrIO)
				require.ErrorIs(t, y.Add([]uint64{1}, q), ErrIO)
				require.ErrorIs(t, y.Remove(10), ErrIO)
				require.ErrorIs(t, y.Save(discard{}), ErrIO)
				require.ErrorIs(t, y.Verify(), ErrIO)
				require.NoError(t, y.Close())
			})
		}
	}
}

// TestTruncatedMappingWrite: the first write copies the mapping; if the
// file shrank first, the write reports ErrIO.
func TestTruncatedMappingWrite(t *testing.T) {
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		t.Run(kind.String(), func(t *testing.T) {
			x := testIndex(t, nil, kind, L2, sized(2000, 500), 64) // far past the 4096 bytes kept
			path := filepath.Join(t.TempDir(), "x.idx")
			require.NoError(t, x.SaveFile(path))
			y, err := OpenFile(nil, path)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(path, 4096))
			require.ErrorIs(t, y.Save(discard{}), ErrIO)
			err = y.Remove(10)
			require.True(t, errors.Is(err, ErrIO), "%v", err)
			_, err = y.Query(nil, make([]float32, 64), 5)
			require.ErrorIs(t, err, ErrIO)
		})
	}
}

// TestTruncatedMappingBackgroundCheck: the file shrinks before the
// background check reads its bulk: Verify reports ErrIO.
func TestTruncatedMappingBackgroundCheck(t *testing.T) {
	rt := newRuntime(t, 1)
	// Short: a smaller file, so the check more often ends before the
	// truncation (allowed below); the query's fault is checked every round.
	x := testIndex(t, rt, KindHNSW, Cosine, sized(3000, 1000), 64)
	path := filepath.Join(t.TempDir(), "x.idx")
	require.NoError(t, x.SaveFile(path))
	for range sized(20, 5) {
		y, err := OpenFile(rt, path, VerifyInBackground())
		require.NoError(t, err)
		require.NoError(t, os.Truncate(path, 4096))
		err = y.Verify()
		// The check may have read everything before the truncation.
		if err != nil {
			require.ErrorIs(t, err, ErrIO)
		}
		_, err = y.Query(nil, make([]float32, 64), 5)
		require.ErrorIs(t, err, ErrIO) // the records fault in any case
		require.NoError(t, y.Close())
		require.NoError(t, x.SaveFile(path))
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkQueryFaultGuard compares a query on a mapped index with and
// without the fault guard, in one run: benchstat the two sub-benchmarks.
func BenchmarkQueryFaultGuard(b *testing.B) {
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		x := testIndex(b, nil, kind, Cosine, 20000, 384)
		path := filepath.Join(b.TempDir(), "x.idx")
		require.NoError(b, x.SaveFile(path))
		y, err := OpenFile(nil, path)
		require.NoError(b, err)
		q := randomVectors(rand.New(rand.NewPCG(1, 2)), 1, 384)
		dst := make([]Result, 10)
		b.Run(kind.String()+"/guarded", func(b *testing.B) {
			for b.Loop() {
				if _, err := y.Query(dst, q, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kind.String()+"/bare", func(b *testing.B) {
			for b.Loop() {
				if _, _, err := y.query(dst, q, &QueryOptions{K: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
