package ivf

import (
	"fmt"
	"sync"
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/rank"
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

// BenchmarkAssignDirection compares the two ways to score n records
// against nlist centroids: records decoded and laid out as queries, 16 at
// a time, against the centroids as F32 records (what Assign does), and
// the reverse, centroids as queries, 16 at a time, against the stored
// E5M2 records (one pass over the records per 16 centroids).
func BenchmarkAssignDirection(b *testing.B) {
	const n, nlist = 20000, 256
	d := newData(b, n, 1, 384, score.AdjustNone)
	x, err := New(d.kern, d.adjust, Config{Dim: 384, NList: nlist, Seed: 1, Sample: 8192, Rounds: 2})
	if err != nil {
		b.Fatal(err)
	}
	if err := x.Train(d.recs, nil, nil); err != nil {
		b.Fatal(err)
	}
	b.Run("records-as-queries", func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			x.Assign(d.recs, nil, nil)
		}
		b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
	})
	b.Run("centroids-as-queries", func(b *testing.B) {
		ql := x.kern.QueryLen()
		qps := make([]float32, MaxBatch*ql)
		scratch := make([]float32, ql)
		out := make([]float32, MaxBatch*chunk)
		bestScore := make([]float32, n)
		bestIdx := make([]int32, n)
		c0 := cpuTime()
		defer func() { b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op") }()
		for b.Loop() {
			for i := range bestScore {
				bestScore[i] = float32(-1e30)
			}
			for lo := 0; lo < nlist; lo += MaxBatch {
				nq := min(MaxBatch, nlist-lo)
				for q := 0; q < nq; q++ {
					x.kern.PrepareQuery(qps[q*ql:(q+1)*ql], x.cents.vec(lo+q))
				}
				for base := 0; base < n; base += chunk {
					m := min(chunk, n-base)
					o := out[:nq*m]
					x.kern.ScanBatch(qps[:nq*ql], nq, d.recs[base*x.stride:(base+m)*x.stride], scratch, o)
					for q := 0; q < nq; q++ {
						for r, s := range o[q*m : (q+1)*m] {
							if s > bestScore[base+r] {
								bestScore[base+r], bestIdx[base+r] = s, int32(lo+q)
							}
						}
					}
				}
			}
		}
	})
}

// BenchmarkRanked100k times one ranked query at a time (the bench
// fixture's times and importances; equal weights, or relevance and
// importance, half-life 1000) against the plain query, at nprobe 16, 32
// and every partition, on 0 workers. cpu-us/op is the process's CPU time
// per query: with no workers that is the query's own cost, whatever the
// machine's load does to wall time.
func BenchmarkRanked100k(b *testing.B) {
	d, x := index100k(b)
	times, imps := fixture.Memories(len(d.ids))
	for i, id := range d.ids {
		x.SetTime(id, times[i])
		x.SetImportance(id, imps[i])
	}
	specs := []fixture.RankSpec{{Relevance: 1}, {Relevance: 1, Recency: 1, Importance: 1, HalfLife: 1000},
		{Relevance: 1, Importance: 1, HalfLife: 1000}}
	for _, nprobe := range []int{16, 32, benchNList} {
		for _, spec := range specs {
			p := spec.Params()
			scorer := rank.NewScorer(&p)
			b.Run(fmt.Sprintf("nprobe=%d/rank=%v", nprobe, spec), func(b *testing.B) {
				s := NewSearcher(1)
				if spec.On() {
					s.SetRank(&scorer)
				}
				dst := make([]score.Result, 10)
				counts := make([]int, 1)
				b.ReportAllocs()
				cpu := cpuTime()
				for i := 0; b.Loop(); i++ {
					copy(s.QueryBuffer(x, 1), d.set.Query(i%64))
					x.Search(s, nil, 1, 10, nprobe, dst, counts)
				}
				b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-us/op")
			})
		}
	}
}
