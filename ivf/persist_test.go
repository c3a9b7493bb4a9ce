package ivf

import (
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// deepCopy copies parts as a file round trip does.
func deepCopy(ps Parts) Parts {
	out := Parts{Centroids: slices.Clone(ps.Centroids), SplitAt: ps.SplitAt}
	for _, p := range ps.Partitions {
		out.Partitions = append(out.Partitions, PartitionParts{
			Records: slices.Clone(p.Records), IDs: slices.Clone(p.IDs), Adjust: slices.Clone(p.Adjust),
			Scales: slices.Clone(p.Scales), Tags: slices.Clone(p.Tags), Owners: slices.Clone(p.Owners),
			Tombstones: slices.Clone(p.Tombstones), Times: slices.Clone(p.Times), Imps: slices.Clone(p.Imps)})
	}
	return out
}

func TestPartsRoundTrip(t *testing.T) {
	n := testsize.Sized(5000, 1500)
	for _, adj := range []score.Adjust{score.AdjustNone, score.AdjustScale, score.AdjustSubtract} {
		d := newData(t, n, 6, 64, adj)
		x := d.build(t, 12, nil)
		for i := 0; i < n; i += 9 {
			require.NoError(t, x.Remove(d.ids[i]))
		}
		saved := deepCopy(x.Parts())
		y, err := New(d.kern, d.adjust, x.Config())
		require.NoError(t, err)
		require.NoError(t, FromParts(y, saved))
		require.Equal(t, x.Len(), y.Len())
		require.Equal(t, x.Stats().Tombstones, y.Stats().Tombstones)
		s := NewSearcher(1)
		f := &match.Filter{AnyTags: 2}
		for i := 0; i < 6; i++ {
			q := d.query(i)
			for _, np := range []int{1, 3, 12} {
				require.Equal(t, search(x, s, nil, 10, np, nil, q), search(y, s, nil, 10, np, nil, q), "adjust %d query %d nprobe %d", adj, i, np)
				require.Equal(t, search(x, s, nil, 10, np, f, q), search(y, s, nil, 10, np, f, q))
			}
		}
		// Writes to the loaded index copy a partition first: the parts
		// given to FromParts (a mapped file) never change.
		frozen := deepCopy(saved)
		y.MarkClean()
		for i := 0; i < n; i += 9 {
			rec := d.recs[i*y.stride : (i+1)*y.stride]
			var b float32
			if d.bias != nil {
				b = d.bias[i]
			}
			require.NoError(t, y.Add(d.ids[i], rec, b, 1, match.Attr{Tags: 1}))
		}
		require.NoError(t, y.Remove(d.ids[1]))
		require.True(t, y.SetTags(d.ids[2], 77))
		require.Equal(t, frozen, stripDirty(saved), "adjust %d", adj)
		dirty, _ := y.Dirty()
		require.NotEmpty(t, dirty)
		for i, p := range y.Parts().Partitions {
			require.Equal(t, slices.Contains(dirty, i), p.Dirty)
		}
	}
}

func stripDirty(ps Parts) Parts {
	for i := range ps.Partitions {
		ps.Partitions[i].Dirty = false
	}
	ps.CentroidsDirty = false
	return ps
}

func TestDirtyPartitions(t *testing.T) {
	d := newData(t, 3000, 4, 64, score.AdjustNone)
	x := d.build(t, 30, nil)
	parts, cents := x.Dirty()
	require.Len(t, parts, 30, "a new index is all dirty")
	require.True(t, cents)
	x.MarkClean()
	parts, cents = x.Dirty()
	require.Empty(t, parts)
	require.False(t, cents)
	// Removing 3 records dirties at most their 3 partitions.
	want := map[int]bool{}
	for _, i := range []int{5, 500, 2500} {
		pi, _, ok := x.locate(d.ids[i])
		require.True(t, ok)
		want[pi] = true
		require.NoError(t, x.Remove(d.ids[i]))
	}
	parts, cents = x.Dirty()
	require.Len(t, parts, len(want))
	for _, pi := range parts {
		require.True(t, want[pi])
	}
	require.False(t, cents)
	require.Equal(t, len(want), x.Stats().Dirty)
}

func TestFromPartsRefusesCorruptParts(t *testing.T) {
	d := newData(t, 800, 1, 64, score.AdjustScale)
	x := d.build(t, 4, nil)
	require.NoError(t, x.Remove(d.ids[3]))
	good := deepCopy(x.Parts())
	pi, _, _ := x.locate(d.ids[7])
	cases := map[string]func(ps *Parts){
		"no partitions":     func(ps *Parts) { ps.Partitions = nil },
		"short centroids":   func(ps *Parts) { ps.Centroids = ps.Centroids[1:] },
		"nan centroid":      func(ps *Parts) { ps.Centroids[0] = float32(nan()) },
		"short records":     func(ps *Parts) { ps.Partitions[0].Records = ps.Partitions[0].Records[1:] },
		"missing adjust":    func(ps *Parts) { ps.Partitions[1].Adjust = nil },
		"stray scales":      func(ps *Parts) { ps.Partitions[1].Scales = []float32{1} },
		"short tags":        func(ps *Parts) { ps.Partitions[2].Tags = ps.Partitions[2].Tags[1:] },
		"tombstone past":    func(ps *Parts) { ps.Partitions[0].Tombstones = []uint32{1 << 30} },
		"tombstones repeat": func(ps *Parts) { ps.Partitions[0].Tombstones = []uint32{1, 1} },
		"split size":        func(ps *Parts) { ps.SplitAt = -2 },
		"duplicate id": func(ps *Parts) {
			o := (pi + 1) % 4
			ps.Partitions[o].IDs[0] = d.ids[7]
		},
	}
	for name, corrupt := range cases {
		ps := deepCopy(good)
		corrupt(&ps)
		y, err := New(d.kern, d.adjust, x.Config())
		require.NoError(t, err)
		require.ErrorIs(t, FromParts(y, ps), ErrCorrupt, name)
	}
	// A removed id that was added again elsewhere is no duplicate.
	ps := deepCopy(good)
	for i, p := range ps.Partitions {
		for _, s := range p.Tombstones {
			ps.Partitions[i].IDs[s] = d.ids[7]
		}
	}
	y, err := New(d.kern, d.adjust, x.Config())
	require.NoError(t, err)
	require.NoError(t, FromParts(y, ps))
	require.True(t, y.Has(d.ids[7]))
	require.False(t, y.Has(d.ids[3]))
}

func nan() float64 { z := 0.0; return z / z }
