package match

import (
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
