package hnsw

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
)

// Compact reconnects the neighbours of tombstoned nodes and reclaims their
// slots: every live node whose list held a deleted node chooses again, with
// the heuristic, among its live links and the live nodes reached through
// the deleted ones; new links get their reverse links as inserts do. The
// survivors are renumbered into a new, dense generation of the graph.
//
// Searches keep running on the old generation meanwhile; inserts and
// deletes wait. The work runs on p's workers plus the caller (p nil:
// serially) and gives the same graph for any worker count.
func (g *Graph) Compact(p *pool.Pool) {
	g.gate.Lock()
	defer g.gate.Unlock()
	g.dropOrder() // its slots are renumbered
	old := g.st.Load()
	c := &compactor{g: g, old: old, p: p}
	c.remap = make([]uint32, old.n)
	live, up := 0, 1
	for slot := range uint32(old.n) {
		f := g.flags(old, slot)
		if f&flagDeleted != 0 {
			c.remap[slot] = noSlot
			continue
		}
		c.remap[slot] = uint32(live)
		live++
		up += g.upperWords(levelOfFlags(f))
	}
	if live == old.n {
		return
	}
	ns := g.newStorage(live, up)
	ns.numbering = old.numbering + 1
	for slot := range uint32(old.n) {
		to := c.remap[slot]
		if to == noSlot {
			continue
		}
		copy(ns.words[int(to)*g.bw:g.head(to)+hUpper], old.words[int(slot)*g.bw:g.head(slot)+hUpper])
		ns.tags[to], ns.owners[to] = old.tags[slot], old.owners[slot] // SetTags waits for the gate
		ns.times[to], ns.imps[to] = old.times[slot], old.imps[slot]
		l := levelOfFlags(g.flags(old, slot))
		ns.words[g.head(to)+hState] = uint32(l) << levelShift // no links yet, version 0
		if l > 0 {
			ns.words[g.head(to)+hUpper] = uint32(ns.upLen)
			ns.upLen += g.upperWords(l)
		}
	}
	ns.n = live
	c.ns = ns

	c.ss = make([]*Searcher, 1)
	if p != nil {
		c.ss = make([]*Searcher, p.Workers()+1)
	}
	for i := range c.ss {
		c.ss[i] = g.scratch()
	}
	c.added = make([][]edge, len(c.ss))
	c.run(old.n)
	for _, es := range c.added {
		c.edges = append(c.edges, es...)
	}
	slices.SortFunc(c.edges, func(x, y edge) int {
		return cmp.Or(cmp.Compare(x.dst, y.dst), cmp.Compare(x.level, y.level), cmp.Compare(x.src, y.src))
	})
	for i, e := range c.edges {
		if i == 0 || e.dst != c.edges[i-1].dst || e.level != c.edges[i-1].level {
			c.groups = append(c.groups, i)
		}
	}
	c.groups = append(c.groups, len(c.edges))
	c.linking = true
	c.run(len(c.groups) - 1)
	for _, s := range c.ss {
		g.release(s)
	}

	// The entry point survives, or the first live node of the top level
	// takes over.
	if ep := old.entry.Load(); ep != noEntry && c.remap[uint32(ep)] != noSlot {
		ns.entry.Store(ep&^(1<<32-1) | uint64(c.remap[uint32(ep)]))
	} else if live > 0 {
		best, bestL := uint32(0), -1
		for slot := range uint32(live) {
			if l := levelOfFlags(g.flags(ns, slot)); l > bestL {
				best, bestL = slot, l
			}
		}
		ns.entry.Store(uint64(bestL)<<32 | uint64(best))
	}
	g.allocMu.Lock()
	g.ids.Remap(func(slot int32) int32 { return int32(c.remap[slot]) })
	g.st.Store(ns)
	g.allocMu.Unlock()
}

// compactor is one Compact and the pool task of its two phases.
type compactor struct {
	g       *Graph
	old, ns *storage
	p       *pool.Pool
	remap   []uint32 // old slot to new, noSlot for deleted
	ss      []*Searcher
	added   [][]edge // per participant: reverse links to add (new slots)
	edges   []edge
	groups  []int
	linking bool
	next    atomic.Int64
}

func (c *compactor) run(n int) {
	c.next.Store(0)
	parts := min(len(c.ss), n)
	if parts <= 1 || c.p == nil {
		c.RunPart(len(c.ss) - 1)
		return
	}
	c.p.Run(c, parts)
}

func (c *compactor) RunPart(i int) {
	s := c.ss[i]
	for {
		k := int(c.next.Add(1) - 1)
		if c.linking {
			if k >= len(c.groups)-1 {
				return
			}
			run := c.edges[c.groups[k]:c.groups[k+1]]
			srcs := s.srcs[:0]
			for _, e := range run {
				srcs = append(srcs, e.src)
			}
			s.srcs = srcs
			c.g.addLinks(c.ns, s, run[0].dst, run[0].level, srcs, 0)
			continue
		}
		if k >= c.old.n {
			return
		}
		if c.remap[k] != noSlot {
			c.repair(s, i, uint32(k))
		}
	}
}

// repair writes old node x's lists into the new generation, choosing again
// on each level where a neighbour was deleted.
func (c *compactor) repair(s *Searcher, part int, x uint32) {
	g, old := c.g, c.old
	level := levelOfFlags(g.flags(old, x))
	var buf, out [2 * MaxM]uint32
	prepared := false
	var qp []float32
	var own float32
	for l := 0; l <= level; l++ {
		links := g.readLinks(old, x, l, buf[:])
		dirty := false
		for _, n := range links {
			dirty = dirty || c.remap[n] == noSlot
		}
		if !dirty {
			g.writeLinks(c.ns, c.remap[x], l, c.translate(out[:0], links))
			continue
		}
		// Candidates: live links, and live nodes reached through deleted
		// ones (through chains of them, within a budget).
		s.begin(old.cap, g.maxM0, 1)
		s.newEpoch()
		s.visit(x)
		queue := s.srcs[:0]
		for _, n := range links {
			if s.visit(n) {
				queue = append(queue, n)
			}
		}
		budget := 8 * g.maxLinks(l)
		live := s.peers[:0]
		ids := s.rids[:0]
		for i := 0; i < len(queue); i++ {
			n := queue[i]
			if c.remap[n] != noSlot {
				ids = append(ids, n)
				continue
			}
			for _, m := range g.readLinks(old, n, l, s.links) {
				if len(queue) < budget && s.visit(m) {
					queue = append(queue, m)
				}
			}
		}
		s.srcs, s.rids = queue, ids
		if !prepared {
			g.buffers(s)
			qp, own = g.prepare(old, s, x, s.q)
			prepared = true
		}
		if cap(s.pscores) < len(ids) {
			s.pscores = make([]float32, len(ids))
		}
		scores := s.pscores[:len(ids)]
		g.kern.ScanIDs(qp, old.bytes, g.bstride, ids, scores)
		for i, n := range ids {
			live = append(live, g.entryOf(old, n, scores[i], own))
		}
		s.peers = live
		slices.SortFunc(live, score.CompareEntries)
		sel := slots(out[:0], g.selectNeighbors(old, s, live, g.maxLinks(l)))
		for _, n := range sel {
			if !contains(links, n) {
				c.added[part] = append(c.added[part], edge{dst: c.remap[n], src: c.remap[x], level: l})
			}
		}
		g.writeLinks(c.ns, c.remap[x], l, c.translate(sel[:0], sel))
	}
}

// translate maps old slots to new ones into dst.
func (c *compactor) translate(dst, old []uint32) []uint32 {
	dst = dst[:0]
	for _, n := range old {
		dst = append(dst, c.remap[n])
	}
	return dst
}
