package match

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAttrsConditionsCombineWithAnd(t *testing.T) {
	a := Attr{Tags: 0b1011, Owner: 7}
	cases := []struct {
		name string
		f    Filter
		want bool
	}{
		{"zero filter", Filter{}, true},
		{"owner equal", Filter{Owner: 7}, true},
		{"owner differs", Filter{Owner: 8}, false},
		{"all present", Filter{AllTags: 0b1010}, true},
		{"all missing one", Filter{AllTags: 0b0110}, false},
		{"any hit", Filter{AnyTags: 0b0101}, true},
		{"any miss", Filter{AnyTags: 0b0100}, false},
		{"none clear", Filter{NoTags: 0b0100}, true},
		{"none hit", Filter{NoTags: 0b0001}, false},
		{"and of all", Filter{Owner: 7, AllTags: 1, AnyTags: 0b1100, NoTags: 0b10000}, true},
		{"and fails on one", Filter{Owner: 7, AllTags: 1, AnyTags: 0b0100}, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.f.Attrs(a), c.name)
	}
}

func TestIDSetBuildSortsAndDedupesWithoutTouchingInput(t *testing.T) {
	in := []uint64{9, 3, 3, 7, 1, 9}
	var s IDSet
	scratch := s.Build(in, nil)
	assert.Equal(t, []uint64{9, 3, 3, 7, 1, 9}, in)
	assert.Equal(t, []uint64{1, 3, 7, 9}, s.IDs())
	for _, id := range []uint64{1, 3, 7, 9} {
		assert.True(t, s.Contains(id))
	}
	for _, id := range []uint64{0, 2, 8, 10} {
		assert.False(t, s.Contains(id))
	}
	allocs := testing.AllocsPerRun(20, func() { scratch = s.Build(in, scratch) })
	assert.Zero(t, allocs)
}

func TestAllowAndDeny(t *testing.T) {
	var f Filter
	assert.True(t, f.IDs(5))
	f.Allow.Build(nil, nil)
	assert.False(t, f.IDs(5), "an empty allowlist that is on matches nothing")
	f.Allow.Build([]uint64{5, 6}, nil)
	f.Deny.Build([]uint64{6}, nil)
	assert.True(t, f.IDs(5))
	assert.False(t, f.IDs(6))
	assert.False(t, f.IDs(7))
	assert.True(t, f.Active())
	assert.True(t, f.Match(5, Attr{}))
}

func TestShardCoversEveryIDOnce(t *testing.T) {
	ids := []uint64{1, 2, 3, 4, 5, 6, 7}
	for n := 1; n <= 9; n++ {
		var got []uint64
		for i := 0; i < n; i++ {
			got = append(got, Shard(ids, i, n)...)
		}
		require.Equal(t, ids, got, "n=%d", n)
	}
}

// TestRadixSortAgainstSort: the radix sort orders ids of every width as
// slices.Sort does, repeats and equal high bytes included.
func TestRadixSortAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, limit := range []uint64{1, 2, 255, 256, 100_000, 1 << 40, 1<<63 + 5, 0} {
		for _, n := range []int{1, 2, 3, radixMin, 1000, 4097} {
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
			radixSort(a, make([]uint64, n))
			require.Equal(t, want, a, "limit %d n %d", limit, n)
		}
	}
	var s IDSet
	ids := []uint64{9, 3, 1 << 50, 3, 7}
	for len(ids) < 2*radixMin {
		ids = append(ids, uint64(len(ids))*977%1013)
	}
	scratch := s.Build(ids, nil)
	want := slices.Compact(slices.Sorted(slices.Values(ids)))
	require.Equal(t, want, s.IDs())
	require.GreaterOrEqual(t, cap(scratch), 2*len(ids))
	require.Zero(t, testing.AllocsPerRun(10, func() { scratch = s.Build(ids, scratch) }))
}

// BenchmarkSortIDs: the radix sort against slices.Sort on allowlists of
// ids below 2^20 (radixMin is where the radix sort starts to win).
func BenchmarkSortIDs(b *testing.B) {
	for _, n := range []int{64, 128, 256, 512, 1000, 10_000} {
		r := rand.New(rand.NewPCG(1, 2))
		src := make([]uint64, n)
		for i := range src {
			src[i] = r.Uint64N(1 << 20)
		}
		a, tmp := make([]uint64, n), make([]uint64, n)
		b.Run(fmt.Sprintf("n=%d/sort=slices", n), func(b *testing.B) {
			for b.Loop() {
				copy(a, src)
				slices.Sort(a)
			}
		})
		b.Run(fmt.Sprintf("n=%d/sort=radix", n), func(b *testing.B) {
			for b.Loop() {
				copy(a, src)
				radixSort(a, tmp)
			}
		})
	}
}
