package astral

import (
	"cmp"
	"math"
	"sync/atomic"

	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/ivf"
)

// ivfStructure scans the nprobe partitions nearest each query. k-means
// needs data, so until trainAt records are stored it keeps them in a flat
// index (exact answers), then trains on all of them at the insert that
// reaches trainAt and moves them into partitions, once. Writes hold mu
// alone, as flat's.
type ivfStructure struct {
	buf     *flat.Index   // the records until training; nil after
	ix      *ivf.Index    // nil until training
	nprobe  *atomic.Int32 // the Index's: SetNProbe changes it beside queries
	nlist   int           // the partitions training makes: Config.NList, or an auto index's AutoNList
	trainAt int
	mk      func() (*ivf.Index, error)
}

// newIVF is an empty, untrained IVF structure of nlist partitions.
func (x *Index) newIVF(nlist int) *ivfStructure {
	cfg := ivf.Config{Dim: x.cfg.Dim, NList: nlist, Seed: x.cfg.IVFSeed}
	return &ivfStructure{
		buf:     flat.New(x.kern, x.adjust),
		nprobe:  &x.nprobe,
		nlist:   nlist,
		trainAt: cmp.Or(x.cfg.ivfTrainAt, TrainSize(nlist)),
		mk:      func() (*ivf.Index, error) { return ivf.New(x.kern, x.adjust, cfg) },
	}
}

// buildIVF trains an IVF structure of nlist partitions on snap and fills
// it (an auto index's switch), the same for a seed whatever the workers.
func (x *Index) buildIVF(snap *batch, nlist int) (*ivfStructure, error) {
	s := x.newIVF(nlist)
	ix, err := s.mk()
	if err != nil {
		return nil, errorf(ErrInvalidArgument, "%v", err)
	}
	n := len(snap.ids)
	tags, owners := make([]uint64, n), make([]uint64, n)
	times, imps := make([]int64, n), make([]float32, n)
	for i := range snap.ids {
		a := snap.attr(i)
		tags[i], owners[i], times[i], imps[i] = a.Tags, a.Owner, a.Time, a.Importance
	}
	if err := fillIVF(ix, snap.recs, snap.ids, snap.bias, snap.scales, tags, owners, times, imps, x.rt.workers()); err != nil {
		return nil, errorf(ErrInvalidArgument, "%v", err)
	}
	s.ix, s.buf = ix, nil
	return s, nil
}

// fillIVF trains ix on the columns and fills it with them, times and
// importances set after.
func fillIVF(ix *ivf.Index, recs []byte, ids []uint64, adj, scales []float32, tags, owners []uint64, times []int64, imps []float32, p *pool.Pool) error {
	if err := ivf.Build(ix, recs, ids, adj, scales, tags, owners, p); err != nil {
		return err
	}
	for i, id := range ids {
		if i < len(times) && times[i] != 0 {
			ix.SetTime(id, times[i])
		}
		if i < len(imps) && imps[i] != 0 {
			ix.SetImportance(id, imps[i])
		}
	}
	return nil
}

func (s *ivfStructure) flat() flatStructure { return flatStructure{s.buf} }

func (s *ivfStructure) Len() int {
	if s.ix == nil {
		return s.buf.Len()
	}
	return s.ix.Len()
}

func (s *ivfStructure) Has(id uint64) bool {
	if s.ix == nil {
		return s.buf.Has(id)
	}
	return s.ix.Has(id)
}

func (s *ivfStructure) Bytes() int {
	if s.ix == nil {
		return s.buf.Bytes()
	}
	return s.ix.Bytes()
}

func (s *ivfStructure) Detach() {
	if s.ix == nil {
		s.buf.Detach()
		return
	}
	s.ix.Detach()
}

func (*ivfStructure) kind() Kind         { return KindIVF }
func (*ivfStructure) sharedWrites() bool { return false }

func (s *ivfStructure) insert(b *batch, p *pool.Pool) error {
	if s.ix == nil {
		if err := s.flat().insert(b, p); err != nil {
			return err
		}
		if s.buf.Len() >= s.trainAt {
			s.train(p)
		}
		return nil
	}
	// The centroid choices run on the workers; the records go in in order.
	if err := s.ix.AddBatch(b.ids, b.recs, b.bias, b.scales, b.attr, p); err != nil {
		return errorf(ErrInvalidArgument, "%v", err) // unreachable: the engine checked the ids
	}
	return nil
}

func (s *ivfStructure) setTime(id uint64, t int64) {
	if s.ix == nil {
		s.buf.SetTime(id, t)
		return
	}
	s.ix.SetTime(id, t)
}

func (s *ivfStructure) setImportance(id uint64, v float32) {
	if s.ix == nil {
		s.buf.SetImportance(id, v)
		return
	}
	s.ix.SetImportance(id, v)
}

// searchRanked runs the plain or filtered search by combined score: exact
// within the probed partitions, then the unprobed records that recency or
// importance can lift in (ivf/rank.go); the direct plan is exact.
func (s *ivfStructure) searchRanked(c *queryCtx, p *pool.Pool, qs []float32, m, k int, sp scopedPlan, f *match.Filter, out []Result, counts []int) {
	if s.ix == nil {
		flatStructure{s.buf}.searchRanked(c, p, qs, m, k, sp, f, out, counts)
		return
	}
	c.is.SetRank(&c.scorer)
	if c.f.Active() { // f is the plan's: a direct plan's may test nothing
		s.searchFiltered(c, p, qs, m, k, sp, f, out, counts)
	} else {
		s.search(c, p, qs, m, k, 0, out, counts)
	}
	c.is.SetRank(nil)
}

// train builds the partitions from the buffered records, the same for a
// seed whatever p's worker count. A failure (unreachable: the columns come
// from one flat index) keeps the buffer, which answers exactly.
func (s *ivfStructure) train(p *pool.Pool) {
	ix, err := s.mk()
	if err != nil {
		return
	}
	ids, recs, adj, scales := s.buf.Snapshot()
	parts := s.buf.Parts()
	tags, owners := column(parts.Tags, len(ids)), column(parts.Owners, len(ids))
	if err := fillIVF(ix, recs, ids, adj, scales, tags, owners, parts.Times, parts.Imps, p); err != nil {
		return
	}
	s.ix, s.buf = ix, nil
}

func (s *ivfStructure) remove(ids []uint64) error {
	if s.ix == nil {
		return s.flat().remove(ids)
	}
	for _, id := range ids {
		if err := s.ix.Remove(id); err != nil {
			return errorf(ErrNotFound, "%v", err) // unreachable: the engine checked the ids
		}
	}
	return nil
}

// A partition compacts itself once a share of it is dead.
func (*ivfStructure) tombstones() int    { return 0 }
func (*ivfStructure) compact(*pool.Pool) {}

func (s *ivfStructure) queryBuffer(c *queryCtx, m int) []float32 {
	if s.ix == nil {
		return s.flat().queryBuffer(c, m)
	}
	return c.is.QueryBuffer(s.ix, m)
}

// queryLen: the partitions take engine-form queries and lay them out for
// both the records' and the centroids' kernels themselves.
func (s *ivfStructure) queryLen() int {
	if s.ix == nil {
		return s.buf.Kernel().QueryLen()
	}
	return s.ix.Config().Dim
}

func (s *ivfStructure) layQuery(dst, q []float32) {
	if s.ix == nil {
		s.buf.Kernel().PrepareQuery(dst, q)
		return
	}
	copy(dst, q)
}

func (s *ivfStructure) search(c *queryCtx, p *pool.Pool, qs []float32, m, k, ef int, out []Result, counts []int) {
	if s.ix == nil {
		s.flat().search(c, p, qs, m, k, ef, out, counts)
		return
	}
	c.is.SetBudget(c.budget.start, c.budget.d)
	s.ix.Search(c.is, p, m, k, s.probesOf(c), out, counts)
	c.ivfCoverage()
}

// searchFiltered scores the candidates directly (PlanDirect, exact) or
// probes partitions testing each record (PlanScan). A filter passing a
// share of the records leaves about that share of each partition, so the
// probes widen by its inverse to find k matches as often as an unfiltered
// query would; a rare enough filter probes every partition, an exact scan.
func (s *ivfStructure) searchFiltered(c *queryCtx, p *pool.Pool, qs []float32, m, k int, sp scopedPlan, f *match.Filter, out []Result, counts []int) {
	if s.ix == nil {
		s.flat().searchFiltered(c, p, qs, m, k, sp, f, out, counts)
		return
	}
	c.is.SetBudget(c.budget.start, c.budget.d)
	if sp.plan == PlanDirect {
		s.ix.SearchIDs(c.is, p, m, k, sp.cands, f, out, counts)
	} else {
		s.ix.SearchFiltered(c.is, p, m, k, s.probes(c, sp.share), f, out, counts)
	}
	c.ivfCoverage()
}

// ivfCoverage records what the IVF search just run with c.is covered.
func (c *queryCtx) ivfCoverage() {
	if c.budget.d == 0 {
		return
	}
	done, work := c.is.Coverage()
	c.setCoverage(done, work)
}

// probesOf is the partitions c's query probes: its own nprobe, or the
// index's.
func (s *ivfStructure) probesOf(c *queryCtx) int {
	if c.nprobe > 0 {
		return c.nprobe
	}
	return int(s.nprobe.Load())
}

// probes is c's nprobe widened for a filter passing share of the records.
func (s *ivfStructure) probes(c *queryCtx, share float64) int {
	nl := s.ix.NList()
	if share <= 0 {
		return nl
	}
	return int(math.Min(float64(nl), math.Ceil(float64(s.probesOf(c))/math.Min(share, 1))))
}

func (*ivfStructure) plainPlan() Plan { return PlanScan }

func (s *ivfStructure) attr(id uint64) (match.Attr, bool) {
	if s.ix == nil {
		return s.buf.Attr(id)
	}
	return s.ix.Attr(id)
}

func (s *ivfStructure) setTags(id, tags uint64) {
	if s.ix == nil {
		s.buf.SetTags(id, tags)
		return
	}
	s.ix.SetTags(id, tags)
}

func (s *ivfStructure) eachAttr(fn func(id uint64, a match.Attr)) {
	if s.ix == nil {
		s.flat().eachAttr(fn)
		return
	}
	s.ix.Each(fn)
}

// entry reads the partition in place: writers hold mu exclusively.
func (s *ivfStructure) entry(id uint64, _ []byte) ([]byte, float32, float32, bool) {
	if s.ix == nil {
		return s.buf.Entry(id)
	}
	return s.ix.Entry(id)
}

func (s *ivfStructure) bytesPerVector() float64 {
	if s.ix == nil {
		return s.flat().bytesPerVector()
	}
	return s.ix.BytesPerVector()
}

func (s *ivfStructure) participants(p *pool.Pool) int {
	if s.ix == nil {
		return s.buf.Participants(p)
	}
	return s.ix.Participants(p)
}

// SetNProbe sets how many partitions an IVF query scans (1 to NList; a
// filter widens it): more finds more true neighbours, slower. An auto
// index takes it once it has grown into IVF; other kinds refuse it.
func (x *Index) SetNProbe(n int) error {
	nlist := x.cfg.NList
	switch x.cfg.Kind {
	case KindIVF:
	case KindAuto:
		// Once it holds IVF no switch follows, whose swap would store
		// the derived nprobe over this one.
		x.mu.RLock()
		s, ok := x.live.(*ivfStructure)
		x.mu.RUnlock()
		if !ok {
			return errorf(ErrInvalidArgument, "nprobe: this auto index has no partitions (yet)")
		}
		nlist = s.nlist
	default:
		return errorf(ErrInvalidArgument, "nprobe: a %v index has no partitions", x.cfg.Kind)
	}
	if n < 1 || n > nlist {
		return errorf(ErrInvalidArgument, "nprobe %d: want 1 to nlist (%d)", n, nlist)
	}
	x.nprobe.Store(int32(n))
	return nil
}

// NProbe is the partitions a query probes unless it says otherwise; 0 for
// an index without partitions (not IVF, or auto before it grows into IVF).
func (x *Index) NProbe() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if _, ok := x.live.(*ivfStructure); !ok {
		return 0
	}
	return int(x.nprobe.Load())
}

// IVFStats returns the partitions' statistics and true when the index is
// an IVF index that has trained (until then it scans its records exactly).
// Its Dirty counts the partitions changed since the last save.
func (x *Index) IVFStats() (ivf.Stats, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s, ok := x.live.(*ivfStructure)
	if !ok || s.ix == nil {
		return ivf.Stats{}, false
	}
	return s.ix.Stats(), true
}
