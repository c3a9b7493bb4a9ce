package radix

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortAgainstSort: the radix sort orders words of every width as
// slices.Sort does, repeats and equal high bytes included.
func TestSortAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, limit := range []uint64{1, 2, 255, 256, 100_000, 1 << 40, 1<<63 + 5, 0} {
		for _, n := range []int{0, 1, 2, 3, 700, 1000, 4097} {
			a := make([]uint64, n)
			for i := range a {
				if limit == 0 {
					a[i] = r.Uint64()
				} else {
					a[i] = r.Uint64N(limit)
				}
			}
			if n > 2 {
				a[n/2] = a[0] // a repeat
			}
			want := slices.Clone(a)
			slices.Sort(want)
			Sort(a, make([]uint64, n), 0)
			require.Equal(t, want, a, "limit %d n %d", limit, n)
		}
	}
}

// TestSortSkipIsStable: skipping the low bytes orders by the others and
// keeps the input order among words equal in them, whatever the low
// bytes hold.
func TestSortSkipIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for skip := range 9 {
		for _, n := range []int{2, 5, 300, 5000} {
			a := make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64() >> r.UintN(64)
			}
			high := func(v uint64) uint64 {
				if skip == 8 {
					return 0
				}
				return v >> (8 * skip)
			}
			want := slices.Clone(a)
			slices.SortStableFunc(want, func(x, y uint64) int {
				if hx, hy := high(x), high(y); hx != hy {
					if hx < hy {
						return -1
					}
					return 1
				}
				return 0
			})
			Sort(a, make([]uint64, n+3), skip)
			require.Equal(t, want, a, "skip %d n %d", skip, n)
		}
	}
}

func TestSortShortBuffer(t *testing.T) {
	require.Panics(t, func() { Sort([]uint64{3, 1}, make([]uint64, 1), 0) })
}

func TestSortAllocatesNothing(t *testing.T) {
	a, tmp := make([]uint64, 1000), make([]uint64, 1000)
	for i := range a {
		a[i] = uint64(i*7919) % 1000
	}
	require.Zero(t, testing.AllocsPerRun(10, func() { Sort(a, tmp, 0) }))
}
