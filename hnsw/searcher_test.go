package hnsw

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/score"
	"github.com/stretchr/testify/require"
)

// TestCandHeapPopsBestFirst interleaves pushes and pops over scores with
// many ties: every pop is the best entry left, ties by id.
func TestCandHeapPopsBestFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var c candHeap
	var left []score.Entry
	for step := range 6000 {
		if len(left) == 0 || r.IntN(2) == 0 {
			e := score.Entry{Score: float32(r.IntN(40)), ID: uint64(r.IntN(1000)), Slot: uint32(step)}
			c.push(e)
			left = append(left, e)
			continue
		}
		got := c.pop()
		best := slices.IndexFunc(left, func(e score.Entry) bool {
			for _, o := range left {
				if o.Better(e) {
					return false
				}
			}
			return true
		})
		require.Equal(t, left[best].Score, got.Score, "step %d", step)
		require.Equal(t, left[best].ID, got.ID, "step %d", step)
		left = slices.Delete(left, best, best+1)
		require.Len(t, c.h, len(left))
	}
}
