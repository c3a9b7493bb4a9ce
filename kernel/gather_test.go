package kernel

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// gatherSlab stores n padded records of dim components stride bytes apart,
// with noise in the gap after each record, as a graph's node blocks do.
func gatherSlab(r *rand.Rand, n, dim, stride int) []byte {
	rs := Stride(dim, E5M2)
	base := make([]byte, (n-1)*stride+rs) // the last record ends the slab
	for i := 0; i < n; i++ {
		randomRecord(r, base[i*stride:i*stride+dim])
		if i < n-1 {
			for j := i*stride + rs; j < (i+1)*stride; j++ {
				base[j] = byte(r.Uint32())
			}
		}
	}
	return base
}

func TestScanIDsMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, dim := range []int{1, 7, 15, 63, 64, 65, 100, 127, 383, 384, 385, 511, 768, 1000, 4096} {
		rs := Stride(dim, E5M2)
		for _, gap := range []int{0, 64, 192} {
			const n = 50
			stride := rs + gap
			base := gatherSlab(r, n, dim, stride)
			q := make([]float32, dim)
			randomQuery(r, q)
			qp := LayoutQuery(make([]float32, LayoutLen(dim)), q)
			for _, m := range []int{0, 1, 2, 3, 4, 15, 16, 17, 33} {
				ids := make([]uint32, m)
				for i := range ids {
					ids[i] = uint32(r.IntN(n))
				}
				if m > 0 {
					ids[m-1] = n - 1 // the record at the very end
				}
				want := make([]float32, m)
				for i, id := range ids {
					want[i] = dotE5M2Go(qp, base[int(id)*stride:], dim)
				}
				for _, impl := range All() {
					k, err := New(impl, dim, E5M2)
					require.NoError(t, err)
					got := make([]float32, m+1)
					got[m] = 42 // past len(ids): untouched
					k.ScanIDs(qp, base, stride, ids, got)
					requireSameBits(t, want, got[:m], "%s dim %d gap %d m %d", k.Name(), dim, gap, m)
					require.Equal(t, float32(42), got[m])
					// And the same bits as Scan over the records copied together.
					recs := make([]byte, m*rs)
					for i, id := range ids {
						copy(recs[i*rs:(i+1)*rs], base[int(id)*stride:])
					}
					scan := make([]float32, m)
					k.Scan(qp, recs, scan)
					requireSameBits(t, scan, got[:m], "%s dim %d: ScanIDs vs Scan", k.Name(), dim)
				}
			}
		}
	}
}

func TestScanIDsFallback(t *testing.T) {
	// An implementation without a gather kernel (pure Go here, NEON on
	// arm64) loops over its scan; check that path on every implementation.
	r := rand.New(rand.NewPCG(23, 24))
	for _, dim := range []int{5, 384, 700} {
		stride := Stride(dim, E5M2) + 64
		base := gatherSlab(r, 20, dim, stride)
		q := make([]float32, dim)
		randomQuery(r, q)
		qp := LayoutQuery(make([]float32, LayoutLen(dim)), q)
		ids := []uint32{19, 0, 7, 7, 3}
		for _, impl := range All() {
			k, err := New(impl, dim, E5M2)
			require.NoError(t, err)
			want, got := make([]float32, len(ids)), make([]float32, len(ids))
			k.ScanIDs(qp, base, stride, ids, want)
			gatherScan(k, qp, base, stride, ids, got)
			requireSameBits(t, want, got, "%s dim %d", k.Name(), dim)
		}
	}
}

func TestGatherRegistered(t *testing.T) {
	for _, impl := range All() {
		switch impl.Name {
		case "avx2", "avx512":
			require.NotNil(t, impl.funcs(E5M2).gather, impl.Name)
		}
	}
	if runtime.GOARCH == "amd64" && len(All()) > 1 {
		require.NotNil(t, Best().funcs(E5M2).gather)
	}
}

func TestScanIDsBounds(t *testing.T) {
	const dim, n = 384, 4
	stride := Stride(dim, E5M2) + 64
	base := gatherSlab(rand.New(rand.NewPCG(25, 26)), n, dim, stride)
	qp := make([]float32, LayoutLen(dim))
	out := make([]float32, 2)
	for _, impl := range All() {
		k, err := New(impl, dim, E5M2)
		require.NoError(t, err)
		require.NotPanics(t, func() { k.ScanIDs(qp, base, stride, []uint32{0, n - 1}, out) })
		require.NotPanics(t, func() { k.ScanIDs(qp, nil, stride, nil, nil) }, "no ids reads nothing")
		require.Panics(t, func() { k.ScanIDs(qp, base, stride, []uint32{0, n}, out) }, "id past the end")
		require.Panics(t, func() { k.ScanIDs(qp, base[:len(base)-1], stride, []uint32{n - 1}, out) }, "last record cut short")
		require.Panics(t, func() { k.ScanIDs(qp, base, stride, []uint32{1 << 31}, out) }, "huge id")
		require.Panics(t, func() { k.ScanIDs(qp, base[:10], stride, []uint32{0}, out) }, "base shorter than a record")
		require.Panics(t, func() { k.ScanIDs(qp, base, stride, []uint32{0, 1, 2}, out) }, "out too short")
		require.Panics(t, func() { k.ScanIDs(qp[:100], base, stride, []uint32{0}, out) }, "query too short")
		require.Panics(t, func() { k.ScanIDs(qp, base, 0, []uint32{0}, out) }, "zero stride")
	}
}

// BenchmarkScanIDs scores 32 random neighbours among 100,000 graph blocks
// (384-byte records, 576 bytes apart): what one HNSW expansion costs.
func BenchmarkScanIDs(b *testing.B) {
	const dim, n, m = 384, 100000, 32
	stride := 576
	r := rand.New(rand.NewPCG(27, 28))
	base := make([]byte, n*stride)
	for i := range base {
		base[i] = byte(r.Uint32()) & 0xbb // finite codes
	}
	q := make([]float32, dim)
	randomQuery(r, q)
	qp := LayoutQuery(make([]float32, dim), q)
	ids := make([]uint32, 1<<16)
	for i := range ids {
		ids[i] = uint32(r.IntN(n))
	}
	out := make([]float32, m)
	for _, impl := range All() {
		k, _ := New(impl, dim, E5M2)
		for _, form := range []string{"gather", "loop"} {
			b.Run(impl.Name+"/"+form, func(b *testing.B) {
				i := 0
				for b.Loop() {
					list := ids[i : i+m]
					if form == "gather" {
						k.ScanIDs(qp, base, stride, list, out)
					} else {
						gatherScan(k, qp, base, stride, list, out)
					}
					if i += m; i+m > len(ids) {
						i = 0
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/record")
			})
		}
	}
}
