package hnsw

import (
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/stretchr/testify/require"
)

// viewParts is g's storage as a file holds it.
func viewParts(t testing.TB, g *Graph) Parts {
	var p Parts
	require.NoError(t, g.View(func(v *View) error {
		p = Parts{Nodes: v.Nodes(), Level0: v.Level0(nil, 0, v.Nodes()), Upper: v.Upper(nil),
			Entry: v.Entry(), Tombstones: v.Tombstones([]uint32{})}
		return nil
	}))
	return p
}

// TestFromPartsRoundTrip: a graph rebuilt from its viewed words, serially
// or on workers, holds the same content and answers the same; after
// Detach it takes the same inserts and deletes as the original.
func TestFromPartsRoundTrip(t *testing.T) {
	d := load(t, "clustered", sized(3000, 800), 16, 32, score.AdjustScale)
	g := newGraph(t, d, Config{M: 8, EfConstruction: 64})
	require.NoError(t, g.Build(d.ids[:d.n()-10], d.recs[:(d.n()-10)*d.k.Stride()], d.adj[:d.n()-10], nil, nil, nil, true))
	for i := 0; i < d.n()-10; i += 37 {
		require.NoError(t, g.Delete(d.ids[i]))
	}
	p := viewParts(t, g)
	for _, workers := range []int{0, 2} {
		h, err := FromParts(d.k, d.adjust, g.Config(), p, newTestPool(t, workers))
		require.NoError(t, err)
		require.Equal(t, g.Digest(), h.Digest())
		require.Equal(t, g.Len(), h.Len())
		require.Equal(t, g.Deleted(), h.Deleted())
		s := NewSearcher()
		for _, qp := range d.qps {
			require.Equal(t, g.Search(s, qp, 10, 64, nil), h.Search(s, qp, 10, 64, nil))
		}
		frozen := append([]uint32{}, p.Level0...)
		h.Detach()
		g2, err := FromParts(d.k, d.adjust, g.Config(), viewParts(t, g), nil)
		require.NoError(t, err)
		g2.Detach()
		for i := d.n() - 10; i < d.n(); i++ {
			require.NoError(t, h.Insert(d.ids[i], d.rec(i), d.adj[i], 1, match.Attr{}))
			require.NoError(t, g2.Insert(d.ids[i], d.rec(i), d.adj[i], 1, match.Attr{}))
		}
		require.NoError(t, h.Delete(d.ids[1]))
		require.NoError(t, g2.Delete(d.ids[1]))
		require.Equal(t, g2.Digest(), h.Digest())
		require.Equal(t, frozen, p.Level0, "writes after Detach leave the parts alone")
	}
}

// TestFromPartsRefuses parts whose lengths disagree.
func TestFromPartsRefuses(t *testing.T) {
	d := load(t, "random", 50, 1, 32, score.AdjustNone)
	g := newGraph(t, d, Config{M: 4})
	require.NoError(t, g.Build(d.ids, d.recs, nil, nil, nil, nil, true))
	p := viewParts(t, g)
	bad := p
	bad.Nodes++
	_, err := FromParts(d.k, d.adjust, g.Config(), bad, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	bad = p
	bad.Upper = nil
	_, err = FromParts(d.k, d.adjust, g.Config(), bad, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	bad = p
	bad.Tombstones = []uint32{3}
	_, err = FromParts(d.k, d.adjust, g.Config(), bad, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = FromParts(d.k, d.adjust, Config{M: 5}, p, nil)
	require.ErrorIs(t, err, ErrCorrupt, "another M, another block layout")
	// Tombstones left out of a graph with deleted nodes: refused, not
	// taken as "unchecked".
	require.NoError(t, g.Delete(d.ids[7]))
	withDeleted := viewParts(t, g)
	_, err = FromParts(d.k, d.adjust, g.Config(), withDeleted, nil)
	require.NoError(t, err)
	withDeleted.Tombstones = nil
	_, err = FromParts(d.k, d.adjust, g.Config(), withDeleted, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	empty, err := FromParts(d.k, d.adjust, g.Config(), Parts{Upper: []uint32{0}, Entry: NoEntry}, nil)
	require.NoError(t, err)
	require.Equal(t, 0, empty.Len())
	empty.Detach()
	require.NoError(t, empty.Insert(1, d.rec(0), 0, 1, match.Attr{}))
	require.Equal(t, 1, empty.Len())
}

// newTestPool is a pool of workers (nil for 0), closed with the test.
func newTestPool(t testing.TB, workers int) *pool.Pool {
	if workers == 0 {
		return nil
	}
	p, err := pool.New(pool.Options{Workers: workers})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

// TestCheckIDsReusedTable: one participant's table serves parts of any
// size, growing for a big one and cleared for the next, and still finds
// a repeat.
func TestCheckIDsReusedTable(t *testing.T) {
	v := &validator{chunks: 2, chunkIDs: make([][idParts][]idSlot, 2)}
	for i := range 1000 {
		v.chunkIDs[i%2][5] = append(v.chunkIDs[i%2][5], idSlot{id: uint64(i), slot: uint32(i)})
	}
	for i := range 10 {
		v.chunkIDs[0][4] = append(v.chunkIDs[0][4], idSlot{id: uint64(i), slot: uint32(2000 + i)})
	}
	var table []uint64
	require.NoError(t, v.checkIDs(4, &table))
	small := len(table)
	require.NoError(t, v.checkIDs(5, &table))
	require.Greater(t, len(table), small, "grown for the big part")
	require.GreaterOrEqual(t, len(table), 2*1000, "at most half full")
	require.NoError(t, v.checkIDs(4, &table), "the table is cleared between parts")
	v.chunkIDs[1][5] = append(v.chunkIDs[1][5], idSlot{id: 42, slot: 1000})
	require.ErrorContains(t, v.checkIDs(5, &table), "id 42 is live in slots 42 and 1000")
	v.chunkIDs[0][5] = append(v.chunkIDs[0][5], idSlot{id: 0, slot: 1001})
	require.ErrorContains(t, v.checkIDs(5, &table), "id 0 is live in slots 0 and 1001")
}

// TestOpenParts: a graph opened before its full check answers as
// FromParts' does, and finish then fills the id map. Over damaged words
// OpenParts refuses what would make a search read outside the words or
// spin (list versions, upper offsets, the entry point); links outside the
// graph are skipped by searches until finish reports them.
func TestOpenParts(t *testing.T) {
	d := load(t, "clustered", sized(2000, 600), 16, 32, score.AdjustScale)
	g := newGraph(t, d, Config{M: 8, EfConstruction: 64})
	require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, nil, true))
	p := viewParts(t, g)
	s := NewSearcher()
	for _, workers := range []int{0, 2} {
		h, finish, err := OpenParts(d.k, d.adjust, g.Config(), p, newTestPool(t, workers))
		require.NoError(t, err)
		for _, qp := range d.qps {
			require.Equal(t, g.Search(s, qp, 10, 64, nil), h.Search(s, qp, 10, 64, nil), "before finish")
		}
		require.NoError(t, finish())
		require.Equal(t, g.Len(), h.Len())
		require.Equal(t, g.Digest(), h.Digest())
	}

	bw, rw := g.bw, g.recWords
	damaged := func(edit func(w, up []uint32)) Parts {
		q := p
		q.Level0, q.Upper = append([]uint32{}, p.Level0...), append([]uint32{}, p.Upper...)
		edit(q.Level0, q.Upper)
		return q
	}
	var upperSlot int
	for slot := range p.Nodes {
		if levelOfFlags(p.Level0[slot*bw+rw+hState]) > 0 {
			upperSlot = slot
			break
		}
	}
	for name, edit := range map[string]func(w, up []uint32){
		"level-0 version": func(w, _ []uint32) { w[5*bw+rw+hState] |= verOne },
		"upper version":   func(w, up []uint32) { up[w[upperSlot*bw+rw+hUpper]] = 1 },
		"upper offset":    func(w, up []uint32) { w[upperSlot*bw+rw+hUpper] = uint32(len(up)) - 1 },
		"level":           func(w, _ []uint32) { w[7*bw+rw+hState] |= 3 << levelShift },
	} {
		_, _, err := OpenParts(d.k, d.adjust, g.Config(), damaged(edit), nil)
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
	bad := p
	bad.Entry = uint64(p.Nodes)
	_, _, err := OpenParts(d.k, d.adjust, g.Config(), bad, nil)
	require.ErrorIs(t, err, ErrCorrupt, "entry point")

	// Every node's first level-0 link and every upper link out of range.
	wild := damaged(func(w, up []uint32) {
		for slot := range p.Nodes {
			w[slot*bw+rw+hLinks] = 1<<32 - 1 - uint32(slot)
		}
		for i := 1; i < len(up); i++ {
			if up[i] > 0 {
				up[i] = uint32(p.Nodes) + up[i]
			}
		}
	})
	h, finish, err := OpenParts(d.k, d.adjust, g.Config(), wild, nil)
	require.NoError(t, err)
	for _, qp := range d.qps {
		res := h.Search(s, qp, 10, 64, nil)
		require.NotEmpty(t, res)
		for _, r := range res {
			require.Contains(t, d.ids, r.ID)
		}
	}
	require.ErrorIs(t, finish(), ErrCorrupt)
	require.Zero(t, h.Len(), "a failed graph holds no ids")
}
