package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// The golden file pins scores across machines: it was produced on amd64 and
// every architecture must reproduce its bits. Regenerate it (only when the
// canonical order itself changes, which breaks every stored score) on amd64:
//
//	go test ./kernel/ -run TestGoldenE5M2 -update-golden
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden_e5m2.bin (amd64 only)")

const goldenPath = "testdata/golden_e5m2.bin"

// goldenMagic starts the file; the digit is its format version.
var goldenMagic = [8]byte{'A', 'S', 'T', 'G', 'O', 'L', 'D', '1'}

// goldenCase is nq queries against nrec records of dim components; want is
// query-major, like ScanBatch's output. All integers are little-endian
// uint32 in the file, floats their IEEE bits:
//
//	magic [8]byte, cases uint32, then per case:
//	dim, nq, nrec uint32; queries [nq*dim]uint32; records [nrec*dim]byte;
//	want [nq*nrec]uint32
type goldenCase struct {
	dim, nq, nrec int
	queries       []float32 // nq*dim, not laid out
	recs          []byte    // nrec*dim, packed
	want          []float32 // nq*nrec
}

// goldenEdges are query values at the edges of the canonical order: signed
// zeros, float32 denormals and values on each side of the 2^-87 flush, and
// magnitudes whose products with ±57344 stay finite over 1024 components.
var goldenEdges = []float32{
	0, float32(math.Copysign(0, -1)), 1e-40, -0x1p-126, 0x1p-87, -0x1p-87,
	0x1.fffffep-88, 1, -1, 0x1.000002p0, 65504, 1e4, -3e4, 1e30, -1e30, 0.1,
}

// goldenInputs builds the cases deterministically. Across its records every
// finite code occurs (the 1024-dim sweep alone holds each one 4 times).
func goldenInputs() []goldenCase {
	var finite []byte
	for c := 0; c < 256; c++ {
		if isFiniteCode(byte(c)) {
			finite = append(finite, byte(c))
		}
	}
	r := rand.New(rand.NewPCG(2026, 384))
	var cases []goldenCase
	for ci, dim := range []int{1, 15, 16, 17, 63, 64, 100, 384, 385, 1024} {
		c := goldenCase{dim: dim, nq: 3, nrec: 5}
		c.queries = make([]float32, c.nq*dim)
		for i := 0; i < dim; i++ {
			// Query 0: normal values with edges mixed in.
			q := float32(r.NormFloat64())
			if r.IntN(6) == 0 {
				q = goldenEdges[r.IntN(len(goldenEdges))]
			}
			c.queries[i] = q
			// Query 1: alternating signs over 40 binades, so partial sums
			// cancel and the order of additions shows in the low bits.
			m := float32(1 + r.Float64())
			if i%2 == 1 {
				m = -m
			}
			c.queries[dim+i] = m * float32(math.Ldexp(1, r.IntN(40)-20))
			// Query 2: the edge values in turn.
			c.queries[2*dim+i] = goldenEdges[(i+ci)%len(goldenEdges)]
		}
		c.recs = make([]byte, c.nrec*dim)
		for i := 0; i < dim; i++ {
			c.recs[i] = finite[(i+37*ci)%len(finite)] // a sweep of every code
			c.recs[dim+i] = finite[r.IntN(len(finite))]
			c.recs[2*dim+i] = 0x3c // 1.0: the score is the query's sum
			if r.IntN(8) == 0 {    // sparse extremes: ±57344, ±2^-16
				c.recs[3*dim+i] = []byte{0x7b, 0xfb, 0x01, 0x81}[r.IntN(4)]
			}
			c.recs[4*dim+i] = finite[len(finite)-1-(i*7+ci)%len(finite)]
		}
		cases = append(cases, c)
	}
	return cases
}

// fmaExact is a float32 FMA computed independently of fma32: the exact
// a*b+c in 512 bits, rounded once.
func fmaExact(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(512).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(512).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(512).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

// dotExact follows doc.go literally with fmaExact: component c goes to lane
// (c mod 16)/2 of accumulator (2*(c/16) + c mod 2) mod 8.
func dotExact(qp []float32, rec []byte, dim int) float32 {
	var a [8][8]float32
	for c := 0; c < dim; c++ {
		k, l := (2*(c/BlockLen)+c%2)%8, (c%BlockLen)/2
		a[k][l] = fmaExact(qp[layoutPos(c)], e5m2Table[rec[c]], a[k][l])
	}
	var u [8]float32
	for l := range u {
		u[l] = ((a[0][l] + a[1][l]) + (a[2][l] + a[3][l])) + ((a[4][l] + a[5][l]) + (a[6][l] + a[7][l]))
	}
	var v [4]float32
	for i := range v {
		v[i] = u[i] + u[i+4]
	}
	return (v[0] + v[2]) + (v[1] + v[3])
}

// goldenScores scores a case with dot (query-major).
func goldenScores(c goldenCase, dot func(qp []float32, rec []byte, dim int) float32) []float32 {
	out := make([]float32, c.nq*c.nrec)
	qp := make([]float32, LayoutLen(c.dim))
	for q := 0; q < c.nq; q++ {
		LayoutQuery(qp, c.queries[q*c.dim:(q+1)*c.dim])
		for i := 0; i < c.nrec; i++ {
			out[q*c.nrec+i] = dot(qp, c.recs[i*c.dim:], c.dim)
		}
	}
	return out
}

func writeGolden(w io.Writer, cases []goldenCase) error {
	var b bytes.Buffer
	b.Write(goldenMagic[:])
	u32 := func(v uint32) { b.Write(binary.LittleEndian.AppendUint32(nil, v)) }
	u32(uint32(len(cases)))
	for _, c := range cases {
		u32(uint32(c.dim))
		u32(uint32(c.nq))
		u32(uint32(c.nrec))
		for _, f := range c.queries {
			u32(math.Float32bits(f))
		}
		b.Write(c.recs)
		for _, f := range c.want {
			u32(math.Float32bits(f))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func readGolden(p []byte) ([]goldenCase, error) {
	errShort := errors.New("golden file truncated")
	take := func(n int) ([]byte, error) {
		if n < 0 || len(p) < n {
			return nil, errShort
		}
		b := p[:n]
		p = p[n:]
		return b, nil
	}
	u32 := func() (int, error) {
		b, err := take(4)
		if err != nil {
			return 0, err
		}
		return int(binary.LittleEndian.Uint32(b)), nil
	}
	f32s := func(n int) ([]float32, error) {
		b, err := take(4 * n)
		if err != nil {
			return nil, err
		}
		f := make([]float32, n)
		for i := range f {
			f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return f, nil
	}
	if m, err := take(8); err != nil || !bytes.Equal(m, goldenMagic[:]) {
		return nil, errors.New("not a golden file of this version")
	}
	n, err := u32()
	if err != nil {
		return nil, err
	}
	var cases []goldenCase
	for ; n > 0; n-- {
		var c goldenCase
		if c.dim, err = u32(); err != nil {
			return nil, err
		}
		if c.nq, err = u32(); err != nil {
			return nil, err
		}
		if c.nrec, err = u32(); err != nil {
			return nil, err
		}
		if c.dim < 1 || c.dim > MaxDim || c.nq < 1 || c.nrec < 1 {
			return nil, fmt.Errorf("bad case header %d/%d/%d", c.dim, c.nq, c.nrec)
		}
		if c.queries, err = f32s(c.nq * c.dim); err != nil {
			return nil, err
		}
		if c.recs, err = take(c.nrec * c.dim); err != nil {
			return nil, err
		}
		if c.want, err = f32s(c.nq * c.nrec); err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	if len(p) != 0 {
		return nil, errors.New("trailing bytes after the last case")
	}
	return cases, nil
}

// checkGoldenCase runs every implementation in every form over c and checks
// each score's bits against want.
func checkGoldenCase(t *testing.T, c goldenCase, want []float32, where string) {
	t.Helper()
	ql := LayoutLen(c.dim)
	qps := make([]float32, c.nq*ql)
	for q := 0; q < c.nq; q++ {
		LayoutQuery(qps[q*ql:], c.queries[q*c.dim:(q+1)*c.dim])
	}
	stride := Stride(c.dim, E5M2)
	padded := make([]byte, c.nrec*stride)
	for i := 0; i < c.nrec; i++ {
		copy(padded[i*stride:], c.recs[i*c.dim:(i+1)*c.dim])
	}
	requireSameBits(t, want, goldenScores(c, dotExact), "exact-FMA reference, %s", where)
	requireSameBits(t, want, goldenScores(c, dotE5M2Go), "pure-Go kernel, %s", where)
	for _, impl := range All() {
		k, err := New(impl, c.dim, E5M2)
		require.NoError(t, err)
		for q := 0; q < c.nq; q++ {
			qp := qps[q*ql : (q+1)*ql]
			w := want[q*c.nrec : (q+1)*c.nrec]
			// Packed records (stride dim) reach the tail path of scan.
			requireSameBits(t, w, scanAll(impl, qp, c.dim, c.recs, c.dim, c.nrec), "%s packed dim %d query %d, %s", impl.Name, c.dim, q, where)
			got := make([]float32, c.nrec)
			k.Scan(qp, padded, got)
			requireSameBits(t, w, got, "%s dim %d query %d, %s", k.Name(), c.dim, q, where)
		}
		got := make([]float32, c.nq*c.nrec)
		k.ScanBatch(qps, c.nq, padded, make([]float32, ql), got)
		requireSameBits(t, want, got, "%s batch dim %d, %s", impl.Name, c.dim, where)
	}
}

// TestGoldenE5M2 checks every implementation on this machine, the pure-Go
// kernel and an exact-arithmetic reference against score bits produced on
// amd64, where AVX2, AVX-512 and pure Go had to agree on every one.
func TestGoldenE5M2(t *testing.T) {
	if *updateGolden {
		require.Equal(t, "amd64", runtime.GOARCH, "the golden file is produced on amd64")
		cases := goldenInputs()
		for i := range cases {
			cases[i].want = goldenScores(cases[i], dotExact)
			for _, s := range cases[i].want {
				// NaN bits differ between x86 and ARM: no case may make one.
				require.False(t, math.IsNaN(float64(s)), "case %d makes a NaN", i)
			}
			checkGoldenCase(t, cases[i], cases[i].want, "generating")
		}
		var b bytes.Buffer
		require.NoError(t, writeGolden(&b, cases))
		require.NoError(t, os.MkdirAll(filepath.Dir(goldenPath), 0o755))
		require.NoError(t, os.WriteFile(goldenPath, b.Bytes(), 0o644))
		t.Logf("wrote %s: %d cases, %d bytes", goldenPath, len(cases), b.Len())
	}
	data, err := os.ReadFile(goldenPath)
	require.NoError(t, err)
	cases, err := readGolden(data)
	require.NoError(t, err)
	require.NotEmpty(t, cases)

	var seen [256]bool
	dims := map[int]bool{}
	for _, c := range cases {
		dims[c.dim] = true
		for _, b := range c.recs {
			require.True(t, isFiniteCode(b), "stored codes are finite")
			seen[b] = true
		}
	}
	for code := 0; code < 256; code++ {
		require.Equal(t, isFiniteCode(byte(code)), seen[code], "code %#02x coverage", code)
	}
	for _, d := range []int{1, 15, 16, 17, 63, 64, 100, 384, 385, 1024} {
		require.True(t, dims[d], "dim %d missing", d)
	}
	for i, c := range cases {
		checkGoldenCase(t, c, c.want, fmt.Sprintf("golden case %d on %s", i, runtime.GOARCH))
	}
}

// TestEveryCodeAlone puts each of the 256 codes alone in a record, at every
// position of a group and of a partial group, under queries of one fixed
// value: each score is a single rounded product, so a wrong decode of any
// code in any lane shows, and every implementation must give the same bits.
func TestEveryCodeAlone(t *testing.T) {
	values := []float32{1, -1, 0.1, -3e4, 0x1p-87, 1.75, 1e30}
	for _, dim := range []int{64, 17} {
		ql := LayoutLen(dim)
		recs := make([]byte, dim*dim) // record p holds the code at position p
		q := make([]float32, dim)
		qp := make([]float32, ql)
		for _, v := range values {
			for i := range q {
				q[i] = v
			}
			LayoutQuery(qp, q)
			for code := 0; code < 256; code++ {
				for p := 0; p < dim; p++ {
					recs[p*dim+p] = byte(code)
				}
				x := e5m2Value(byte(code))
				for _, impl := range All() {
					got := scanAll(impl, qp, dim, recs, dim, dim)
					for p, s := range got {
						switch {
						case math.IsNaN(x):
							// NaN bits are the CPU's choice; stored codes are never NaN.
							require.True(t, math.IsNaN(float64(s)), "%s code %#02x pos %d", impl.Name, code, p)
						default:
							// One product, rounded once; +0 turns a -0 product into +0.
							want := float32(float64(v)*x) + 0
							if math.Float32bits(s) != math.Float32bits(want) {
								t.Fatalf("%s dim %d q %g code %#02x pos %d: got %g (%#08x), want %g (%#08x)",
									impl.Name, dim, v, code, p, s, math.Float32bits(s), want, math.Float32bits(want))
							}
						}
					}
				}
			}
		}
	}
}

// TestFMA32IsFused checks the pure-Go fma32 against the exact reference on
// products and accumulators far apart in magnitude, where a float64 sum
// rounded before the float32 rounding (double rounding) goes wrong.
func TestFMA32IsFused(t *testing.T) {
	// Found by the golden file: -1e30 * 20480 + -501.52814.
	a, b, c := math.Float32frombits(0xf149f2ca), float32(20480), math.Float32frombits(0xc3fac39a)
	require.Equal(t, math.Float32bits(fmaExact(a, b, c)), math.Float32bits(fma32(a, b, c)), "the golden file's case")
	r := rand.New(rand.NewPCG(17, 18))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for i := 0; i < n; i++ {
		q := float32(math.Ldexp(1+r.Float64(), r.IntN(120)-60))
		if r.IntN(2) == 0 {
			q = -q
		}
		x := e5m2Table[byte(r.IntN(256))&^0x40] // a finite code
		acc := float32(math.Ldexp(r.NormFloat64(), r.IntN(160)-80))
		want, got := fmaExact(q, x, acc), fma32(q, x, acc)
		if math.Float32bits(want) != math.Float32bits(got) {
			t.Fatalf("fma32(%g, %g, %g) = %g (%#08x), want %g (%#08x)", q, x, acc, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
}
