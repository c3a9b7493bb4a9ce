//go:build !noasm

package kernel

import "github.com/klauspost/cpuid/v2"

//go:noescape
func scan384Int8AVX2(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func scanInt8AVX2(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func batchInt8AVX2(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func gather384Int8AVX2(qp *float32, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func gatherInt8AVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func scan384Int8AVX512(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func scanInt8AVX512(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func gatherInt8AVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func scan384Int8VNNI(qp *float32, recs *byte, n int, out *float32)

//go:noescape
func scanInt8VNNI(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func gatherInt8VNNI(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

func batchInt8AVX2Funcs(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32) {
	batchInt8AVX2(&qps[0], nq, dim/GroupLen, &recs[0], stride, len(out)/nq, &scratch[0], &out[0])
}

func init() {
	if !cpuid.CPU.Supports(cpuid.AVX2) {
		return
	}
	registerKind("avx2", Int8, &Funcs{
		scan: func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			scanInt8AVX2(&qp[0], dim/GroupLen, &recs[0], stride, len(out), &out[0])
		},
		scan384: func(qp []float32, recs []byte, out []float32) {
			scan384Int8AVX2(&qp[0], &recs[0], len(out), &out[0])
		},
		batch: batchInt8AVX2Funcs,
		gather: func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32) {
			if dim == 384 {
				gather384Int8AVX2(&qp[0], &base[0], stride, &ids[0], len(ids), &out[0])
				return
			}
			gatherInt8AVX2(&qp[0], dim/GroupLen, &base[0], stride, &ids[0], len(ids), &out[0])
		},
	})
	if !cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW) {
		return
	}
	// VPDPWSSD where the CPU has it, else VPMADDWD and VPADDD: the same
	// integer either way. Batch keeps the AVX2 form (widen once, then one
	// dot per query).
	scan384, scan, gather := scan384Int8AVX512, scanInt8AVX512, gatherInt8AVX512
	if cpuid.CPU.Supports(cpuid.AVX512VNNI) {
		scan384, scan, gather = scan384Int8VNNI, scanInt8VNNI, gatherInt8VNNI
	}
	registerKind("avx512", Int8, &Funcs{
		scan: func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			scan(&qp[0], dim/GroupLen, &recs[0], stride, len(out), &out[0])
		},
		scan384: func(qp []float32, recs []byte, out []float32) {
			scan384(&qp[0], &recs[0], len(out), &out[0])
		},
		batch: batchInt8AVX2Funcs,
		gather: func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32) {
			gather(&qp[0], dim/GroupLen, &base[0], stride, &ids[0], len(ids), &out[0])
		},
	})
}
