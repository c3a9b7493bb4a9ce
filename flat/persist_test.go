package flat

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
	"github.com/stretchr/testify/require"
)

// TestPartsRoundTrip: an index rebuilt from its parts, in place, answers
// the same; Detach lets it take writes without touching those parts.
func TestPartsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	x, _ := newTestIndex(t, r, 500, 40, 0)
	p := x.Parts()
	recs, ids := p.Records, p.IDs
	require.Nil(t, p.Adjust)
	frozen := append([]byte{}, recs...)
	y, err := FromParts(x.kern, score.AdjustNone, Parts{Records: frozen, IDs: append([]uint64{}, ids...)})
	require.NoError(t, err)
	s := NewSearcher(1)
	q := randomQuery(r, 40)
	require.Equal(t, search(x, s, nil, 10, q), search(y, s, nil, 10, q))

	y.Detach()
	before := append([]byte{}, frozen...)
	require.NoError(t, y.Remove(ids[0]))
	require.NoError(t, y.Add(1, recs[:x.stride], 0, 1, match.Attr{}))
	require.Equal(t, before, frozen, "Detach: writes leave the parts alone")
	require.NoError(t, x.Remove(ids[0]))
	require.NoError(t, x.Add(1, recs[:x.stride], 0, 1, match.Attr{}))
	require.Equal(t, search(x, s, nil, 10, q), search(y, s, nil, 10, q))
}

// TestFromPartsRefuses inconsistent parts.
func TestFromPartsRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	x, _ := newTestIndex(t, r, 20, 8, 0)
	p := x.Parts()
	recs, ids := p.Records, p.IDs
	n := len(ids)
	for _, c := range []struct {
		why    string
		adjust score.Adjust
		p      Parts
	}{
		{"a record short", score.AdjustNone, Parts{Records: recs[:len(recs)-1], IDs: ids}},
		{"adjust values short", score.AdjustScale, Parts{Records: recs, IDs: ids, Adjust: make([]float32, 3)}},
		{"adjust values without an adjust", score.AdjustNone, Parts{Records: recs, IDs: ids, Adjust: make([]float32, n)}},
		{"multipliers short", score.AdjustScaleSubtract, Parts{Records: recs, IDs: ids, Adjust: make([]float32, n), Scales: make([]float32, n-1)}},
		{"multipliers without their adjust", score.AdjustScale, Parts{Records: recs, IDs: ids, Adjust: make([]float32, n), Scales: make([]float32, n)}},
		{"tags short", score.AdjustNone, Parts{Records: recs, IDs: ids, Tags: make([]uint64, n-1), Owners: make([]uint64, n)}},
		{"tags long", score.AdjustNone, Parts{Records: recs, IDs: ids, Tags: make([]uint64, n+1)}},
		{"owners short", score.AdjustNone, Parts{Records: recs, IDs: ids, Owners: make([]uint64, n-1)}},
		{"owners empty, not nil", score.AdjustNone, Parts{Records: recs, IDs: ids, Tags: make([]uint64, n), Owners: []uint64{}}},
	} {
		_, err := FromParts(x.kern, c.adjust, c.p)
		require.ErrorIs(t, err, ErrCorrupt, c.why)
	}
	dup := append([]uint64{}, ids...)
	dup[5] = dup[2]
	_, err := FromParts(x.kern, score.AdjustNone, Parts{Records: recs, IDs: dup})
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = FromParts(x.kern, score.AdjustScaleSubtract, Parts{Records: recs, IDs: ids, Adjust: make([]float32, n), Scales: make([]float32, n)})
	require.NoError(t, err)
	empty, err := FromParts(x.kern, score.AdjustScale, Parts{})
	require.NoError(t, err)
	require.NoError(t, empty.Add(1, recs[:x.stride], 0.5, 1, match.Attr{}))
	require.Equal(t, []float32{0.5}, empty.bias)
}

// TestPartsAttributes: tags and owners travel in Parts and come back in
// place; nil columns load as zeros (a file without attributes); Detach
// copies them, so SetTags leaves the parts alone.
func TestPartsAttributes(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	x := newAttrIndex(t, r, 700, 48, kernel.E5M2, score.AdjustScale)
	p := x.Parts()
	require.Len(t, p.Tags, 700)
	require.Len(t, p.Owners, 700)
	frozen := Parts{Records: slices.Clone(p.Records), IDs: slices.Clone(p.IDs), Adjust: slices.Clone(p.Adjust),
		Tags: slices.Clone(p.Tags), Owners: slices.Clone(p.Owners)}
	y, err := FromParts(x.kern, score.AdjustScale, frozen)
	require.NoError(t, err)
	require.Same(t, &frozen.Tags[0], &y.Parts().Tags[0], "used in place")
	require.Same(t, &frozen.Owners[0], &y.Parts().Owners[0], "used in place")
	for _, id := range p.IDs {
		want, _ := x.Attr(id)
		got, ok := y.Attr(id)
		require.True(t, ok)
		require.Equal(t, want, got)
	}
	s := NewSearcher(1)
	q := [][]float32{randomQuery(r, 48)}
	f := match.Filter{AnyTags: 6, NoTags: 1}
	require.Equal(t, run(x, s, nil, 10, q, scanPlan(&f)), run(y, s, nil, 10, q, scanPlan(&f)))

	before := slices.Clone(frozen.Tags)
	y.Detach()
	require.True(t, y.SetTags(p.IDs[3], 1<<50))
	require.NoError(t, y.Remove(p.IDs[0]))
	require.Equal(t, before, frozen.Tags, "Detach: writes leave the parts alone")
	a, _ := y.Attr(p.IDs[3])
	require.Equal(t, uint64(1<<50), a.Tags)

	bare, err := FromParts(x.kern, score.AdjustScale, Parts{Records: p.Records, IDs: p.IDs, Adjust: p.Adjust})
	require.NoError(t, err)
	require.Equal(t, make([]uint64, 700), bare.Parts().Tags)
	require.Equal(t, make([]uint64, 700), bare.Parts().Owners)
	require.Equal(t, run(x, s, nil, 10, q, plain), run(bare, s, nil, 10, q, scanPlan(&match.Filter{NoTags: 1})), "no record has a tag")
	require.Empty(t, run(bare, s, nil, 10, q, scanPlan(&match.Filter{Owner: 1}))[0])
}
