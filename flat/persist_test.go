package flat

import (
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/score"
	"github.com/stretchr/testify/require"
)

// TestPartsRoundTrip: an index rebuilt from its parts, in place, answers
// the same; Detach lets it take writes without touching those parts.
func TestPartsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	x, _ := newTestIndex(t, r, 500, 40, 0)
	recs, ids, bias := x.Parts()
	require.Nil(t, bias)
	frozen := append([]byte{}, recs...)
	y, err := FromParts(x.kern, score.AdjustNone, frozen, append([]uint64{}, ids...), nil)
	require.NoError(t, err)
	s := NewSearcher(1)
	q := randomQuery(r, 40)
	require.Equal(t, search(x, s, nil, 10, q), search(y, s, nil, 10, q))

	y.Detach()
	before := append([]byte{}, frozen...)
	require.NoError(t, y.Remove(ids[0]))
	require.NoError(t, y.Add(1, recs[:x.stride], 0, 1))
	require.Equal(t, before, frozen, "Detach: writes leave the parts alone")
	require.NoError(t, x.Remove(ids[0]))
	require.NoError(t, x.Add(1, recs[:x.stride], 0, 1))
	require.Equal(t, search(x, s, nil, 10, q), search(y, s, nil, 10, q))
}

// TestFromPartsRefuses inconsistent parts.
func TestFromPartsRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	x, _ := newTestIndex(t, r, 20, 8, 0)
	recs, ids, _ := x.Parts()
	_, err := FromParts(x.kern, score.AdjustNone, recs[:len(recs)-1], ids, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = FromParts(x.kern, score.AdjustScale, recs, ids, make([]float32, 3))
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = FromParts(x.kern, score.AdjustNone, recs, ids, make([]float32, len(ids)))
	require.ErrorIs(t, err, ErrCorrupt)
	dup := append([]uint64{}, ids...)
	dup[5] = dup[2]
	_, err = FromParts(x.kern, score.AdjustNone, recs, dup, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	empty, err := FromParts(x.kern, score.AdjustScale, nil, nil, nil)
	require.NoError(t, err)
	require.NoError(t, empty.Add(1, recs[:x.stride], 0.5, 1))
	require.Equal(t, []float32{0.5}, empty.bias)
}
