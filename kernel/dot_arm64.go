//go:build !noasm

package kernel

//go:noescape
func scanNEON(qp *float32, dim int, recs *byte, stride int, n int, out *float32)

//go:noescape
func batchNEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)

//go:noescape
func readSumNEON(p *byte, n int) uint64

//go:noescape
func prefetchLines(p *byte, n int)

//go:noescape
func readSumPrefetchNEON(p *byte, n int) uint64

func init() {
	// AdvSIMD, FMLA and FCVTL from binary16 are all ARMv8.0, which Go
	// requires, so every arm64 CPU runs these kernels. There is no fixed-384
	// form: on the seed's Apple M5 an unrolled ARM kernel was slower than
	// the loop, and none has been measured since.
	neon := &Impl{
		Name: "neon",
		rank: 20,
		readSum: func(p []byte, prefetch bool) uint64 {
			if prefetch {
				return readSumPrefetchNEON(&p[0], len(p))
			}
			return readSumNEON(&p[0], len(p))
		},
	}
	neon.kinds[E5M2] = &Funcs{
		scan: func(qp []float32, dim int, recs []byte, stride int, out []float32) {
			scanNEON(&qp[0], dim, &recs[0], stride, len(out), &out[0])
		},
		batch: func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32) {
			batchNEON(&qps[0], nq, dim/GroupLen, &recs[0], stride, len(out)/nq, &scratch[0], &out[0])
		},
	}
	neon.kinds[Int8] = int8NEONFuncs()
	neon.kinds[E4M3] = neonFuncs(scanE4M3NEON, batchE4M3NEON)
	neon.kinds[F16] = neonFuncs(scanF16NEON, batchF16NEON)
	neon.kinds[F32] = neonFuncs(scanF32NEON, batchF32NEON)
	register(neon)
}
