package hnsw

import (
	"math"
	"sync/atomic"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
)

// SearchRanked finds the k best live nodes passing f (nil: all) by r's
// combined score. The walk goes by similarity, as SearchFiltered's, and
// keeps the ef best passing nodes, each then ranked by its combined score.
// A node the walk did not keep can still rank high by its time or
// importance, so every other node whose ceiling, with the kept nodes'
// lowest similarity standing for its own, reaches a threshold is gathered
// and scored exactly; the nodes are found through lists sorted by time
// and by importance (order.go), or by a sweep of the ranking columns
// while those are being built.
// What it misses is a node more similar than that whom the walk did not
// find, as a plain search misses it. The k best are appended to dst[:0],
// best first. With cap(dst) >= k and a warmed-up s it allocates nothing.
func (g *Graph) SearchRanked(s *Searcher, qp []float32, k, ef int, f *match.Filter, r *rank.Scorer, dst []score.Result) []score.Result {
	dst = dst[:0]
	if len(qp) < g.kern.QueryLen() {
		panic("hnsw: query shorter than the kernel's QueryLen")
	}
	if k < 1 {
		return dst
	}
	if f == nil {
		f = &matchAll
	}
	k = min(k, MaxEf)
	ef = min(max(ef, k), MaxEf)
	// Slots below the count hold written nodes (allocate).
	g.allocMu.Lock()
	st := g.st.Load()
	n := st.n
	g.allocMu.Unlock()
	if !g.descend(st, s, qp, ef) {
		return dst
	}
	s.pass.Reset(ef)
	g.searchFiltered(st, s, qp, f)
	s.ranked.Reset(k)
	s.newEpoch() // marks the kept nodes, which the sweep skips
	floor, best := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, e := range s.pass.Entries() {
		floor, best = min(floor, e.Score), max(best, e.Score)
		s.visit(e.Slot)
		rankInto(&s.ranked, r, e, atomic.LoadInt64(&st.times[e.Slot]), loadImp(&st.imps[e.Slot]))
	}
	rec, im := r.Extra(math.MaxInt64, math.Float32frombits(g.impCeil.Load()))
	// The walk's k-th is often far below the final one, and gathering at
	// it would score thousands of nodes exactly. A first pass aims halfway
	// to the most any node can score; if the k-th then reaches that aim,
	// every node it skipped is below the k-th. Otherwise a second pass at
	// the k-th it reached takes the rest (the first's nodes are marked
	// visited). Each pass gathers every node whose ceiling reaches its
	// fixed threshold, whatever order it reads them in, so the order lists
	// and the full sweep give the same nodes and the same results.
	thr := s.ranked.Threshold()
	if aim := thr + (r.Bound(best, rec, im)-thr)/2; thr > float32(math.Inf(-1)) && aim > thr {
		g.passRanked(st, s, qp, f, r, n, floor, rec, im, aim)
		if s.ranked.Threshold() >= aim {
			for _, e := range s.ranked.Sorted() {
				dst = append(dst, e.Result())
			}
			return dst
		}
	}
	g.passRanked(st, s, qp, f, r, n, floor, rec, im, s.ranked.Threshold())
	for _, e := range s.ranked.Sorted() {
		dst = append(dst, e.Result())
	}
	return dst
}

// gatherRanked scores slots exactly and offers the live ones f's ids
// pass to s.ranked by combined score.
func (g *Graph) gatherRanked(st *storage, s *Searcher, qp []float32, f *match.Filter, r *rank.Scorer, slots []uint32) {
	if len(slots) == 0 {
		return
	}
	scores := s.rscores[:len(slots)]
	g.kern.ScanIDs(qp, st.bytes, g.bstride, slots, scores)
	for i, slot := range slots {
		if g.flags(st, slot)&flagDeleted != 0 {
			continue
		}
		e := g.entryOf(st, slot, scores[i], 0)
		if f.IDs(e.ID) {
			rankInto(&s.ranked, r, e, atomic.LoadInt64(&st.times[slot]), loadImp(&st.imps[slot]))
		}
	}
}

// rankInto offers e (scored by similarity) to top by its combined score
// with time t and importance imp. A ceiling below the threshold cannot
// enter, and saves the power.
func rankInto(top *score.TopK, r *rank.Scorer, e score.Entry, t int64, imp float32) {
	if top.Full() && r.Ceiling(e.Score, t, imp) < top.Threshold() {
		return
	}
	e.Score = score.Ranked(r.Score(e.Score, t, imp))
	if top.Admits(e) {
		top.Push(e)
	}
}

// passRanked gathers and ranks the nodes below n not yet visited whose
// ceiling, with floor standing for their similarity, reaches thr; rec and
// im bound every node's extra terms. It reads the prefix of the shorter
// order list that can pass the floors, the nodes changed since the order
// was built and those added after it, or, without a usable order, every
// node (and starts a build). Gathered nodes are marked visited.
func (g *Graph) passRanked(st *storage, s *Searcher, qp []float32, f *match.Filter, r *rank.Scorer, n int, floor, rec, im, thr float32) {
	if cap(s.rslots) < exactChunk {
		s.rslots, s.rscores = make([]uint32, exactChunk), make([]float32, exactChunk)
	}
	p := rankPass{g: g, st: st, s: s, qp: qp, f: f, r: r, n: n, floor: floor, thr: thr, testAttrs: f.TestsAttrs()}
	// Two compares a node: below the importance a record needs with full
	// recency, or the time it needs with the highest importance, it cannot
	// reach the threshold; the rest pay for a ceiling.
	p.minImp, p.minTime = r.Floors(thr, floor, rec, im)
	o := g.order.Load()
	if o == nil || o.numbering != st.numbering || o.overflow.Load() || g.noRankOrder {
		if !g.noRankOrder {
			g.kickOrder()
		}
		for slot := range uint32(n) {
			p.offer(slot)
		}
		p.flush()
		return
	}
	nd := int(o.ndirty.Load())
	if 2*nd > len(o.dirty) || n-o.n > len(o.dirty)/2 {
		g.kickOrder() // still whole, but a search reads more than it needs to
	}
	// Every node of o not noted dirty still holds the values it was sorted
	// by: past the prefix, it fails a floor.
	if pt, pi := o.prefixes(p.minTime, p.minImp); pt <= pi {
		for _, slot := range o.tslots[:pt] {
			p.offer(slot)
		}
	} else {
		for _, slot := range o.islots[:pi] {
			p.offer(slot)
		}
	}
	for _, slot := range o.dirty[:nd] {
		p.offer(slot)
	}
	for slot := o.n; slot < n; slot++ {
		p.offer(uint32(slot))
	}
	p.flush()
}

// rankPass is one passRanked: the nodes it offers are gathered in chunks.
type rankPass struct {
	g          *Graph
	st         *storage
	s          *Searcher
	qp         []float32
	f          *match.Filter
	r          *rank.Scorer
	n          int
	floor, thr float32
	minImp     float32
	minTime    int64
	testAttrs  bool
	m          int // slots in s.rslots
}

// offer gathers slot if it is below n, not visited, passes the floors,
// the ceiling and f's attributes.
func (p *rankPass) offer(slot uint32) {
	if int(slot) >= p.n {
		return // an order built after this search loaded its storage
	}
	t, imp := atomic.LoadInt64(&p.st.times[slot]), loadImp(&p.st.imps[slot])
	if imp < p.minImp || t < p.minTime {
		return
	}
	s := p.s
	if p.r.Ceiling(p.floor, t, imp) < p.thr || s.visited[slot] == s.epoch {
		return
	}
	if p.testAttrs && !p.f.Attrs(p.st.scope(slot)) {
		return
	}
	s.visited[slot] = s.epoch
	s.rslots[p.m] = slot
	if p.m++; p.m == exactChunk {
		p.flush()
	}
}

func (p *rankPass) flush() {
	p.g.gatherRanked(p.st, p.s, p.qp, p.f, p.r, p.s.rslots[:p.m])
	p.m = 0
}
