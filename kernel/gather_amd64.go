//go:build !noasm

package kernel

//go:noescape
func gather384AVX2(qp *float32, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func gatherAVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func gather384AVX512(qp *float32, base *byte, stride int, ids *uint32, n int, out *float32)

//go:noescape
func gatherAVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)

// init runs after dot_amd64.go's (files initialise in name order), so the
// implementations it registered are there to receive their gather forms.
func init() {
	for _, impl := range impls {
		switch impl.Name {
		case "avx2":
			impl.gather = func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32) {
				if dim == 384 {
					gather384AVX2(&qp[0], &base[0], stride, &ids[0], len(ids), &out[0])
					return
				}
				gatherAVX2(&qp[0], dim/GroupLen, &base[0], stride, &ids[0], len(ids), &out[0])
			}
		case "avx512":
			impl.gather = func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32) {
				if dim == 384 {
					gather384AVX512(&qp[0], &base[0], stride, &ids[0], len(ids), &out[0])
					return
				}
				gatherAVX512(&qp[0], dim/GroupLen, &base[0], stride, &ids[0], len(ids), &out[0])
			}
		}
	}
}
