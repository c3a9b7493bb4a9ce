package kernel

import (
	"math/rand/v2"
	"testing"
)

// TestInt8RecordEndingAtPageBoundary puts the last Int8 record's final byte
// right before an unreadable page, for scan, batch and gather: a kernel
// that reads past pdim faults.
func TestInt8RecordEndingAtPageBoundary(t *testing.T) {
	mem := beforeGuardPage(t)
	page := len(mem)
	r := rand.New(rand.NewPCG(25, 26))
	for pdim := GroupLen; 2*pdim <= page && pdim <= MaxDim; pdim += GroupLen {
		const n = 2
		recs := mem[page-n*pdim : page]
		for i := range recs {
			recs[i] = byte(int8(r.IntN(255) - 127))
		}
		qp := int8Query(pdim, func(int) int16 { return int16(r.IntN(65535) - 32767) }, 0x1p-10)
		want := []float32{dotInt8Go(qp, recs, pdim), dotInt8Go(qp, recs[pdim:], pdim)}
		int8Scores(t, qp, pdim, recs, want, "page end pdim "+itoa(pdim))
	}
}
