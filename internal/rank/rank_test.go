package rank

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// powTable pins Pow's bits: every GOARCH must give these (the squarings
// are plain float64 products, which no compiler may fuse or reorder).
var powTable = []struct {
	decay float64
	n     uint64
	bits  uint64
}{
	{0.5, 0, 0x3ff0000000000000},
	{0.5, 1, 0x3fe0000000000000},
	{0.5, 1074, 0x1},
	{0.5, 1075, 0x0},
	{0.9, 7, 0x3fde9c6a99d1cdc0},
	{0.999, 1000, 0x3fd788526411edac},
	{0.9993070929904525, 1000, 0x3fdfffffffffffba},
	{0.9993070929904525, 123457, 0x38374fde4d87c9ea},
	{0.99999, 1000000, 0x3f07cd2bb6adbb53},
	{1, math.MaxUint64, 0x3ff0000000000000},
	{1e-10, 3, 0x39b4484bfeebc2a0},
	{0.75, math.MaxUint64, 0x0},
}

func TestPowTable(t *testing.T) {
	for _, c := range powTable {
		assert.Equal(t, c.bits, math.Float64bits(Pow(c.decay, c.n)), "%v^%d = %v", c.decay, c.n, Pow(c.decay, c.n))
	}
}

// TestPowAgainstBigFloat: Pow is within the error its squarings can
// gather (each doubles the relative error so far: about n ulps in all) of
// the power computed with 256-bit floats.
func TestPowAgainstBigFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range testsize.Sized(300, 60) {
		decay := 1 - math.Pow(10, -1-7*r.Float64())
		n := uint64(r.Int64N(1 << uint(1+r.IntN(40))))
		got := Pow(decay, n)
		want := bigPow(decay, n)
		if want < 1e-290 {
			assert.LessOrEqual(t, got, 1e-280, "%v^%d", decay, n)
			continue
		}
		assert.InEpsilon(t, want, got, max(1e-15, 4*float64(n)*0x1p-53), "%v^%d", decay, n)
	}
}

func bigPow(decay float64, n uint64) float64 {
	const prec = 256
	res, b := new(big.Float).SetPrec(prec).SetFloat64(1), new(big.Float).SetPrec(prec).SetFloat64(decay)
	for ; n != 0; n >>= 1 {
		if n&1 != 0 {
			res.Mul(res, b)
		}
		b.Mul(b, b)
	}
	f, _ := res.Float64()
	return f
}

func TestRecencyAges(t *testing.T) {
	s := NewScorer(&Params{Recency: 1, Decay: 0.5, Now: 10})
	assert.Equal(t, float32(1), s.Recency(10))
	assert.Equal(t, float32(1), s.Recency(math.MaxInt64))
	assert.Equal(t, float32(0.5), s.Recency(9))
	assert.Equal(t, float32(0.125), s.Recency(7))
	assert.Equal(t, float32(0), s.Recency(math.MinInt64))
	s = NewScorer(&Params{Recency: 1, Decay: 0.5, Now: math.MinInt64})
	assert.Equal(t, float32(1), s.Recency(math.MinInt64))
	s = NewScorer(&Params{Recency: 1, Decay: 1, Now: math.MaxInt64})
	assert.Equal(t, float32(1), s.Recency(math.MinInt64))
}

// TestBoundsHold: Ceiling and Bound never fall below Score, and a record
// that scores a threshold is never below Floors' importance or time.
func TestBoundsHold(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range testsize.Sized(200, 25) {
		p := Params{Relevance: float32(r.Float64() * 2), Recency: float32(r.Float64() * 2), Importance: float32(r.Float64() * 2),
			Decay: 1 - math.Pow(10, -1-5*r.Float64()), Now: r.Int64N(1 << 30)}
		if r.IntN(5) == 0 {
			p.Recency = 0
		}
		if r.IntN(5) == 0 {
			p.Importance = 0
		}
		s := NewScorer(&p)
		const n = 300
		sims, times, imps := make([]float32, n), make([]int64, n), make([]float32, n)
		var best, most float32 = -10, -10
		var newest int64 = math.MinInt64
		for i := range sims {
			sims[i] = float32(r.NormFloat64() * 0.3)
			times[i] = p.Now - r.Int64N(1+int64(math.Pow(10, 1+6*r.Float64())))
			imps[i] = float32(r.NormFloat64())
			best, most, newest = max(best, sims[i]), max(most, imps[i]), max(newest, times[i])
		}
		rec, im := s.Extra(newest, most)
		scores := make([]float32, n)
		for i := range sims {
			scores[i] = s.Score(sims[i], times[i], imps[i])
			require.GreaterOrEqual(t, s.Ceiling(sims[i], times[i], imps[i]), scores[i])
			require.GreaterOrEqual(t, s.Bound(best, rec, im), scores[i])
			require.LessOrEqual(t, s.MinSim(scores[i], rec, im), sims[i])
		}
		for _, thr := range scores[:testsize.Sized(50, 10)] {
			minImp, minTime := s.Floors(thr, best, rec, im)
			for i := range sims {
				if scores[i] >= thr {
					require.GreaterOrEqual(t, imps[i], minImp, "%+v thr %v", p, thr)
					require.GreaterOrEqual(t, times[i], minTime, "%+v thr %v", p, thr)
				}
			}
		}
	}
}

func TestOn(t *testing.T) {
	assert.False(t, (*Params)(nil).On())
	assert.False(t, (&Params{Relevance: 3, Decay: 0.5}).On())
	assert.True(t, (&Params{Recency: 1}).On())
	assert.True(t, (&Params{Importance: 1}).On())
}
