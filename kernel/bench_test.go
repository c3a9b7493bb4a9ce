package kernel

import (
	"math/rand/v2"
	"testing"
)

func benchScan(b *testing.B, impl *Impl, dim, n int) {
	r := rand.New(rand.NewPCG(1, 1))
	k, err := New(impl, dim, E5M2)
	if err != nil {
		b.Fatal(err)
	}
	recs := paddedRecords(r, n, dim)
	q := make([]float32, dim)
	randomQuery(r, q)
	qp := LayoutQuery(make([]float32, k.QueryLen()), q)
	out := make([]float32, n)
	b.SetBytes(int64(n * k.Stride()))
	b.ResetTimer()
	for b.Loop() {
		k.Scan(qp, recs, out)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
}

// BenchmarkScanL1 scores 32 records that stay in L1: the kernel's compute cost.
func BenchmarkScanL1(b *testing.B) {
	for _, impl := range All() {
		for _, dim := range []int{384, 768, 100} {
			b.Run(impl.Name+"/"+itoa(dim), func(b *testing.B) { benchScan(b, impl, dim, 32) })
		}
	}
}

// BenchmarkScan100k scans the reference workload's 100,000 records: MB/s is
// the scan rate to set against the read ceiling (BenchmarkReadCeiling).
func BenchmarkScan100k(b *testing.B) {
	for _, impl := range All() {
		b.Run(impl.Name, func(b *testing.B) { benchScan(b, impl, 384, 100000) })
	}
}

func BenchmarkBatch16(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, nq, dim = 4096, 16, 384
	for _, impl := range All() {
		b.Run(impl.Name, func(b *testing.B) {
			k, _ := New(impl, dim, E5M2)
			recs := paddedRecords(r, n, dim)
			qps := make([]float32, nq*k.QueryLen())
			for j := 0; j < nq; j++ {
				q := make([]float32, dim)
				randomQuery(r, q)
				LayoutQuery(qps[j*k.QueryLen():], q)
			}
			out := make([]float32, n*nq)
			scratch := make([]float32, k.QueryLen())
			b.SetBytes(int64(n * k.Stride()))
			for b.Loop() {
				k.ScanBatch(qps, nq, recs, scratch, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*nq), "ns/record-query")
		})
	}
}

// BenchmarkBatch100k scores 100,000 records (in DRAM, unlike
// BenchmarkBatch16's) a flat chunk of 256 at a time against nq queries,
// with the batch kernel and with one scan per query: E5M2's batch must win
// from two queries on; Int8's batch is one scan per query where the scans
// beat a batch kernel (AVX-512).
//
//	go test -run '^$' -bench Batch100k -count 6 ./kernel/ | benchstat -col /form -
func BenchmarkBatch100k(b *testing.B) {
	const dim, n, chunk = 384, 100000, 256
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range []Storage{E5M2, Int8} {
		k, err := New(nil, dim, s)
		if err != nil {
			b.Fatal(err)
		}
		recs, v := make([]byte, n*k.Stride()), make([]float32, dim)
		for i := range n {
			randomQuery(r, v)
			Encode(s, recs[i*k.Stride():(i+1)*k.Stride()], v)
		}
		qps := make([]float32, 16*k.QueryLen())
		for j := 0; j < 16; j++ {
			randomQuery(r, v)
			k.PrepareQuery(qps[j*k.QueryLen():(j+1)*k.QueryLen()], v)
		}
		out, scratch := make([]float32, 16*chunk), make([]float32, k.QueryLen())
		for _, nq := range []int{2, 3, 4, 16} {
			for _, form := range []string{"batch", "scans"} {
				b.Run(s.String()+"/nq="+itoa(nq)+"/form="+form, func(b *testing.B) {
					for b.Loop() {
						for base := 0; base < n; base += chunk {
							m := min(chunk, n-base)
							rs := recs[base*k.Stride() : (base+m)*k.Stride()]
							if form == "batch" {
								k.ScanBatch(qps, nq, rs, scratch, out[:nq*m])
							} else {
								k.batchByScan(qps, nq, 0, rs, 0, nil, out[:nq*m])
							}
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*nq), "ns/record-query")
				})
			}
		}
	}
}

func BenchmarkReadCeiling(b *testing.B) {
	p := make([]byte, 100000*384)
	for i := range p {
		p[i] = byte(i) // touch every page: untouched ones all map the zero page
	}
	for _, prefetch := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "prefetch"}[prefetch], func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				ReadSum(p, prefetch)
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for ; n > 0; n /= 10 {
		i--
		buf[i] = byte('0' + n%10)
	}
	return string(buf[i:])
}

// BenchmarkGather scores m records picked at random among n, as a graph
// search scores one node's neighbour list, one ScanIDs call per list.
// n=64 keeps the records in L1, so ns/record against BenchmarkScanL1's at
// the same dimension is the gather's per-neighbour and per-call overhead;
// n=100000 adds the cache misses of a real graph (docs/BENCHMARKS.md,
// "What the HNSW profile shows").
func BenchmarkGather(b *testing.B) {
	for _, impl := range All() {
		for _, s := range []Storage{E5M2, Int8} {
			if !impl.Supports(s) {
				continue
			}
			for _, dim := range []int{100, 384, 768} {
				for _, n := range []int{64, 100000} {
					for _, m := range []int{16, 32} {
						name := impl.Name + "/" + s.String() + "/dim=" + itoa(dim) + "/n=" + itoa(n) + "/m=" + itoa(m)
						b.Run(name, func(b *testing.B) { benchGather(b, impl, s, dim, n, m) })
					}
				}
			}
		}
	}
}

func benchGather(b *testing.B, impl *Impl, s Storage, dim, n, m int) {
	r := rand.New(rand.NewPCG(1, 2))
	k, err := New(impl, dim, s)
	if err != nil {
		b.Fatal(err)
	}
	// Finite E5M2 codes; read as Int8 they are codes as good as any (both
	// kinds take a byte a component).
	recs := paddedRecords(r, n, dim)
	q := make([]float32, dim)
	randomQuery(r, q)
	qp := k.PrepareQuery(make([]float32, k.QueryLen()), q)
	// 256 lists of m ids, walked in turn so the branch predictor and the
	// prefetcher see no single repeating list.
	const lists = 256
	ids := make([]uint32, lists*m)
	for i := range ids {
		ids[i] = uint32(r.IntN(n))
	}
	out := make([]float32, m)
	i := 0
	for b.Loop() {
		k.ScanIDs(qp, recs, k.Stride(), ids[i*m:(i+1)*m], out)
		i = (i + 1) % lists
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/record")
}
