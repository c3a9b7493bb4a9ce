package kernel

import "math"

const (
	// BlockLen is the number of components the kernels take at a time.
	BlockLen = 16
	// GroupLen is the unit query layouts and record strides are padded to:
	// 4 blocks, one 64-byte cache line of E5M2.
	GroupLen = 64
	// flushBelow is 2^-87: smaller query components become +0 (see doc.go).
	flushBelow = 0x1p-87
)

// LayoutLen is the length of the laid-out query for dimension dim.
func LayoutLen(dim int) int { return (dim + GroupLen - 1) / GroupLen * GroupLen }

// Stride is the byte distance between stored records of dimension dim: a
// whole number of cache lines, so records are aligned and have no tail.
func Stride(dim int, s Storage) int { return LayoutLen(dim) * s.BytesPerComponent() }

// LayoutQuery writes q in the canonical lane order into dst, which must hold
// LayoutLen(len(q)) values, and returns dst[:LayoutLen(len(q))].
func LayoutQuery(dst []float32, q []float32) []float32 {
	n := LayoutLen(len(q))
	dst = dst[:n]
	clear(dst)
	for c, v := range q {
		if math.Abs(float64(v)) < flushBelow {
			v = 0
		}
		b, j, odd := c/BlockLen, (c%BlockLen)/2, c&1
		dst[b*BlockLen+odd*8+j] = v
	}
	return dst
}
