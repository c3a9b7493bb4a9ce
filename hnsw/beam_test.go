package hnsw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/score"
	"github.com/stretchr/testify/require"
)

// TestBeamWalksAsTheHeaps: from the same entries, searchLayer's beam keeps
// the nodes the heap walk keeps, in the same order, with deleted nodes on
// the way, ties broken by id, and small and large ef; placing entries by
// the binary search and, where the CPU has it, by kernel.ShiftBelow.
func TestBeamWalksAsTheHeaps(t *testing.T) {
	for _, vector := range slices.Compact([]bool{false, vectorShift}) {
		t.Run(fmt.Sprintf("vector=%v", vector), func(t *testing.T) {
			defer func(was bool) { vectorShift = was }(vectorShift)
			vectorShift = vector
			beamWalksAsTheHeaps(t)
		})
	}
}

// TestBeamOfNone: a beam kept to no entries takes none, either way.
func TestBeamOfNone(t *testing.T) {
	for _, vector := range []bool{false, vectorShift} {
		defer func(was bool) { vectorShift = was }(vectorShift)
		vectorShift = vector
		var b beam
		b.reset(0)
		require.False(t, b.insert(nil, nil, 1, 7, false), "vector %v", vector)
		require.Empty(t, b.e)
	}
}

func beamWalksAsTheHeaps(t *testing.T) {
	const dim = 32
	n := sized(3000, 800)
	set, err := fixture.Generate("clustered", n, 1, dim)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(5, 6))
	k, recs, adj := int8Records(t, n, dim, func(i int) []float32 {
		if i%10 == 9 { // an exact copy of an earlier row: equal scores
			return set.Row(r.IntN(i))
		}
		return set.Row(i)
	})
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = r.Uint64() >> 1 // ids out of slot order
	}
	for _, efc := range []int{4, 40, 200} {
		g, err := New(k, score.AdjustScale, Config{M: 8, EfConstruction: efc, Seed: 3})
		require.NoError(t, err)
		require.NoError(t, g.Build(ids, recs, adj, nil, nil, nil, true))
		for i := 0; i < n; i += 6 {
			require.NoError(t, g.Delete(ids[i]))
		}
		st := g.st.Load()
		s := g.scratch()
		for q := 1; q < n; q += max(1, n/150) {
			slot := uint32(q)
			qp, own, entries := g.constructionQuery(st, s, slot, r)
			for _, keep := range []bool{false, true} {
				g.heapWalk(st, s, qp, own, entries, 0, slot, keep)
				want := slices.Clone(s.res.Sorted())
				g.searchLayer(st, s, qp, own, entries, 0, slot, keep, g.cfg.EfConstruction)
				got := s.beam.appendLive(g, st, nil)
				require.Equal(t, want, got, "efc %d, query slot %d, deleted kept %v", efc, q, keep)
			}
		}
		g.release(s)
	}
}

func TestScoreKeyOrdersAsScores(t *testing.T) {
	inf := float32(math.Inf(1))
	vals := []float32{-inf, -3.5, -1e-40, float32(math.Copysign(0, -1)), 0, 1e-40, 1, 2.25, inf}
	for i, a := range vals {
		require.Equal(t, math.Float32bits(a+0), math.Float32bits(keyScore(scoreKey(a))))
		for _, b := range vals[i:] {
			require.Equal(t, a < b, scoreKey(a) < scoreKey(b), "%v %v", a, b)
			require.Equal(t, a == b, scoreKey(a) == scoreKey(b), "%v %v", a, b)
		}
	}
}

// heapWalk is the walk searchLayer replaced, with a candidate heap and a
// TopK (s.res, s.begin sets its size): the reference searchLayer must
// match expansion for expansion.
func (g *Graph) heapWalk(st *storage, s *Searcher, qp []float32, own float32, entries []score.Entry, l int, self uint32, keepDeleted bool) {
	var skip uint32 = flagDeleted
	if keepDeleted {
		skip = 0
	}
	s.newEpoch()
	s.cand.h = s.cand.h[:0]
	s.res.Clear()
	if self != noSlot {
		s.visit(self)
	}
	for _, e := range entries {
		if s.visit(e.Slot) {
			s.cand.push(e)
			if g.flags(st, e.Slot)&skip == 0 {
				s.res.Push(e)
			}
		}
	}
	for len(s.cand.h) > 0 {
		c := s.cand.pop()
		if s.res.Full() && s.res.Worst().Better(c) {
			break // nothing left can improve the result set
		}
		if l == 0 && s.budget > 0 && s.outOfTime() {
			break
		}
		if l == 0 {
			g.prefetchNext(st, s)
		}
		ids, scores := g.expand(st, s, qp, own, c.Slot, l)
		for i, n := range ids {
			// Most neighbours score below the worst kept: refuse them on
			// the score alone, before reading the id (a tie needs it).
			sc := scores[i]
			if s.res.Full() && sc < s.res.Worst().Score {
				continue
			}
			e := score.Entry{Score: sc, Slot: n, ID: g.idOf(st, n)}
			if s.res.Admits(e) {
				s.cand.push(e)
				s.prof.pushed()
				if g.flags(st, n)&skip == 0 {
					s.res.Push(e)
					s.prof.admitted()
				}
			}
		}
	}
}
