package flat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/rank"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// benchShares are the shares of records holding tag bits 0, 1, ...: the
// issue's selectivities first, then the steps BenchmarkDenseBreakEven
// walks through.
var benchShares = []float64{0.001, 0.01, 0.1, 0.5, 1.0 / 16, 1.0 / 8, 1.0 / 4, 3.0 / 8, 3.0 / 4, 7.0 / 8}

// breakEvenFilters are BenchmarkDenseBreakEven's filters, by share: one
// tag bit of 1/16 to 7/8, then one every record passes.
var breakEvenFilters = []struct {
	share float64
	f     match.Filter
}{
	{1.0 / 16, match.Filter{AllTags: 1 << 4}}, {1.0 / 8, match.Filter{AllTags: 1 << 5}},
	{1.0 / 4, match.Filter{AllTags: 1 << 6}}, {3.0 / 8, match.Filter{AllTags: 1 << 7}},
	{1.0 / 2, match.Filter{AllTags: 1 << 3}}, {3.0 / 4, match.Filter{AllTags: 1 << 8}},
	{7.0 / 8, match.Filter{AllTags: 1 << 9}}, {1, match.Filter{NoTags: 1 << 63}},
}

var bench100k struct {
	once sync.Once
	x    *Index
	qs   [][]float32
}

// index100k is 100,000 × 384 E5M2 records with cosine's adjustment and
// tags drawn by benchShares and owners from 1 to 1,000 (each from its own
// seed, so the records are those BenchmarkSearch100k always timed), and
// MaxBatch queries; built once.
func index100k(b *testing.B) (*Index, [][]float32) {
	bench100k.once.Do(func() {
		const n, dim = 100000, 384
		k, err := kernel.New(nil, dim, kernel.E5M2)
		if err != nil {
			panic(err)
		}
		r := rand.New(rand.NewPCG(42, 1024))
		tr := rand.New(rand.NewPCG(42, 4242))
		or := rand.New(rand.NewPCG(42, 4343))
		x := New(k, score.AdjustScale)
		x.Reserve(n)
		rec := make([]byte, k.Stride())
		for i := range n {
			for c := range dim {
				rec[c] = kernel.EncodeE5M2(float32(r.NormFloat64() * 0.05))
			}
			a := match.Attr{Owner: 1 + or.Uint64N(n/100)}
			for bit, p := range benchShares {
				if tr.Float64() < p {
					a.Tags |= 1 << bit
				}
			}
			if err := x.Add(uint64(i), rec, float32(1+r.Float64()), 1, a); err != nil {
				panic(err)
			}
		}
		qs := make([][]float32, MaxBatch)
		for i := range qs {
			qs[i] = randomQuery(r, dim)
		}
		bench100k.x, bench100k.qs = x, qs
	})
	return bench100k.x, bench100k.qs
}

// BenchmarkSearch100k times exact search of 100,000 × 384 E5M2 records
// with cosine's adjustment: one query and a batch of 16, serial and with
// one worker plus the caller, k 10 and 100.
//
//	go test -run '^$' -bench Search100k ./flat/
func BenchmarkSearch100k(b *testing.B) {
	x, qs := index100k(b)
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

// BenchmarkSearchFiltered times the scan plan, serial, one query, k 10, at
// each issue selectivity (one tag bit), beside the unfiltered search of
// the same index: compare their ratios within one run (wall and
// cpu-ns/op).
//
//	go test -run '^$' -bench 'SearchFiltered' -count 6 ./flat/ | benchstat -col /filter -
func BenchmarkSearchFiltered(b *testing.B) {
	x, qs := index100k(b)
	s := NewSearcher(1)
	layout(x, s, qs[0])
	dst, counts := make([]score.Result, 10), make([]int, 1)
	b.Run("filter=none", func(b *testing.B) {
		loopCPU(b, func() { x.Search(s, nil, 1, 10, dst, counts) })
	})
	for bit, share := range benchShares[:4] {
		f := match.Filter{AllTags: 1 << bit}
		b.Run(fmt.Sprintf("filter=tags:%g", share), func(b *testing.B) {
			loopCPU(b, func() { x.SearchFiltered(s, nil, 1, 10, &f, dst, counts) })
		})
	}
}

// BenchmarkSearchIDs times the direct plan, serial, one query, k 10, over
// an allowlist of 100, 1,000 and 10,000 stored ids, beside the unfiltered
// search of the same index.
//
//	go test -run '^$' -bench 'SearchIDs' -count 6 ./flat/ | benchstat -col /filter -
func BenchmarkSearchIDs(b *testing.B) {
	x, qs := index100k(b)
	s := NewSearcher(1)
	layout(x, s, qs[0])
	dst, counts := make([]score.Result, 10), make([]int, 1)
	b.Run("filter=none", func(b *testing.B) {
		loopCPU(b, func() { x.Search(s, nil, 1, 10, dst, counts) })
	})
	r := rand.New(rand.NewPCG(7, 77))
	for _, n := range []int{100, 1000, 10000} {
		ids := make([]uint64, n)
		for i, v := range r.Perm(x.Len())[:n] {
			ids[i] = uint64(v)
		}
		var f match.Filter
		f.Allow.Build(ids, nil)
		b.Run(fmt.Sprintf("filter=allow:%d", n), func(b *testing.B) {
			loopCPU(b, func() { x.SearchIDs(s, nil, 1, 10, f.Allow.IDs(), &f, dst, counts) })
		})
	}
}

// BenchmarkDenseBreakEven times the scan plan at shares around the
// dense/sparse switch with every chunk gathered and with every chunk
// scored whole, one query and a batch of 16: densePercent is where the
// first stops being faster.
//
//	go test -run '^$' -bench 'DenseBreakEven' -count 6 ./flat/ | benchstat -col /path -
func BenchmarkDenseBreakEven(b *testing.B) {
	x, qs := index100k(b)
	saved := densePercent
	defer func() { densePercent = saved }()
	for _, nq := range []int{1, 2, 4, MaxBatch} {
		s := NewSearcher(1)
		layout(x, s, qs[:nq]...)
		dst, counts := make([]score.Result, nq*10), make([]int, nq)
		for _, bf := range breakEvenFilters {
			f := bf.f
			for _, path := range []struct {
				name    string
				percent int
			}{{"gather", 100}, {"whole", 0}} {
				b.Run(fmt.Sprintf("batch=%d/share=%.4f/path=%s", nq, bf.share, path.name), func(b *testing.B) {
					densePercent = path.percent
					loopCPU(b, func() { x.SearchFiltered(s, nil, nq, 10, &f, dst, counts) })
				})
			}
		}
	}
}

// loopCPU times body with b.Loop and also reports the process CPU time per
// call (cpu-ns/op): on a shared machine a serial search's wall time swings
// with the other load, its CPU time much less.
func loopCPU(b *testing.B, body func()) {
	start := cpuTime()
	for b.Loop() {
		body()
	}
	if start >= 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkBudgeted100k times a budgeted search that never runs out (the
// interleaved block order and a clock read per block) beside the plain
// search, one query, k 10, serial and with one worker: compare within one
// run.
//
//	go test -run '^$' -bench Budgeted100k -count 6 ./flat/ | benchstat -col /search -
func BenchmarkBudgeted100k(b *testing.B) {
	x, qs := index100k(b)
	p, err := pool.New(pool.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, workers := range []int{0, 1} {
		for _, search := range []string{"plain", "budgeted"} {
			b.Run(fmt.Sprintf("workers=%d/search=%s", workers, search), func(b *testing.B) {
				wp := map[bool]*pool.Pool{true: p}[workers == 1]
				s := NewSearcher(2)
				layout(x, s, qs[0])
				dst, counts := make([]score.Result, 10), make([]int, 1)
				for b.Loop() {
					if search == "budgeted" {
						s.SetBudget(time.Now(), time.Hour)
					}
					x.Search(s, wp, 1, 10, dst, counts)
				}
			})
		}
	}
}

// BenchmarkDeadlineCheck times one deadline test each way: time.Since on a
// start read with the monotonic clock (what the scans use: one monotonic
// clock read) and time.Now compared with a deadline (wall and monotonic).
func BenchmarkDeadlineCheck(b *testing.B) {
	start := time.Now()
	deadline := start.Add(time.Hour)
	var n int
	b.Run("clock=since", func(b *testing.B) {
		for b.Loop() {
			if time.Since(start) >= time.Hour {
				n++
			}
		}
	})
	b.Run("clock=now", func(b *testing.B) {
		for b.Loop() {
			if time.Now().After(deadline) {
				n++
			}
		}
	})
	_ = n
}

// BenchmarkRanked100k times a ranked scan (weights 1:1:1, half-life 1,000,
// the bench fixture's times and importances, a unit query) beside the plain scan of the
// same index, serial, one query, k 10: compare the two within one run.
//
//	go test -run '^$' -bench Ranked100k -count 6 ./flat/ | benchstat -col /rank -
func BenchmarkRanked100k(b *testing.B) {
	x, qs := index100k(b)
	times, imps := fixture.Memories(x.Len())
	setMemories := func(times []int64, imps []float32) {
		for i, id := range x.ids {
			x.SetTime(id, times[i])
			x.SetImportance(id, imps[i])
		}
		x.rebuildCeilings()
	}
	defer setMemories(slices.Clone(x.times), slices.Clone(x.imps))
	setMemories(times, imps)
	r := rank.NewScorer(&rank.Params{Relevance: 1, Recency: 1, Importance: 1, Decay: math.Pow(0.5, 1.0/1000), Now: fixture.MemoryNow})
	// A unit query: similarities on cosine's scale, as the bench's are.
	q, norm := slices.Clone(qs[0]), 0.0
	for _, v := range q {
		norm += float64(v) * float64(v)
	}
	for i := range q {
		q[i] /= float32(math.Sqrt(norm))
	}
	s := NewSearcher(1)
	layout(x, s, q)
	dst, counts := make([]score.Result, 10), make([]int, 1)
	for _, ranked := range []bool{false, true} {
		b.Run(fmt.Sprintf("rank=%v", ranked), func(b *testing.B) {
			s.SetRank(map[bool]*rank.Scorer{true: &r}[ranked])
			defer s.SetRank(nil)
			loopCPU(b, func() { x.Search(s, nil, 1, 10, dst, counts) })
		})
	}
}
