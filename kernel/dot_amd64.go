//go:build !noasm

package kernel

import (
	"github.com/klauspost/cpuid/v2"
)

//go:noescape
func scan384AVX2(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func scanAVX2(qp *float32, dim int, recs *byte, stride int, n int, out *float32)

//go:noescape
func batchAVX2(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func readSumAVX2(p *byte, n int) uint64

//go:noescape
func readSumPrefetchAVX2(p *byte, n int) uint64

//go:noescape
func scan384AVX512(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func scanAVX512(qp *float32, dim int, recs *byte, stride int, n int, out *float32)

//go:noescape
func batchAVX512(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func firstAtLeastAVX2(s *float32, n int, thr float32) int

//go:noescape
func mulAVX2(s *float32, v *float32, n int)

//go:noescape
func subAVX2(s *float32, v *float32, n int)

func init() {
	if !cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3, cpuid.F16C) {
		return
	}
	firstAtLeastBlocks = func(s []float32, thr float32) int { return firstAtLeastAVX2(&s[0], len(s), thr) }
	mulBlocks = func(s, v []float32) { mulAVX2(&s[0], &v[0], len(s)) }
	subBlocks = func(s, v []float32) { subAVX2(&s[0], &v[0], len(s)) }
	readSum := func(p []byte, prefetch bool) uint64 {
		if prefetch {
			return readSumPrefetchAVX2(&p[0], len(p))
		}
		return readSumAVX2(&p[0], len(p))
	}
	register(&Impl{
		Name: "avx2",
		rank: 20,
		scan: func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			scanAVX2(&qp[0], dim, &recs[0], stride, len(out), &out[0])
		},
		scan384: func(qp []float32, recs []byte, out []float32) {
			scan384AVX2(&qp[0], &recs[0], len(out), &out[0])
		},
		batch: func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32) {
			batchAVX2(&qps[0], nq, dim/GroupLen, &recs[0], stride, len(out)/nq, &scratch[0], &out[0])
		},
		readSum: readSum,
	})
	if !cpuid.CPU.Supports(cpuid.AVX512F) {
		return
	}
	// Twice the AVX2 kernel's work per instruction: where one core is
	// compute-bound (Intel Xeon, AMD Zen 4/5) it scans up to twice as fast.
	register(&Impl{
		Name: "avx512",
		rank: 30,
		scan: func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			scanAVX512(&qp[0], dim, &recs[0], stride, len(out), &out[0])
		},
		scan384: func(qp []float32, recs []byte, out []float32) {
			scan384AVX512(&qp[0], &recs[0], len(out), &out[0])
		},
		batch: func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32) {
			batchAVX512(&qps[0], nq, dim/GroupLen, &recs[0], stride, len(out)/nq, &scratch[0], &out[0])
		},
		readSum: readSum,
	})
}
