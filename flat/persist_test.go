package flat

import (
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
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
