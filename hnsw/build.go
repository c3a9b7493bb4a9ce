package hnsw

import (
	"errors"
	"slices"
	"sync/atomic"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/radix"
	"github.com/astral-engine/astral/internal/score"
)

// Build inserts len(ids) records (recs holds them back to back, kernel
// stride apart) with their adjust values (nil for AdjustNone),
// multipliers (one per id for AdjustScaleSubtract, else nil) and
// attributes (one per id, or nil: all zero), in parallel on p's workers
// plus the caller (p nil: serially). On an error nothing is inserted.
//
// With deterministic set, the graph is the same, bit for bit, for the same
// prior graph and input whatever p's worker count (and on every CPU, since
// kernel scores are): nodes go in batches whose size depends only on the
// graph's size; each batch member searches the graph as it was before the
// batch, plus the members before it scored directly, and the reverse links
// are then added target by target. Otherwise nodes are inserted
// concurrently, in hnswlib's manner. Either way the result is a valid
// graph while inserts, deletes and searches run alongside; only the
// deterministic mode's guarantee needs Build to be the sole writer.
func (g *Graph) Build(ids []uint64, recs []byte, adj, scales []float32, attrs []match.Attr, p *pool.Pool, deterministic bool) error {
	n := len(ids)
	if len(recs) != n*g.recBytes {
		return ErrRecordSize
	}
	if (adj != nil || g.adjust != score.AdjustNone) && len(adj) != n {
		return errors.New("hnsw: Build needs one adjust value per id")
	}
	if g.adjust == score.AdjustScaleSubtract && len(scales) != n || g.adjust != score.AdjustScaleSubtract && scales != nil {
		return errors.New("hnsw: Build needs one multiplier per id for AdjustScaleSubtract, else none")
	}
	if attrs != nil && len(attrs) != n {
		return errors.New("hnsw: Build needs one attribute per id, or none")
	}
	if n == 0 {
		return nil
	}
	seen := make(map[uint64]struct{}, n)
	levels := make([]uint8, n)
	for i, id := range ids {
		if _, dup := seen[id]; dup {
			return ErrDuplicateID
		}
		seen[id] = struct{}{}
		levels[i] = uint8(g.levelFor(id))
	}
	g.gate.RLock()
	defer g.gate.RUnlock()
	first, err := g.allocate(ids, levels, &nodes{recs: recs, adj: adj, scales: scales, attrs: attrs})
	if err != nil {
		return err
	}
	st := g.st.Load()
	b := &builder{g: g, st: st, p: p, first: first, levels: levels}
	b.ss = make([]*Searcher, 1)
	if p != nil {
		b.ss = make([]*Searcher, p.Workers()+1)
	}
	for i := range b.ss {
		b.ss[i] = g.scratch()
	}
	if deterministic {
		b.batches()
	} else {
		b.concurrent()
	}
	for _, s := range b.ss {
		g.release(s)
	}
	return nil
}

// reuseSelections lets a deterministic Build skip the heuristic's checks
// between links an earlier choice kept together (addLinks); the graph is
// the same without it, which a test holds it to.
var reuseSelections = true

// builder is one Build; it is also the pool task of each parallel phase.
type builder struct {
	g      *Graph
	st     *storage
	p      *pool.Pool
	ss     []*Searcher // one per participant
	first  uint32      // slot of input 0
	levels []uint8
	phase  int
	next   atomic.Int64
	// The current batch: inputs [lo, hi).
	lo, hi int
	plans  [][]uint32 // per member, per level: count, then ownM0 slots
	// clean is, per slot, how many of its first level-0 links this Build
	// knows to be one heuristic choice (addLinks); 0: none known.
	clean  []uint8
	edges  []edge
	groups []int // starts of runs of edges with one target and level
	keys   []uint64
	sorted []edge
	keyTmp []uint64 // the radix sort's second buffer
}

// maxBatch bounds a deterministic Build's batch.
const maxBatch = 256

// A batch's edges number below 1<<24 (sortEdges' index bits): at most
// maxBatch members, each with ownM0 < 2·MaxM links on level 0 and MaxM
// on each of up to maxLevel levels above.
var _ = uint(1<<24 - maxBatch*(2*MaxM+maxLevel*MaxM))

const (
	phaseInsert = iota // concurrent: insert inputs
	phasePlan          // batches: choose each member's neighbours
	phaseLink          // batches: add the reverse links, linkChunk targets at a time
)

// edge is a reverse link to add: src into dst's list at level.
type edge struct {
	dst, src uint32
	level    int
}

// run executes the current phase over n work items on up to all
// participants.
func (b *builder) run(n int) {
	b.next.Store(0)
	parts := min(len(b.ss), n)
	if parts <= 1 || b.p == nil {
		b.RunPart(len(b.ss) - 1)
		return
	}
	b.p.Run(b, parts)
}

func (b *builder) RunPart(i int) {
	s := b.ss[i]
	for {
		k := int(b.next.Add(1) - 1)
		switch b.phase {
		case phaseInsert:
			if k >= b.hi-b.lo {
				return
			}
			in := b.lo + k
			b.g.connect(b.st, s, b.first+uint32(in), int(b.levels[in]))
		case phasePlan:
			if k >= b.hi-b.lo {
				return
			}
			b.plan(s, b.lo+k)
		case phaseLink:
			// Targets go linkChunk at a time: one is often a single
			// append, cheaper than taking the counter's cache line from
			// the other participant.
			lo := k * linkChunk
			if lo >= len(b.groups)-1 {
				return
			}
			for t := lo; t < min(lo+linkChunk, len(b.groups)-1); t++ {
				b.link(s, b.edges[b.groups[t]:b.groups[t+1]])
			}
		}
	}
}

// linkChunk is how many targets a participant takes at once in a link phase.
const linkChunk = 16

// link adds the reverse links of one target: run, its edges.
func (b *builder) link(s *Searcher, run []edge) {
	srcs := s.srcs[:0]
	for _, e := range run {
		srcs = append(srcs, e.src)
	}
	s.srcs = srcs
	dst := run[0].dst
	if run[0].level > 0 || int(dst) >= len(b.clean) { // a node another Build added
		b.g.addLinks(b.st, s, dst, run[0].level, srcs, 0)
		return
	}
	// One participant owns dst in this phase.
	b.clean[dst] = uint8(b.g.addLinks(b.st, s, dst, 0, srcs, int(b.clean[dst])))
}

// concurrent inserts the inputs on all participants at once; a small graph
// is grown serially first, as parallel inserts into a handful of nodes
// would all crowd the entry point.
func (b *builder) concurrent() {
	n := len(b.levels)
	serial := min(n, max(0, 256-int(b.first)))
	s := b.ss[len(b.ss)-1]
	for in := 0; in < serial; in++ {
		b.g.connect(b.st, s, b.first+uint32(in), int(b.levels[in]))
	}
	b.phase, b.lo, b.hi = phaseInsert, serial, n
	b.run(n - serial)
}

// batches is the deterministic build.
func (b *builder) batches() {
	g, st := b.g, b.st
	n := len(b.levels)
	if reuseSelections {
		b.clean = make([]uint8, int(b.first)+n)
	}
	for b.lo = 0; b.lo < n; b.lo = b.hi {
		// An eighth of the graph at a time: members see each other only
		// through direct scores, so batches stay small next to the graph.
		size := min(max((int(b.first)+b.lo)/8, 1), maxBatch, n-b.lo)
		b.hi = b.lo + size
		for len(b.plans) < size {
			b.plans = append(b.plans, nil)
		}
		b.phase = phasePlan
		b.run(size)

		// The members' own lists, then the reverse links target by target.
		b.edges = b.edges[:0]
		for k := b.lo; k < b.hi; k++ {
			slot, plan := b.first+uint32(k), b.plans[k-b.lo]
			for l := 0; l <= int(b.levels[k]); l++ {
				list := plan[l*(1+g.ownM0):]
				links := list[1 : 1+list[0]]
				mu := g.lock(slot)
				mu.Lock()
				g.writeLinks(st, slot, l, links)
				mu.Unlock()
				if l == 0 && !g.cfg.KeepPruned && int(slot) < len(b.clean) {
					b.clean[slot] = uint8(len(links)) // the heuristic's choice, in order
				}
				for _, t := range links {
					b.edges = append(b.edges, edge{dst: t, src: slot, level: l})
				}
			}
		}
		b.sortEdges()
		b.groups = b.groups[:0]
		for i, e := range b.edges {
			if i == 0 || e.dst != b.edges[i-1].dst || e.level != b.edges[i-1].level {
				b.groups = append(b.groups, i)
			}
		}
		b.groups = append(b.groups, len(b.edges))
		b.phase = phaseLink
		b.run(len(b.groups) - 1)

		// The first member of a new top level becomes the entry point.
		g.epMu.Lock()
		for k := b.lo; k < b.hi; k++ {
			ep := st.entry.Load()
			if l := int(b.levels[k]); ep == noEntry || l > int(ep>>32) {
				st.entry.Store(uint64(l)<<32 | uint64(b.first+uint32(k)))
			}
		}
		g.epMu.Unlock()
	}
}

// sortEdges orders the batch's edges by target, level and source. They
// were appended source by source, so a stable order by target and level
// is that order: one word an edge (target, level, then its index), sorted
// by a radix sort that leaves the index bytes in the order they came.
func (b *builder) sortEdges() {
	keys := b.keys[:0]
	for i, e := range b.edges {
		keys = append(keys, uint64(e.dst)<<32|uint64(e.level)<<24|uint64(i))
	}
	b.keys = keys
	if cap(b.keyTmp) < len(keys) {
		b.keyTmp = make([]uint64, len(keys), 2*len(keys))
	}
	radix.Sort(keys, b.keyTmp[:len(keys)], 3)
	sorted := b.sorted[:0]
	for _, k := range keys {
		sorted = append(sorted, b.edges[k&(1<<24-1)])
	}
	b.edges, b.sorted = sorted, b.edges
}

// plan chooses input in's neighbours on each of its levels from the graph
// as it was before the batch and the batch members before it.
func (b *builder) plan(s *Searcher, in int) {
	g, st := b.g, b.st
	slot, level := b.first+uint32(in), int(b.levels[in])
	g.buffers(s)
	qp, own := g.prepare(st, s, slot, s.q)
	efc := g.cfg.EfConstruction
	s.begin(st.cap, g.maxM0, efc)

	// Members before this one, scored directly.
	peers := s.srcs[:0]
	for k := b.lo; k < in; k++ {
		peers = append(peers, b.first+uint32(k))
	}
	s.srcs = peers
	if cap(s.pscores) < len(peers) {
		s.pscores = make([]float32, len(peers))
	}
	scores := s.pscores[:len(peers)]
	s.prof.peers(len(peers))
	g.kern.ScanIDs(qp, st.bytes, g.bstride, peers, scores)
	peerEs := s.peers[:0]
	for i, p := range peers {
		if g.flags(st, p)&flagDeleted == 0 {
			peerEs = append(peerEs, g.entryOf(st, p, scores[i], own))
		}
	}
	s.peers = peerEs

	top := -1
	if ep := st.entry.Load(); ep != noEntry {
		top = int(ep >> 32)
		cur := g.score1(st, s, qp, own, uint32(ep))
		for l := top; l > level; l-- {
			cur = g.greedy(st, s, qp, own, cur, l)
		}
		s.entries = append(s.entries[:0], cur)
	}
	plan := b.plans[in-b.lo]
	if need := (level + 1) * (1 + g.ownM0); cap(plan) < need {
		plan = make([]uint32, need)
	}
	plan = plan[:(level+1)*(1+g.ownM0)]
	b.plans[in-b.lo] = plan
	for l := level; l >= 0; l-- {
		var found []score.Entry
		if l <= top {
			found = g.searchLayerLive(st, s, qp, own, s.entries, l, slot, s.found[:0])
			s.found = found
			s.entries = append(s.entries[:0], found...)
		}
		// The peers on level l that could still be among the efc best:
		// once the search found efc, only those better than its last. They
		// are few, so sorting them and merging them into the search's
		// sorted results costs little.
		near := s.nearPeers[:0]
		for _, e := range peerEs {
			if int(b.levels[e.Slot-b.first]) >= l && (len(found) < efc || e.Better(found[efc-1])) {
				near = append(near, e)
			}
		}
		slices.SortFunc(near, score.CompareEntries)
		s.nearPeers = near
		// The graph's and the peers' candidates, best first (no node is
		// both: the graph links to no member before the batch ends).
		cands, i := s.cands[:0], 0
		for _, e := range near {
			for i < len(found) && found[i].Better(e) {
				cands = append(cands, found[i])
				i++
			}
			cands = append(cands, e)
		}
		cands = append(cands, found[i:]...)
		cands = cands[:min(len(cands), efc)]
		s.cands = cands
		sel := g.selectNeighbors(st, s, cands, g.ownLinks(l))
		list := plan[l*(1+g.ownM0) : (l+1)*(1+g.ownM0)]
		list[0] = uint32(len(sel))
		for i, e := range sel {
			list[1+i] = e.Slot
		}
	}
}
