package hnsw

import (
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
)

// Scoped search: each slot carries its record's attributes (storage.tags
// and owners) and a query may pass a match.Filter. Two plans serve it: the
// graph plan walks the graph as Search does but admits only passing nodes
// to its results; the exact plan scores every passing node of a slot range
// or a candidate list with the gather kernel, as Search scores a node.

// matchAll stands in for a nil filter.
var matchAll match.Filter

// minShardBytes is the least record data worth handing one participant of
// Exact, as in flat.
const minShardBytes = 64 << 10

// exactChunk is how many passing nodes Exact gathers per kernel call.
const exactChunk = 256

// liveSlot is id's slot and the storage holding it, read together under
// allocMu; the caller holds the gate, so Compact cannot move the slot.
func (g *Graph) liveSlot(id uint64) (*storage, uint32, bool) {
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	slot, ok := g.slotOf(id)
	return g.st.Load(), slot, ok
}

// SetTags changes a live node's tags. It is safe beside searches, inserts
// and other SetTags (the tag word is stored atomically); a search in
// flight sees the old or the new word. False if id is not live.
func (g *Graph) SetTags(id, tags uint64) bool {
	g.gate.RLock()
	defer g.gate.RUnlock()
	st, slot, ok := g.liveSlot(id)
	if ok {
		// A Delete meanwhile leaves the slot in place until Compact, which
		// waits for the gate: the word written is a tombstone's.
		atomic.StoreUint64(&st.tags[slot], tags)
	}
	return ok
}

// SetTime changes a live node's time, as SetTags its tags.
func (g *Graph) SetTime(id uint64, t int64) bool {
	g.gate.RLock()
	defer g.gate.RUnlock()
	st, slot, ok := g.liveSlot(id)
	if ok {
		g.orderMu.Lock()
		g.noteRankChange(slot)
		atomic.StoreInt64(&st.times[slot], t)
		g.orderMu.Unlock()
	}
	return ok
}

// SetImportance changes a live node's importance, as SetTags its tags.
func (g *Graph) SetImportance(id uint64, v float32) bool {
	g.gate.RLock()
	defer g.gate.RUnlock()
	st, slot, ok := g.liveSlot(id)
	if ok {
		g.orderMu.Lock()
		g.noteRankChange(slot)
		storeImp(&st.imps[slot], v)
		g.orderMu.Unlock()
		g.raiseImpCeil(v)
	}
	return ok
}

// storeImp and loadImp store and load an importance atomically.
func storeImp(p *float32, v float32) {
	atomic.StoreUint32((*uint32)(unsafe.Pointer(p)), math.Float32bits(v))
}

func loadImp(p *float32) float32 {
	return math.Float32frombits(atomic.LoadUint32((*uint32)(unsafe.Pointer(p))))
}

// Attr returns a live node's attributes.
func (g *Graph) Attr(id uint64) (match.Attr, bool) {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	slot, ok := g.slotOf(id)
	if !ok {
		return match.Attr{}, false
	}
	return g.st.Load().attr(slot), true
}

// scope is slot's tags and owner, all a filter tests: two columns read,
// not attr's four.
func (st *storage) scope(slot uint32) match.Attr {
	return match.Attr{Tags: atomic.LoadUint64(&st.tags[slot]), Owner: st.owners[slot]}
}

// attr is slot's attributes.
func (st *storage) attr(slot uint32) match.Attr {
	return match.Attr{Tags: atomic.LoadUint64(&st.tags[slot]), Owner: st.owners[slot],
		Time: atomic.LoadInt64(&st.times[slot]), Importance: loadImp(&st.imps[slot])}
}

// SearchFiltered is the graph plan: the walk goes through every node as
// Search's does (its beam of ef live nodes decides where to go and when to
// stop), but only nodes that pass f (nil: all) enter the results, which
// keep the k best passing nodes seen, appended to dst[:0] best first: a
// heap of k, not ef, so that most offers fail at its first comparison.
// Every scored node is offered to the results, not only those entering
// the beam. Upper levels ignore the filter. ef is the
// caller's: a selective filter needs a wider one (BenchmarkFilteredTable
// measures how much). Scores are Search's for the same node;
// with a filter that passes everything the results are Search's. With
// cap(dst) >= k and a warmed-up s it allocates nothing.
func (g *Graph) SearchFiltered(s *Searcher, qp []float32, k, ef int, f *match.Filter, dst []score.Result) []score.Result {
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
	st := g.st.Load()
	if !g.descend(st, s, qp, ef) {
		return dst
	}
	s.pass.Reset(k)
	g.searchFiltered(st, s, qp, f)
	for _, e := range s.pass.Sorted()[:min(k, s.pass.Len())] {
		dst = append(dst, e.Result())
	}
	return dst
}

// searchFiltered is searchLayer on level 0 from s.entries, with s.pass
// collecting the scored live nodes that pass f.
func (g *Graph) searchFiltered(st *storage, s *Searcher, qp []float32, f *match.Filter) {
	testAttrs, owner, test := f.TestsAttrs(), f.Owner != 0, f.AttrTest()
	s.newEpoch()
	s.cand.h = s.cand.h[:0]
	s.res.Clear()
	for _, e := range s.entries {
		if s.visit(e.Slot) {
			s.cand.push(e)
			if g.flags(st, e.Slot)&flagDeleted == 0 {
				s.res.Push(e)
			}
			g.offer(st, s, f, testAttrs && !f.Attrs(st.scope(e.Slot)), e)
		}
	}
	for len(s.cand.h) > 0 {
		c := s.cand.pop()
		if s.res.Full() && s.res.Worst().Better(c) {
			break
		}
		if s.budget > 0 && s.outOfTime() {
			break
		}
		g.prefetchNext(st, s)
		ids, _ := g.unvisitedLinks(st, s, c.Slot)
		m := len(ids)
		if m == 0 {
			continue
		}
		scores, attrs := s.scores[:m], s.attrs[:m]
		if testAttrs {
			// The attribute words before the gather: their cache misses
			// then overlap one another and the gather's, where reading
			// each as its node is offered waited on them one by one.
			for i, n := range ids {
				attrs[i].Tags = atomic.LoadUint64(&st.tags[n])
				if owner {
					attrs[i].Owner = st.owners[n]
				}
			}
		}
		g.kern.ScanIDs(qp, st.bytes, g.bstride, ids, scores)
		g.adjustScores(st, ids, scores, 0)
		for i, n := range ids {
			// As searchLayer: refused by both sets on the score alone,
			// a neighbour's id is never read.
			sc := scores[i]
			if s.res.Full() && sc < s.res.Worst().Score && s.pass.Full() && sc < s.pass.Worst().Score {
				continue
			}
			e := score.Entry{Score: sc, Slot: n, ID: g.idOf(st, n)}
			if s.res.Admits(e) {
				s.cand.push(e)
				if g.flags(st, n)&flagDeleted == 0 {
					s.res.Push(e)
				}
			}
			g.offer(st, s, f, testAttrs && test.Pass(attrs[i].Tags, attrs[i].Owner) == 0, e)
		}
	}
}

// offer pushes e into s.pass if it would enter, refused says nothing of
// it (its attributes failed f), its node is live and its id passes f; the
// id lists, the dearest test, come last.
func (g *Graph) offer(st *storage, s *Searcher, f *match.Filter, refused bool, e score.Entry) {
	if s.pass.Admits(e) && !refused && g.flags(st, e.Slot)&flagDeleted == 0 && f.IDs(e.ID) {
		s.pass.Push(e)
	}
}

// ExactSearcher is the reusable scratch of one Exact call at a time: every
// participant's private top-k and gather buffers.
type ExactSearcher struct {
	parts  []exactPart
	merged score.TopK
	job    exactJob
	rank   *rank.Scorer // the next calls' ranking; nil: by similarity
	// The budget of the next calls (0: none) and what the last one did.
	start      time.Time
	budget     time.Duration
	done, work int
}

// SetRank makes the next Exact calls rank by r's combined score (nil: by
// similarity); r is read during each call only.
func (e *ExactSearcher) SetRank(r *rank.Scorer) { e.rank = r }

// SetBudget makes the Exact calls that follow stop once d has passed
// since start (d 0: no budget), returning the best nodes found by then;
// Coverage reports how far each got. A budgeted call visits each
// participant's slots (or candidates) in interleaved blocks, reading the
// clock once per block.
func (e *ExactSearcher) SetBudget(start time.Time, d time.Duration) { e.start, e.budget = start, d }

// Coverage reports how many slots (candidates) the last Exact call
// visited, of how many: equal when it ran whole.
func (e *ExactSearcher) Coverage() (done, work int) { return e.done, e.work }

// exactPart is one participant's state, padded so two never share a line.
type exactPart struct {
	top     score.TopK
	slots   []uint32
	scores  []float32
	touched uint64 // keeps slotmap.Touch's reads
	ran     bool   // a budgeted call: this participant ran
	done    int    // a budgeted call: slots or candidates visited
	_       [64]byte
}

// exactJob is the pool task of one Exact call; it lives in the
// ExactSearcher so Run allocates nothing.
type exactJob struct {
	g      *Graph
	st     *storage
	qp     []float32
	k, n   int // n: the slots to scan when cands is nil
	cands  []uint64
	f      match.Filter // a copy: a pointer kept here would move the caller's filter to the heap
	parts  []exactPart
	nparts int
	rank   *rank.Scorer
	start  time.Time
	budget time.Duration // 0: no budget
}

// NewExactSearcher returns scratch for up to participants participants.
func NewExactSearcher(participants int) *ExactSearcher {
	return &ExactSearcher{parts: make([]exactPart, max(participants, 1))}
}

// Exact is the exact candidate scan: cands nil takes every live node,
// else the candidate ids (distinct, any order; missing or deleted ones
// skipped). Each node passing f (nil: all) is scored with the gather
// kernel, as Search scores it, and the k best (capped at MaxEf) are
// appended to dst[:0], best first, ties by id. The work is split across
// p's workers plus the caller (p nil: serially), as many as the work is
// worth and e has room for, each into a private top-k merged at the end,
// so the results are the same whatever their number. With cap(dst) >= k
// and a warmed-up e it allocates nothing.
//
// It takes the lock that guards the id map (briefly for cands nil, for
// the whole call otherwise), so it waits as Len does for an OpenParts
// graph's map, and inserts wait for it.
func (g *Graph) Exact(e *ExactSearcher, p *pool.Pool, qp []float32, k int, cands []uint64, f *match.Filter, dst []score.Result) []score.Result {
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
	// The count and the map are read with the storage they index; slots
	// below the count hold written nodes (allocate).
	g.allocMu.Lock()
	st := g.st.Load()
	n, work := st.n, st.n
	if cands != nil {
		work = len(cands)
		defer g.allocMu.Unlock() // workers read the id map
	} else {
		g.allocMu.Unlock()
	}
	avail := 1
	if p != nil {
		avail += p.Workers()
	}
	nparts := min(avail, len(e.parts), max(1, work*g.recBytes/minShardBytes))
	e.job = exactJob{g: g, st: st, qp: qp, k: k, n: n, cands: cands, f: *f, parts: e.parts, nparts: nparts, rank: e.rank, start: e.start, budget: e.budget}
	e.work = work
	if e.budget > 0 {
		e.runBudgeted(p)
	} else {
		if nparts > 1 {
			p.Run(&e.job, nparts)
		} else {
			e.job.RunPart(0)
		}
		e.done = work
	}
	e.job.qp, e.job.cands, e.job.f, e.job.rank = nil, nil, match.Filter{}, nil // keep no caller memory
	m := &e.merged
	m.Reset(k)
	for i := range e.job.nparts {
		if e.budget > 0 && !e.parts[i].ran {
			continue // not begun by the deadline: its top-k is stale
		}
		for _, x := range e.parts[i].top.Entries() {
			m.Push(x)
		}
	}
	for _, x := range m.Sorted() {
		dst = append(dst, x.Result())
	}
	return dst
}

// runBudgeted runs e.job on its participants until its deadline and
// counts what they visited; if the pool is busy the caller does it all.
func (e *ExactSearcher) runBudgeted(p *pool.Pool) {
	j := &e.job
	for i := range j.nparts {
		e.parts[i].ran, e.parts[i].done = false, 0
	}
	if j.nparts == 1 || !p.RunBy(j, j.nparts, j.start, j.budget) {
		j.nparts = 1
		j.RunPart(0)
	}
	e.done = 0
	for i := range j.nparts {
		if e.parts[i].ran {
			e.done += e.parts[i].done
		}
	}
}

// exactPasses is how many interleaved passes a budgeted participant makes
// over its blocks of exactChunk (as flat's scan): a call cut short has
// sampled its whole share.
const exactPasses = 16

// RunPart scans participant i's share: a slot range, or a run of cands.
func (j *exactJob) RunPart(i int) {
	pt := &j.parts[i]
	pt.ran = true
	pt.top.Reset(j.k)
	if cap(pt.slots) < exactChunk {
		pt.slots, pt.scores = make([]uint32, exactChunk), make([]float32, exactChunk)
	}
	var cands []uint64
	lo, hi := j.n*i/j.nparts, j.n*(i+1)/j.nparts
	if j.cands != nil {
		cands = match.Shard(j.cands, i, j.nparts)
		lo, hi = 0, len(cands)
	}
	if j.budget == 0 {
		j.visit(pt, cands, lo, hi)
		return
	}
	nb := (hi - lo + exactChunk - 1) / exactChunk
	stride := min(exactPasses, nb)
	for pass := 0; pass < stride; pass++ {
		for b := pass; b < nb; b += stride {
			if time.Since(j.start) >= j.budget {
				return
			}
			blo := lo + b*exactChunk
			bhi := min(blo+exactChunk, hi)
			j.visit(pt, cands, blo, bhi)
			pt.done += bhi - blo
		}
	}
}

// visit scores slots [lo, hi) (cands nil) or cands[lo:hi] into pt.
func (j *exactJob) visit(pt *exactPart, cands []uint64, lo, hi int) {
	g, st := j.g, j.st
	f := j.f // a local copy stays in registers through the loops
	buf, m := pt.slots[:exactChunk], 0
	if j.cands == nil {
		// The attribute words first: most nodes stop there, before their
		// block is touched. Each window fills buf at most to exactChunk.
		// Deleted nodes and ids are told from the block's header, which
		// the gather brings in with the record: score drops them.
		test := f.AttrTest()
		for slot := lo; slot < hi; {
			w := min(exactChunk-m, hi-slot)
			m += len(test.Select(buf[m:m+w], slot, st.tags[slot:slot+w], st.owners[slot:slot+w]))
			if slot += w; m == exactChunk {
				j.score(pt, buf)
				m = 0
			}
		}
	} else {
		// A chunk of candidates at a time, each step its own loop (look
		// every slot up, then test the attributes, then gather) so that
		// the cache misses of one candidate overlap the next's.
		testAttrs, testIDs := f.TestsAttrs(), f.TestsIDs()
		for cands := cands[lo:hi]; len(cands) > 0; {
			chunk := cands[:min(len(cands), exactChunk)]
			cands = cands[len(chunk):]
			pt.touched += g.ids.Touch(chunk)
			m = 0
			for _, id := range chunk {
				if s, ok := g.ids.Get(id); ok && (!testIDs || f.IDs(id)) { // live nodes only
					buf[m] = uint32(s)
					m++
				}
			}
			if testAttrs {
				m = keepAttrs(st, buf[:m], &f)
			}
			j.score(pt, buf[:m])
		}
		m = 0
	}
	j.score(pt, buf[:m])
}

// keepAttrs keeps, in order and in place, the slots of sel whose
// attributes pass f, and returns how many.
func keepAttrs(st *storage, sel []uint32, f *match.Filter) int {
	t, n := f.AttrTest(), 0
	for _, s := range sel {
		sel[n] = s
		a := st.scope(s)
		n += int(t.Pass(a.Tags, a.Owner))
	}
	return n
}

// score gathers and scores slots into pt's top-k, but for deleted nodes
// and, on a scan of every slot, ids the filter refuses (a candidate's
// were tested before).
func (j *exactJob) score(pt *exactPart, slots []uint32) {
	g, st := j.g, j.st
	scores := pt.scores[:len(slots)]
	g.kern.ScanIDs(j.qp, st.bytes, g.bstride, slots, scores)
	testIDs := j.cands == nil && j.f.TestsIDs()
	if j.rank != nil {
		for i, slot := range slots {
			if g.flags(st, slot)&flagDeleted != 0 {
				continue
			}
			e := g.entryOf(st, slot, scores[i], 0)
			if testIDs && !j.f.IDs(e.ID) {
				continue
			}
			rankInto(&pt.top, j.rank, e, atomic.LoadInt64(&st.times[slot]), loadImp(&st.imps[slot]))
		}
		return
	}
	// As the walks: the scores adjusted at once, and a record the top-k
	// would refuse by its score alone is dropped before its header's
	// state and id are read.
	g.adjustScores(st, slots, scores, 0)
	for i, slot := range slots {
		sc := scores[i]
		if pt.top.Full() && sc < pt.top.Worst().Score {
			continue
		}
		if g.flags(st, slot)&flagDeleted != 0 {
			continue
		}
		id := g.idOf(st, slot)
		if testIDs && !j.f.IDs(id) {
			continue
		}
		pt.top.Push(score.Entry{Score: sc, Slot: slot, ID: id})
	}
}
