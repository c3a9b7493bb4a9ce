//go:build !noasm

package kernel

//go:noescape
func scanInt8NEON(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func batchInt8NEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func gatherInt8NEON(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

// int8NEONFuncs are the Int8 NEON kernels. SXTL, SMLAL, SADDLV and SCVTF
// are all ARMv8.0: every arm64 CPU runs them. No fixed-384 form, as for
// E5M2 (dot_arm64.go).
func int8NEONFuncs() *Funcs {
	return &Funcs{
		scan: func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			scanInt8NEON(&qp[0], dim/GroupLen, &recs[0], stride, len(out), &out[0])
		},
		batch: func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32) {
			batchInt8NEON(&qps[0], nq, dim/GroupLen, &recs[0], stride, len(out)/nq, &scratch[0], &out[0])
		},
		gather: func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32) {
			gatherInt8NEON(&qp[0], dim/GroupLen, &base[0], stride, &ids[0], len(ids), &out[0])
		},
	}
}
