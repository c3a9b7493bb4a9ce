//go:build !noasm

package kernel

// The E4M3, F16 and F32 kernels (kinds_arm64.s). groups is dim/GroupLen.
// There is no gather form: ScanIDs scans one record per id (gather.go).

//go:noescape
func scanE4M3NEON(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func scanF16NEON(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func scanF32NEON(qp *float32, groups int, recs *byte, stride int, n int, out *float32)

//go:noescape
func batchE4M3NEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func batchF16NEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func batchF32NEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

// neonFuncs wraps one kind's NEON kernels (ARMv8.0 AdvSIMD, like the
// E5M2 kernel: every arm64 CPU runs them).
func neonFuncs(
	scan func(qp *float32, groups int, recs *byte, stride int, n int, out *float32),
	batch func(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32),
) *Funcs {
	return &Funcs{
		scan: func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			scan(&qp[0], dim/GroupLen, &recs[0], stride, len(out), &out[0])
		},
		batch: func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32) {
			batch(&qps[0], nq, dim/GroupLen, &recs[0], stride, len(out)/nq, &scratch[0], &out[0])
		},
	}
}
