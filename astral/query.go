package astral

import (
	"slices"

	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/ivf"
)

// queryCtx is the scratch of one query (or batch) in flight.
type queryCtx struct {
	x      *Index // whose free list c returns to
	s      *flat.Searcher
	hs     *hnsw.Searcher
	gqs    []float32 // a graph's laid-out queries, MaxBatch of them
	q      []float32 // one query, normalized or scaled
	counts [MaxBatch]int
	qnorm  [MaxBatch]float32 // |q|^2 for L2
	// Reranking: the candidates, the query laid out for the rerank
	// kernel and its scratch; allocated on the first reranked query.
	cands  []Result
	rqs    [MaxBatch][]float32
	rslots []uint32
	rscore []float32
	// The call's filter, its id sets sorted into allow and deny, and the
	// exact scan's scratch for a graph; made on the first filtered query.
	f           match.Filter
	fDirect     match.Filter // f without the condition its direct plan's candidates meet
	allow, deny []uint64
	es          *hnsw.ExactSearcher
	is          *ivf.Searcher // an IVF index's, made with the context
	nprobe      int           // the call's IVF probes; 0: the index's
	// The call's ranking, when on (ranked).
	ranked bool
	scorer rank.Scorer
	rec    []byte // a graph record Vector decodes, copied out of the graph
	// The query's frame budget (d 0: none) and what the search covered.
	budget   frameBudget
	covered  float64
	complete bool
}

func (x *Index) getCtx() *queryCtx {
	x.ctxMu.Lock()
	if n := len(x.ctxs); n > 0 {
		c := x.ctxs[n-1]
		x.ctxs = x.ctxs[:n-1]
		x.ctxMu.Unlock()
		return c
	}
	x.ctxMu.Unlock()
	c := &queryCtx{x: x, s: flat.NewSearcher(x.rt.Threads() + 1), q: make([]float32, x.cfg.Dim)}
	c.s.SetHolder(c)
	if x.cfg.Kind == KindIVF || x.cfg.Kind == KindAuto { // an auto index may grow into IVF
		c.is = ivf.NewSearcher(x.rt.Threads() + 1)
	}
	return c
}

// putCtx returns c to the free list, or leaves that to the last
// participant its flat search left running (Hold).
func (x *Index) putCtx(c *queryCtx) {
	if !c.s.Release() {
		return
	}
	c.free()
}

// free puts c, unused, back on its index's free list.
func (c *queryCtx) free() {
	x := c.x
	c.budget = frameBudget{}
	x.ctxMu.Lock()
	x.ctxs = append(x.ctxs, c)
	x.ctxMu.Unlock()
}

func (c *queryCtx) exactSearcher(participants int) *hnsw.ExactSearcher {
	if c.es == nil {
		c.es = hnsw.NewExactSearcher(participants)
	}
	return c.es
}

func (c *queryCtx) graphSearcher() *hnsw.Searcher {
	if c.hs == nil {
		c.hs = hnsw.NewSearcher()
	}
	return c.hs
}

// checkK validates a query's k.
func checkK(k int) error {
	if k < 1 || k > MaxK {
		return errorf(ErrInvalidArgument, "k = %d: want 1 to %d", k, MaxK)
	}
	return nil
}

// query is QueryWith without the fault guard.
func (x *Index) query(dst []Result, q []float32, o *QueryOptions) ([]Result, Plan, error) {
	res, cov, err := x.queryWithin(dst, q, o, frameBudget{})
	return res, cov.Plan, err
}

// queryWithin is QueryWithin without the fault guard; b.d 0 is no budget.
func (x *Index) queryWithin(dst []Result, q []float32, o *QueryOptions, b frameBudget) ([]Result, Coverage, error) {
	k := o.K
	if err := x.checkOptions(o); err != nil {
		return dst[:0], Coverage{}, err
	}
	if len(q) != x.cfg.Dim {
		return dst[:0], Coverage{}, errorf(ErrDimension, "query has %d values, index dimension is %d", len(q), x.cfg.Dim)
	}
	if !checkFinite(q) {
		return dst[:0], Coverage{}, errorf(ErrNonFinite, "query holds NaN or Inf")
	}
	if err := x.checkMagnitude(q, "query"); err != nil {
		return dst[:0], Coverage{}, err
	}
	if cap(dst) < k {
		dst = make([]Result, k)
	}
	dst = dst[:k]
	c := x.getCtx()
	defer x.putCtx(c)
	c.setFilter(&o.Filter)
	c.setRank(&o.Rank)
	c.nprobe = o.NProbe
	c.budget, c.covered, c.complete = b, 1, true
	plan, err := x.search(c, dst, q, 1, k, o.Ef)
	if err != nil {
		return dst[:0], Coverage{}, err
	}
	return dst[:c.counts[0]], Coverage{Complete: c.complete, Covered: c.covered, Plan: plan}, nil
}

// queryBatch is QueryBatchWith without the fault guard.
func (x *Index) queryBatch(dst []Result, counts []int, queries []float32, o *QueryOptions) ([]Result, Plan, error) {
	dim, k := x.cfg.Dim, o.K
	if err := x.checkOptions(o); err != nil {
		return dst[:0], 0, err
	}
	if len(queries)%dim != 0 {
		return dst[:0], 0, errorf(ErrDimension, "%d values is not a whole number of queries of dimension %d", len(queries), dim)
	}
	nq := len(queries) / dim
	if len(counts) < nq {
		return dst[:0], 0, errorf(ErrInvalidArgument, "counts holds %d entries for %d queries", len(counts), nq)
	}
	if !checkFinite(queries) {
		return dst[:0], 0, errorf(ErrNonFinite, "queries hold NaN or Inf")
	}
	if err := x.checkMagnitude(queries, "query"); err != nil {
		return dst[:0], 0, err
	}
	if cap(dst) < nq*k {
		dst = make([]Result, nq*k)
	}
	dst = dst[:nq*k]
	c := x.getCtx()
	defer x.putCtx(c)
	c.setFilter(&o.Filter)
	c.setRank(&o.Rank)
	c.nprobe = o.NProbe
	var plan Plan
	for lo := 0; lo < nq; lo += MaxBatch {
		m := min(MaxBatch, nq-lo)
		var err error
		if plan, err = x.search(c, dst[lo*k:(lo+m)*k], queries[lo*dim:(lo+m)*dim], m, k, o.Ef); err != nil {
			return dst[:0], 0, err
		}
		copy(counts[lo:lo+m], c.counts[:m])
	}
	return dst, plan, nil
}

// checkOptions validates a query's k, beam and ranking.
func (x *Index) checkOptions(o *QueryOptions) error {
	if err := checkK(o.K); err != nil {
		return err
	}
	if o.Ef < 0 || o.Ef > hnsw.MaxEf {
		return errorf(ErrInvalidArgument, "ef %d: want 0 (the index's) to %d", o.Ef, hnsw.MaxEf)
	}
	if o.NProbe < 0 || o.NProbe > MaxNList {
		return errorf(ErrInvalidArgument, "nprobe %d: want 0 (the index's) to %d", o.NProbe, MaxNList)
	}
	return x.checkRank(&o.Rank)
}

// checkRank validates a ranking: weights finite and not negative, a decay
// in (0, 1] when recency counts, and a metric whose score grows with
// similarity.
func (x *Index) checkRank(r *Rank) error {
	for _, w := range [...]struct {
		name string
		v    float32
	}{{"relevance", r.Relevance}, {"recency", r.Recency}, {"importance", r.Importance}} {
		if !finite32(w.v) || w.v < 0 {
			return errorf(ErrInvalidArgument, "rank %s weight %v: want a finite value, 0 or more", w.name, w.v)
		}
	}
	if r.Recency != 0 && !(r.Decay > 0 && r.Decay <= 1) {
		return errorf(ErrInvalidArgument, "rank decay %v: want more than 0, at most 1", r.Decay)
	}
	if (r.Recency != 0 || r.Importance != 0) && x.cfg.Metric == L2 {
		return errorf(ErrInvalidArgument, "ranking needs a similarity that grows with closeness: cosine or dot, not l2")
	}
	return nil
}

// setRank readies c's ranking from r (checked).
func (c *queryCtx) setRank(r *Rank) {
	p := rank.Params{Relevance: r.Relevance, Recency: r.Recency, Importance: r.Importance, Decay: r.Decay, Now: r.Now}
	if c.ranked = p.On(); c.ranked {
		c.scorer = rank.NewScorer(&p)
	}
}

// setFilter makes c's filter f, its id sets sorted into c's scratch.
func (c *queryCtx) setFilter(f *Filter) {
	c.f = match.Filter{Owner: f.Owner, AllTags: f.AllTags, AnyTags: f.AnyTags, NoTags: f.NoTags}
	if f.Allow != nil {
		c.allow = c.f.Allow.Build(f.Allow, c.allow)
	}
	if len(f.Deny) > 0 {
		c.deny = c.f.Deny.Build(f.Deny, c.deny)
	}
}

// search answers m (at most MaxBatch) checked queries under c's filter:
// query j's results, best first, go to dst[j*k:] and their number to
// c.counts[j]. ef 0 is the index's beam.
func (x *Index) search(c *queryCtx, dst []Result, queries []float32, m, k, ef int) (Plan, error) {
	x.mu.RLock()
	if err := x.damaged(); err != nil {
		x.mu.RUnlock()
		return 0, err
	}
	kc, out := k, dst
	if x.rerank != nil {
		kc = x.candidates(k)
		out = c.candBuffer(m, kc)
	}
	if ef == 0 {
		ef = int(x.efSearch.Load())
	}
	ef = max(ef, kc)
	s := x.live
	qs := s.queryBuffer(c, m)
	dim, ql := x.cfg.Dim, s.queryLen()
	for j := 0; j < m; j++ {
		x.prepare(c, s, qs[j*ql:(j+1)*ql], j, queries[j*dim:(j+1)*dim])
	}
	var plan Plan
	if c.ranked {
		plan = x.searchRanked(c, s, qs, m, kc, ef, out)
	} else if c.f.Active() {
		var sp scopedPlan
		sp = x.plan(c, s, kc, ef)
		plan = sp.plan
		s.searchFiltered(c, c.workers(x.rt), qs, m, kc, sp, c.planFilter(&sp), out, c.counts[:m])
		if sp.holdsAttrs {
			x.attrs.mu.RUnlock()
		}
	} else {
		plan = s.plainPlan()
		s.search(c, c.workers(x.rt), qs, m, kc, ef, out, c.counts[:m])
	}
	x.plans[plan].Add(1)
	if x.rerank != nil {
		for j := 0; j < m; j++ {
			c.counts[j] = x.rescore(c, j, out[j*kc:j*kc+c.counts[j]], dst[j*k:(j+1)*k])
		}
	}
	x.mu.RUnlock()
	for j := 0; j < m; j++ {
		x.finish(c, j, dst[j*k:j*k+c.counts[j]])
	}
	return plan, nil
}

// prepare lays q out into dst (s.queryLen values) as the metric needs, and
// keeps what query j of the batch needs afterwards: |q|² for L2 and the
// layout for the rerank copy.
func (x *Index) prepare(c *queryCtx, s structure, dst []float32, j int, q []float32) {
	copy(c.q, q)
	switch x.cfg.Metric {
	case Cosine:
		normalize(c.q)
	case L2:
		// Score 2·q·x − |x|², higher is closer; |q|² − that is the distance.
		s := 0.0
		for i, f := range c.q {
			s += float64(f) * float64(f)
			c.q[i] = 2 * f
		}
		c.qnorm[j] = float32(s)
	}
	s.layQuery(dst, c.q)
	if x.rerank == nil {
		return
	}
	if c.rqs[j] == nil {
		c.rqs[j] = make([]float32, x.rkern.QueryLen())
	}
	x.rkern.PrepareQuery(c.rqs[j], c.q)
}

// candidates is how many results a query of k keeps before reranking.
func (x *Index) candidates(k int) int {
	if x.rerank == nil {
		return k
	}
	return min(k*x.cfg.RerankFactor, MaxK)
}

// candBuffer returns room for nq queries' candidates of kc each.
func (c *queryCtx) candBuffer(nq, kc int) []Result {
	if cap(c.cands) < nq*kc {
		c.cands = make([]Result, MaxBatch*MaxK)
		c.rslots, c.rscore = make([]uint32, MaxK), make([]float32, MaxK)
	}
	return c.cands[:nq*kc]
}

// rescore scores query j's candidates against the rerank copy and writes
// the k best, best first, to dst; it returns how many. A ranked query's
// candidates are ranked again with the finer similarity.
func (x *Index) rescore(c *queryCtx, j int, cands []Result, dst []Result) int {
	x.rerank.Rescore(c.rqs[j], cands, c.rslots, c.rscore)
	if c.ranked {
		for i := range cands {
			a, _ := x.live.attr(cands[i].ID) // held: mu is
			cands[i].Score = score.Ranked(c.scorer.Score(cands[i].Score, a.Time, a.Importance))
		}
		slices.SortFunc(cands, score.CompareResults)
	}
	return copy(dst, cands)
}

// finish turns L2 keys into distances, keeping the order by distance, then id.
func (x *Index) finish(c *queryCtx, j int, res []Result) {
	if x.cfg.Metric != L2 {
		return
	}
	for i := range res {
		res[i].Score = c.qnorm[j] - res[i].Score
	}
	// Rounding can make two keys one distance: re-break such ties by id.
	for i := 1; i < len(res); i++ {
		for m := i; m > 0 && res[m].Score == res[m-1].Score && res[m].ID < res[m-1].ID; m-- {
			res[m], res[m-1] = res[m-1], res[m]
		}
	}
}

// SetEfSearch sets how many candidates an HNSW search keeps (at least k is
// always used): higher finds more true neighbours, slower.
func (x *Index) SetEfSearch(ef int) error {
	if ef < 1 || ef > hnsw.MaxEf {
		return errorf(ErrInvalidArgument, "efSearch %d: want 1 to %d", ef, hnsw.MaxEf)
	}
	x.efSearch.Store(int32(ef))
	return nil
}

// searchRanked answers m queries of c (ranking on) over s, under c's
// filter when it is active, writing kc results each to out; hold mu
// shared. The plan is the filter's, or the structure's plain one.
func (x *Index) searchRanked(c *queryCtx, s structure, qs []float32, m, kc, ef int, out []Result) Plan {
	plan, sp := s.plainPlan(), scopedPlan{plan: s.plainPlan(), ef: ef}
	if c.f.Active() {
		sp = x.plan(c, s, kc, ef)
		plan = sp.plan
	}
	s.searchRanked(c, c.workers(x.rt), qs, m, kc, sp, c.planFilter(&sp), out, c.counts[:m])
	if sp.holdsAttrs {
		x.attrs.mu.RUnlock()
	}
	return plan
}

// planFilter is the filter sp's search tests: c's, but under the direct
// plan without the condition every candidate meets (the owner's posting,
// or the allowlist), since testing it again would cost a cache miss or a
// search each.
func (c *queryCtx) planFilter(sp *scopedPlan) *match.Filter {
	if sp.plan != PlanDirect {
		return &c.f
	}
	c.fDirect = c.f
	if sp.holdsAttrs {
		c.fDirect.Owner = 0
	} else {
		c.fDirect.Allow = match.IDSet{}
	}
	return &c.fDirect
}
