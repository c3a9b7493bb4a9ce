package flat

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// BenchmarkSearch100k times exact search of 100,000 × 384 E5M2 records
// with cosine's adjustment: one query and a batch of 16, serial and with
// one worker plus the caller, k 10 and 100.
//
//	go test -run '^$' -bench Search100k ./flat/
func BenchmarkSearch100k(b *testing.B) {
	const n, dim = 100000, 384
	k, err := kernel.New(nil, dim, kernel.E5M2)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(42, 1024))
	x := New(k, score.AdjustScale)
	x.Reserve(n)
	rec := make([]byte, k.Stride())
	for i := range n {
		for c := range dim {
			rec[c] = kernel.EncodeE5M2(float32(r.NormFloat64() * 0.05))
		}
		if err := x.Add(uint64(i), rec, float32(1+r.Float64()), 1, match.Attr{}); err != nil {
			b.Fatal(err)
		}
	}
	qs := make([][]float32, MaxBatch)
	for i := range qs {
		qs[i] = randomQuery(r, dim)
	}
	p, err := pool.New(pool.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, workers := range []int{0, 1} {
		for _, nq := range []int{1, MaxBatch} {
			for _, kk := range []int{10, 100} {
				b.Run(fmt.Sprintf("workers=%d/batch=%d/k=%d", workers, nq, kk), func(b *testing.B) {
					wp := map[bool]*pool.Pool{true: p}[workers == 1]
					s := NewSearcher(2)
					layout(x, s, qs[:nq]...)
					dst, counts := make([]score.Result, nq*kk), make([]int, nq)
					for b.Loop() {
						x.Search(s, wp, nq, kk, dst, counts)
					}
				})
			}
		}
	}
}
