package hnsw

import (
	"encoding/binary"
	"hash/fnv"
)

// Stats describes the graph's shape.
type Stats struct {
	Nodes   int // slots in use, tombstones included
	Deleted int // tombstones
	// EntryLevel is the top level (-1 for an empty graph).
	EntryLevel int
	// Levels[l] is the number of live nodes present on level l.
	Levels []int
	// Level0Links[c] is the number of live nodes with c level-0 links,
	// c from 0 to 2·M.
	Level0Links []int
}

// Stats counts nodes and links. It reads links as searches do, so it may
// run alongside writers (and then sees some mix of before and after).
func (g *Graph) Stats() Stats {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	st := g.st.Load()
	n := st.n
	g.allocMu.Unlock()
	out := Stats{Nodes: n, EntryLevel: -1, Level0Links: make([]int, g.maxM0+1)}
	if ep := st.entry.Load(); ep != noEntry {
		out.EntryLevel = int(ep >> 32)
	}
	var buf [2 * MaxM]uint32
	for slot := range uint32(n) {
		f := g.flags(st, slot)
		if f&flagDeleted != 0 {
			out.Deleted++
			continue
		}
		l := levelOfFlags(f)
		for len(out.Levels) <= l {
			out.Levels = append(out.Levels, 0)
		}
		for i := 0; i <= l; i++ {
			out.Levels[i]++
		}
		out.Level0Links[len(g.readLinks(st, slot, 0, buf[:]))]++
	}
	return out
}

// Digest is a 64-bit FNV-1a hash of the graph's content: entry point, and
// per slot the record, adjust value, id, attributes, state (level,
// deleted, level-0 count) and every list. Two graphs with the same digest hold the same
// bits (list versions aside: they count writes, not content). Call it
// while no writer runs.
func (g *Graph) Digest() uint64 {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	st := g.st.Load()
	n := st.n
	g.allocMu.Unlock()
	h := fnv.New64a()
	var w [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(w[:], v)
		h.Write(w[:])
	}
	put(st.entry.Load())
	put(uint64(n))
	var buf [2 * MaxM]uint32
	for slot := range uint32(n) {
		h.Write(g.record(st, slot))
		hd := g.head(slot)
		put(uint64(st.words[hd+hAdj]))
		put(g.idOf(st, slot))
		a := st.attr(slot)
		put(a.Tags)
		put(a.Owner)
		f := g.flags(st, slot)
		put(uint64(f &^ verMask))
		for l := 0; l <= levelOfFlags(f); l++ {
			links := g.readLinks(st, slot, l, buf[:])
			put(uint64(len(links)))
			for _, x := range links {
				put(uint64(x))
			}
		}
	}
	return h.Sum64()
}
