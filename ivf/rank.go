package ivf

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
)

// Ranked search. Each partition keeps its records' times and importances
// in columns beside the others, and bounds on them (newest, most). A
// ranked query runs in two phases:
//
//  1. The probed partitions are scanned as flat scans them: similarity by
//     the kernel, then the combined score, pruned by chunk and record
//     bounds that never change the result. Each task also keeps the k
//     best similarities.
//  2. A record of an unprobed partition can still enter by its recency or
//     importance. As a plain query at this nprobe assumes that no
//     unprobed record is more similar than the k-th best similarity it
//     found (simCap), the second phase reads every unprobed partition
//     whose bounds with simCap reach the first phase's k-th combined score
//     (floor), and scores exactly each record whose own time and
//     importance with simCap reach it. What it misses is only a record
//     more similar than simCap in an unprobed partition, as a plain query
//     misses it. With nprobe = NList there is no second phase and the
//     answer is the exact ranked scan's.
//
// The gates depend only on the first phase's merged answer and on each
// record, so the results are the same bits for every thread count and for
// batch and single queries. Within a phase, tasks also skip records
// strictly below the best k-th combined score any task has reached (a
// bar): the k-th of any set of records is at most the final k-th, so only
// records that cannot enter are skipped, whichever tasks set it.

// bar is a query's highest task threshold, a float32 kept in an order
// the integers share so a CAS can raise it.
type bar struct{ v atomic.Uint32 }

// orderBits maps a float32 (not NaN) to a uint32 of the same order.
func orderBits(f float32) uint32 {
	b := math.Float32bits(f)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

func (b *bar) reset() { b.v.Store(orderBits(float32(math.Inf(-1)))) }

// get is the bar as a float32.
func (b *bar) get() float32 {
	v := b.v.Load()
	if v>>31 != 0 {
		return math.Float32frombits(v &^ (1 << 31))
	}
	return math.Float32frombits(^v)
}

// raise lifts the bar to f if f is higher.
func (b *bar) raise(f float32) {
	n := orderBits(f)
	for {
		o := b.v.Load()
		if n <= o || b.v.CompareAndSwap(o, n) {
			return
		}
	}
}

// SetRank makes the Searcher's next searches rank by r's combined score
// (nil: by similarity). r must outlive them.
func (s *Searcher) SetRank(r *rank.Scorer) { s.rank = r }

// SetBudget makes the searches that follow stop taking tasks (partitions,
// or shares of the candidates) once d has passed since start (d 0: no
// budget), returning the best results of the tasks done. The tasks are
// taken in a fixed order (a single query's partitions best first), so a
// search cut short has read its most promising partitions.
func (s *Searcher) SetBudget(start time.Time, d time.Duration) { s.start, s.budget = start, d }

// Coverage reports the slots (candidates for SearchIDs) the last search
// read and those it planned to: equal when it ran to the end.
func (s *Searcher) Coverage() (done, work int) { return s.done, s.work }

// borrowRanks takes a loaded partition's ranking columns in place (nil:
// all zero).
func (p *partition) borrowRanks(times []int64, imps []float32, n int) error {
	if times != nil && len(times) != n || imps != nil && len(imps) != n {
		return fmt.Errorf("%w: %d times and %d importances for %d records", ErrCorrupt, len(times), len(imps), n)
	}
	p.times, p.imps = nonzero(times, n, isZero), nonzero(imps, n, isZeroBits)
	p.bound()
	return nil
}

// bound makes newest and most the exact bounds of the slots.
func (p *partition) bound() {
	p.newest, p.most = math.MinInt64, float32(math.Inf(-1))
	if n := p.slots(); n > 0 && (p.times == nil || p.imps == nil) {
		// A nil column's values are all zero.
		p.newest, p.most = max(p.newest, p.time(0)), max(p.most, p.imp(0))
	}
	for _, t := range p.times {
		p.newest = max(p.newest, t)
	}
	for _, v := range p.imps {
		p.most = max(p.most, v) // finite: the engine checks importances
	}
}

// own returns partition pi, copied into memory of the index's own first
// if it still reads FromParts' slices.
func (x *Index) own(pi int) *partition {
	p := x.parts[pi]
	if p.borrowed {
		p.grow(x, 0)
	}
	return p
}

// SetTime changes a stored record's time; false if id is not stored.
func (x *Index) SetTime(id uint64, t int64) bool {
	pi, s, ok := x.locate(id)
	if ok {
		p := x.own(pi)
		if p.times == nil && t == 0 {
			return true
		}
		p.times = set(p, p.times)
		p.times[s], p.newest = t, max(p.newest, t)
		p.touch(s)
	}
	return ok
}

// SetImportance changes a stored record's importance (finite); false if
// id is not stored.
func (x *Index) SetImportance(id uint64, v float32) bool {
	pi, s, ok := x.locate(id)
	if ok {
		p := x.own(pi)
		if p.imps == nil && math.Float32bits(v) == 0 {
			return true
		}
		p.imps = set(p, p.imps)
		p.imps[s], p.most = v, max(p.most, v)
		p.touch(s)
	}
	return ok
}

// scanRanked offers every live record of p whose id passes j.f by its
// combined score (flat's ranked scan), keeping the similarities too when
// a second phase needs them.
func (j *job) scanRanked(pt *part, p *partition, pairs []pair, qps []float32) {
	n, nq := p.slots(), len(pairs)
	for base := 0; base < n; base += chunk {
		m := min(chunk, n-base)
		scores := j.scoreChunk(pt, p, nq, qps, base, m)
		newest, most := chunkCeiling(at(p.times, zeroTimes[:], base, m), at(p.imps, zeroImps[:], base, m))
		rec, im := j.rank.Extra(newest, most)
		for i := range pairs {
			sims := scores[i*m : (i+1)*m]
			if j.sims {
				collectLive(&pairs[i].sims, sims, p, base, j.f)
			}
			collectRanked(&pairs[i].top, &j.s.bars[pairs[i].q], sims, base, p, j.f, j.rank, rec, im)
		}
	}
}

// chunkCeiling is the newest time and the highest importance of a chunk.
func chunkCeiling(times []int64, imps []float32) (newest int64, most float32) {
	newest, most = times[0], imps[0]
	for _, t := range times[1:] {
		newest = max(newest, t)
	}
	for _, v := range imps[1:] {
		most = max(most, v)
	}
	return newest, most
}

// collectRanked offers one query's similarities of a chunk of p from slot
// base, whose records' extra terms are at most rec and im, as flat's
// collectRanked: against the higher of t's threshold and the query's bar
// (-Inf until either is set), the chunk is skipped when its best
// similarity cannot reach it, a record when its importance or time is
// below what it needs; the rest pay for a ceiling, then the exact score.
func collectRanked(t *score.TopK, b *bar, sims []float32, base int, p *partition, f *match.Filter, r *rank.Scorer, rec, im float32) {
	m := len(sims)
	times, imps, ids := at(p.times, zeroTimes[:], base, m), at(p.imps, zeroImps[:], base, m), p.ids[base:base+m]
	best := float32(math.Inf(-1))
	for _, s := range sims {
		best = max(best, s) // a NaN similarity ranks last: left out
	}
	thr := max(t.Threshold(), b.get())
	open := math.IsInf(float64(thr), -1)
	if !open && r.Bound(best, rec, im) < thr {
		return
	}
	minImp, minTime := float32(math.Inf(-1)), int64(math.MinInt64)
	if !open {
		minImp, minTime = r.Floors(thr, best, rec, im)
	}
	for i, sim := range sims {
		if imps[i] < minImp || times[i] < minTime || p.isDead(base+i) {
			continue
		}
		// Not "below": NaN goes on and ranks last.
		if !open && r.Ceiling(sim, times[i], imps[i]) < thr {
			continue
		}
		sc := r.Score(sim, times[i], imps[i])
		if !open && sc < thr {
			continue
		}
		before := t.Threshold()
		offer(t, score.Entry{Score: score.Ranked(sc), Slot: uint32(base + i), ID: ids[i]}, f)
		if next := t.Threshold(); next != before {
			b.raise(next)
			if next = max(next, b.get()); next != thr {
				thr, open = next, false
				minImp, minTime = r.Floors(thr, best, rec, im)
			}
		}
	}
}

// offerRanked offers slot s of p, of similarity sim, to pr by its combined
// score when that can reach pr's top-k and floor; the first phase of a
// search with a second also offers the similarity.
func (j *job) offerRanked(pr *pair, sim float32, s uint32, p *partition) {
	if j.sims && !(sim < pr.sims.Threshold()) {
		offer(&pr.sims, score.Entry{Score: score.Ranked(sim), Slot: s, ID: p.ids[s]}, j.f)
	}
	b := &j.s.bars[pr.q]
	before := pr.top.Threshold()
	thr := max(before, pr.floor, b.get())
	tm, imp := p.time(int(s)), p.imp(int(s))
	if j.rank.Ceiling(sim, tm, imp) < thr {
		return
	}
	if sc := j.rank.Score(sim, tm, imp); !(sc < thr) {
		offer(&pr.top, score.Entry{Score: score.Ranked(sc), Slot: s, ID: p.ids[s]}, j.f)
		if next := pr.top.Threshold(); next != before {
			b.raise(next)
		}
	}
}

// offerRankedDense offers the records at slots sel of a chunk scored whole
// from slot base.
func (j *job) offerRankedDense(pr *pair, sims []float32, sel []uint32, base int, p *partition) {
	for _, s := range sel {
		j.offerRanked(pr, sims[int(s)-base], s, p)
	}
}

// offerRankedGathered offers the records at slots sel, sims[i] being
// sel[i]'s.
func (j *job) offerRankedGathered(pr *pair, sims []float32, sel []uint32, p *partition) {
	for i, s := range sel {
		j.offerRanked(pr, sims[i], s, p)
	}
}

// planRest makes the second phase's tasks: for each query, the unprobed
// partitions whose bounds, with the query's k-th best similarity standing
// for their records', reach its k-th combined score. It returns the bytes
// of records they hold.
func (x *Index) planRest(s *Searcher, nq int) int {
	if len(s.probed) < len(x.parts) {
		s.probed = make([]bool, 2*len(x.parts))
	}
	r := s.rank
	for q := 0; q < nq; q++ {
		floor, simCap := s.merged[q].Threshold(), s.simMerge[q].Threshold()
		s.floors[q], s.simCaps[q] = floor, simCap
		for _, pi := range s.probes[q] {
			s.probed[pi] = true
		}
		list := s.rest[q][:0]
		all := math.IsInf(float64(floor), -1) // fewer than k found: every match may enter
		for pi, p := range x.parts {
			if s.probed[pi] || p.liveLen() == 0 {
				continue
			}
			if all || !(r.Ceiling(simCap, p.newest, p.most) < floor) {
				list = append(list, int32(pi))
			}
		}
		s.rest[q] = list
		for _, pi := range s.probes[q] {
			s.probed[pi] = false
		}
	}
	return x.makeTasks(s, nq, &s.rest)
}

// scanRest is the second phase over partition p: for each query, the live
// records whose time and importance with the query's simCap reach its
// floor, and that pass the filter's attribute tests, are gathered and
// scored exactly.
func (j *job) scanRest(pt *part, p *partition, pairs []pair) {
	x, f, r := j.x, j.f, j.rank
	ql := x.kern.QueryLen()
	testAttrs := f.TestsAttrs()
	n := p.slots()
	rec, im := r.Extra(p.newest, p.most)
	for i := range pairs {
		pr := &pairs[i]
		pr.floor, pr.simCap = j.s.floors[pr.q], j.s.simCaps[pr.q]
		qp := j.s.qps[pr.q*ql : (pr.q+1)*ql]
		all := math.IsInf(float64(pr.floor), -1)
		minImp, minTime := r.Floors(pr.floor, pr.simCap, rec, im)
		sel := pt.sel[:0]
		for s := 0; s < n; s++ {
			if !all {
				tm, imp := p.time(s), p.imp(s)
				if imp < minImp || tm < minTime || r.Ceiling(pr.simCap, tm, imp) < pr.floor {
					continue
				}
			}
			if p.isDead(s) || testAttrs && !f.Attrs(attrOf(p, s)) {
				continue
			}
			if sel = append(sel, uint32(s)); len(sel) == chunk {
				j.gatherOne(pt, p, pr, qp, sel)
				sel = sel[:0]
			}
		}
		j.gatherOne(pt, p, pr, qp, sel)
	}
}

// gatherOne scores p's records at slots sel against one query and offers
// them by combined score.
func (j *job) gatherOne(pt *part, p *partition, pr *pair, qp []float32, sel []uint32) {
	if len(sel) == 0 {
		return
	}
	x := j.x
	scores := pt.scores[:len(sel)]
	x.kern.ScanIDs(qp, p.slab[:p.slots()*x.stride], x.stride, sel, scores)
	x.adjust.Slots(scores, p.bias, p.scale, sel)
	j.offerRankedGathered(pr, scores, sel, p)
}
