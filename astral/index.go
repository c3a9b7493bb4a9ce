package astral

import (
	"math"
	"sync"

	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/kernel"
)

// Result is one hit: the id given to Add and its score (cosine similarity,
// dot product, or squared L2 distance).
type Result = flat.Result

const (
	// MaxK is the largest k a query takes.
	MaxK = flat.MaxK
	// MaxBatch is how many queries share one pass over the records;
	// QueryBatch takes any number and serves them this many at a time.
	MaxBatch = flat.MaxBatch
)

// Index is vector memory: add, remove and query from any goroutines at
// once. A query sees each record whole, never half-written.
type Index struct {
	cfg Config
	rt  *Runtime

	mu   sync.RWMutex
	flat *flat.Index

	ctxMu sync.Mutex
	ctxs  []*queryCtx // free list: sync.Pool would drop them at each GC and allocate on the hot path
}

// queryCtx is the scratch of one query in flight.
type queryCtx struct {
	s      *flat.Searcher
	q      []float32 // one query, normalized or scaled
	counts [MaxBatch]int
	qnorm  [MaxBatch]float32 // |q|^2 for L2
}

// NewIndex creates an empty index. rt may be nil: queries then run serially.
func NewIndex(rt *Runtime, opts ...Option) (*Index, error) {
	c := Config{Metric: Cosine, Storage: E5M2, FlatLimitBytes: DefaultFlatLimitBytes}
	for _, o := range opts {
		o(&c)
	}
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
	adjust := map[Metric]flat.Adjust{Cosine: flat.AdjustScale, Dot: flat.AdjustNone, L2: flat.AdjustSubtract}[c.Metric]
	return &Index{cfg: c, rt: rt, flat: flat.New(k, adjust)}, nil
}

// Config returns the index's configuration.
func (x *Index) Config() Config { return x.cfg }

// Len is the number of stored vectors.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.flat.Len()
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
	seen := make(map[uint64]struct{}, len(ids))
	for _, id := range ids {
		if _, dup := seen[id]; dup {
			return errorf(ErrDuplicateID, "id %d repeated in one Add", id)
		}
		seen[id] = struct{}{}
	}
	// Encode outside the lock: queries keep running meanwhile.
	stride := x.flat.Kernel().Stride()
	recs := make([]byte, len(ids)*stride)
	bias := make([]float32, len(ids))
	row := make([]float32, dim)
	var nb normBuffers
	for i := range ids {
		copy(row, vectors[i*dim:(i+1)*dim])
		if x.cfg.Metric == Cosine {
			normalize(row)
		}
		rec := recs[i*stride : (i+1)*stride]
		kernel.EncodeE5M2Slice(rec, row)
		switch x.cfg.Metric {
		case Cosine:
			// Score against the stored vector's own length: quantizing moves
			// |x| off 1 by ~0.5 %, as much as the gaps between neighbours.
			if n2 := x.squaredNorm(&nb, rec); n2 > 0 {
				bias[i] = float32(1 / math.Sqrt(float64(n2)))
			}
		case L2:
			bias[i] = x.squaredNorm(&nb, rec)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		if x.flat.Has(id) {
			return errorf(ErrDuplicateID, "id %d already stored", id)
		}
	}
	x.flat.Reserve(len(ids))
	for i, id := range ids {
		if err := x.flat.Add(id, recs[i*stride:(i+1)*stride], bias[i]); err != nil {
			return err // unreachable: ids were checked under the lock
		}
	}
	return nil
}

// normBuffers is squaredNorm's scratch, reused across one Add.
type normBuffers struct {
	dec, qp []float32
	out     [1]float32
}

// squaredNorm is |x|^2 of a stored record, computed by the kernel in the
// canonical order so norms, like scores, are the same bits on every CPU.
func (x *Index) squaredNorm(b *normBuffers, rec []byte) float32 {
	k := x.flat.Kernel()
	if b.dec == nil {
		b.dec, b.qp = make([]float32, x.cfg.Dim), make([]float32, k.QueryLen())
	}
	kernel.DecodeE5M2Slice(b.dec, rec[:x.cfg.Dim])
	k.Scan(kernel.LayoutQuery(b.qp, b.dec), rec, b.out[:])
	return b.out[0]
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
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, id := range ids {
		if !x.flat.Has(id) {
			return errorf(ErrNotFound, "id %d", id)
		}
		for _, prev := range ids[:i] {
			if prev == id {
				return errorf(ErrDuplicateID, "id %d repeated in one Remove", id)
			}
		}
	}
	for _, id := range ids {
		if err := x.flat.Remove(id); err != nil {
			return err // unreachable: ids were checked under the lock
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
	return nil
}

// prepare lays query q out in slot j of the searcher, as the metric needs.
func (x *Index) prepare(c *queryCtx, buf []float32, j int, q []float32) {
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
	ql := x.flat.Kernel().QueryLen()
	kernel.LayoutQuery(buf[j*ql:(j+1)*ql], c.q)
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

// Query finds the k nearest stored vectors to q and returns them best first
// in dst[:n] (n = min(k, Len())), reusing dst's memory: with cap(dst) >= k it
// allocates nothing.
func (x *Index) Query(dst []Result, q []float32, k int) ([]Result, error) {
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
	x.prepare(c, c.s.QueryBuffer(x.flat, 1), 0, q)
	x.mu.RLock()
	x.flat.Search(c.s, x.rt.workers(), 1, k, dst, c.counts[:1])
	x.mu.RUnlock()
	res := dst[:c.counts[0]]
	x.finish(c, 0, res)
	return res, nil
}

// QueryBatch runs len(queries)/Dim queries, MaxBatch per pass over the
// records. Query i's results are dst[i*k : i*k+counts[i]], best first; counts
// must hold one entry per query. The results equal Query's, bit for bit.
func (x *Index) QueryBatch(dst []Result, counts []int, queries []float32, k int) ([]Result, error) {
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
	if cap(dst) < nq*k {
		dst = make([]Result, nq*k)
	}
	dst = dst[:nq*k]
	c := x.getCtx()
	defer x.putCtx(c)
	for lo := 0; lo < nq; lo += MaxBatch {
		m := min(MaxBatch, nq-lo)
		buf := c.s.QueryBuffer(x.flat, m)
		for j := 0; j < m; j++ {
			x.prepare(c, buf, j, queries[(lo+j)*dim:(lo+j+1)*dim])
		}
		x.mu.RLock()
		x.flat.Search(c.s, x.rt.workers(), m, k, dst[lo*k:], c.counts[:m])
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
	Bytes          int64   // memory held by records, ids and per-record data, growth room included
	BytesPerVector float64 // what one more vector costs: record, id and per-record data
}

// Stats returns the index's current statistics.
func (x *Index) Stats() Stats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := Stats{
		Len: x.flat.Len(), Dim: x.cfg.Dim, Metric: x.cfg.Metric, Kind: KindFlat,
		Storage: x.cfg.Storage, Kernel: x.flat.Kernel().Name(), Bytes: int64(x.flat.Bytes()),
		Participants: x.flat.Participants(x.rt.workers()),
	}
	s.BytesPerVector = float64(x.flat.Kernel().Stride() + 8)
	if x.cfg.Metric != Dot {
		s.BytesPerVector += 4 // the per-record norm
	}
	return s
}
