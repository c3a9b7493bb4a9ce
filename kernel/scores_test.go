package kernel

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
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

func maxScoreRef(s []float32) float32 {
	best := float32(math.Inf(-1))
	for _, v := range s {
		if v > best {
			best = v
		}
	}
	if best == 0 {
		return 0 // +0 whichever zero won
	}
	return best
}

func TestMaxScore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 10))
	nan, negZero := float32(math.NaN()), float32(math.Copysign(0, -1))
	for n := 0; n <= 300; n++ {
		s := make([]float32, n)
		for trial := 0; trial < 8; trial++ {
			for i := range s {
				switch trial {
				case 0:
					s[i] = nan // nothing but NaN: -Inf
				case 1:
					s[i] = [2]float32{0, negZero}[r.IntN(2)] // zeros: +0
				case 2:
					s[i] = [3]float32{negZero, nan, float32(-r.Float64())}[r.IntN(3)]
				default:
					s[i] = float32(r.NormFloat64())
					if r.IntN(16) == 0 {
						s[i] = nan
					}
				}
			}
			want := maxScoreRef(s)
			require.Equal(t, math.Float32bits(want), math.Float32bits(MaxScore(s)), "n %d trial %d", n, trial)
			if n > 0 {
				from := r.IntN(n)
				require.Equal(t, math.Float32bits(maxScoreRef(s[from:])), math.Float32bits(MaxScore(s[from:])))
			}
		}
	}
}

func TestFirstAtLeastInt64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 11))
	ref := func(s []int64, min int64) int {
		for i, v := range s {
			if v >= min {
				return i
			}
		}
		return len(s)
	}
	for n := 0; n <= 200; n++ {
		s := make([]int64, n)
		for i := range s {
			s[i] = r.Int64N(1000) - 500
			if r.IntN(20) == 0 {
				s[i] = [2]int64{math.MinInt64, math.MaxInt64}[r.IntN(2)]
			}
		}
		for _, min := range []int64{math.MinInt64, math.MaxInt64, 0, 400, 490, 499, r.Int64N(1000) - 500} {
			require.Equal(t, ref(s, min), FirstAtLeastInt64(s, min), "n %d min %d", n, min)
			if n > 0 {
				from := r.IntN(n)
				require.Equal(t, ref(s[from:], min), FirstAtLeastInt64(s[from:], min))
			}
		}
	}
}

// sortedWords is n words sorted high to low, keys (the high halves) from a
// small range so that runs of equal keys occur, low halves at random.
func sortedWords(r *rand.Rand, n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = r.Uint64N(64)<<32 | uint64(r.Uint32())
	}
	slices.SortFunc(s, func(a, b uint64) int { return cmp.Compare(b, a) })
	return s
}

func TestShiftBelow(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 14))
	for n := 0; n <= 200; n++ {
		s := sortedWords(r, n)
		ws := []uint64{0, math.MaxUint64, 1 << 63, r.Uint64N(64) << 32, r.Uint64N(66) << 32}
		if n > 0 {
			ws = append(ws, s[r.IntN(n)]&^(1<<32-1), s[0]+1, s[n-1])
		}
		for _, w := range ws {
			want := append(slices.Clone(s), 42)
			got := append(slices.Clone(s), 42)
			wantGap := shiftBelowGo(want, w)
			gap := ShiftBelow(got, w)
			require.Equal(t, wantGap, gap, "n %d w %#x", n, w)
			require.Equal(t, want, got, "n %d w %#x", n, w)
			atLeast := 0
			for _, v := range s {
				if v >= w {
					atLeast++
				}
			}
			require.Equal(t, atLeast, gap, "n %d w %#x: the gap is w's rank", n, w)
		}
	}
}
