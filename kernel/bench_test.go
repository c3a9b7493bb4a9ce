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
