package ivf

import (
	"fmt"
	"sync"
	"testing"

	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
)

// The benchmarks' index: 100,000 × 384 spectral E5M2 records with cosine's
// adjustment in benchNList partitions, built once.
const benchNList = 256

var bench100k struct {
	once sync.Once
	d    *data
	x    *Index
}

func index100k(b *testing.B) (*data, *Index) {
	bench100k.once.Do(func() {
		bench100k.d = newData(b, 100_000, 64, 384, score.AdjustScale)
		p, err := pool.New(pool.Options{Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		bench100k.x = bench100k.d.build(b, benchNList, p)
	})
	return bench100k.d, bench100k.x
}

// BenchmarkSearch100k times one query at a time at nprobe 8/16/32 on 0 and
// 1 workers (1 and 2 participants).
func BenchmarkSearch100k(b *testing.B) {
	d, x := index100k(b)
	for _, workers := range []int{0, 1} {
		p, err := pool.New(pool.Options{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		for _, nprobe := range []int{8, 16, 32} {
			b.Run(fmt.Sprintf("threads=%d/nprobe=%d", workers, nprobe), func(b *testing.B) {
				s := NewSearcher(workers + 1)
				dst := make([]score.Result, 10)
				counts := make([]int, 1)
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					copy(s.QueryBuffer(x, 1), d.set.Query(i%64))
					x.Search(s, p, 1, 10, nprobe, dst, counts)
				}
			})
		}
		p.Close()
	}
}

// BenchmarkBatch100k times a batch of 16 queries at nprobe 16.
func BenchmarkBatch100k(b *testing.B) {
	d, x := index100k(b)
	p, err := pool.New(pool.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	s := NewSearcher(2)
	dst := make([]score.Result, MaxBatch*10)
	counts := make([]int, MaxBatch)
	buf := s.QueryBuffer(x, MaxBatch)
	copy(buf, d.set.Queries[:MaxBatch*384])
	b.ReportAllocs()
	for b.Loop() {
		x.Search(s, p, MaxBatch, 10, 16, dst, counts)
	}
}

// BenchmarkTrain100k times training (the default sample) on 1 worker +
// the caller; BenchmarkAssign100k the assignment of all records.
func BenchmarkTrain100k(b *testing.B) {
	d, x := index100k(b)
	p, err := pool.New(pool.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for b.Loop() {
		y, err := New(d.kern, d.adjust, x.Config())
		if err != nil {
			b.Fatal(err)
		}
		if err := y.Train(d.recs, nil, p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAssign100k(b *testing.B) {
	d, x := index100k(b)
	p, err := pool.New(pool.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for b.Loop() {
		x.Assign(d.recs, nil, p)
	}
}
