package flat

import (
	"sync/atomic"
	"time"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// part is one participant's private state, padded so two participants never
// write the same cache line.
type part struct {
	top     [MaxBatch]score.TopK
	scores  []float32 // chunk*MaxBatch scores
	scratch []float32 // batch decode buffer
	sel     []uint32  // slots of a chunk's records to score (filtered plans)
	touched uint64    // keeps slotmap.Touch's reads
	ran     bool      // a budgeted search: this participant ran (its top-k is this search's)
	left    bool      // a budgeted search: the caller left this participant running (set on the caller)
	done    int       // a budgeted search: records (or candidates) visited
	_       [64]byte
}

// Searcher is the reusable scratch of one query (or batch) in flight: the
// laid-out queries and every participant's top-k. A Searcher serves one
// query at a time; keep one per goroutine or in a free list.
type Searcher struct {
	qps   []float32
	parts []part
	// backups[i] is the caller's backup of worker participant i's share in
	// a budgeted search (pool.Backer); used where that participant did not
	// end its share in time.
	backups []part
	merged  score.TopK
	job     job
	rank    *rank.Scorer // the next searches' ranking; nil: by similarity
	// The budget of the next searches (0: none) and what the last one did.
	start      time.Time
	budget     time.Duration
	done, work int
	// holder, when set, lets a budgeted search leave a begun participant
	// running at the deadline (Holder). holds is twice the participants
	// left running, plus 1 until the caller's Release; left is how many
	// the last search left (the caller's count).
	holder Holder
	holds  atomic.Int32
	left   int
}

// A Holder keeps what a budgeted search reads (the index, under a read
// lock of the caller's) for a participant that the search leaves running
// at its deadline, so the caller returns by the deadline even when the
// OS has taken a worker's thread away mid-share. The participant's
// results are then dropped from the answer.
type Holder interface {
	// Hold takes one more hold on what the search reads, for a participant
	// about to be left running; false: it cannot now, and the caller waits
	// for the participant. It runs on the caller.
	Hold() bool
	// Left ends a hold Hold took, once its participant has ended, with the
	// value of the participant's panic (nil if none). last: the caller has
	// released the Searcher and this was the last participant using it,
	// which is free again. It runs on the participant's worker and must
	// not panic.
	Left(panicked any, last bool)
}

// SetHolder lets the budgeted searches that follow leave participants
// running at the deadline, held by h (nil: they wait for every begun
// participant). Such a Searcher must be released (Release) after each
// search.
func (s *Searcher) SetHolder(h Holder) { s.holder = h }

// Release ends the caller's use of s after a search. True: s is free
// again. False: a participant the search left running still uses s, and
// the last of them frees it (Holder.Left with last set); s must not be
// used until then.
func (s *Searcher) Release() bool {
	if s.holds.Load() == 0 {
		return true // released already, nothing left running
	}
	if s.holds.Add(-1) != 0 {
		return false
	}
	s.dropJob()
	return true
}

// dropJob drops the caller's filter, candidates and ranking from the job
// once no participant reads them.
func (s *Searcher) dropJob() {
	s.job.f, s.job.cands, s.job.owned, s.job.rank = nil, nil, nil, nil
}

// SetRank makes the Searcher's next searches rank by r's combined score
// (nil: by similarity); r is read during each search only.
func (s *Searcher) SetRank(r *rank.Scorer) { s.rank = r }

// job is the pool task of one search; it lives in the Searcher so Run
// allocates nothing. f and cands are the caller's and are dropped when the
// search returns.
type job struct {
	x      *Index
	s      *Searcher
	nq, k  int
	nparts int
	plan   plan
	f      *match.Filter
	cands  []uint64
	owned  []uint32 // planOwner: the owner's slots
	rank   *rank.Scorer
	start  time.Time
	budget time.Duration // 0: no budget
}

// plan is how a job finds the records it scores.
type plan uint8

const (
	planAll   plan = iota // every record (Search)
	planScan              // every record that passes the filter (SearchFiltered)
	planIDs               // the candidate ids that pass the filter (SearchIDs)
	planOwner             // an owner's records that pass the filter (SearchOwner)
)

// densePercent sets where a filtered chunk is scored whole rather than
// gathered: once more than this percentage of its records match, reading
// the chunk in order costs less than gathering the matches. Measured by
// BenchmarkDenseBreakEven (a variable only so that it can move it): in CPU
// time the gather wins up to 3/4 (0.90x at 1/2), scoring whole wins from
// 7/8 (0.91x single, 0.82x batch of 16). Scoring runs of adjacent matches
// with Scan lost to the gather at every share (a call per short run).
var densePercent = 80

// passes is how many interleaved passes a budgeted participant makes over
// its blocks: pass p visits blocks p, p+passes, p+2·passes, ..., so a scan
// cut short has sampled the whole shard, at 1/passes granularity.
const passes = 16

// SetBudget makes the searches that follow stop once d has passed since
// start (d 0: no budget), returning the best results found by then;
// Coverage reports how far each got. A budgeted search visits each
// participant's records in interleaved blocks of a chunk, reading the
// clock once per block.
func (s *Searcher) SetBudget(start time.Time, d time.Duration) { s.start, s.budget = start, d }

// Coverage reports how many records (candidates for SearchIDs) the last
// search visited, of how many: equal when it ran whole.
func (s *Searcher) Coverage() (done, work int) { return s.done, s.work }

// NewSearcher returns scratch for up to participants participants.
func NewSearcher(participants int) *Searcher {
	return &Searcher{parts: make([]part, max(participants, 1))}
}

// QueryBuffer returns room for nq laid-out queries of the index's kernel;
// fill it with the kernel's PrepareQuery before Search.
func (s *Searcher) QueryBuffer(x *Index, nq int) []float32 {
	n := nq * x.kern.QueryLen()
	if cap(s.qps) < n {
		s.qps = make([]float32, n)
	}
	s.qps = s.qps[:n]
	return s.qps
}

// Participants is how many threads (p's workers plus the caller) one query
// uses now: fewer than p offers when the index is too small to split.
func (x *Index) Participants(p *pool.Pool) int { return x.participants(p, MaxParticipants) }

// MaxParticipants bounds how many participants one query uses.
const MaxParticipants = 257

func (x *Index) participants(p *pool.Pool, limit int) int {
	return x.participantsFor(len(x.ids), p, limit)
}

// participantsFor is the participant count for scoring n records.
func (x *Index) participantsFor(n int, p *pool.Pool, limit int) int {
	avail := 1
	if p != nil {
		avail += p.Workers()
	}
	want := max(1, n*x.stride/minShardBytes)
	return min(avail, want, limit)
}

// Search finds the k best records for the nq queries laid out in
// s.QueryBuffer and writes query q's results, best first, to
// dst[q*k : q*k+counts[q]]. The results are the same, bit for bit and in
// order, whatever p's worker count, and for batch and single queries.
func (x *Index) Search(s *Searcher, p *pool.Pool, nq, k int, dst []score.Result, counts []int) {
	checkArgs(nq, k, dst, counts)
	x.run(s, p, job{x: x, s: s, nq: nq, k: k, nparts: x.participants(p, len(s.parts)), plan: planAll, start: s.start, budget: s.budget}, dst, counts)
}

// SearchFiltered is Search restricted to the records that pass f (the
// "scan" plan): each chunk's attributes are tested before it is scored, and
// only matches are scored (a gather) or, when many match, offered. Ids are
// tested only when a score would enter a top-k. The results are those of
// SearchIDs over every stored id, bit for bit.
func (x *Index) SearchFiltered(s *Searcher, p *pool.Pool, nq, k int, f *match.Filter, dst []score.Result, counts []int) {
	checkArgs(nq, k, dst, counts)
	if f == nil {
		f = &matchAll
	}
	pl := planScan
	if !f.Active() {
		pl = planAll
	}
	x.run(s, p, job{x: x, s: s, nq: nq, k: k, nparts: x.participants(p, len(s.parts)), plan: pl, f: f, start: s.start, budget: s.budget}, dst, counts)
}

// SearchIDs scores only the records of the candidate ids that are stored
// and pass f (the "direct" plan): cands are distinct ids in any order (an
// allowlist's sorted set, an owner's posting); missing ids are skipped. The
// candidates are split between participants like Search's records.
func (x *Index) SearchIDs(s *Searcher, p *pool.Pool, nq, k int, cands []uint64, f *match.Filter, dst []score.Result, counts []int) {
	checkArgs(nq, k, dst, counts)
	if f == nil {
		f = &matchAll
	}
	n := x.participantsFor(len(cands), p, len(s.parts))
	x.run(s, p, job{x: x, s: s, nq: nq, k: k, nparts: n, plan: planIDs, f: f, cands: cands, start: s.start, budget: s.budget}, dst, counts)
}

// SearchOwner is SearchIDs over the records owner holds, found in the
// index's own owner postings (slots, so no id is looked up) and tested
// against f: the direct plan of an owner group. The results are those of
// SearchIDs over the group's ids, bit for bit.
func (x *Index) SearchOwner(s *Searcher, p *pool.Pool, nq, k int, owner uint64, f *match.Filter, dst []score.Result, counts []int) {
	checkArgs(nq, k, dst, counts)
	if f == nil {
		f = &matchAll
	}
	var owned []uint32
	if owner != 0 {
		owned = x.owned[owner]
	}
	n := x.participantsFor(len(owned), p, len(s.parts))
	x.run(s, p, job{x: x, s: s, nq: nq, k: k, nparts: n, plan: planOwner, f: f, owned: owned, start: s.start, budget: s.budget}, dst, counts)
}

// matchAll is the filter a nil one stands for.
var matchAll match.Filter

func checkArgs(nq, k int, dst []score.Result, counts []int) {
	if nq < 1 || nq > MaxBatch || k < 1 || k > MaxK || len(dst) < nq*k || len(counts) < nq {
		panic("flat: Search arguments out of range")
	}
}

// run runs j on its participants and merges their top-k into dst and
// counts.
func (x *Index) run(s *Searcher, p *pool.Pool, j job, dst []score.Result, counts []int) {
	if s.holds.Load() > 1 {
		panic("flat: Searcher reused while a participant left running still uses it")
	}
	s.holds.Store(1)
	s.left = 0
	j.rank = s.rank
	s.job = j
	s.work = len(x.ids)
	switch j.plan {
	case planIDs:
		s.work = len(j.cands)
	case planOwner:
		s.work = len(j.owned)
	}
	if j.budget > 0 {
		x.runBudgeted(s, p)
	} else {
		if s.job.nparts > 1 {
			p.Run(&s.job, s.job.nparts)
		} else {
			s.job.RunPart(0)
		}
		s.done = s.work
	}
	if s.left == 0 {
		s.dropJob() // not retained; else dropped once the last participant ends
	}
	nq, k := j.nq, j.k
	kk := min(k, len(x.ids))
	for q := 0; q < nq; q++ {
		m := &s.merged
		m.Reset(kk)
		for i := 0; i < s.job.nparts; i++ {
			pt := &s.parts[i]
			if j.budget > 0 {
				if pt = s.budgetedPart(i); pt == nil {
					continue // left running or not begun by the deadline, and not backed up
				}
			}
			for _, e := range pt.top[q].Entries() {
				m.Push(e)
			}
		}
		out := dst[q*k : q*k+kk]
		for i, e := range m.Sorted() {
			out[i] = e.Result()
		}
		counts[q] = m.Len()
	}
}

// runBudgeted runs s.job on its participants until its deadline and
// counts what they visited. Parts no worker began by the deadline did not
// run; if the pool is busy the caller scans everything as one part.
func (x *Index) runBudgeted(s *Searcher, p *pool.Pool) {
	j := &s.job
	if len(s.backups) < j.nparts-1 {
		s.backups = make([]part, j.nparts-1)
	}
	for i := range j.nparts {
		s.parts[i].ran, s.parts[i].left, s.parts[i].done = false, false, 0
		if i < j.nparts-1 {
			s.backups[i].ran, s.backups[i].done = false, 0
		}
	}
	if j.nparts == 1 || !p.RunBy(j, j.nparts, j.start, j.budget) {
		j.nparts = 1
		j.RunPart(0)
	}
	s.done = 0
	for i := range j.nparts {
		if pt := s.budgetedPart(i); pt != nil {
			s.done += pt.done
		}
	}
}

// budgetedPart is what a budgeted search merges for participant i: its
// own part if it ran and was not left running, else the caller's backup
// of its share if one ran, else nothing.
func (s *Searcher) budgetedPart(i int) *part {
	// left first: a part left running is still the worker's to write.
	if pt := &s.parts[i]; !pt.left && pt.ran {
		return pt
	}
	if i < s.job.nparts-1 && s.backups[i].ran {
		return &s.backups[i]
	}
	return nil
}

// Backup runs worker participant i's share again on the caller, into
// s.backups[i], until it is whole (true), the worker ends it, or the
// deadline (pool.Backer).
func (j *job) Backup(i int, w pool.Watch) bool {
	pt := &j.s.backups[i]
	j.prepare(pt)
	pt.ran = true
	lo, hi := j.share(i)
	return j.runBlocks(pt, i, lo, hi, w)
}

// Leave lets participant i run on past the deadline, held by the
// Searcher's Holder, if it has one (pool.Leaver).
func (j *job) Leave(i int) bool {
	s := j.s
	if s.holder == nil || !s.holder.Hold() {
		return false
	}
	s.holds.Add(2)
	s.parts[i].left = true
	s.left++
	return true
}

// Left ends participant i, left running by the caller (pool.Leaver).
// Past its drop of holds, s may be another search's.
func (j *job) Left(_ int, panicked any) {
	s := j.s
	h := s.holder
	last := s.holds.Add(-2) == 0
	if last {
		s.dropJob()
	}
	h.Left(panicked, last)
}

// RunPart runs participant i's share: a range of records, or of the
// candidates.
func (j *job) RunPart(i int) {
	pt := &j.s.parts[i]
	j.prepare(pt)
	pt.ran = true
	if len(j.x.ids) == 0 {
		return
	}
	lo, hi := j.share(i)
	if j.budget > 0 {
		j.runBlocks(pt, i, lo, hi, pool.Watch{})
		return
	}
	switch j.plan {
	case planAll:
		j.scanAll(pt, lo, hi)
	case planScan:
		j.scanFiltered(pt, lo, hi)
	case planIDs:
		j.scoreIDs(pt, match.Shard(j.cands, i, j.nparts))
	case planOwner:
		j.scoreSlots(pt, j.owned[len(j.owned)*i/j.nparts:len(j.owned)*(i+1)/j.nparts])
	}
}

// prepare empties pt's top-k lists and sizes its scratch for the job.
func (j *job) prepare(pt *part) {
	x := j.x
	kk := min(j.k, len(x.ids))
	for q := 0; q < j.nq; q++ {
		pt.top[q].Reset(kk)
	}
	if cap(pt.scores) < chunk*j.nq {
		pt.scores = make([]float32, chunk*MaxBatch)
	}
	if j.nq > 1 && cap(pt.scratch) < x.kern.QueryLen() {
		pt.scratch = make([]float32, x.kern.QueryLen())
	}
	if j.plan != planAll && cap(pt.sel) < 2*chunk {
		pt.sel = make([]uint32, 2*chunk) // a chunk pending and the next one
	}
}

// share is participant i's records [lo, hi).
func (j *job) share(i int) (lo, hi int) {
	n := len(j.x.ids)
	return n * i / j.nparts, n * (i + 1) / j.nparts
}

// runBlocks is a budgeted participant's share, records [lo, hi) or its
// shard of the candidates, in blocks of a chunk visited in interleaved
// passes. Before each block it reads the clock once and stops unless
// the block, at the time the blocks before it took, and stopMargin still
// fit in the budget, so it ends before the deadline, not one block past.
// A backup (w from the pool) also stops once the worker it stands in for
// has ended the share. It reports whether it visited the whole share.
func (j *job) runBlocks(pt *part, i, lo, hi int, w pool.Watch) bool {
	var cands []uint64
	var owned []uint32
	switch j.plan {
	case planIDs:
		cands = match.Shard(j.cands, i, j.nparts)
		lo, hi = 0, len(cands)
	case planOwner:
		owned = j.owned[len(j.owned)*i/j.nparts : len(j.owned)*(i+1)/j.nparts]
		lo, hi = 0, len(owned)
	}
	// The guess carried over counts for at most a quarter of the budget,
	// so one left too high (blocks the OS interrupted) cannot stop every
	// participant before its first block and so never be measured again.
	cost := &j.x.blockCost[j.plan]
	est := min(time.Duration(cost.Load()), j.budget/4)
	nb := (hi - lo + chunk - 1) / chunk
	stride := min(passes, nb)
	var began time.Duration // when the block before began, since j.start
	ran := 0
	for pass := 0; pass < stride; pass++ {
		for b := pass; b < nb; b += stride {
			now := time.Since(j.start)
			switch {
			case ran == 1:
				est = firstBlockEstimate(est, now-began)
			case ran > 1:
				est = nextBlockEstimate(est, now-began)
			}
			if now+est+stopMargin >= j.budget || w.Stop() {
				if ran > 0 {
					cost.Store(int64(est))
				}
				return false
			}
			began = now
			if TestBlockHook != nil {
				TestBlockHook(j.hookParticipant(pt, i))
			}
			blo := lo + b*chunk
			bhi := min(blo+chunk, hi)
			switch j.plan {
			case planAll:
				j.scanAll(pt, blo, bhi)
			case planScan:
				j.scanFiltered(pt, blo, bhi)
			case planIDs:
				j.scoreIDs(pt, cands[blo:bhi])
			case planOwner:
				j.scoreSlots(pt, owned[blo:bhi])
			}
			pt.done += bhi - blo
			ran++
		}
	}
	if ran > 1 {
		cost.Store(int64(est))
	}
	return true
}

// TestBlockHook, when a test sets it, runs before each block a budgeted
// participant scans, with the participant's number (nparts+i for the
// caller's backup of participant i): a test holds a worker there to play
// one the OS has descheduled mid-share. Nil outside tests.
var TestBlockHook func(participant int)

// hookParticipant is the number TestBlockHook gets for pt's block of
// participant i's share.
func (j *job) hookParticipant(pt *part, i int) int {
	if pt != &j.s.parts[i] {
		return j.nparts + i
	}
	return i
}

// stopMargin is the time a budgeted search keeps for what follows its
// last block: waiting for the other participants, the merge, the result.
const stopMargin = 3 * time.Microsecond

// firstBlockEstimate is a participant's estimate after its first block:
// the time that block took replaces the guess it began with, except that
// a block the OS interrupted counts as at most twice the guess.
func firstBlockEstimate(guess, took time.Duration) time.Duration {
	if guess <= 0 {
		return took
	}
	return min(took, 2*guess)
}

// nextBlockEstimate folds the time a later block took into est: a quarter
// of the weight, and a block that took more than twice est (interrupted)
// as twice it, so one preemption does not end a scan early.
func nextBlockEstimate(est, took time.Duration) time.Duration {
	if est <= 0 {
		return took
	}
	return (3*est + min(took, 2*est)) / 4
}

// scanAll offers every record in [lo, hi).
func (j *job) scanAll(pt *part, lo, hi int) {
	x := j.x
	if j.rank != nil {
		j.scanRanked(pt, lo, hi, nil)
		return
	}
	for base := lo; base < hi; base += chunk {
		m := min(chunk, hi-base)
		scores := j.scoreChunk(pt, base, m)
		ids := x.ids[base : base+m]
		for q := 0; q < j.nq; q++ {
			collect(&pt.top[q], scores[q*m:(q+1)*m], ids, base)
		}
	}
}

// scanFiltered offers the records in [lo, hi) that pass j.f, chunk by
// chunk: a chunk without a match is not read, a sparse one is gathered, a
// dense one scored whole.
func (j *job) scanFiltered(pt *part, lo, hi int) {
	x, f := j.x, j.f
	if !f.TestsAttrs() && j.rank != nil {
		j.scanRanked(pt, lo, hi, f)
		return
	}
	if !f.TestsAttrs() {
		for base := lo; base < hi; base += chunk {
			m := min(chunk, hi-base)
			scores := j.scoreChunk(pt, base, m)
			ids := x.ids[base : base+m]
			for q := 0; q < j.nq; q++ {
				collectIDs(&pt.top[q], scores[q*m:(q+1)*m], ids, base, f)
			}
		}
		return
	}
	// Sparse chunks' matches wait in pending until a chunk's worth is
	// gathered in one call: the gather's prefetch then runs ahead of more
	// records than one chunk holds.
	pending := 0
	for base := lo; base < hi; base += chunk {
		m := min(chunk, hi-base)
		sel := x.selectAttrs(pt.sel[pending:pending+m], base, f)
		if len(sel)*100 > m*densePercent {
			scores := j.scoreChunk(pt, base, m)
			for q := 0; q < j.nq; q++ {
				if j.rank != nil {
					offerDenseRanked(&pt.top[q], scores[q*m:(q+1)*m], sel, base, x, f, j.rank)
				} else {
					offerDense(&pt.top[q], scores[q*m:(q+1)*m], sel, base, x.ids, f)
				}
			}
			continue
		}
		if pending += len(sel); pending >= chunk {
			j.gather(pt, pt.sel[:chunk])
			pending = copy(pt.sel, pt.sel[chunk:pending])
		}
	}
	j.gather(pt, pt.sel[:pending])
}

// scoreIDs offers the candidates that are stored and pass j.f, a chunk at
// a time. Each step is its own loop over the chunk (look every slot up,
// then test the attributes, then gather) so that the cache misses of one
// candidate overlap those of the next instead of waiting on them.
func (j *job) scoreIDs(pt *part, cands []uint64) {
	x, f := j.x, j.f
	testAttrs := f.TestsAttrs()
	for len(cands) > 0 {
		n := min(len(cands), chunk)
		pt.touched += x.slots.Touch(cands[:n])
		sel := pt.sel[:0]
		for _, id := range cands[:n] {
			if s, ok := x.slots.Get(id); ok {
				sel = append(sel, uint32(s))
			}
		}
		if testAttrs {
			sel = x.keepAttrs(sel, f)
		}
		j.gather(pt, sel)
		cands = cands[n:]
	}
}

// scoreSlots offers the records at slots owned that pass j.f, a chunk at
// a time.
func (j *job) scoreSlots(pt *part, owned []uint32) {
	x, f := j.x, j.f
	testAttrs := f.TestsAttrs()
	for len(owned) > 0 {
		n := min(len(owned), chunk)
		sel := owned[:n]
		if testAttrs {
			sel = x.keepAttrs(append(pt.sel[:0], sel...), f)
		}
		j.gather(pt, sel)
		owned = owned[n:]
	}
}

// keepAttrs keeps, in order and in place, the slots of sel whose
// attributes pass f.
func (x *Index) keepAttrs(sel []uint32, f *match.Filter) []uint32 {
	t := f.AttrTest()
	n := 0
	for _, s := range sel {
		sel[n] = s
		n += int(t.Pass(x.tags[s], x.owners[s]))
	}
	return sel[:n]
}

// scoreChunk scores the m records from slot base against every query and
// adjusts them: query q's scores are the result's [q*m, (q+1)*m).
func (j *job) scoreChunk(pt *part, base, m int) []float32 {
	x := j.x
	ql := x.kern.QueryLen()
	recs := x.slab[base*x.stride : (base+m)*x.stride]
	scores := pt.scores[:m*j.nq]
	if j.nq == 1 {
		x.kern.Scan(j.s.qps[:ql], recs, scores)
	} else {
		x.kern.ScanBatch(j.s.qps, j.nq, recs, pt.scratch[:ql], scores)
	}
	for q := 0; q < j.nq; q++ {
		x.adjust.Chunk(scores[q*m:(q+1)*m], x.bias, x.scale, base)
	}
	return scores
}

// gather scores the records at slots sel against every query (one gather
// each: the records are few and scattered) and offers those that pass
// j.f's ids.
func (j *job) gather(pt *part, sel []uint32) {
	if len(sel) == 0 {
		return
	}
	x := j.x
	ql, m := x.kern.QueryLen(), len(sel)
	recs := x.slab[:len(x.ids)*x.stride]
	for q := 0; q < j.nq; q++ {
		scores := pt.scores[q*m : (q+1)*m]
		x.kern.ScanIDs(j.s.qps[q*ql:(q+1)*ql], recs, x.stride, sel, scores)
		x.adjust.Slots(scores, x.bias, x.scale, sel)
		if j.rank != nil {
			offerGatheredRanked(&pt.top[q], scores, sel, x, j.f, j.rank)
		} else {
			offerGathered(&pt.top[q], scores, sel, x.ids, j.f)
		}
	}
}

// selectAttrs writes into sel (one word per record of the chunk) the slots
// from base whose attributes pass f and returns them.
func (x *Index) selectAttrs(sel []uint32, base int, f *match.Filter) []uint32 {
	t := f.AttrTest()
	return t.Select(sel, base, x.tags[base:base+len(sel)], x.owners[base:base+len(sel)])
}

// collect offers one query's scores of a chunk to t. Past the first chunks
// almost no score reaches the threshold, so a vector compare skips to the
// next candidate instead of branching on every score. base is the slot of
// the chunk's first record.
func collect(t *score.TopK, scores []float32, ids []uint64, base int) {
	for i := kernel.FirstAtLeast(scores, t.Threshold()); i < len(scores); {
		t.Push(score.Entry{Score: score.Ranked(scores[i]), Slot: uint32(base + i), ID: ids[i]})
		i++
		i += kernel.FirstAtLeast(scores[i:], t.Threshold())
	}
}

// collectIDs is collect for a filter on ids alone: an id is tested only
// when its score would enter t, which is rare past the first chunks.
func collectIDs(t *score.TopK, scores []float32, ids []uint64, base int, f *match.Filter) {
	for i := kernel.FirstAtLeast(scores, t.Threshold()); i < len(scores); {
		offer(t, score.Entry{Score: score.Ranked(scores[i]), Slot: uint32(base + i), ID: ids[i]}, f)
		i++
		i += kernel.FirstAtLeast(scores[i:], t.Threshold())
	}
}

// offerDense offers the records at slots sel of a chunk scored whole from
// slot base.
func offerDense(t *score.TopK, scores []float32, sel []uint32, base int, ids []uint64, f *match.Filter) {
	for _, s := range sel {
		// Not "below": NaN passes, as in collect, and ranks last.
		if sc := scores[int(s)-base]; !(sc < t.Threshold()) {
			offer(t, score.Entry{Score: score.Ranked(sc), Slot: s, ID: ids[s]}, f)
		}
	}
}

// offerGathered offers the records at slots sel, scores[i] being sel[i]'s.
func offerGathered(t *score.TopK, scores []float32, sel []uint32, ids []uint64, f *match.Filter) {
	for i, s := range sel {
		if sc := scores[i]; !(sc < t.Threshold()) {
			offer(t, score.Entry{Score: score.Ranked(sc), Slot: s, ID: ids[s]}, f)
		}
	}
}

// offer pushes e into t if it enters and its id passes f.
func offer(t *score.TopK, e score.Entry, f *match.Filter) {
	if t.Admits(e) && f.IDs(e.ID) {
		t.Push(e)
	}
}
