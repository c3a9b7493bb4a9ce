//go:build !noasm

package kernel

import "github.com/klauspost/cpuid/v2"

// The E4M3, F16 and F32 kernels (kinds_amd64.s). groups is dim/GroupLen.

//go:noescape
func scanE4M3AVX2(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func scanF16AVX2(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func scanF32AVX2(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func scan384E4M3AVX2(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func scan384F16AVX2(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func scan384F32AVX2(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func batchE4M3AVX2(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func batchF16AVX2(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func batchF32AVX2(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func gatherE4M3AVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func gatherF16AVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func gatherF32AVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func scanE4M3AVX512(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func scanF16AVX512(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func scanF32AVX512(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func scan384E4M3AVX512(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func scan384F16AVX512(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func scan384F32AVX512(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func batchE4M3AVX512(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func batchF16AVX512(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func batchF32AVX512(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func gatherE4M3AVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func gatherF16AVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func gatherF32AVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

// asmKind is one kind's kernels in the asm calling convention.
type asmKind struct {
	scan    func(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
	scan384 func(qp *float32, recs *byte, n int, out *float32)
	batch   func(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
	gather  func(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
}

// funcs wraps the asm kernels in the registry's slice signatures.
func (a asmKind) funcs() *Funcs {
	f := &Funcs{
		scan: func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			a.scan(&qp[0], dim/GroupLen, &recs[0], stride, len(out), &out[0])
		},
		batch: func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32) {
			a.batch(&qps[0], nq, dim/GroupLen, &recs[0], stride, len(out)/nq, &scratch[0], &out[0])
		},
		gather: func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32) {
			a.gather(&qp[0], dim/GroupLen, &base[0], stride, &ids[0], len(ids), &out[0])
		},
	}
	if a.scan384 != nil {
		f.scan384 = func(qp []float32, recs []byte, out []float32) { a.scan384(&qp[0], &recs[0], len(out), &out[0]) }
	}
	return f
}

func init() {
	if !cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3, cpuid.F16C) {
		return
	}
	registerKind("avx2", E4M3, asmKind{scanE4M3AVX2, scan384E4M3AVX2, batchE4M3AVX2, gatherE4M3AVX2}.funcs())
	registerKind("avx2", F16, asmKind{scanF16AVX2, scan384F16AVX2, batchF16AVX2, gatherF16AVX2}.funcs())
	registerKind("avx2", F32, asmKind{scanF32AVX2, scan384F32AVX2, batchF32AVX2, gatherF32AVX2}.funcs())
	if !cpuid.CPU.Supports(cpuid.AVX512F) {
		return
	}
	registerKind("avx512", E4M3, asmKind{scanE4M3AVX512, scan384E4M3AVX512, batchE4M3AVX512, gatherE4M3AVX512}.funcs())
	registerKind("avx512", F16, asmKind{scanF16AVX512, scan384F16AVX512, batchF16AVX512, gatherF16AVX512}.funcs())
	registerKind("avx512", F32, asmKind{scanF32AVX512, scan384F32AVX512, batchF32AVX512, gatherF32AVX512}.funcs())
}
