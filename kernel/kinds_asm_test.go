//go:build !noasm

package kernel

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/astral-engine/astral/internal/fpenv"
	"github.com/klauspost/cpuid/v2"
	"github.com/stretchr/testify/require"
)

// asmKinds are the kinds with asm kernels (generated *_amd64.s, kinds_arm64.s).
var asmKinds = []Storage{E4M3, F16, F32}

// TestKindsAsmRegistered checks that the asm implementations this CPU
// runs have kernels for the float kinds, so the tests below cover them.
func TestKindsAsmRegistered(t *testing.T) {
	var want []string
	switch runtime.GOARCH {
	case "amd64":
		if cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3, cpuid.F16C) {
			want = append(want, "avx2")
		}
		if cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3, cpuid.F16C, cpuid.AVX512F) {
			want = append(want, "avx512")
		}
	case "arm64":
		want = append(want, "neon")
	}
	for _, name := range want {
		impl := implNamed(t, name)
		for _, s := range asmKinds {
			require.True(t, impl.Supports(s), "%s has no %v kernels", name, s)
			f := impl.funcs(s)
			require.NotNil(t, f.scan)
			require.NotNil(t, f.batch)
			if runtime.GOARCH == "amd64" {
				require.NotNil(t, f.gather, "%s %v gather", name, s)
				require.NotNil(t, f.scan384, "%s %v scan384", name, s)
			}
		}
	}
}

// checkKindRecs scores n records of kind s (padded dim pdim, stride bytes
// apart from recs[0]) against each query in qps (laid out pdim apart) with
// every implementation's scan, batch and gather, and compares the bits with
// the pure-Go reference.
func checkKindRecs(t *testing.T, s Storage, pdim int, recs []byte, stride, n int, qps []float32, nq int, what string) {
	t.Helper()
	ref := goFuncs(s)
	want := make([]float32, nq*n)
	for q := 0; q < nq; q++ {
		ref.scan(qps[q*pdim:(q+1)*pdim], pdim, recs, stride, want[q*n:(q+1)*n])
	}
	rs := Stride(pdim, s)
	for _, impl := range All() {
		f := impl.funcs(s)
		if f == nil || impl.Name == "go" {
			continue
		}
		got := make([]float32, nq*n)
		for q := 0; q < nq; q++ {
			f.scan(qps[q*pdim:(q+1)*pdim], pdim, recs, stride, got[q*n:(q+1)*n])
		}
		requireSameBits(t, want, got, "%s/%v %s scan", impl.Name, s, what)
		if f.scan384 != nil && pdim == 384 && stride == rs {
			for q := 0; q < nq; q++ {
				f.scan384(qps[q*pdim:(q+1)*pdim], recs, got[q*n:(q+1)*n])
			}
			requireSameBits(t, want, got, "%s/%v %s scan384", impl.Name, s, what)
		}
		if f.batch != nil {
			clear(got)
			f.batch(qps, nq, pdim, recs, stride, make([]float32, pdim), got)
			requireSameBits(t, want, got, "%s/%v %s batch nq %d", impl.Name, s, what, nq)
		}
		if f.gather != nil {
			ids := make([]uint32, 2*n)
			for i := range ids {
				ids[i] = uint32((i * 7) % n)
			}
			gout := make([]float32, len(ids))
			for q := 0; q < nq; q++ {
				f.gather(qps[q*pdim:(q+1)*pdim], pdim, recs, stride, ids, gout)
				for i, id := range ids {
					if math.Float32bits(gout[i]) != math.Float32bits(want[q*n+int(id)]) {
						t.Fatalf("%s/%v %s gather query %d id %d: got %g, want %g", impl.Name, s, what, q, id, gout[i], want[q*n+int(id)])
					}
				}
			}
		}
	}
}

// TestE4M3EveryCodeAsm puts each of the 256 E4M3 codes alone at every
// position of a record (two groups long, so both halves of the layout and
// a second group are covered) under queries of one value: each score is a
// single rounded product, so a wrong decode of any code in any lane shows.
// 0x7f and 0xff are NaN as E4M3, but the kernels decode every code by bit
// moves (e4m3ToF16), so they score as 480/256 like any other code.
func TestE4M3EveryCodeAsm(t *testing.T) {
	const pdim = 128
	for _, v := range []float32{1, -1, 0.1, -3e4, 0x1p-79, 1.75, 1e30} {
		qp := make([]float32, pdim)
		for i := range qp {
			qp[i] = v
		}
		recs := make([]byte, pdim*pdim) // record p holds the code at position p
		for code := 0; code < 256; code++ {
			for p := 0; p < pdim; p++ {
				recs[p*pdim+p] = byte(code)
			}
			want := float32(float64(v)*float64(e4m3Units[code])) + 0
			got := make([]float32, pdim)
			goFuncs(E4M3).scan(qp, pdim, recs, pdim, got)
			for p, s := range got {
				require.Equal(t, math.Float32bits(want), math.Float32bits(s), "go code %#02x pos %d", code, p)
			}
			checkKindRecs(t, E4M3, pdim, recs, pdim, pdim, qp, 1, "every code")
		}
	}
}

// TestF16SpecialValuesAsm scores f16 records made of subnormals, the
// smallest normals, ±65504 and signed zeros at every position.
func TestF16SpecialValuesAsm(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	special := []uint16{0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x00ff, 0x03ff, 0x83ff, 0x0200, 0x0400, 0x8400, 0x0401,
		0x7bff, 0xfbff, 0x7bfe, 0x3c00, 0xbc00, 0x3555, 0x1000}
	for _, pdim := range []int{64, 192, 384} {
		const n, nq = 40, 3
		stride := Stride(pdim, F16)
		recs := make([]byte, n*stride)
		for i := 0; i < n; i++ {
			for p := 0; p < pdim; p++ {
				var h uint16
				if r.IntN(4) == 0 {
					h = uint16(r.Uint32()) & 0x7bff // any finite value
					h |= uint16(r.IntN(2)) << 15
				} else {
					h = special[r.IntN(len(special))]
				}
				recs[i*stride+2*p], recs[i*stride+2*p+1] = byte(h), byte(h>>8)
			}
		}
		qps := make([]float32, nq*pdim)
		q := make([]float32, pdim)
		for j := 0; j < nq; j++ {
			for i := range q {
				switch r.IntN(4) {
				case 0:
					q[i] = float32(math.Ldexp(1+r.Float64(), -79+r.IntN(3))) // near the f16 floor
				case 1:
					q[i] = float32(r.NormFloat64() * 1e-3) // keeps ±65504 products finite
				default:
					q[i] = float32(r.NormFloat64())
				}
			}
			prepareQuery(F16, qps[j*pdim:(j+1)*pdim], q)
		}
		checkKindRecs(t, F16, pdim, recs, stride, n, qps, nq, "special values")
	}
}

// TestF32NearFloorAsm scores f32 records at and around the 2^-40 flush
// floor against queries at and around the 2^-40 query floor: products
// near 2^-80, sums a few ulps apart.
func TestF32NearFloorAsm(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, dim := range []int{5, 64, 384, 700} {
		const n, nq = 30, 4
		pdim := LayoutLen(dim)
		stride := Stride(dim, F32)
		recs := make([]byte, n*stride)
		v := make([]float32, dim)
		near := func() float32 {
			f := float32(math.Ldexp(0.5+r.Float64(), -40+r.IntN(3)-1)) // 2^-41 .. 3*2^-40
			if r.IntN(2) == 0 {
				f = -f
			}
			if r.IntN(10) == 0 {
				f = float32(math.Copysign(flushF32, float64(f))) // exactly the floor
			}
			return f
		}
		for i := 0; i < n; i++ {
			for c := range v {
				v[c] = near()
			}
			Encode(F32, recs[i*stride:(i+1)*stride], v)
		}
		qps := make([]float32, nq*pdim)
		for j := 0; j < nq; j++ {
			for c := range v {
				v[c] = near()
			}
			prepareQuery(F32, qps[j*pdim:(j+1)*pdim], v)
		}
		checkKindRecs(t, F32, pdim, recs, stride, n, qps, nq, "near the floor")
	}
}

// TestKindsAsmRandomDims runs many random dimensions 1-4096 with records
// starting at unaligned addresses and strides that are not multiples of
// anything (as graph blocks are), through every form.
func TestKindsAsmRandomDims(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	for round := 0; round < rounds; round++ {
		dim := 1 + r.IntN(MaxDim)
		if round < 3 {
			dim = []int{1, MaxDim, 384}[round]
		}
		s := asmKinds[round%len(asmKinds)]
		pdim := LayoutLen(dim)
		rs := Stride(dim, s)
		stride := rs + r.IntN(70)
		n := 2 + r.IntN(6)
		nq := 1 + r.IntN(16)
		off := 1 + r.IntN(63)
		buf := make([]byte, off+(n-1)*stride+rs)
		recs := buf[off:]
		v := make([]float32, dim)
		for i := 0; i < n; i++ {
			randomVector(r, v)
			Encode(s, recs[i*stride:i*stride+rs], v)
			if i < n-1 {
				for j := i*stride + rs; j < (i+1)*stride; j++ {
					recs[j] = byte(r.Uint32()) // noise between records
				}
			}
		}
		qps := make([]float32, nq*pdim)
		for j := 0; j < nq; j++ {
			randomVector(r, v)
			prepareQuery(s, qps[j*pdim:(j+1)*pdim], v)
		}
		checkKindRecs(t, s, pdim, recs, stride, n, qps, nq, "random dim "+itoa(dim)+" offset "+itoa(off)+" stride "+itoa(stride))
	}
}

// TestKindsFTZDAZ runs the float kinds' kernels with flush-to-zero and
// denormals-are-zero set: with records at their kinds' smallest steps and
// queries near the floors the scores are tiny, and must not change.
func TestKindsFTZDAZ(t *testing.T) {
	if !fpenv.Supported {
		t.Skip("no MXCSR on this architecture")
	}
	r := rand.New(rand.NewPCG(47, 48))
	type tc struct {
		s    Storage
		pdim int
		recs []byte
		qp   []float32
		want []float32
	}
	var cases []tc
	for _, s := range asmKinds {
		for _, dim := range []int{64, 384, 1000} {
			const n = 16
			pdim, stride := LayoutLen(dim), Stride(dim, s)
			recs := make([]byte, n*stride)
			for i := 0; i < n; i++ {
				rec := recs[i*stride : (i+1)*stride]
				for c := 0; c < dim; c++ {
					switch s {
					case E4M3:
						rec[c] = byte(r.IntN(16)) | byte(r.IntN(2))<<7 // subnormals and the smallest normals
					case F16:
						h := uint16(r.IntN(0x500)) | uint16(r.IntN(2))<<15
						p := 2 * layoutPos(c)
						rec[p], rec[p+1] = byte(h), byte(h>>8)
					case F32:
						f := float32(math.Ldexp(1+r.Float64(), -40+r.IntN(2)))
						if r.IntN(2) == 0 {
							f = -f
						}
						b := math.Float32bits(f)
						p := 4 * layoutPos(c)
						rec[p], rec[p+1], rec[p+2], rec[p+3] = byte(b), byte(b>>8), byte(b>>16), byte(b>>24)
					}
				}
			}
			q := make([]float32, dim)
			floor := flushF16
			if s == F32 {
				floor = flushF32
			}
			for i := range q {
				q[i] = float32(math.Ldexp(r.Float64()+1, int(math.Log2(floor))+r.IntN(2)))
				if i%5 == 0 {
					q[i] = 1e-40 // a float32 denormal: flushed by the layout
				}
			}
			qp := prepareQuery(s, make([]float32, pdim), q)
			want := make([]float32, n)
			goFuncs(s).scan(qp, pdim, recs, stride, want)
			cases = append(cases, tc{s, pdim, recs, qp, want})
		}
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	saved := fpenv.GetMXCSR()
	defer fpenv.SetMXCSR(saved)
	fpenv.SetMXCSR(saved | fpenv.FTZ | fpenv.DAZ)
	require.Equal(t, fpenv.FTZ|fpenv.DAZ, fpenv.GetMXCSR()&(fpenv.FTZ|fpenv.DAZ))
	for _, c := range cases {
		nonzero := false
		for _, w := range c.want {
			nonzero = nonzero || w != 0
		}
		require.True(t, nonzero, "%v: the fixture must give nonzero scores", c.s)
		checkKindRecs(t, c.s, c.pdim, c.recs, Stride(c.pdim, c.s), len(c.want), c.qp, 1, "FTZ/DAZ")
	}
	require.Equal(t, fpenv.FTZ|fpenv.DAZ, fpenv.GetMXCSR()&(fpenv.FTZ|fpenv.DAZ), "MXCSR still set after the kernels")
}

// BenchmarkKindsScan100k scans 100,000 records of 384 components of each
// kind with each implementation (compare BenchmarkScan100k for E5M2): MB/s
// is the rate records are read at, ns/record the time per score.
func BenchmarkKindsScan100k(b *testing.B) {
	const n, dim = 100000, 384
	for _, s := range asmKinds {
		r := rand.New(rand.NewPCG(1, 1))
		stride := Stride(dim, s)
		recs := make([]byte, n*stride)
		v := make([]float32, dim)
		for i := 0; i < n; i++ {
			for c := range v {
				v[c] = float32(r.NormFloat64())
			}
			Encode(s, recs[i*stride:(i+1)*stride], v)
		}
		for c := range v {
			v[c] = float32(r.NormFloat64())
		}
		for _, impl := range All() {
			if !impl.Supports(s) {
				continue
			}
			b.Run(s.String()+"/"+impl.Name, func(b *testing.B) {
				k, err := New(impl, dim, s)
				if err != nil {
					b.Fatal(err)
				}
				qp := k.PrepareQuery(make([]float32, k.QueryLen()), v)
				out := make([]float32, n)
				b.SetBytes(int64(n * stride))
				for b.Loop() {
					k.Scan(qp, recs, out)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
			})
		}
	}
}
