package astral

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMaxNorm: under dot and L2, a vector or query longer than MaxNorm
// (±FLT_MAX among them) is refused; at MaxNorm every score of every kind
// and storage is finite, even between opposite vectors. Cosine takes any
// finite vector.
func TestMaxNorm(t *testing.T) {
	const dim = 16
	at := float32(MaxNorm / 4) // 16 components: length exactly MaxNorm
	huge := make([]float32, dim)
	huge[3] = math.MaxFloat32
	over := make([]float32, dim)
	over[0] = math.Nextafter32(MaxNorm, math.MaxFloat32)
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		for _, s := range []Storage{E5M2, E4M3, Int8, F16, F32} {
			for _, m := range []Metric{Dot, L2, Cosine} {
				x, err := NewIndex(nil, WithDim(dim), WithKind(kind), WithStorage(s), WithMetric(m), WithRerank(F32, 2))
				require.NoError(t, err)
				name := kind.String() + "/" + s.String() + "/" + m.String()
				if m == Cosine {
					require.NoError(t, x.Add([]uint64{1}, huge), name)
					res, err := x.Query(nil, huge, 1)
					require.NoError(t, err, name)
					require.False(t, math.IsInf(float64(res[0].Score), 0), name)
					continue
				}
				for _, v := range [][]float32{huge, over} {
					require.ErrorIs(t, x.Add([]uint64{1}, v), ErrInvalidArgument, name)
					_, err := x.Query(nil, v, 1)
					require.ErrorIs(t, err, ErrInvalidArgument, name)
					_, err = x.QueryBatch(nil, make([]int, 2), append(make([]float32, dim), v...), 1)
					require.ErrorIs(t, err, ErrInvalidArgument, name)
				}
				pos, neg := make([]float32, dim), make([]float32, dim)
				for i := range pos {
					pos[i], neg[i] = at, -at
				}
				pos[1], neg[1] = 0, 0 // not all equal: a scaled kind keeps a real scale
				pos[0], neg[0] = at*1.41421356, -at*1.41421356
				require.NoError(t, x.Add([]uint64{1, 2, 3}, append(append(pos, neg...), make([]float32, dim)...)), name)
				for _, q := range [][]float32{pos, neg} {
					res, err := x.Query(nil, q, 3)
					require.NoError(t, err, name)
					require.Len(t, res, 3, name)
					for _, r := range res {
						require.False(t, math.IsInf(float64(r.Score), 0) || math.IsNaN(float64(r.Score)), "%s: id %d score %v", name, r.ID, r.Score)
					}
				}
			}
		}
	}
}
