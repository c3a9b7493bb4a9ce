//go:build !noasm

package kernel

import "github.com/klauspost/cpuid/v2"

// asmKernels is one kind's generated kernels (asm_amd64.go) in the asm
// calling convention; groups is dim/GroupLen.
type asmKernels struct {
	// scan takes groups, or dim where scanDim (E5M2: any dim, with tail).
	scan      func(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
	scanDim   bool
	scan384   func(qp *float32, recs *byte, n int, out *float32)
	batch     func(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32) // nil: a scan per query
	gather    func(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
	gather384 func(qp *float32, base *byte, stride int, ids *uint32, n int, out *float32)
	// gatherShort (Int8) is gather with an int32 finish, for records of at
	// most 512 components.
	gatherShort func(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
}

// funcs wraps the kernels in the registry's slice signatures, choosing
// each form here rather than on every call.
func (a asmKernels) funcs() *Funcs {
	f := &Funcs{
		scan: func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			a.scan(&qp[0], dim/GroupLen, &recs[0], stride, len(out), &out[0])
		},
		gather: func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32) {
			a.gather(&qp[0], dim/GroupLen, &base[0], stride, &ids[0], len(ids), &out[0])
		},
	}
	if a.batch != nil {
		f.batch = func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32) {
			a.batch(&qps[0], nq, dim/GroupLen, &recs[0], stride, len(out)/nq, &scratch[0], &out[0])
		}
	}
	if a.scanDim {
		f.scan = func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			a.scan(&qp[0], dim, &recs[0], stride, len(out), &out[0])
		}
	}
	if a.scan384 != nil {
		f.scan384 = func(qp []float32, recs []byte, out []float32) { a.scan384(&qp[0], &recs[0], len(out), &out[0]) }
	}
	if a.gather384 != nil || a.gatherShort != nil {
		f.gather = func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32) {
			switch {
			case dim == 384 && a.gather384 != nil:
				a.gather384(&qp[0], &base[0], stride, &ids[0], len(ids), &out[0])
			case dim <= 512 && a.gatherShort != nil:
				a.gatherShort(&qp[0], dim/GroupLen, &base[0], stride, &ids[0], len(ids), &out[0])
			default:
				a.gather(&qp[0], dim/GroupLen, &base[0], stride, &ids[0], len(ids), &out[0])
			}
		}
	}
	return f
}

func init() {
	if !cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3, cpuid.F16C) {
		return
	}
	firstAtLeastBlocks = func(s []float32, thr float32) int { return firstAtLeastAVX2(&s[0], len(s), thr) }
	firstAtLeastInt64Blocks = func(s []int64, min int64) int { return firstAtLeastInt64AVX2(&s[0], len(s), min) }
	maxBlocks = func(s []float32) float32 { return maxAVX2(&s[0], len(s)) }
	mulBlocks = func(s, v []float32) { mulAVX2(&s[0], &v[0], len(s)) }
	subBlocks = func(s, v []float32) { subAVX2(&s[0], &v[0], len(s)) }
	quantizeBlocks = func(q []float32, pow float64, dst []int16) { quantizeInt16AVX2(&q[0], len(q), pow, &dst[0]) }
	widenBlocks = func(src []byte, dst []int16) { widenInt8AVX2(&src[0], len(src), &dst[0]) }
	readSum := func(p []byte, prefetch bool) uint64 {
		if prefetch {
			return readSumPrefetchAVX2(&p[0], len(p))
		}
		return readSumAVX2(&p[0], len(p))
	}
	avx2 := &Impl{Name: "avx2", rank: 20, readSum: readSum}
	avx2.kinds[E5M2] = asmKernels{scanAVX2, true, scan384AVX2, batchAVX2, gatherAVX2, gather384AVX2, nil}.funcs()
	avx2.kinds[E4M3] = asmKernels{scanE4M3AVX2, false, scan384E4M3AVX2, batchE4M3AVX2, gatherE4M3AVX2, nil, nil}.funcs()
	avx2.kinds[Int8] = asmKernels{scanInt8AVX2, false, scan384Int8AVX2, batchInt8AVX2, gatherInt8AVX2, gather384Int8AVX2, gatherShortInt8AVX2}.funcs()
	avx2.kinds[F16] = asmKernels{scanF16AVX2, false, scan384F16AVX2, batchF16AVX2, gatherF16AVX2, nil, nil}.funcs()
	avx2.kinds[F32] = asmKernels{scanF32AVX2, false, scan384F32AVX2, batchF32AVX2, gatherF32AVX2, nil, nil}.funcs()
	register(avx2)
	if !cpuid.CPU.Supports(cpuid.AVX512F) {
		return
	}
	shiftBelowVector = true
	// Twice the AVX2 kernels' work per instruction: where one core is
	// compute-bound (Intel Xeon, AMD Zen 4/5) they scan up to twice as fast.
	avx512 := &Impl{Name: "avx512", rank: 30, readSum: readSum}
	avx512.kinds[E5M2] = asmKernels{scanAVX512, true, scan384AVX512, batchAVX512, gatherAVX512, gather384AVX512, nil}.funcs()
	avx512.kinds[E4M3] = asmKernels{scanE4M3AVX512, false, scan384E4M3AVX512, batchE4M3AVX512, gatherE4M3AVX512, nil, nil}.funcs()
	avx512.kinds[F16] = asmKernels{scanF16AVX512, false, scan384F16AVX512, batchF16AVX512, gatherF16AVX512, nil, nil}.funcs()
	avx512.kinds[F32] = asmKernels{scanF32AVX512, false, scan384F32AVX512, batchF32AVX512, gatherF32AVX512, nil, nil}.funcs()
	if cpuid.CPU.Supports(cpuid.AVX512BW) {
		// VPDPWSSD where the CPU has it, else VPMADDWD and VPADDD: the same
		// integer either way. A batch is one scan per query: these scans
		// beat the AVX2 widen-once batch at every batch size
		// (BenchmarkBatch100k).
		i8 := asmKernels{scanInt8AVX512, false, scan384Int8AVX512, nil, gatherInt8AVX512, nil, gatherShortInt8AVX512}
		if cpuid.CPU.Supports(cpuid.AVX512VNNI) {
			i8.scan, i8.scan384, i8.gather, i8.gatherShort = scanInt8VNNI, scan384Int8VNNI, gatherInt8VNNI, gatherShortInt8VNNI
		}
		avx512.kinds[Int8] = i8.funcs()
	}
	register(avx512)
}
