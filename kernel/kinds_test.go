package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEncodeE4M3EveryCode(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if b&0x7f == 0x7f {
			require.True(t, math.IsNaN(float64(DecodeE4M3(b))))
			continue
		}
		v := DecodeE4M3(b)
		got := EncodeE4M3(v)
		if v == 0 {
			require.Equal(t, b&0x80, got&0x80, "signed zero %#02x", c)
			continue
		}
		require.Equal(t, b, got, "code %#02x value %g", c, v)
	}
	require.Equal(t, float32(448), DecodeE4M3(0x7e))
	require.Equal(t, float32(0x1p-9), DecodeE4M3(0x01))
	require.Equal(t, byte(0x7e), EncodeE4M3(1e6))
	require.Equal(t, byte(0xfe), EncodeE4M3(-500))
}

// TestEncodeRoundsToNearest checks every encoder against a brute-force
// nearest code (ties to the even code) on random and boundary values.
func TestEncodeRoundsToNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := []float32{0, 1, -1, 448, 449, 464, 480, 65504, 65519, 65520, 0x1p-9, 0x1p-10, 0x3p-11, 0x1p-24, 0x1p-25, 0x3p-26}
	for range 20000 {
		values = append(values, float32(r.NormFloat64()*math.Pow(2, float64(r.IntN(40)-20))))
	}
	nearest := func(v float32, codes []float32) int {
		best := -1
		for i, c := range codes {
			if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
				continue
			}
			d, bd := math.Abs(float64(c)-float64(v)), 0.0
			if best >= 0 {
				bd = math.Abs(float64(codes[best]) - float64(v))
			}
			if best < 0 || d < bd || d == bd && i&1 == 0 && math.Signbit(float64(c)) == math.Signbit(float64(v)) {
				best = i
			}
		}
		return best
	}
	e4 := make([]float32, 256)
	for i := range e4 {
		e4[i] = DecodeE4M3(byte(i))
	}
	for _, v := range values {
		want := e4[nearest(v, e4)]
		got := DecodeE4M3(EncodeE4M3(v))
		if math.Abs(float64(v)) >= 448 {
			want = float32(math.Copysign(448, float64(v)))
		}
		require.Equal(t, want, got, "e4m3 of %g", v)
		h := EncodeF16(v)
		f := float64(f16ToF32(h))
		if v == 0 {
			require.Equal(t, uint16(0), h)
			continue
		}
		if math.Abs(float64(v)) >= 65504 {
			require.Equal(t, math.Copysign(65504, float64(v)), f)
			continue
		}
		// The two binary16 neighbours of v: f must be the nearer, ties even.
		other := f16ToF32(h + 1)
		if (float64(other) > f) != (float64(v) > f) {
			other = f16ToF32(h - 1)
		}
		dv, do := math.Abs(f-float64(v)), math.Abs(float64(other)-float64(v))
		require.True(t, dv < do || dv == do && h&1 == 0, "f16 of %g: %g (other %g)", v, f, other)
	}
}

// randomVector is a query or record with the spread embeddings have, plus
// exact zeros, tiny values (below every flush floor) and large ones.
func randomVector(r *rand.Rand, v []float32) {
	for i := range v {
		switch r.IntN(40) {
		case 0:
			v[i] = 0
		case 1:
			v[i] = float32(r.NormFloat64() * 1e-30)
		case 2:
			v[i] = float32(r.NormFloat64() * 1e4)
		default:
			v[i] = float32(r.NormFloat64() * 0.1)
		}
	}
}

// TestKindsMatchGo checks every implementation of every kind bit for bit
// against the pure-Go reference: scan, fixed 384, batch (query-major) and
// gather, over many dimensions.
func TestKindsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dims := []int{1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 300, 383, 384, 385, 511, 512, 768, 1000, 1536, 4096}
	for _, s := range Storages[1:] {
		ref, err := New(implNamed(t, "go"), 1, s)
		require.NoError(t, err)
		_ = ref
		for _, dim := range dims {
			const n = 37
			goK, err := New(implNamed(t, "go"), dim, s)
			require.NoError(t, err)
			stride := goK.Stride()
			recs := make([]byte, n*stride)
			v := make([]float32, dim)
			for i := 0; i < n; i++ {
				randomVector(r, v)
				Encode(s, recs[i*stride:(i+1)*stride], v)
			}
			const nq = 5
			qps := make([]float32, nq*goK.QueryLen())
			for q := 0; q < nq; q++ {
				randomVector(r, v)
				goK.PrepareQuery(qps[q*goK.QueryLen():(q+1)*goK.QueryLen()], v)
			}
			want := make([]float32, nq*n)
			for q := 0; q < nq; q++ {
				goK.Scan(qps[q*goK.QueryLen():], recs, want[q*n:(q+1)*n])
			}
			for _, impl := range All() {
				if !impl.Supports(s) {
					continue
				}
				k, err := New(impl, dim, s)
				require.NoError(t, err)
				ql := k.QueryLen()
				got := make([]float32, nq*n)
				for q := 0; q < nq; q++ {
					k.Scan(qps[q*ql:], recs, got[q*n:(q+1)*n])
				}
				requireSameBits(t, want, got, "%s dim %d scan", k.Name(), dim)
				k.ScanBatch(qps, nq, recs, make([]float32, ql), got)
				requireSameBits(t, want, got, "%s dim %d batch", k.Name(), dim)
				ids := make([]uint32, n)
				for i := range ids {
					ids[i] = uint32(r.IntN(n))
				}
				gout := make([]float32, n)
				k.ScanIDs(qps, recs, stride, ids, gout)
				for i, id := range ids {
					require.Equal(t, math.Float32bits(want[id]), math.Float32bits(gout[i]), "%s dim %d gather", k.Name(), dim)
				}
			}
		}
	}
}

// TestKindsAccuracy checks that each kind's score is the dot product of
// the query with the stored vector: Encode's factor times the kernel score
// against a float64 dot of DecodeUnits.
func TestKindsAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range Storages {
		for _, dim := range []int{7, 384, 1000} {
			k, err := New(nil, dim, s)
			require.NoError(t, err)
			q, v := make([]float32, dim), make([]float32, dim)
			rec := make([]byte, k.Stride())
			units := make([]float32, dim)
			for range 20 {
				for i := range q {
					q[i] = float32(r.NormFloat64())
					v[i] = float32(r.NormFloat64())
				}
				factor := Encode(s, rec, v)
				DecodeUnits(s, units, rec)
				var want, bound, exact float64
				for i := range q {
					want += float64(q[i]) * float64(units[i])
					bound += math.Abs(float64(q[i]) * float64(units[i]))
					exact += float64(q[i]) * float64(v[i])
				}
				var out [1]float32
				k.Scan(k.PrepareQuery(make([]float32, k.QueryLen()), q), rec, out[:])
				require.InDelta(t, want, float64(out[0]), 1e-4*bound, "%v dim %d", s, dim)
				// The stored vector is close to v: within each kind's precision.
				tol := map[Storage]float64{E5M2: 0.2, E4M3: 0.1, Int8: 0.02, F16: 1e-3, F32: 1e-5}[s]
				require.InDelta(t, exact, float64(factor)*float64(out[0]), tol*math.Sqrt(float64(dim))*3, "%v dim %d", s, dim)
			}
		}
	}
}

func implNamed(t *testing.T, name string) *Impl {
	t.Helper()
	i, err := Lookup(name)
	require.NoError(t, err)
	return i
}

// FuzzKindsAgree encodes fuzzed vectors (the input's bytes as float32
// values) as every kind and checks every implementation against pure Go,
// and the encoders against their decoders' precision.
func FuzzKindsAgree(f *testing.F) {
	f.Add(make([]byte, 4*384), uint64(1))
	f.Add([]byte{0, 0, 0x80, 0x3f, 0, 0, 0x80, 0xbf}, uint64(2))
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64) {
		dim := len(raw) / 4
		if dim == 0 || dim > 1024 { // the pure-Go float kernels are slow
			return
		}
		v := make([]float32, dim)
		for i := range v {
			x := math.Float32frombits(uint32(raw[4*i]) | uint32(raw[4*i+1])<<8 | uint32(raw[4*i+2])<<16 | uint32(raw[4*i+3])<<24)
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				x = 0 // callers refuse them before encoding
			}
			v[i] = x
		}
		r := rand.New(rand.NewPCG(seed, 1))
		q := make([]float32, dim)
		randomVector(r, q)
		for _, s := range Storages {
			goK, err := New(implNamed(t, "go"), dim, s)
			require.NoError(t, err)
			rec := make([]byte, goK.Stride())
			factor := Encode(s, rec, v)
			require.False(t, math.IsNaN(float64(factor)) || math.IsInf(float64(factor), 0), "%v factor %g", s, factor)
			qp := goK.PrepareQuery(make([]float32, goK.QueryLen()), q)
			var want [1]float32
			goK.Scan(qp, rec, want[:])
			for _, impl := range All() {
				if !impl.Supports(s) {
					continue
				}
				k, err := New(impl, dim, s)
				require.NoError(t, err)
				var got [1]float32
				k.Scan(qp, rec, got[:])
				if math.Float32bits(got[0]) != math.Float32bits(want[0]) && !(math.IsNaN(float64(got[0])) && math.IsNaN(float64(want[0]))) {
					t.Fatalf("%s: %g, want %g", k.Name(), got[0], want[0])
				}
			}
		}
	})
}

// TestInt8QueryKeepsPrecision: the int16 query keeps 15 bits of the
// largest component at any magnitude a float32 holds (down to 2^-85).
func TestInt8QueryKeepsPrecision(t *testing.T) {
	for _, mag := range []float64{1e-25, 1e-3, 1, 1e10, 1e30, 3e38} {
		q := []float32{float32(mag), float32(-mag / 3), float32(mag / 1000), 0}
		qp := quantizeQuery(make([]float32, queryLen(Int8, 64)), q)
		q16, scale := int16s(qp, 64), qp[32]
		require.False(t, math.IsInf(float64(scale), 0) || scale == 0, "mag %g scale %g", mag, scale)
		for i, v := range q {
			got := float64(q16[i]) * float64(scale)
			require.InDelta(t, float64(v), got, mag/16000, "mag %g component %d", mag, i)
		}
	}
}

// quantizeQueryLdexp is quantizeQuery as first written, with math.Ldexp
// per component: the reference the faster one must match bit for bit.
func quantizeQueryLdexp(dst []float32, q []float32) []float32 {
	pdim := LayoutLen(len(q))
	dst = dst[:queryLen(Int8, pdim)]
	clear(dst)
	q16 := int16s(dst, pdim)
	var amax float64
	for _, v := range q {
		amax = max(amax, math.Abs(float64(v)))
	}
	if amax == 0 {
		dst[pdim/2] = 1
		return dst
	}
	_, exp := math.Frexp(amax)
	e := min(15-exp, 100)
	for c, v := range q {
		r := math.RoundToEven(math.Ldexp(float64(v), e))
		q16[c] = int16(min(max(r, -32767), 32767))
	}
	dst[pdim/2] = float32(math.Ldexp(1, -e))
	return dst
}

// TestQuantizeQueryMatchesLdexp: the Int8 query is the same bits as the
// per-component Ldexp form, across magnitudes from subnormal to the
// largest float32, with zeros, ties and infinities.
func TestQuantizeQueryMatchesLdexp(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, dim := range []int{1, 7, 64, 100, 384} {
		q := make([]float32, dim)
		got, want := make([]float32, queryLen(Int8, LayoutLen(dim))), make([]float32, queryLen(Int8, LayoutLen(dim)))
		for trial := range 400 {
			exp := r.IntN(280) - 150 // 2^-150 .. 2^129: subnormals to overflow
			for i := range q {
				switch r.IntN(8) {
				case 0:
					q[i] = 0
				case 1:
					q[i] = float32(math.Copysign(0, -1))
				case 2:
					q[i] = math.Float32frombits(r.Uint32() & 0x807fffff) // a subnormal
				default:
					q[i] = float32(math.Ldexp(r.NormFloat64(), exp-r.IntN(30)))
				}
			}
			if trial%50 == 1 {
				q[r.IntN(dim)] = float32(math.Inf(1 - 2*r.IntN(2)))
			}
			if trial%50 == 2 { // exact halves at the largest magnitude: ties to even
				q[0] = 16384.5
				for i := 1; i < dim; i++ {
					q[i] = float32(i%5) + 0.5
				}
			}
			if trial%50 == 3 { // halves that round to ±32768: the clamp to ±32767
				for i := range q {
					q[i] = float32(32767.5 - float64(i%3))
					if i%2 == 1 {
						q[i] = -q[i]
					}
				}
			}
			quantizeQuery(got, q)
			quantizeQueryLdexp(want, q)
			for i := range got {
				require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "dim %d trial %d word %d", dim, trial, i)
			}
		}
	}
}

func BenchmarkQuantizeQuery(b *testing.B) {
	r := rand.New(rand.NewPCG(6, 6))
	q := make([]float32, 384)
	randomVector(r, q)
	dst := make([]float32, queryLen(Int8, 384))
	for _, f := range []struct {
		name string
		fn   func([]float32, []float32) []float32
	}{{"now", quantizeQuery}, {"ldexp", quantizeQueryLdexp}} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				f.fn(dst, q)
			}
		})
	}
}
