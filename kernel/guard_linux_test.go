package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// beforeGuardPage returns a page of memory followed by an unreadable one,
// unmapped when the test ends: a kernel that reads past the end of data
// placed at the page's end faults.
func beforeGuardPage(t *testing.T) []byte {
	page := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	require.NoError(t, err)
	t.Cleanup(func() { unix.Munmap(mem) })
	require.NoError(t, unix.Mprotect(mem[page:], unix.PROT_NONE))
	return mem[:page]
}

// TestRecordEndingAtPageBoundary puts the last record's final byte right
// before an unreadable page: a kernel that reads past dim faults.
func TestRecordEndingAtPageBoundary(t *testing.T) {
	mem := beforeGuardPage(t)
	page := len(mem)
	r := rand.New(rand.NewPCG(13, 14))
	for dim := 1; dim <= 200; dim++ {
		const n = 2
		recs := mem[page-n*dim : page]
		randomRecord(r, recs)
		q := make([]float32, dim)
		randomQuery(r, q)
		qp := LayoutQuery(make([]float32, LayoutLen(dim)), q)
		want := []float32{dotE5M2Go(qp, recs, dim), dotE5M2Go(qp, recs[dim:], dim)}
		for _, impl := range All() {
			requireSameBits(t, want, scanAll(impl, qp, dim, recs, dim, n), "%s dim %d at a page end", impl.Name, dim)
		}
	}
}

// TestShiftBelowEndingAtPageBoundary: ShiftBelow reads and writes nothing
// past its slice, whose free last word ends right before an unreadable page.
func TestShiftBelowEndingAtPageBoundary(t *testing.T) {
	mem := beforeGuardPage(t)
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), len(mem)/8)
	for n := 1; n <= 40; n++ {
		for i := range words {
			words[i] = uint64(len(words) - i)
		}
		s := words[len(words)-n:]
		want := slices.Clone(s)
		for _, w := range []uint64{0, uint64(n / 2), math.MaxUint64} {
			gap := shiftBelowGo(want, w)
			require.Equal(t, gap, ShiftBelow(s, w), "n %d w %d", n, w)
			require.Equal(t, want, s, "n %d w %d", n, w)
		}
	}
}
