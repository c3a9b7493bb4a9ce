package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// int8Query builds a prepared Int8 query of pdim directly from int16 values
// (past what quantizeQuery produces: it may use ±32767 everywhere) and a
// power-of-two scale.
func int8Query(pdim int, vals func(c int) int16, scale float32) []float32 {
	qp := make([]float32, queryLen(Int8, pdim))
	q16 := int16s(qp, pdim)
	for c := range q16 {
		q16[c] = vals(c)
	}
	qp[pdim/2] = scale
	return qp
}

// int8Scores checks every Int8 implementation's scan, batch (the query
// repeated nq times) and gather against want (one score per record).
func int8Scores(t *testing.T, qp []float32, dim int, recs []byte, want []float32, msg string) {
	t.Helper()
	n := len(want)
	for _, impl := range All() {
		if !impl.Supports(Int8) {
			continue
		}
		k, err := New(impl, dim, Int8)
		require.NoError(t, err)
		got := make([]float32, n)
		k.Scan(qp, recs, got)
		requireSameBits(t, want, got, "%s %s scan", k.Name(), msg)
		const nq = 3
		ql := k.QueryLen()
		qps := make([]float32, nq*ql)
		for q := 0; q < nq; q++ {
			copy(qps[q*ql:], qp)
		}
		bout := make([]float32, nq*n)
		k.ScanBatch(qps, nq, recs, make([]float32, ql), bout)
		for q := 0; q < nq; q++ {
			requireSameBits(t, want, bout[q*n:(q+1)*n], "%s %s batch query %d", k.Name(), msg, q)
		}
		ids := make([]uint32, n)
		for i := range ids {
			ids[i] = uint32(n - 1 - i)
		}
		gout := make([]float32, n)
		k.ScanIDs(qp, recs, k.Stride(), ids, gout)
		for i, id := range ids {
			require.Equal(t, math.Float32bits(want[id]), math.Float32bits(gout[i]), "%s %s gather", k.Name(), msg)
		}
	}
}

// TestInt8Extremes scores the largest products at dim 4096, where the sum
// is far past int32 (4096*32767*127 ≈ 1.7e10) and the lanes of one
// accumulator hold as much as int32 allows: every kernel must finish in
// int64 and still match the reference bit for bit.
func TestInt8Extremes(t *testing.T) {
	type pattern struct {
		name string
		q    func(c int) int16
		rec  func(c int) int8
	}
	alt := func(c int) int16 { return int16(32767 * (1 - 2*(c&1))) }
	pats := []pattern{
		{"max*max", func(int) int16 { return 32767 }, func(int) int8 { return 127 }},
		{"max*min", func(int) int16 { return 32767 }, func(int) int8 { return -127 }},
		{"min*min", func(int) int16 { return -32767 }, func(int) int8 { return -127 }},
		{"alternating query", alt, func(int) int8 { return 127 }},
		{"alternating both", alt, func(c int) int8 { return int8(127 * (1 - 2*(c&1))) }},
		{"halves", func(c int) int16 { return 32767 }, func(c int) int8 {
			if c < 2048 {
				return 127
			}
			return -127
		}},
		{"-128 codes", func(int) int16 { return -32767 }, func(int) int8 { return -128 }},
		{"one lane", func(c int) int16 {
			if c%16 == 0 {
				return 32767
			}
			return 0
		}, func(int) int8 { return 127 }},
	}
	for _, dim := range []int{4096, 4033, 512, 384, 320} {
		pdim := LayoutLen(dim)
		for _, p := range pats {
			for _, scale := range []float32{1, 0x1p-15, 0x1p-100, 0x1p+20} {
				qp := int8Query(pdim, p.q, scale)
				const n = 3
				recs := make([]byte, n*pdim)
				for i := 0; i < n; i++ {
					for c := 0; c < dim; c++ {
						recs[i*pdim+c] = byte(p.rec(c))
					}
				}
				recs[pdim+7] = byte(0) // records differ a little
				want := make([]float32, n)
				for i := range want {
					want[i] = dotInt8Go(qp, recs[i*pdim:], pdim)
				}
				if p.name == "max*max" && scale == 1 {
					exact := int64(dim) * 32767 * 127
					require.Equal(t, float32(exact), want[0], "reference at dim %d", dim)
				}
				int8Scores(t, qp, dim, recs, want, p.name+" dim "+itoa(dim))
			}
		}
	}
}

// TestInt8RandomDims runs every implementation's scan and batch (nq 1..16)
// over random dims, unaligned record starts and odd strides, and gather
// with strides that are not a multiple of 64.
func TestInt8RandomDims(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	dims := []int{1, 64, 384, 4096}
	for range 60 {
		dims = append(dims, 1+r.IntN(4096))
	}
	for _, dim := range dims {
		pdim := LayoutLen(dim)
		nq := 1 + r.IntN(16)
		n := 1 + r.IntN(9)
		stride := pdim + r.IntN(70)
		off := r.IntN(64)
		buf := make([]byte, off+n*stride)
		recs := buf[off:]
		for i := 0; i < n; i++ {
			for c := 0; c < dim; c++ {
				recs[i*stride+c] = byte(int8(r.IntN(255) - 127))
			}
		}
		ql := queryLen(Int8, pdim)
		qps := make([]float32, nq*ql)
		for q := 0; q < nq; q++ {
			big := r.IntN(2) == 0
			qp := int8Query(pdim, func(c int) int16 {
				if c >= dim {
					return 0
				}
				if big {
					return int16(r.IntN(65535) - 32767)
				}
				return int16(r.IntN(201) - 100)
			}, float32(math.Ldexp(1, r.IntN(60)-30)))
			copy(qps[q*ql:], qp)
		}
		want := make([]float32, nq*n)
		for q := 0; q < nq; q++ {
			for i := 0; i < n; i++ {
				want[q*n+i] = dotInt8Go(qps[q*ql:], recs[i*stride:], pdim)
			}
		}
		for _, impl := range All() {
			f := impl.funcs(Int8)
			if f == nil {
				continue
			}
			got := make([]float32, nq*n)
			for q := 0; q < nq; q++ {
				f.scan(qps[q*ql:], pdim, recs, stride, got[q*n:(q+1)*n])
			}
			requireSameBits(t, want, got, "%s dim %d stride %d off %d scan", impl.Name, dim, stride, off)
			if pdim == 384 && stride == 384 && f.scan384 != nil {
				f.scan384(qps, recs, got[:n])
				requireSameBits(t, want[:n], got[:n], "%s fixed384 off %d", impl.Name, off)
			}
			if f.batch != nil {
				clear(got)
				scratch := make([]float32, ql)
				f.batch(qps, nq, pdim, recs, stride, scratch, got)
				requireSameBits(t, want, got, "%s dim %d nq %d stride %d off %d batch", impl.Name, dim, nq, stride, off)
			}
			k, err := New(impl, dim, Int8)
			require.NoError(t, err)
			ids := make([]uint32, 2*n)
			for i := range ids {
				ids[i] = uint32(r.IntN(n))
			}
			gout := make([]float32, len(ids))
			for q := 0; q < nq; q++ {
				k.ScanIDs(qps[q*ql:], recs, stride, ids, gout)
				for i, id := range ids {
					require.Equal(t, math.Float32bits(want[q*n+int(id)]), math.Float32bits(gout[i]), "%s dim %d stride %d gather", impl.Name, dim, stride)
				}
			}
		}
	}
}

// TestInt8Quantized checks the kernels on queries from quantizeQuery and
// records from Encode, as an index makes them.
func TestInt8Quantized(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, dim := range []int{3, 96, 384, 700, 4096} {
		goK, err := New(implNamed(t, "go"), dim, Int8)
		require.NoError(t, err)
		const n = 20
		stride := goK.Stride()
		recs := make([]byte, n*stride)
		v := make([]float32, dim)
		for i := 0; i < n; i++ {
			randomVector(r, v)
			Encode(Int8, recs[i*stride:(i+1)*stride], v)
		}
		randomVector(r, v)
		qp := goK.PrepareQuery(make([]float32, goK.QueryLen()), v)
		want := make([]float32, n)
		goK.Scan(qp, recs, want)
		int8Scores(t, qp, dim, recs, want, "quantized dim "+itoa(dim))
	}
}

// BenchmarkInt8Scan100k is BenchmarkScan100k for Int8 records: 100,000
// records of 384 components (38.4 MB, past the caches).
func BenchmarkInt8Scan100k(b *testing.B) {
	const n, dim = 100000, 384
	for _, impl := range All() {
		if !impl.Supports(Int8) {
			continue
		}
		b.Run(impl.Name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			k, err := New(impl, dim, Int8)
			if err != nil {
				b.Fatal(err)
			}
			recs := make([]byte, n*k.Stride())
			for i := range recs {
				recs[i] = byte(int8(r.IntN(255) - 127))
			}
			q := make([]float32, dim)
			randomQuery(r, q)
			qp := k.PrepareQuery(make([]float32, k.QueryLen()), q)
			out := make([]float32, n)
			b.SetBytes(int64(n * k.Stride()))
			b.ResetTimer()
			for b.Loop() {
				k.Scan(qp, recs, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		})
	}
}

// TestInt8RecordQuery: a record prepared as a query scores another record
// as their exact integer dot times the multiplier, in every implementation
// and form, at dimensions from one group to past the int32 sum.
func TestInt8RecordQuery(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, dim := range []int{1, 63, 100, 384, 1000, 4096} {
		pdim := LayoutLen(dim)
		const n = 9
		recs := make([]byte, n*pdim)
		for i := 0; i < n; i++ {
			for c := 0; c < dim; c++ {
				v := int8(r.IntN(255) - 127)
				if i == n-1 {
					v = int8(127 * (1 - 2*(c%3/2))) // the extremes, and -128 (a file may hold it)
					if c%7 == 6 {
						v = -128
					}
				}
				recs[i*pdim+c] = byte(v)
			}
		}
		for _, mul := range []float32{1, 0.0123, -3.5e-7, 2} {
			qp := Int8RecordQuery(make([]float32, queryLen(Int8, pdim)), recs[(n-1)*pdim:], mul)
			for c, v := range int16s(qp, pdim) {
				require.Equal(t, int16(int8(recs[(n-1)*pdim+c])), v, "dim %d code %d", dim, c)
			}
			want := make([]float32, n)
			for i := range want {
				var sum int64
				for c := 0; c < pdim; c++ {
					sum += int64(int8(recs[(n-1)*pdim+c])) * int64(int8(recs[i*pdim+c]))
				}
				want[i] = float32(sum) * mul
			}
			int8Scores(t, qp, dim, recs, want, fmtMsg("dim %d mul %g", dim, mul))
		}
	}
}
