package kernel

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
func LayoutQuery(dst []float32, q []float32) []float32 { return layoutFlushed(dst, q, flushBelow) }

// layoutPos is where component c sits in a laid-out vector: in its pair of
// blocks, evens before odds, and within each the first block's 8 before the
// second's.
func layoutPos(c int) int {
	return c&^31 | (c&1)<<4 | (c&16)>>1 | (c&15)>>1
}

// accOf is the canonical accumulator of the 8 laid-out values starting at
// position 8*g: position groups run evens(b), evens(b+1), odds(b),
// odds(b+1), so half-block order swaps the two low bits.
func accOf(g int) int { return g&4 | (g&1)<<1 | (g&2)>>1 }
