package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// layoutByDefinition is layoutFlushed written from the definitions: each
// component at layoutPos, zeroed where |v| < floor, the padding +0.
func layoutByDefinition(q []float32, floor float64) []float32 {
	dst := make([]float32, LayoutLen(len(q)))
	for c, v := range q {
		if math.Abs(float64(v)) < floor {
			v = 0
		}
		dst[layoutPos(c)] = v
	}
	return dst
}

func TestLayoutMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	special := []float32{0, float32(math.Copysign(0, -1)), 0x1p-87, -0x1p-87, 0x1.fffffep-88, 0x1p-79, 0x1p-80, 0x1p-40, -0x1.fffffep-41,
		float32(math.NaN()), float32(math.Inf(1)), math.SmallestNonzeroFloat32, math.MaxFloat32}
	for _, floor := range []float64{flushBelow, flushF16, flushF32} {
		for dim := 1; dim <= 200; dim++ {
			q := make([]float32, dim)
			for i := range q {
				switch r.IntN(4) {
				case 0:
					q[i] = special[r.IntN(len(special))]
				case 1:
					q[i] = float32(math.Ldexp(r.Float64()*2-1, -r.IntN(130)))
				default:
					q[i] = float32(r.NormFloat64())
				}
			}
			dst := make([]float32, LayoutLen(dim))
			for i := range dst {
				dst[i] = 7 // stale values must not survive
			}
			got, want := layoutFlushed(dst, q, floor), layoutByDefinition(q, floor)
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "floor %g dim %d position %d", floor, dim, i)
			}
		}
	}
}

func BenchmarkLayoutQuery384(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	q := make([]float32, 384)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	dst := make([]float32, 384)
	for b.Loop() {
		LayoutQuery(dst, q)
	}
}
