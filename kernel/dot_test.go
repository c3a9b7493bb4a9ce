package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/astral-engine/astral/internal/fpenv"
	"github.com/stretchr/testify/require"
)

// randomRecord fills rec with finite codes, edge codes included.
func randomRecord(r *rand.Rand, rec []byte) {
	edges := []byte{0x00, 0x80, 0x01, 0x81, 0x03, 0x04, 0x7b, 0xfb, 0x3c, 0xbc}
	for i := range rec {
		switch r.IntN(8) {
		case 0:
			rec[i] = edges[r.IntN(len(edges))]
		default:
			for {
				c := byte(r.Uint32())
				if isFiniteCode(c) {
					rec[i] = c
					break
				}
			}
		}
	}
}

// randomQuery fills q with normal values and edge values: zeros of both
// signs, float32 denormals, components under the 2^-87 flush, large values.
func randomQuery(r *rand.Rand, q []float32) {
	edges := []float32{0, float32(math.Copysign(0, -1)), 1e-40, -1e-39, 0x1p-88, 0x1p-87, -0x1.fp-87, 1e4, -3e4, 1}
	for i := range q {
		if r.IntN(10) == 0 {
			q[i] = edges[r.IntN(len(edges))]
		} else {
			q[i] = float32(r.NormFloat64())
		}
	}
}

// dotF64 is an independent float64 dot product of a query and a record.
func dotF64(q []float32, rec []byte) float64 {
	s := 0.0
	for i, v := range q {
		if math.Abs(float64(v)) >= flushBelow {
			s += float64(v) * e5m2Value(rec[i])
		}
	}
	return s
}

func TestGoKernelIsADotProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for dim := 1; dim <= 600; dim += 7 {
		q, rec := make([]float32, dim), make([]byte, dim)
		for i := range q {
			q[i] = float32(r.NormFloat64())
			rec[i] = EncodeE5M2(float32(r.NormFloat64()))
		}
		qp := LayoutQuery(make([]float32, LayoutLen(dim)), q)
		want := dotF64(q, rec)
		got := float64(dotE5M2Go(qp, rec, dim))
		bound := 0.0
		for i, v := range q {
			bound += math.Abs(float64(v) * e5m2Value(rec[i]))
		}
		require.InDelta(t, want, got, 1e-5*bound+1e-30, "dim %d", dim)
	}
}

// scanAll scores n records of dim bytes (stride apart) with impl.
func scanAll(impl *Impl, qp []float32, dim int, recs []byte, stride, n int) []float32 {
	out := make([]float32, n)
	impl.funcs(E5M2).scan(qp, dim, recs, stride, out)
	return out
}

func requireSameBits(t *testing.T, want, got []float32, msg string, args ...any) {
	t.Helper()
	require.Equal(t, len(want), len(got))
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			t.Fatalf("%s: score %d: got %g (%#08x), want %g (%#08x)", fmtMsg(msg, args...), i,
				got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

func fmtMsg(msg string, args ...any) string { return fmt.Sprintf(msg, args...) }

// TestImplsMatchGoEveryDim runs every implementation over dims 1-1024 with
// unaligned, unpadded records and checks the score bits against pure Go.
func TestImplsMatchGoEveryDim(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 3
	for dim := 1; dim <= 1024; dim++ {
		stride := dim + r.IntN(3)
		buf := make([]byte, n*stride+64)
		off := r.IntN(64) // unaligned start
		recs := buf[off : off+(n-1)*stride+dim]
		randomRecord(r, recs)
		q := make([]float32, dim)
		randomQuery(r, q)
		qp := LayoutQuery(make([]float32, LayoutLen(dim)), q)
		want := make([]float32, n)
		for i := range want {
			want[i] = dotE5M2Go(qp, recs[i*stride:], dim)
		}
		for _, impl := range All() {
			requireSameBits(t, want, scanAll(impl, qp, dim, recs, stride, n), "%s dim %d", impl.Name, dim)
		}
	}
}

// paddedRecords lays n records of dim components out as an index stores
// them: Stride apart, zero-padded.
func paddedRecords(r *rand.Rand, n, dim int) []byte {
	stride := Stride(dim, E5M2)
	recs := make([]byte, n*stride)
	for i := 0; i < n; i++ {
		randomRecord(r, recs[i*stride:i*stride+dim])
	}
	return recs
}

func TestKernelFormsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{1, 15, 16, 63, 64, 100, 128, 383, 384, 385, 768, 1024, 1536, 4096} {
		const n = 37
		recs := paddedRecords(r, n, dim)
		goK, err := New(impls[0], dim, E5M2)
		require.NoError(t, err)
		q := make([]float32, dim)
		randomQuery(r, q)
		qp := LayoutQuery(make([]float32, LayoutLen(dim)), q)
		want := make([]float32, n)
		goK.Scan(qp, recs, want)
		for _, impl := range All() {
			k, err := New(impl, dim, E5M2)
			require.NoError(t, err)
			if dim == 384 && impl.funcs(E5M2).scan384 != nil {
				require.Equal(t, impl.Name+"/fixed384", k.Name())
			}
			got := make([]float32, n)
			k.Scan(qp, recs, got)
			requireSameBits(t, want, got, "%s dim %d", k.Name(), dim)
		}
	}
}

func TestBatchMatchesSingle(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, dim := range []int{1, 17, 64, 300, 384, 1000} {
		const n = 29
		recs := paddedRecords(r, n, dim)
		for _, impl := range All() {
			k, err := New(impl, dim, E5M2)
			require.NoError(t, err)
			ql := k.QueryLen()
			for nq := 1; nq <= 16; nq++ {
				qps := make([]float32, nq*ql)
				single := make([][]float32, nq)
				for j := 0; j < nq; j++ {
					q := make([]float32, dim)
					randomQuery(r, q)
					LayoutQuery(qps[j*ql:], q)
					single[j] = make([]float32, n)
					k.Scan(qps[j*ql:(j+1)*ql], recs, single[j])
				}
				out := make([]float32, n*nq)
				k.ScanBatch(qps, nq, recs, make([]float32, ql), out)
				for j := 0; j < nq; j++ {
					col := make([]float32, n)
					copy(col, out[j*n:(j+1)*n])
					requireSameBits(t, single[j], col, "%s dim %d nq %d query %d", impl.Name, dim, nq, j)
				}
			}
		}
	}
}

// TestFTZDAZ sets flush-to-zero and denormals-are-zero the way a game engine
// may leave them and checks every kernel still returns the same bits.
func TestFTZDAZ(t *testing.T) {
	if !fpenv.Supported {
		t.Skip("no MXCSR on this architecture")
	}
	r := rand.New(rand.NewPCG(11, 12))
	type tc struct {
		dim  int
		qp   []float32
		recs []byte
		want []float32
	}
	var cases []tc
	for _, dim := range []int{7, 64, 384, 1000} {
		const n = 16
		recs := make([]byte, n*Stride(dim, E5M2))
		for i := range recs {
			recs[i] = byte(r.IntN(8)) | byte(r.IntN(2))<<7 // E5M2 subnormals and the smallest normals
		}
		q := make([]float32, dim)
		for i := range q {
			q[i] = float32(math.Ldexp(r.Float64()+0.5, -86+r.IntN(4))) // products near the float32 denormal range
			if i%5 == 0 {
				q[i] = 1e-40 // a float32 denormal: flushed by the layout
			}
		}
		qp := LayoutQuery(make([]float32, LayoutLen(dim)), q)
		want := make([]float32, n)
		for i := range want {
			want[i] = dotE5M2Go(qp, recs[i*Stride(dim, E5M2):], dim)
		}
		cases = append(cases, tc{dim, qp, recs, want})
	}
	nonzero := 0
	for _, c := range cases {
		for _, w := range c.want {
			if w != 0 {
				nonzero++
			}
		}
	}
	require.Greater(t, nonzero, 0, "the fixture must produce tiny nonzero scores")

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	saved := fpenv.GetMXCSR()
	defer fpenv.SetMXCSR(saved)
	fpenv.SetMXCSR(saved | fpenv.FTZ | fpenv.DAZ)
	require.Equal(t, fpenv.FTZ|fpenv.DAZ, fpenv.GetMXCSR()&(fpenv.FTZ|fpenv.DAZ), "MXCSR must hold FTZ and DAZ")
	for _, c := range cases {
		for _, impl := range All() {
			k, err := New(impl, c.dim, E5M2)
			require.NoError(t, err)
			got := make([]float32, len(c.want))
			k.Scan(c.qp, c.recs, got)
			requireSameBits(t, c.want, got, "%s dim %d with FTZ/DAZ", k.Name(), c.dim)
			batch := make([]float32, len(c.want))
			k.ScanBatch(c.qp, 1, c.recs, make([]float32, k.QueryLen()), batch)
			requireSameBits(t, c.want, batch, "%s batch dim %d with FTZ/DAZ", k.Name(), c.dim)
		}
	}
	require.Equal(t, fpenv.FTZ|fpenv.DAZ, fpenv.GetMXCSR()&(fpenv.FTZ|fpenv.DAZ), "MXCSR still set after the kernels")
}

func TestNewRejectsBadDims(t *testing.T) {
	for _, dim := range []int{0, -1, MaxDim + 1} {
		_, err := New(nil, dim, E5M2)
		require.ErrorIs(t, err, ErrDimension)
	}
}

func TestReadSum(t *testing.T) {
	p := make([]byte, 1000)
	var want uint64
	for i := range p {
		p[i] = byte(i)
	}
	// Words summed: compare the asm path with the Go path on a multiple of 256.
	want = readSumGo(p[:768], false)
	for _, b := range p[768:] {
		want += uint64(b)
	}
	require.Equal(t, want, ReadSum(p, false))
	require.Equal(t, want, ReadSum(p, true))
}

func FuzzImplsAgree(f *testing.F) {
	f.Add([]byte{1, 2, 3}, uint64(1))
	f.Add(make([]byte, 384), uint64(2))
	f.Fuzz(func(t *testing.T, rec []byte, seed uint64) {
		if len(rec) == 0 || len(rec) > MaxDim {
			return
		}
		for i := range rec {
			if !isFiniteCode(rec[i]) {
				rec[i] &^= 0x40 // keep stored codes finite, as Add does
			}
		}
		r := rand.New(rand.NewPCG(seed, 1))
		q := make([]float32, len(rec))
		randomQuery(r, q)
		qp := LayoutQuery(make([]float32, LayoutLen(len(rec))), q)
		want := dotE5M2Go(qp, rec, len(rec))
		for _, impl := range All() {
			got := scanAll(impl, qp, len(rec), rec, len(rec), 1)[0]
			if math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("%s: %g, want %g", impl.Name, got, want)
			}
		}
	})
}

func TestBestIsFastest(t *testing.T) {
	best := Best()
	for _, i := range All() {
		require.LessOrEqual(t, i.rank, best.rank)
	}
	if len(All()) > 1 {
		require.NotEqual(t, "go", best.Name, "an asm kernel must win over pure Go")
	}
}
