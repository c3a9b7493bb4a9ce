package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func firstAtLeastRef(s []float32, thr float32) int {
	for i, v := range s {
		if !(v < thr) {
			return i
		}
	}
	return len(s)
}

func TestFirstAtLeast(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	for n := 0; n <= 300; n++ {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(r.NormFloat64())
		}
		for trial := 0; trial < 20; trial++ {
			thr := float32(r.NormFloat64() * 3)
			if trial == 0 && n > 0 {
				s[r.IntN(n)] = float32(math.NaN())
			}
			if trial == 1 {
				thr = float32(math.Inf(-1))
			}
			require.Equal(t, firstAtLeastRef(s, thr), FirstAtLeast(s, thr), "n %d thr %g", n, thr)
			if n > 0 {
				from := r.IntN(n)
				require.Equal(t, from+firstAtLeastRef(s[from:], thr), from+FirstAtLeast(s[from:], thr))
			}
		}
	}
}

func TestMulSub(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	for n := 0; n <= 200; n++ {
		s, v := make([]float32, n), make([]float32, n+3)
		for i := range s {
			s[i] = float32(r.NormFloat64())
		}
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		m, d := append([]float32(nil), s...), append([]float32(nil), s...)
		Mul(m, v)
		Sub(d, v)
		for i := range s {
			require.Equal(t, math.Float32bits(s[i]*v[i]), math.Float32bits(m[i]), "mul n %d i %d", n, i)
			require.Equal(t, math.Float32bits(s[i]-v[i]), math.Float32bits(d[i]), "sub n %d i %d", n, i)
		}
	}
}
