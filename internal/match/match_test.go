package match

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/radix"
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
		test := c.f.AttrTest()
		assert.Equal(t, map[bool]uint32{true: 1}[c.want], test.Pass(a.Tags, a.Owner), c.name)
	}
}

// selectByAttrs is Select written with Attrs, the form AttrTest must match.
func selectByAttrs(f *Filter, base int, tags, owners []uint64) []uint32 {
	var sel []uint32
	for i := range tags {
		if f.Attrs(Attr{Tags: tags[i], Owner: owners[i]}) {
			sel = append(sel, uint32(base+i))
		}
	}
	return sel
}

func TestAttrTestSelectsAsAttrs(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 17))
	// Few bits and few owners, so that every condition both holds and
	// fails; the top bit too, where Pass reads its answer.
	word := func() uint64 { return r.Uint64N(16) | uint64(r.IntN(2))<<63 }
	const n = 500
	tags, owners := make([]uint64, n), make([]uint64, n)
	for i := range tags {
		tags[i], owners[i] = word(), r.Uint64N(4)
	}
	for range 2000 {
		f := Filter{}
		// Each condition on or off, so every specialised loop runs.
		if r.IntN(2) == 0 {
			f.AllTags = word()
		}
		if r.IntN(2) == 0 {
			f.AnyTags = word()
		}
		if r.IntN(2) == 0 {
			f.NoTags = word()
		}
		if r.IntN(2) == 0 {
			f.Owner = r.Uint64N(4)
		}
		test := f.AttrTest()
		want := selectByAttrs(&f, 1000, tags, owners)
		got := test.Select(make([]uint32, n), 1000, tags, owners)
		require.Equal(t, len(want), len(got), "%+v", f)
		if len(want) > 0 {
			require.Equal(t, want, got, "%+v", f)
		}
	}
}

func FuzzAttrTest(f *testing.F) {
	f.Add(uint64(0b1011), uint64(7), uint64(1), uint64(0b1100), uint64(0b10000), uint64(7))
	f.Add(uint64(1)<<63, uint64(0), uint64(1)<<63, uint64(0), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, tags, owner, all, anyTags, no, want uint64) {
		fl := Filter{Owner: want, AllTags: all, AnyTags: anyTags, NoTags: no}
		test := fl.AttrTest()
		pass := test.Pass(tags, owner)
		require.Equal(t, fl.Attrs(Attr{Tags: tags, Owner: owner}), pass == 1)
		require.LessOrEqual(t, pass, uint32(1))
		sel := test.Select(make([]uint32, 1), 5, []uint64{tags}, []uint64{owner})
		require.Equal(t, int(pass), len(sel))
	})
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

// TestIDSetSortsLongLists: a list long enough for the radix sort comes
// out sorted and without repeats, in the caller's scratch, allocating
// nothing once the scratch is grown.
func TestIDSetSortsLongLists(t *testing.T) {
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
				radix.Sort(a, tmp, 0)
			}
		})
	}
}

// BenchmarkSelect times one chunk-sized pass of Select over 100,000
// records' tags against the short-circuit Attrs loop it replaced, at the
// shares issue 17 measures: compare the two forms within one run.
//
//	go test -run '^$' -bench Select -count 6 ./internal/match/ | benchstat -col /form -
func BenchmarkSelect(b *testing.B) {
	const n, chunk = 100000, 256
	r := rand.New(rand.NewPCG(5, 5))
	for _, share := range []float64{0.001, 0.01, 0.1, 0.5} {
		tags, owners := make([]uint64, n), make([]uint64, n)
		for i := range tags {
			if r.Float64() < share {
				tags[i] = 1
			}
		}
		f := Filter{AllTags: 1}
		sel := make([]uint32, chunk)
		for _, form := range []string{"attrs", "test"} {
			b.Run(fmt.Sprintf("share=%g/form=%s", share, form), func(b *testing.B) {
				kept := 0
				for b.Loop() {
					kept = 0
					for base := 0; base < n; base += chunk {
						m := min(chunk, n-base)
						if form == "attrs" {
							kept += len(selectAttrsLoop(&f, sel[:m], base, tags[base:base+m], owners[base:base+m]))
						} else {
							test := f.AttrTest()
							kept += len(test.Select(sel[:m], base, tags[base:base+m], owners[base:base+m]))
						}
					}
				}
				b.ReportMetric(float64(kept)/n, "share")
			})
		}
	}
}

// selectAttrsLoop is the loop flat used before AttrTest.
func selectAttrsLoop(f *Filter, sel []uint32, base int, tags, owners []uint64) []uint32 {
	n := 0
	for i := range tags {
		sel[n] = uint32(base + i)
		if f.Attrs(Attr{Tags: tags[i], Owner: owners[i]}) {
			n++
		}
	}
	return sel[:n]
}
