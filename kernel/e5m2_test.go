package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// e5m2Value computes a code's value from the format's definition alone.
func e5m2Value(c byte) float64 {
	sign := 1.0
	if c&0x80 != 0 {
		sign = -1
	}
	exp := int(c>>2) & 0x1f
	mant := float64(c & 3)
	switch {
	case exp == 0x1f && mant == 0:
		return math.Inf(int(sign))
	case exp == 0x1f:
		return math.NaN()
	case exp == 0:
		return sign * mant * math.Ldexp(1, -16)
	}
	return sign * (1 + mant/4) * math.Ldexp(1, exp-15)
}

func isFiniteCode(c byte) bool { return c&0x7c != 0x7c }

func TestDecodeAllCodes(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := e5m2Value(byte(c))
		got := DecodeE5M2(byte(c))
		if math.IsNaN(want) {
			require.True(t, math.IsNaN(float64(got)), "code %#02x", c)
			continue
		}
		require.Equal(t, want, float64(got), "code %#02x", c)
		require.Equal(t, c >= 0x80, math.Signbit(float64(got)), "sign of code %#02x", c)
	}
	require.Equal(t, float32(E5M2Max), DecodeE5M2(0x7b))
	require.Equal(t, float32(math.Ldexp(1, -16)), DecodeE5M2(0x01), "smallest subnormal")
}

// nearestCode is the brute-force reference: the finite code nearest to f,
// ties to the even code, saturating at the largest finite magnitude.
func nearestCode(f float32) byte {
	if math.Abs(float64(f)) >= E5M2Max {
		return 0x7b | byte(math.Float32bits(f)>>24)&0x80
	}
	best, bestErr := byte(0), math.Inf(1)
	for c := 0; c < 256; c++ {
		if !isFiniteCode(byte(c)) {
			continue
		}
		v := e5m2Value(byte(c))
		if math.Signbit(v) != math.Signbit(float64(f)) {
			continue
		}
		e := math.Abs(v - float64(f))
		if e < bestErr || (e == bestErr && c&1 == 0) {
			best, bestErr = byte(c), e
		}
	}
	return best
}

func TestEncodeRoundTripsEveryFiniteCode(t *testing.T) {
	for c := 0; c < 256; c++ {
		if isFiniteCode(byte(c)) {
			require.Equal(t, byte(c), EncodeE5M2(DecodeE5M2(byte(c))), "code %#02x", c)
		}
	}
}

func TestEncodeTiesToEven(t *testing.T) {
	for c := 0; c < 0x7b; c++ {
		lo, hi := e5m2Value(byte(c)), e5m2Value(byte(c+1))
		mid := (lo + hi) / 2 // exact in float32: E5M2 values have 3 bits
		even := byte(c)
		if c&1 == 1 {
			even = byte(c + 1)
		}
		require.Equal(t, even, EncodeE5M2(float32(mid)), "tie between %#02x and %#02x", c, c+1)
		require.Equal(t, even|0x80, EncodeE5M2(float32(-mid)), "negative tie")
		below := math.Nextafter32(float32(mid), 0)
		above := math.Nextafter32(float32(mid), float32(math.Inf(1)))
		require.Equal(t, byte(c), EncodeE5M2(below), "just below the tie")
		require.Equal(t, byte(c+1), EncodeE5M2(above), "just above the tie")
	}
}

func TestEncodeSaturatesAndSubnormals(t *testing.T) {
	for _, f := range []float32{57344, 57345, 61440, 65504, 1e20, float32(math.Inf(1)), math.MaxFloat32} {
		require.Equal(t, byte(0x7b), EncodeE5M2(f), "%v", f)
		require.Equal(t, byte(0xfb), EncodeE5M2(-f), "%v", -f)
	}
	require.Equal(t, byte(0x00), EncodeE5M2(0))
	require.Equal(t, byte(0x80), EncodeE5M2(float32(math.Copysign(0, -1))))
	require.Equal(t, byte(0x00), EncodeE5M2(0x1p-17), "half the smallest subnormal ties to 0")
	require.Equal(t, byte(0x01), EncodeE5M2(0x1.8p-17), "above the tie rounds up")
	require.Equal(t, byte(0x02), EncodeE5M2(0x3p-17), "1.5 steps ties to 2")
	require.Equal(t, byte(0x04), EncodeE5M2(0x1.ep-15), "rounds up into the normals")
	require.Equal(t, byte(0x00), EncodeE5M2(1e-30))
	require.Equal(t, byte(0x00), EncodeE5M2(math.SmallestNonzeroFloat32))
	require.Equal(t, byte(0x7f), EncodeE5M2(float32(math.NaN()))&0x7f)
}

func TestEncodeMatchesBruteForce(t *testing.T) {
	testsize.SkipSerialUnderRace(t)
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200000; i++ {
		var f float32
		switch i % 3 {
		case 0:
			f = float32(r.NormFloat64())
		case 1:
			f = math.Float32frombits(r.Uint32()) // every exponent
		default:
			f = float32(r.NormFloat64() * math.Ldexp(1, -16+r.IntN(8)))
		}
		if math.IsNaN(float64(f)) {
			continue
		}
		require.Equal(t, nearestCode(f), EncodeE5M2(f), "f=%g (%#08x)", f, math.Float32bits(f))
	}
}

func FuzzEncodeE5M2(f *testing.F) {
	for _, v := range []uint32{0, 0x47600000, 0x38800000, 0x37800000, 0x3f800000, 0x80000001} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, bits uint32) {
		v := math.Float32frombits(bits)
		if math.IsNaN(float64(v)) {
			return
		}
		if got, want := EncodeE5M2(v), nearestCode(v); got != want {
			t.Fatalf("EncodeE5M2(%g) = %#02x, want %#02x", v, got, want)
		}
	})
}
