package astral

import (
	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/hnsw"
)

// queryCtx is the scratch of one query (or batch) in flight.
type queryCtx struct {
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
	return &queryCtx{s: flat.NewSearcher(x.rt.Threads() + 1), q: make([]float32, x.cfg.Dim)}
}

func (x *Index) putCtx(c *queryCtx) {
	x.ctxMu.Lock()
	x.ctxs = append(x.ctxs, c)
	x.ctxMu.Unlock()
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

// query is Query without the fault guard.
func (x *Index) query(dst []Result, q []float32, k int) ([]Result, error) {
	if err := checkK(k); err != nil {
		return dst[:0], err
	}
	if len(q) != x.cfg.Dim {
		return dst[:0], errorf(ErrDimension, "query has %d values, index dimension is %d", len(q), x.cfg.Dim)
	}
	if !checkFinite(q) {
		return dst[:0], errorf(ErrNonFinite, "query holds NaN or Inf")
	}
	if err := x.checkMagnitude(q, "query"); err != nil {
		return dst[:0], err
	}
	if cap(dst) < k {
		dst = make([]Result, k)
	}
	dst = dst[:k]
	c := x.getCtx()
	defer x.putCtx(c)
	if err := x.search(c, dst, q, 1, k); err != nil {
		return dst[:0], err
	}
	return dst[:c.counts[0]], nil
}

// queryBatch is QueryBatch without the fault guard.
func (x *Index) queryBatch(dst []Result, counts []int, queries []float32, k int) ([]Result, error) {
	dim := x.cfg.Dim
	if err := checkK(k); err != nil {
		return dst[:0], err
	}
	if len(queries)%dim != 0 {
		return dst[:0], errorf(ErrDimension, "%d values is not a whole number of queries of dimension %d", len(queries), dim)
	}
	nq := len(queries) / dim
	if len(counts) < nq {
		return dst[:0], errorf(ErrInvalidArgument, "counts holds %d entries for %d queries", len(counts), nq)
	}
	if !checkFinite(queries) {
		return dst[:0], errorf(ErrNonFinite, "queries hold NaN or Inf")
	}
	if err := x.checkMagnitude(queries, "query"); err != nil {
		return dst[:0], err
	}
	if cap(dst) < nq*k {
		dst = make([]Result, nq*k)
	}
	dst = dst[:nq*k]
	c := x.getCtx()
	defer x.putCtx(c)
	for lo := 0; lo < nq; lo += MaxBatch {
		m := min(MaxBatch, nq-lo)
		if err := x.search(c, dst[lo*k:(lo+m)*k], queries[lo*dim:(lo+m)*dim], m, k); err != nil {
			return dst[:0], err
		}
		copy(counts[lo:lo+m], c.counts[:m])
	}
	return dst, nil
}

// search answers m (at most MaxBatch) checked queries: query j's results,
// best first, go to dst[j*k:] and their number to c.counts[j].
func (x *Index) search(c *queryCtx, dst []Result, queries []float32, m, k int) error {
	x.mu.RLock()
	if err := x.damaged(); err != nil {
		x.mu.RUnlock()
		return err
	}
	kc, out := k, dst
	if x.rerank != nil {
		kc = x.candidates(k)
		out = c.candBuffer(m, kc)
	}
	s := x.live
	qs := s.queryBuffer(c, m)
	dim, ql := x.cfg.Dim, x.kern.QueryLen()
	for j := 0; j < m; j++ {
		x.prepare(c, qs[j*ql:(j+1)*ql], j, queries[j*dim:(j+1)*dim])
	}
	s.search(c, x.rt.workers(), qs, m, kc, x.ef(kc), out, c.counts[:m])
	if x.rerank != nil {
		for j := 0; j < m; j++ {
			c.counts[j] = x.rescore(c, j, out[j*kc:j*kc+c.counts[j]], dst[j*k:(j+1)*k])
		}
	}
	x.mu.RUnlock()
	for j := 0; j < m; j++ {
		x.finish(c, j, dst[j*k:j*k+c.counts[j]])
	}
	return nil
}

// prepare lays q out into dst (QueryLen values) as the metric needs, and
// keeps what query j of the batch needs afterwards: |q|² for L2 and the
// layout for the rerank copy.
func (x *Index) prepare(c *queryCtx, dst []float32, j int, q []float32) {
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
	x.kern.PrepareQuery(dst, c.q)
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
// the k best, best first, to dst; it returns how many.
func (x *Index) rescore(c *queryCtx, j int, cands []Result, dst []Result) int {
	x.rerank.Rescore(c.rqs[j], cands, c.rslots, c.rscore)
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

// ef is the graph search's candidate list size for k results.
func (x *Index) ef(k int) int { return max(int(x.efSearch.Load()), k) }

// SetEfSearch sets how many candidates an HNSW search keeps (at least k is
// always used): higher finds more true neighbours, slower.
func (x *Index) SetEfSearch(ef int) error {
	if ef < 1 || ef > hnsw.MaxEf {
		return errorf(ErrInvalidArgument, "efSearch %d: want 1 to %d", ef, hnsw.MaxEf)
	}
	x.efSearch.Store(int32(ef))
	return nil
}
