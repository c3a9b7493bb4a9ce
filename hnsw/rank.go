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
// importance, so the ranking columns are swept: every other node whose
// ceiling, with the kept nodes' lowest similarity standing for its own,
// reaches the k-th combined score so far is gathered and scored exactly.
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
		e.Score = score.Ranked(r.Score(e.Score, atomic.LoadInt64(&st.times[e.Slot]), loadImp(&st.imps[e.Slot])))
		s.ranked.Push(e)
	}
	rec, im := r.Extra(math.MaxInt64, math.Float32frombits(g.impCeil.Load()))
	// The walk's k-th is often far below the final one, and a sweep at it
	// would gather thousands of nodes. A first sweep aims halfway to the
	// most any node can score; if the k-th then reaches that aim, every
	// node it skipped is below the k-th. Otherwise a second sweep at the
	// k-th itself takes the rest (the first's nodes are marked visited).
	thr := s.ranked.Threshold()
	if aim := thr + (r.Bound(best, rec, im)-thr)/2; thr > float32(math.Inf(-1)) && aim > thr {
		g.sweepRanked(st, s, qp, f, r, n, floor, rec, im, aim)
		if s.ranked.Threshold() >= aim {
			for _, e := range s.ranked.Sorted() {
				dst = append(dst, e.Result())
			}
			return dst
		}
	}
	g.sweepRanked(st, s, qp, f, r, n, floor, rec, im, float32(math.Inf(-1)))
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
		e.Score = score.Ranked(r.Score(e.Score, atomic.LoadInt64(&st.times[slot]), loadImp(&st.imps[slot])))
		if s.ranked.Admits(e) && f.IDs(e.ID) {
			s.ranked.Push(e)
		}
	}
}

// sweepRanked gathers and ranks the nodes below n not yet visited whose
// importance, time and ceiling (with floor standing for their similarity)
// can reach the k-th so far, or aim if that is higher; rec and im bound
// every node's extra terms. Gathered nodes are marked visited.
func (g *Graph) sweepRanked(st *storage, s *Searcher, qp []float32, f *match.Filter, r *rank.Scorer, n int, floor, rec, im, aim float32) {
	if cap(s.rslots) < exactChunk {
		s.rslots, s.rscores = make([]uint32, exactChunk), make([]float32, exactChunk)
	}
	buf, m := s.rslots[:exactChunk], 0
	testAttrs := f.TestsAttrs()
	// Two compares a node: below the importance a record needs with full
	// recency, or the time it needs with the highest importance, it cannot
	// reach the threshold; the rest pay for a ceiling.
	thr := max(s.ranked.Threshold(), aim)
	minImp, minTime := r.Floors(thr, floor, rec, im)
	for slot := range uint32(n) {
		t, imp := atomic.LoadInt64(&st.times[slot]), loadImp(&st.imps[slot])
		if imp < minImp || t < minTime {
			continue
		}
		if r.Ceiling(floor, t, imp) < thr || s.visited[slot] == s.epoch {
			continue
		}
		if testAttrs && !f.Attrs(st.attr(slot)) {
			continue
		}
		s.visited[slot] = s.epoch
		buf[m] = slot
		if m++; m == exactChunk {
			g.gatherRanked(st, s, qp, f, r, buf)
			m = 0
			if next := max(s.ranked.Threshold(), aim); next != thr {
				thr = next
				minImp, minTime = r.Floors(thr, floor, rec, im)
			}
		}
	}
	g.gatherRanked(st, s, qp, f, r, buf[:m])
}
