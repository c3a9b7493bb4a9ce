package astral

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkQuery is one query on 100,000 × 384 vectors, serial and with one
// worker: the reference workload's shape on random data.
func BenchmarkQuery(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	vecs := randomVectors(r, 100000, 384)
	q := randomVectors(r, 1, 384)
	for _, threads := range []int{0, 1} {
		rt := newRuntime(b, threads)
		x, err := NewIndex(rt, WithDim(384))
		if err != nil {
			b.Fatal(err)
		}
		if err := x.Add(seqIDs(0, 100000), vecs); err != nil {
			b.Fatal(err)
		}
		b.Run("threads="+string(rune('0'+threads)), func(b *testing.B) {
			dst := make([]Result, 0, 10)
			b.SetBytes(100000 * 384)
			for b.Loop() {
				dst, _ = x.Query(dst, q, 10)
			}
		})
	}
}
