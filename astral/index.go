package astral

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/fpenv"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// Result is one hit: the id given to Add and its score (cosine similarity,
// dot product, or squared L2 distance).
type Result = score.Result

const (
	// MaxK is the largest k a query takes.
	MaxK = flat.MaxK
	// MaxBatch is how many queries share one pass over the records;
	// QueryBatch takes any number and serves them this many at a time.
	MaxBatch = flat.MaxBatch
)

// Index is vector memory: add, remove and query from any goroutines at
// once. A query sees each record whole, never half-written.
//
// It scans every record (flat) while they take at most FlatLimitBytes, or
// when asked, and walks an HNSW graph otherwise. An auto index that grows
// past the limit builds its graph in the background, answering queries from
// the flat index meanwhile, and then switches once, atomically.
type Index struct {
	cfg    Config
	rt     *Runtime
	adjust score.Adjust
	kern   *kernel.Kernel

	// writeMu serialises Add and Remove. mu guards which structure is live:
	// queries hold it shared; a flat write or the switch hold it
	// exclusively. The graph takes inserts beside queries, so graph writes
	// hold it shared.
	writeMu  sync.Mutex
	mu       sync.RWMutex
	efSearch atomic.Int32
	flat     *flat.Index
	graph    *hnsw.Graph
	// rerank is the second copy of every vector (Config.Rerank), scored by
	// rkern; nil without one. Guarded like flat.
	rerank *flat.Index
	rkern  *kernel.Kernel

	// While a background build runs, writes also go to pending, replayed
	// into the graph before the switch.
	building bool
	pending  []pendingOp
	bg       sync.WaitGroup
	// switching is the background switch to a graph, compacting the
	// compaction a Remove started; writers and saves finish or wait for
	// them first (order.go). Both guarded by writeMu.
	switching  *graphSwitch
	compacting chan struct{}

	ctxMu sync.Mutex
	ctxs  []*queryCtx // free list: sync.Pool would drop them at each GC and allocate on the hot path

	mapped *mapping   // the file OpenFile mapped, until the first write copies it (persist.go); guarded by writeMu
	faults faultLatch // a fault reading it (fault.go)
	check  *fileCheck // OpenFile's background check (VerifyInBackground), nil if none; guarded by mu
}

// parallelBuildMin is the batch size from which an Add into a graph is a
// parallel Build rather than one insert after another.
const parallelBuildMin = 256

// pendingOp is one write made during a background build.
type pendingOp struct {
	id            uint64
	rec           []byte // nil for a removal
	adjust, scale float32
	first         bool // the first id of its Add or Remove call
}

// queryCtx is the scratch of one query in flight.
type queryCtx struct {
	s      *flat.Searcher
	hs     *hnsw.Searcher
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

// NewIndex creates an empty index. rt may be nil: queries then run serially.
func NewIndex(rt *Runtime, opts ...Option) (*Index, error) {
	c := Config{Metric: Cosine, Storage: E5M2, FlatLimitBytes: DefaultFlatLimitBytes}
	for _, o := range opts {
		o(&c)
	}
	c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	var impl *kernel.Impl
	if c.Kernel != "" {
		var err error
		if impl, err = kernel.Lookup(c.Kernel); err != nil {
			return nil, errorf(ErrInvalidArgument, "%v", err)
		}
	}
	k, err := kernel.New(impl, c.Dim, c.Storage)
	if err != nil {
		return nil, errorf(ErrInvalidArgument, "%v", err)
	}
	adjust := adjustOf(c.Metric, c.Storage)
	x := &Index{cfg: c, rt: rt, adjust: adjust, kern: k}
	if c.Rerank != 0 {
		if x.rkern, err = kernel.New(nil, c.Dim, c.Rerank); err != nil {
			return nil, errorf(ErrInvalidArgument, "%v", err)
		}
		x.rerank = flat.New(x.rkern, adjustOf(c.Metric, c.Rerank))
	}
	x.efSearch.Store(int32(c.EfSearch))
	if c.Kind == KindHNSW {
		if x.graph, err = x.newGraph(); err != nil {
			return nil, err
		}
	} else {
		x.flat = flat.New(k, adjust)
	}
	return x, nil
}

func (x *Index) newGraph() (*hnsw.Graph, error) {
	g, err := hnsw.New(x.kern, x.adjust, hnsw.Config{M: x.cfg.M, EfConstruction: x.cfg.EfConstruction})
	if err != nil {
		return nil, errorf(ErrInvalidArgument, "%v", err)
	}
	return g, nil
}

// Config returns the index's configuration.
func (x *Index) Config() Config { return x.cfg }

// Len is the number of stored vectors.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.graph != nil {
		return x.graph.Len()
	}
	return x.flat.Len()
}

// has reports whether id is stored; hold writeMu.
func (x *Index) has(id uint64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.hasLocked(id)
}

// hasLocked is has with mu held (or the index not yet shared).
func (x *Index) hasLocked(id uint64) bool {
	if x.graph != nil {
		return x.graph.Has(id)
	}
	return x.flat.Has(id)
}

func checkFinite(v []float32) bool {
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}

// Add stores vectors (len(ids) × Dim values, row after row) under ids. On
// any error (wrong length, NaN or Inf, an id already stored or repeated)
// nothing is stored.
func (x *Index) Add(ids []uint64, vectors []float32) error {
	dim := x.cfg.Dim
	if len(vectors) != len(ids)*dim {
		return errorf(ErrDimension, "%d values for %d ids of dimension %d", len(vectors), len(ids), dim)
	}
	if !checkFinite(vectors) {
		return errorf(ErrNonFinite, "vectors hold NaN or Inf")
	}
	if err := x.checkMagnitude(vectors, "vector"); err != nil {
		return err
	}
	seen := make(map[uint64]struct{}, len(ids))
	for _, id := range ids {
		if _, dup := seen[id]; dup {
			return errorf(ErrDuplicateID, "id %d repeated in one Add", id)
		}
		seen[id] = struct{}{}
	}
	// Encode outside the lock: queries keep running meanwhile.
	stride := x.kern.Stride()
	recs := make([]byte, len(ids)*stride)
	bias, scales := make([]float32, len(ids)), make([]float32, len(ids))
	row := make([]float32, dim)
	var nb, rnb normBuffers
	var rrecs []byte
	var rbias []float32
	if x.rerank != nil {
		rrecs, rbias = make([]byte, len(ids)*x.rkern.Stride()), make([]float32, len(ids))
	}
	for i := range ids {
		copy(row, vectors[i*dim:(i+1)*dim])
		if x.cfg.Metric == Cosine {
			normalize(row)
		}
		rec := recs[i*stride : (i+1)*stride]
		bias[i], scales[i] = x.adjustValues(&nb, x.kern, rec, kernel.Encode(x.cfg.Storage, rec, row))
		if x.rerank != nil {
			rs := x.rkern.Stride()
			rrec := rrecs[i*rs : (i+1)*rs]
			rbias[i], _ = x.adjustValues(&rnb, x.rkern, rrec, kernel.Encode(x.cfg.Rerank, rrec, row))
		}
	}
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.awaitCompaction()
	if err := x.ownMemory(); err != nil {
		return err
	}
	for _, id := range ids {
		if x.has(id) {
			return errorf(ErrDuplicateID, "id %d already stored", id)
		}
	}
	x.mu.Lock()
	if x.rerank != nil {
		// Its own lock would let a query see a vector in one copy and not
		// the other; the copy is small next to a graph insert.
		x.rerank.Reserve(len(ids))
		for i, id := range ids {
			rs := x.rkern.Stride()
			if err := x.rerank.Add(id, rrecs[i*rs:(i+1)*rs], rbias[i], 1); err != nil {
				x.mu.Unlock()
				return err // unreachable: ids were checked under writeMu
			}
		}
	}
	if g := x.graph; g != nil {
		// The graph takes inserts beside running queries.
		x.mu.Unlock()
		x.mu.RLock()
		defer x.mu.RUnlock()
		return x.insertGraph(g, ids, recs, bias, scales)
	}
	x.flat.Reserve(len(ids))
	for i, id := range ids {
		if err := x.flat.Add(id, recs[i*stride:(i+1)*stride], bias[i], scales[i]); err != nil {
			x.mu.Unlock()
			return err // unreachable: ids were checked under writeMu
		}
		if x.building {
			x.pending = append(x.pending, pendingOp{id: id, rec: recs[i*stride : (i+1)*stride], adjust: bias[i], scale: scales[i], first: i == 0})
		}
	}
	grow := x.cfg.Kind == KindAuto && !x.building && x.flat.RecordBytes() > x.cfg.FlatLimitBytes
	if grow {
		x.building = true
		ids, recs, adj, scales := x.flat.Snapshot()
		sw := &graphSwitch{built: make(chan struct{})}
		x.switching = sw
		x.bg.Add(1)
		go x.switchToGraph(sw, ids, recs, adj, scales)
	}
	x.mu.Unlock()
	return nil
}

// switchToGraph builds the graph from a snapshot of the flat index while
// queries go on, then replays the writes made meanwhile and swaps, unless
// a save has already done so (finishSwitch).
func (x *Index) switchToGraph(sw *graphSwitch, ids []uint64, recs []byte, adj, scales []float32) {
	defer x.bg.Done()
	// This thread may carry a host's FTZ/DAZ (threads inherit it).
	defer fpenv.Leave(fpenv.Enter())
	sw.g, sw.err = x.newGraph()
	if sw.err == nil {
		sw.err = sw.g.Build(ids, recs, adj, scales, x.rt.workers(), true)
	}
	close(sw.built)
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.finishSwitch(sw)
}

// Wait returns once any background graph build or compaction has finished.
func (x *Index) Wait() { x.bg.Wait() }

// normBuffers is squaredNorm's scratch, reused across one Add.
type normBuffers struct {
	dec, qp []float32
	out     [1]float32
}

// squaredNorm is |x|^2 of a record k stores, in k's units (see
// kernel.DecodeUnits), computed by the kernel in the canonical order so
// norms, like scores, are the same bits on every CPU.
func (x *Index) squaredNorm(b *normBuffers, k *kernel.Kernel, rec []byte) float32 {
	if b.dec == nil {
		b.dec, b.qp = make([]float32, x.cfg.Dim), make([]float32, k.QueryLen())
	}
	kernel.DecodeUnits(k.Storage(), b.dec, rec)
	k.Scan(k.PrepareQuery(b.qp, b.dec), rec, b.out[:])
	return b.out[0]
}

// adjustValues returns a record's Adjust value and multiplier (see
// adjustOf) from its encoding factor f.
func (x *Index) adjustValues(b *normBuffers, k *kernel.Kernel, rec []byte, f float32) (bias, scale float32) {
	switch x.cfg.Metric {
	case Cosine:
		// Score against the stored vector's own length: quantizing moves
		// |x| off 1 by ~0.5 %, as much as the gaps between neighbours.
		if n2 := x.squaredNorm(b, k, rec); n2 > 0 {
			return float32(1 / math.Sqrt(float64(n2))), 1
		}
		return 0, 1
	case L2:
		n2 := x.squaredNorm(b, k, rec)
		if k.Storage().Scaled() {
			return float32(float32(f*f) * n2), f
		}
		return n2, 1
	}
	return f, 1
}

// normalize scales v to unit length; a zero vector stays zero.
func normalize(v []float32) {
	s := 0.0
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i, f := range v {
		v[i] = float32(float64(f) * inv)
	}
}

// Remove deletes ids. If any is not stored (or repeated), nothing is removed.
func (x *Index) Remove(ids ...uint64) error {
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.awaitCompaction()
	if err := x.ownMemory(); err != nil {
		return err
	}
	for i, id := range ids {
		if !x.has(id) {
			return errorf(ErrNotFound, "id %d", id)
		}
		for _, prev := range ids[:i] {
			if prev == id {
				return errorf(ErrDuplicateID, "id %d repeated in one Remove", id)
			}
		}
	}
	x.mu.Lock()
	if g := x.graph; g != nil {
		x.mu.Unlock()
		x.mu.RLock()
		if err := x.deleteGraph(g, ids, false); err != nil {
			x.mu.RUnlock()
			return err
		}
		x.mu.RUnlock()
		// Only now leave the rerank copy: a query that found the ids in the
		// graph before they were deleted still rescores them.
		x.mu.Lock()
		defer x.mu.Unlock()
		return x.removeRerank(ids)
	}
	defer x.mu.Unlock()
	for i, id := range ids {
		if err := x.flat.Remove(id); err != nil {
			return err // unreachable: ids were checked under writeMu
		}
		if x.building {
			x.pending = append(x.pending, pendingOp{id: id, first: i == 0})
		}
	}
	return x.removeRerank(ids)
}

// removeRerank removes ids from the rerank copy, if any; hold mu.
func (x *Index) removeRerank(ids []uint64) error {
	if x.rerank == nil {
		return nil
	}
	for _, id := range ids {
		if err := x.rerank.Remove(id); err != nil {
			return err // unreachable: ids were checked under writeMu
		}
	}
	return nil
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

// checkQuery validates one query vector.
func (x *Index) checkQuery(q []float32) error {
	if len(q) != x.cfg.Dim {
		return errorf(ErrDimension, "query has %d values, index dimension is %d", len(q), x.cfg.Dim)
	}
	if !checkFinite(q) {
		return errorf(ErrNonFinite, "query holds NaN or Inf")
	}
	if err := x.checkMagnitude(q, "query"); err != nil {
		return err
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

// query is Query without the fault guard.
func (x *Index) query(dst []Result, q []float32, k int) ([]Result, error) {
	if k < 1 || k > MaxK {
		return dst[:0], errorf(ErrInvalidArgument, "k = %d: want 1 to %d", k, MaxK)
	}
	if err := x.checkQuery(q); err != nil {
		return dst[:0], err
	}
	if cap(dst) < k {
		dst = make([]Result, k)
	}
	dst = dst[:k]
	c := x.getCtx()
	defer x.putCtx(c)
	x.mu.RLock()
	if err := x.damaged(); err != nil {
		x.mu.RUnlock()
		return dst[:0], err
	}
	kc, out := k, dst
	if x.rerank != nil {
		kc = x.candidates(k)
		out = c.candBuffer(1, kc)
	}
	if g := x.graph; g != nil {
		buf := c.graphSearcher().QueryBuffer(g)
		x.prepare(c, buf, 0, q)
		c.counts[0] = len(g.Search(c.hs, buf, kc, x.ef(kc), out[:0]))
	} else {
		x.prepare(c, c.s.QueryBuffer(x.flat, 1), 0, q)
		x.flat.Search(c.s, x.rt.workers(), 1, kc, out, c.counts[:1])
	}
	if x.rerank != nil {
		c.counts[0] = x.rescore(c, 0, out[:c.counts[0]], dst[:k])
	}
	x.mu.RUnlock()
	res := dst[:c.counts[0]]
	x.finish(c, 0, res)
	return res, nil
}

func (c *queryCtx) graphSearcher() *hnsw.Searcher {
	if c.hs == nil {
		c.hs = hnsw.NewSearcher()
	}
	return c.hs
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

// queryBatch is QueryBatch without the fault guard.
func (x *Index) queryBatch(dst []Result, counts []int, queries []float32, k int) ([]Result, error) {
	dim := x.cfg.Dim
	if k < 1 || k > MaxK {
		return dst[:0], errorf(ErrInvalidArgument, "k = %d: want 1 to %d", k, MaxK)
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
	kc := x.candidates(k)
	for lo := 0; lo < nq; lo += MaxBatch {
		m := min(MaxBatch, nq-lo)
		x.mu.RLock()
		if err := x.damaged(); err != nil {
			x.mu.RUnlock()
			return dst[:0], err
		}
		out := dst[lo*k:]
		if x.rerank != nil {
			out = c.candBuffer(m, kc)
		}
		if g := x.graph; g != nil {
			// A graph walk reads few records: nothing to share between queries.
			buf := c.graphSearcher().QueryBuffer(g)
			for j := 0; j < m; j++ {
				x.prepare(c, buf, j, queries[(lo+j)*dim:(lo+j+1)*dim])
				c.counts[j] = len(g.Search(c.hs, buf, kc, x.ef(kc), out[j*kc:j*kc:(j+1)*kc]))
			}
		} else {
			buf := c.s.QueryBuffer(x.flat, m)
			ql := x.kern.QueryLen()
			for j := 0; j < m; j++ {
				x.prepare(c, buf[j*ql:(j+1)*ql], j, queries[(lo+j)*dim:(lo+j+1)*dim])
			}
			x.flat.Search(c.s, x.rt.workers(), m, kc, out, c.counts[:m])
		}
		if x.rerank != nil {
			for j := 0; j < m; j++ {
				c.counts[j] = x.rescore(c, j, out[j*kc:j*kc+c.counts[j]], dst[(lo+j)*k:(lo+j+1)*k])
			}
		}
		x.mu.RUnlock()
		for j := 0; j < m; j++ {
			counts[lo+j] = c.counts[j]
			x.finish(c, j, dst[(lo+j)*k:(lo+j)*k+c.counts[j]])
		}
	}
	return dst, nil
}

// Stats describes an index.
type Stats struct {
	Len            int
	Dim            int
	Metric         Metric
	Kind           Kind // the structure in use: never KindAuto
	Storage        Storage
	Kernel         string  // e.g. "avx2/fixed384"
	Participants   int     // threads one query uses now: workers + caller, fewer for small indexes
	Bytes          int64   // memory held by records, ids, per-record data and links, growth room included
	BytesPerVector float64 // what a vector costs: flat: record, id, norm; HNSW: its level-0 block and upper links (id lookup excluded, as in hnswlib's figure)
}

// Stats returns the index's current statistics.
func (x *Index) Stats() Stats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := Stats{Dim: x.cfg.Dim, Metric: x.cfg.Metric, Storage: x.cfg.Storage, Kernel: x.kern.Name(), Participants: 1}
	perRecord := x.kern.Stride() + 8 // record and id
	if x.adjust != score.AdjustNone {
		perRecord += 4 // the per-record norm or scale
	}
	if x.adjust == score.AdjustScaleSubtract {
		perRecord += 4 // both
	}
	var rerankBytes int64
	var rerankPer float64
	if x.rerank != nil {
		rerankBytes = int64(x.rerank.Bytes())
		rerankPer = float64(x.rkern.Stride() + 8) // record and id
		if x.rerank.Adjust() != score.AdjustNone {
			rerankPer += 4
		}
	}
	if g := x.graph; g != nil {
		s.Len, s.Kind, s.Bytes = g.Len(), KindHNSW, int64(g.Bytes())+rerankBytes
		s.BytesPerVector = g.BytesPerVector() + rerankPer
		return s
	}
	s.Len, s.Kind, s.Bytes = x.flat.Len(), KindFlat, int64(x.flat.Bytes())+rerankBytes
	s.Participants = x.flat.Participants(x.rt.workers())
	s.BytesPerVector = float64(perRecord) + rerankPer
	return s
}
