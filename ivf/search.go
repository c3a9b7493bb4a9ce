package ivf

import (
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// A search probes, per query, the nprobe partitions whose centroids score
// best (ties to the lower partition). Each probed partition is a task; the
// participants (p's workers and the caller) take tasks in order from an
// atomic counter. A task keeps one top-k per query that probes it, and the
// caller merges them in task order, so which participant ran a task never
// shows in the results.

// task is one partition to scan for the queries pairs[first:first+n];
// work is its slots (candidates for SearchIDs), done says it ran (a
// budgeted search may stop before).
type task struct {
	part     int32
	first, n int32
	work     int
	done     bool
}

// pair is one query's top-k within one task. A ranked search's first
// phase also keeps the best similarities (sims); its second phase offers
// only records that score at least floor, and gathers only those whose
// ceiling with similarity simCap reaches floor (rank.go).
type pair struct {
	q      int
	top    score.TopK
	sims   score.TopK
	floor  float32
	simCap float32
}

// part is one participant's scratch, padded so two participants never
// write the same cache line.
type part struct {
	scores  []float32 // chunk × MaxBatch
	qps     []float32 // a task's queries, contiguous, for ScanBatch
	scratch []float32 // batch decode buffer
	sel     []uint32  // slots to gather
	_       [64]byte
}

// Searcher is the reusable scratch of one query (or batch) in flight.
// It serves one search at a time; keep one per goroutine or in a free list.
type Searcher struct {
	raw     []float32 // nq × dim engine-prepared queries (QueryBuffer)
	qps     []float32 // nq × the records' kernel query length
	qcs     []float32 // nq × the centroids' kernel query length
	tmp     []float32
	cscores []float32
	cbatch  []float32 // centroid batch decode buffer
	probe   score.TopK
	probes  [MaxBatch][]int32
	taskOf  []int32 // partition → task, valid where stamp == epoch
	stamp   []uint32
	epoch   uint32
	tasks   []task
	pairs   []pair
	parts   []part
	merged  [MaxBatch]score.TopK
	job     job

	// Ranking (nil: by similarity) and the second phase's scratch.
	rank     *rank.Scorer
	simMerge [MaxBatch]score.TopK
	rest     [MaxBatch][]int32 // each query's unprobed partitions to read
	bars     [MaxBatch]bar     // each query's best task threshold so far (rank.go)
	floors   [MaxBatch]float32
	simCaps  [MaxBatch]float32
	probed   []bool
	// The next searches' budget (0: none) and what the last one did.
	start      time.Time
	budget     time.Duration
	done, work int
}

// job is the pool task of one search; it lives in the Searcher so Run
// allocates nothing. f and cands are the caller's and are dropped when the
// search returns.
type job struct {
	x      *Index
	s      *Searcher
	k      int
	ntasks int
	plan   plan
	f      *match.Filter
	cands  []uint64
	rank   *rank.Scorer
	sims   bool // the first phase of a ranked search that has a second
	rest   bool // the second phase (rank.go)
	budget bool // tasks past the first stop at the Searcher's deadline
	_      [64]byte
	next   atomic.Int64
	_      [56]byte
}

type plan uint8

const (
	planAll  plan = iota // every live record of the probed partitions
	planScan             // those that pass the filter
	planIDs              // the candidates that pass the filter, wherever they are
)

// densePercent: past this share of a chunk's records matching, the chunk
// is scored whole rather than gathered (flat's measured break-even).
const densePercent = 80

// maxIDTasks bounds the tasks a candidate list is cut into.
const maxIDTasks = 64

// NewSearcher returns scratch for up to participants participants.
func NewSearcher(participants int) *Searcher {
	return &Searcher{parts: make([]part, max(participants, 1))}
}

// QueryBuffer returns room for nq queries of the index's dimension in the
// engine's query form (unit length for cosine, doubled for L2: the form
// whose dot product with a stored vector the adjustment turns into its
// score). Fill it before Search; Search lays the queries out.
func (s *Searcher) QueryBuffer(x *Index, nq int) []float32 {
	n := nq * x.dim
	if cap(s.raw) < n {
		s.raw = make([]float32, MaxBatch*x.dim)
	}
	s.raw = s.raw[:n]
	return s.raw
}

// Search finds, for the nq queries in s.QueryBuffer, the k best records
// of the nprobe partitions nearest each query, and writes query q's
// results, best first, to dst[q*k : q*k+counts[q]]. The results are the
// same, bit for bit and in order, whatever p's worker count and for batch
// and single queries; with nprobe ≥ NList they are an exact scan's.
func (x *Index) Search(s *Searcher, p *pool.Pool, nq, k, nprobe int, dst []score.Result, counts []int) {
	x.run(s, p, nq, k, nprobe, planAll, nil, nil, dst, counts)
}

// SearchFiltered is Search over the records that pass f: owner and tags
// are tested before a record is scored, and an allowlist smaller than a
// partition is cut to that partition (its ids looked up) by the
// participant that scans it; otherwise ids are tested only when a score
// would enter a top-k.
func (x *Index) SearchFiltered(s *Searcher, p *pool.Pool, nq, k, nprobe int, f *match.Filter, dst []score.Result, counts []int) {
	pl := planScan
	if f == nil || !f.Active() {
		pl = planAll
	}
	x.run(s, p, nq, k, nprobe, pl, f, nil, dst, counts)
}

// SearchIDs scores only the candidate ids (distinct, any order) that are
// stored and pass f, wherever they are: exact, whatever the partitions.
func (x *Index) SearchIDs(s *Searcher, p *pool.Pool, nq, k int, cands []uint64, f *match.Filter, dst []score.Result, counts []int) {
	if f == nil {
		f = &matchAll
	}
	x.run(s, p, nq, k, 0, planIDs, f, cands, dst, counts)
}

var matchAll match.Filter

func checkArgs(nq, k int, dst []score.Result, counts []int) {
	if nq < 1 || nq > MaxBatch || k < 1 || k > MaxK || len(dst) < nq*k || len(counts) < nq {
		panic("ivf: Search arguments out of range")
	}
}

// run plans the tasks, runs them on the participants and merges; a
// ranked search may then read a second set of tasks (rank.go).
func (x *Index) run(s *Searcher, p *pool.Pool, nq, k, nprobe int, pl plan, f *match.Filter, cands []uint64, dst []score.Result, counts []int) {
	checkArgs(nq, k, dst, counts)
	if len(s.raw) < nq*x.dim {
		panic("ivf: Search before QueryBuffer")
	}
	s.done, s.work = 0, 0
	if x.cents == nil || x.live == 0 {
		for q := 0; q < nq; q++ {
			counts[q] = 0
		}
		return
	}
	if f == nil {
		f = &matchAll
	}
	x.layout(s, nq)
	var work int
	if pl == planIDs {
		work = s.planIDs(nq, len(cands)) * x.stride
	} else {
		nprobe = min(max(1, nprobe), len(x.parts))
		work = x.planProbes(s, nq, nprobe)
	}
	j := &s.job
	j.x, j.s, j.k, j.plan, j.f, j.cands = x, s, k, pl, f, cands
	j.rank, j.rest, j.budget = s.rank, false, s.budget > 0
	j.sims = s.rank != nil && pl != planIDs && nprobe < len(x.parts)
	for q := 0; q < nq; q++ {
		s.bars[q].reset()
	}
	complete := x.runTasks(s, p, work)
	for q := 0; q < nq; q++ {
		s.merged[q].Reset(k)
		if j.sims {
			s.simMerge[q].Reset(k)
		}
	}
	x.merge(s)
	if j.sims && complete {
		if work := x.planRest(s, nq); len(s.tasks) > 0 {
			j.sims, j.rest = false, true
			x.runTasks(s, p, work)
			x.merge(s)
		}
	}
	j.f, j.cands, j.rank = nil, nil, nil // not retained
	for q := 0; q < nq; q++ {
		out := dst[q*k : q*k+k]
		sorted := s.merged[q].Sorted()
		for i, e := range sorted {
			out[i] = e.Result()
		}
		counts[q] = len(sorted)
	}
}

// runTasks runs s.tasks on the participants, or until the Searcher's
// deadline, and reports whether every task ran.
func (x *Index) runTasks(s *Searcher, p *pool.Pool, work int) bool {
	j := &s.job
	j.ntasks = len(s.tasks)
	j.next.Store(0)
	for i := range s.tasks {
		s.tasks[i].done = false
		s.work += s.tasks[i].work
	}
	nparts := 1
	if p != nil {
		nparts = min(p.Workers()+1, len(s.parts), len(s.tasks), max(1, work/minTaskBytes))
	}
	switch {
	case nparts <= 1:
		j.RunPart(0)
	case j.budget:
		// Parts no worker began by the deadline never run; begun ones
		// stop at their next task. A busy pool leaves it to the caller.
		if !p.RunBy(j, nparts, s.start, s.budget) {
			j.RunPart(0)
		}
	default:
		p.Run(j, nparts)
	}
	complete := true
	for i := range s.tasks {
		if s.tasks[i].done {
			s.done += s.tasks[i].work
		} else {
			complete = false
		}
	}
	return complete
}

// merge pushes the top-k of every task that ran into the queries' merged
// top-k (and the first phase's similarities into simMerge), in task order.
func (x *Index) merge(s *Searcher) {
	for i := range s.tasks {
		t := &s.tasks[i]
		if !t.done {
			continue
		}
		for j := t.first; j < t.first+t.n; j++ {
			pr := &s.pairs[j]
			m := &s.merged[pr.q]
			for _, e := range pr.top.Entries() {
				m.Push(e)
			}
			if s.job.sims {
				for _, e := range pr.sims.Entries() {
					s.simMerge[pr.q].Push(e)
				}
			}
		}
	}
}

// layout lays each query out for the records' and the centroids' kernels.
func (x *Index) layout(s *Searcher, nq int) {
	ql, cl := x.kern.QueryLen(), x.cents.queryLen()
	s.qps = grow(s.qps, MaxBatch*ql)
	s.qcs = grow(s.qcs, MaxBatch*cl)
	s.tmp = grow(s.tmp, x.dim)
	for q := 0; q < nq; q++ {
		v := s.raw[q*x.dim : (q+1)*x.dim]
		x.kern.PrepareQuery(s.qps[q*ql:(q+1)*ql], v)
		x.cents.prepare(s.qcs[q*cl:(q+1)*cl], v, true, s.tmp)
	}
}

// grow returns s with length n, reallocated only when short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// planProbes picks each query's partitions and makes the tasks: for one
// query, its partitions best first; for a batch, every partition some
// query probes, ascending, with the queries (ascending) that probe it. It
// returns the bytes of records the tasks read.
func (x *Index) planProbes(s *Searcher, nq, nprobe int) int {
	nl := len(x.parts)
	nprobe = min(nprobe, nl)
	cl := x.cents.queryLen()
	s.cscores = grow(s.cscores, MaxBatch*nl)
	var sc []float32
	if nq == 1 {
		sc = x.cents.scores(s.qcs[:cl], s.cscores)
	} else {
		s.cbatch = grow(s.cbatch, cl)
		sc = x.cents.scoresBatch(s.qcs[:nq*cl], nq, s.cbatch, s.cscores)
	}
	for q := 0; q < nq; q++ {
		s.probe.Reset(nprobe)
		for i, v := range sc[q*nl : (q+1)*nl] {
			e := score.Entry{Score: score.Ranked(v), Slot: uint32(i), ID: uint64(i)}
			if s.probe.Admits(e) {
				s.probe.Push(e)
			}
		}
		s.probes[q] = grow(s.probes[q], nprobe)
		for i, e := range s.probe.Sorted() {
			s.probes[q][i] = int32(e.Slot)
		}
	}
	return x.makeTasks(s, nq, &s.probes)
}

// makeTasks makes the tasks of the queries' partition lists: for one
// query, its list in order; for a batch, every partition some query lists,
// ascending, with the queries (ascending) that list it. It returns the
// bytes of records the tasks read.
func (x *Index) makeTasks(s *Searcher, nq int, lists *[MaxBatch][]int32) int {
	nl := len(x.parts)
	npairs := 0
	for q := 0; q < nq; q++ {
		npairs += len(lists[q])
	}
	s.tasks = s.tasks[:0]
	s.pairs = growPairs(s.pairs, npairs)
	work := 0
	if nq == 1 {
		for i, pi := range lists[0] {
			n := x.parts[pi].slots()
			s.tasks = append(s.tasks, task{part: pi, first: int32(i), n: 1, work: n})
			s.pairs[i].q = 0
			work += n
		}
		return work * x.stride
	}
	if len(s.stamp) < nl {
		s.stamp = make([]uint32, 2*nl)
		s.taskOf = make([]int32, 2*nl)
		s.epoch = 0
	}
	if s.epoch++; s.epoch == 0 { // wrapped: old stamps could match
		clear(s.stamp)
		s.epoch = 1
	}
	for q := 0; q < nq; q++ {
		for _, pi := range lists[q] {
			if s.stamp[pi] != s.epoch {
				s.stamp[pi] = s.epoch
				n := x.parts[pi].slots()
				s.tasks = append(s.tasks, task{part: pi, work: n})
				work += n
			}
		}
	}
	slices.SortFunc(s.tasks, func(a, b task) int { return int(a.part - b.part) })
	for i := range s.tasks {
		s.taskOf[s.tasks[i].part] = int32(i)
	}
	// Count each task's queries, then place them.
	for q := 0; q < nq; q++ {
		for _, pi := range lists[q] {
			s.tasks[s.taskOf[pi]].n++
		}
	}
	first := int32(0)
	for i := range s.tasks {
		s.tasks[i].first = first
		first += s.tasks[i].n
		s.tasks[i].n = 0
	}
	for q := 0; q < nq; q++ {
		for _, pi := range lists[q] {
			t := &s.tasks[s.taskOf[pi]]
			s.pairs[t.first+t.n].q = q
			t.n++
		}
	}
	return work * x.stride
}

// planIDs cuts the candidates into tasks of every query and returns their
// count.
func (s *Searcher) planIDs(nq, ncands int) int {
	nt := min(max(1, (ncands+chunk-1)/chunk), maxIDTasks)
	s.tasks = s.tasks[:0]
	s.pairs = growPairs(s.pairs, nt*nq)
	for t := 0; t < nt; t++ {
		w := ncands*(t+1)/nt - ncands*t/nt // match.Shard's share
		s.tasks = append(s.tasks, task{part: int32(t), first: int32(t * nq), n: int32(nq), work: w})
		for q := 0; q < nq; q++ {
			s.pairs[t*nq+q].q = q
		}
	}
	return ncands
}

func growPairs(p []pair, n int) []pair {
	if cap(p) < n {
		np := make([]pair, n)
		copy(np, p[:cap(p)])
		return np
	}
	return p[:n]
}

// RunPart takes tasks in order until none is left, or, in a budgeted
// search, until the deadline (the first task of a search always runs, so
// a result comes back).
func (j *job) RunPart(i int) {
	pt := &j.s.parts[i]
	x := j.x
	ql := x.kern.QueryLen()
	pt.scores = grow(pt.scores, chunk*MaxBatch)
	pt.qps = grow(pt.qps, MaxBatch*ql)
	pt.scratch = grow(pt.scratch, ql)
	pt.sel = grow(pt.sel, 2*chunk)
	for {
		if j.budget && (j.rest || j.next.Load() > 0) && time.Since(j.s.start) >= j.s.budget {
			return
		}
		t := int(j.next.Add(1) - 1)
		if t >= j.ntasks {
			return
		}
		j.runTask(pt, &j.s.tasks[t])
		j.s.tasks[t].done = true
	}
}

// runTask scans one task.
func (j *job) runTask(pt *part, t *task) {
	pairs := j.s.pairs[t.first : t.first+t.n]
	for i := range pairs {
		pairs[i].top.Reset(j.k)
		pairs[i].floor = float32(math.Inf(-1)) // the second phase sets its own
		if j.sims {
			pairs[i].sims.Reset(j.k)
		}
	}
	if j.plan == planIDs {
		j.scoreIDs(pt, pairs, match.Shard(j.cands, int(t.part), j.ntasks))
		return
	}
	x := j.x
	p := x.parts[t.part]
	if p.slots() == 0 {
		return
	}
	// The task's queries, contiguous for ScanBatch.
	ql := x.kern.QueryLen()
	qps := j.s.qps[pairs[0].q*ql : (pairs[0].q+1)*ql]
	if len(pairs) > 1 {
		for i := range pairs {
			copy(pt.qps[i*ql:(i+1)*ql], j.s.qps[pairs[i].q*ql:])
		}
		qps = pt.qps[:len(pairs)*ql]
	}
	f := j.f
	switch {
	case j.rest:
		j.scanRest(pt, p, pairs)
	case j.plan == planAll && j.rank == nil:
		j.scanAll(pt, p, pairs, qps)
	case f.Allow.On && f.Allow.Len() < p.liveLen():
		j.scanAllowed(pt, p, int(t.part), pairs, qps)
	case f.TestsAttrs():
		j.scanAttrs(pt, p, pairs, qps)
	case j.rank != nil:
		j.scanRanked(pt, p, pairs, qps)
	default:
		j.scanIDs(pt, p, pairs, qps)
	}
}

// scoreChunk scores the m records of p from slot base against the task's
// queries and adjusts them; query i's scores are [i*m, (i+1)*m).
func (j *job) scoreChunk(pt *part, p *partition, nq int, qps []float32, base, m int) []float32 {
	x := j.x
	ql := x.kern.QueryLen()
	recs := p.slab[base*x.stride : (base+m)*x.stride]
	scores := pt.scores[:m*nq]
	if nq == 1 {
		x.kern.Scan(qps[:ql], recs, scores)
	} else {
		x.kern.ScanBatch(qps, nq, recs, pt.scratch[:ql], scores)
	}
	for q := 0; q < nq; q++ {
		x.adjust.Chunk(scores[q*m:(q+1)*m], p.bias, p.scale, base)
	}
	return scores
}

// scanAll offers every live record of p.
func (j *job) scanAll(pt *part, p *partition, pairs []pair, qps []float32) {
	n, nq := p.slots(), len(pairs)
	for base := 0; base < n; base += chunk {
		m := min(chunk, n-base)
		scores := j.scoreChunk(pt, p, nq, qps, base, m)
		ids := p.ids[base : base+m]
		for i := range pairs {
			if p.ndead == 0 {
				collect(&pairs[i].top, scores[i*m:(i+1)*m], ids, base)
			} else {
				collectLive(&pairs[i].top, scores[i*m:(i+1)*m], p, base, &matchAll)
			}
		}
	}
}

// scanIDs offers the live records of p whose ids pass j.f, testing ids
// only for scores that would enter.
func (j *job) scanIDs(pt *part, p *partition, pairs []pair, qps []float32) {
	n, nq := p.slots(), len(pairs)
	for base := 0; base < n; base += chunk {
		m := min(chunk, n-base)
		scores := j.scoreChunk(pt, p, nq, qps, base, m)
		for i := range pairs {
			collectLive(&pairs[i].top, scores[i*m:(i+1)*m], p, base, j.f)
		}
	}
}

// scanAttrs tests the attributes of p's records a chunk at a time and
// scores only the live matches: gathered when sparse (pending until a
// chunk's worth), the chunk whole when dense.
func (j *job) scanAttrs(pt *part, p *partition, pairs []pair, qps []float32) {
	n, nq, f := p.slots(), len(pairs), j.f
	pending := 0
	for base := 0; base < n; base += chunk {
		m := min(chunk, n-base)
		sel := selectAttrs(p, pt.sel[pending:pending+m], base, f)
		if len(sel)*100 > m*densePercent {
			scores := j.scoreChunk(pt, p, nq, qps, base, m)
			for i := range pairs {
				if j.rank != nil {
					j.offerRankedDense(&pairs[i], scores[i*m:(i+1)*m], sel, base, p)
				} else {
					offerDense(&pairs[i].top, scores[i*m:(i+1)*m], sel, base, p.ids, f)
				}
			}
			continue
		}
		if pending += len(sel); pending >= chunk {
			j.gather(pt, p, pairs, qps, pt.sel[:chunk])
			pending = copy(pt.sel, pt.sel[chunk:pending])
		}
	}
	j.gather(pt, p, pairs, qps, pt.sel[:pending])
}

// scanAllowed cuts the allowlist to partition pi: each allowed id is
// looked up, and the live ones stored in pi that pass the attribute tests
// are gathered.
func (j *job) scanAllowed(pt *part, p *partition, pi int, pairs []pair, qps []float32) {
	x, f := j.x, j.f
	testAttrs := f.TestsAttrs()
	sel := pt.sel[:0]
	for _, id := range f.Allow.IDs() {
		w, ok := x.slots.Get64(id)
		if !ok {
			continue
		}
		if int(w>>32) != pi {
			continue
		}
		s := int(uint32(w))
		if testAttrs && !f.Attrs(attrOf(p, s)) {
			continue
		}
		if sel = append(sel, uint32(s)); len(sel) == chunk {
			j.gather(pt, p, pairs, qps, sel)
			sel = sel[:0]
		}
	}
	j.gather(pt, p, pairs, qps, sel)
}

// scoreIDs scores the candidates that are stored and pass j.f, one
// gather per record (they lie in any partition).
func (j *job) scoreIDs(pt *part, pairs []pair, cands []uint64) {
	x, f := j.x, j.f
	testAttrs := f.TestsAttrs()
	ql := x.kern.QueryLen()
	one := pt.sel[:1]
	out := pt.scores[:1]
	for _, id := range cands {
		pi, s, ok := x.locate(id)
		if !ok {
			continue
		}
		p := x.parts[pi]
		if testAttrs && !f.Attrs(attrOf(p, s)) || !f.IDs(id) {
			continue
		}
		one[0] = uint32(s)
		recs := p.slab[:p.slots()*x.stride]
		for i := range pairs {
			q := pairs[i].q
			x.kern.ScanIDs(j.s.qps[q*ql:(q+1)*ql], recs, x.stride, one, out)
			x.adjust.Slots(out, p.bias, p.scale, one)
			t := &pairs[i].top
			sc := out[0]
			if j.rank != nil {
				sc = j.rank.Score(sc, p.time(int(s)), p.imp(int(s)))
			}
			e := score.Entry{Score: score.Ranked(sc), Slot: uint32(s), ID: id}
			if t.Admits(e) {
				t.Push(e)
			}
		}
	}
}

// gather scores p's records at slots sel against each query and offers
// those whose ids pass j.f.
func (j *job) gather(pt *part, p *partition, pairs []pair, qps []float32, sel []uint32) {
	if len(sel) == 0 {
		return
	}
	x := j.x
	ql, m := x.kern.QueryLen(), len(sel)
	recs := p.slab[:p.slots()*x.stride]
	for i := range pairs {
		scores := pt.scores[i*m : (i+1)*m]
		x.kern.ScanIDs(qps[i*ql:(i+1)*ql], recs, x.stride, sel, scores)
		x.adjust.Slots(scores, p.bias, p.scale, sel)
		if j.rank != nil {
			j.offerRankedGathered(&pairs[i], scores, sel, p)
		} else {
			offerGathered(&pairs[i].top, scores, sel, p.ids, j.f)
		}
	}
}

// selectAttrs writes into sel the live slots from base whose attributes
// pass f and returns them.
func selectAttrs(p *partition, sel []uint32, base int, f *match.Filter) []uint32 {
	t := f.AttrTest()
	sel = t.Select(sel, base, at(p.tags, zeroWords[:], base, len(sel)), at(p.owners, zeroWords[:], base, len(sel)))
	if p.ndead == 0 {
		return sel
	}
	n := 0
	for _, s := range sel {
		sel[n] = s
		if !p.isDead(int(s)) {
			n++
		}
	}
	return sel[:n]
}

// collect offers one query's scores of a chunk without tombstones; past
// the first chunks almost no score reaches the threshold, so a vector
// compare skips to the next candidate.
func collect(t *score.TopK, scores []float32, ids []uint64, base int) {
	for i := kernel.FirstAtLeast(scores, t.Threshold()); i < len(scores); {
		t.Push(score.Entry{Score: score.Ranked(scores[i]), Slot: uint32(base + i), ID: ids[i]})
		i++
		i += kernel.FirstAtLeast(scores[i:], t.Threshold())
	}
}

// collectLive is collect that skips tombstones and ids f refuses, testing
// them only for scores that would enter.
func collectLive(t *score.TopK, scores []float32, p *partition, base int, f *match.Filter) {
	for i := kernel.FirstAtLeast(scores, t.Threshold()); i < len(scores); {
		s := base + i
		if !p.isDead(s) {
			offer(t, score.Entry{Score: score.Ranked(scores[i]), Slot: uint32(s), ID: p.ids[s]}, f)
		}
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
