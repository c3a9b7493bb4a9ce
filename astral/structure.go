package astral

import (
	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
)

// structure is what the engine asks of the live store of records: the flat
// index (an exact scan) or the HNSW graph. Both are thin adapters, so flat
// and hnsw know nothing of the engine or of each other.
type structure interface {
	Len() int
	Has(id uint64) bool
	Bytes() int // memory held, growth room included
	Detach()    // copy a mapped file's sections into memory of its own

	kind() Kind
	// sharedWrites reports whether insert and remove run beside queries
	// (mu held shared) rather than alone (mu held exclusively).
	sharedWrites() bool
	insert(b *batch, p *pool.Pool) error // b's ids are new and distinct
	remove(ids []uint64) error           // ids are stored and distinct
	// tombstones is how many removed records still take room; compact
	// reclaims them.
	tombstones() int
	compact(p *pool.Pool)

	// queryBuffer returns room in c for m laid-out queries, one queryLen
	// after another; search answers them. layQuery writes one there from
	// the engine-form query q (unit for cosine, doubled for L2).
	queryBuffer(c *queryCtx, m int) []float32
	queryLen() int
	layQuery(dst, q []float32)
	// search writes query j's k best, best first, to out[j*k:] and their
	// number to counts[j]; a graph keeps ef candidates.
	search(c *queryCtx, p *pool.Pool, qs []float32, m, k, ef int, out []Result, counts []int)
	// searchFiltered is search restricted to records that pass f, the way
	// sp says.
	searchFiltered(c *queryCtx, p *pool.Pool, qs []float32, m, k int, sp scopedPlan, f *match.Filter, out []Result, counts []int)
	// searchRanked is searchFiltered (or search, for a filter that is not
	// active) ranking by c.scorer's combined score.
	searchRanked(c *queryCtx, p *pool.Pool, qs []float32, m, k int, sp scopedPlan, f *match.Filter, out []Result, counts []int)
	plainPlan() Plan // the plan of an unfiltered search

	attr(id uint64) (match.Attr, bool)
	setTags(id, tags uint64)                   // id is stored
	setTime(id uint64, t int64)                // id is stored
	setImportance(id uint64, v float32)        // id is stored
	eachAttr(fn func(id uint64, a match.Attr)) // every stored record's
	// entry returns id's record (in the structure's memory, or copied into
	// buf), adjust value and multiplier; false if id is not stored.
	entry(id uint64, buf []byte) (rec []byte, adj, scale float32, ok bool)

	bytesPerVector() float64
	participants(p *pool.Pool) int // threads one query uses now, the caller included
}

// flatStructure scans every record: exact, and every write holds mu alone.
type flatStructure struct{ *flat.Index }

func (flatStructure) kind() Kind         { return KindFlat }
func (flatStructure) sharedWrites() bool { return false }

func (s flatStructure) insert(b *batch, _ *pool.Pool) error {
	stride := s.Kernel().Stride()
	s.Reserve(len(b.ids))
	for i, id := range b.ids {
		if err := s.Add(id, b.recs[i*stride:(i+1)*stride], b.bias[i], b.scales[i], b.attr(i)); err != nil {
			return err // unreachable: the engine checked the ids
		}
	}
	return nil
}

func (s flatStructure) remove(ids []uint64) error {
	for _, id := range ids {
		if err := s.Remove(id); err != nil {
			return err // unreachable: the engine checked the ids
		}
	}
	return nil
}

// A removal moves the last record into the hole: nothing to reclaim.
func (flatStructure) tombstones() int    { return 0 }
func (flatStructure) compact(*pool.Pool) {}

func (s flatStructure) queryBuffer(c *queryCtx, m int) []float32 { return c.s.QueryBuffer(s.Index, m) }
func (s flatStructure) queryLen() int                            { return s.Kernel().QueryLen() }
func (s flatStructure) layQuery(dst, q []float32)                { s.Kernel().PrepareQuery(dst, q) }

// search shares one pass over the records between the m queries.
func (s flatStructure) search(c *queryCtx, p *pool.Pool, _ []float32, m, k, _ int, out []Result, counts []int) {
	c.s.SetBudget(c.budget.start, c.budget.d)
	s.Search(c.s, p, m, k, out, counts)
	c.flatCoverage()
}

// bytesPerVector is a record, its id, and its norm or scale (both for L2
// over scaled kinds).
func (s flatStructure) bytesPerVector() float64 {
	n := s.Kernel().Stride() + 8
	if s.Adjust() != score.AdjustNone {
		n += 4
	}
	if s.Adjust() == score.AdjustScaleSubtract {
		n += 4
	}
	return float64(n)
}

func (s flatStructure) participants(p *pool.Pool) int { return s.Participants(p) }

func (flatStructure) plainPlan() Plan                     { return PlanScan }
func (s flatStructure) attr(id uint64) (match.Attr, bool) { return s.Attr(id) }
func (s flatStructure) setTags(id, tags uint64)           { s.SetTags(id, tags) }
func (s flatStructure) setTime(id uint64, t int64)        { s.SetTime(id, t) }
func (s flatStructure) setImportance(id uint64, v float32) {
	s.SetImportance(id, v)
}

// entry reads the slab in place: flat writers hold mu exclusively.
func (s flatStructure) entry(id uint64, _ []byte) ([]byte, float32, float32, bool) {
	return s.Entry(id)
}

func (s flatStructure) eachAttr(fn func(id uint64, a match.Attr)) {
	p := s.Parts()
	for i, id := range p.IDs {
		fn(id, match.Attr{Tags: p.Tags[i], Owner: p.Owners[i], Time: p.Times[i], Importance: p.Imps[i]})
	}
}

func (s flatStructure) searchFiltered(c *queryCtx, p *pool.Pool, _ []float32, m, k int, sp scopedPlan, f *match.Filter, out []Result, counts []int) {
	c.s.SetBudget(c.budget.start, c.budget.d)
	switch {
	case sp.plan == PlanDirect && sp.holdsAttrs:
		// The owner's group: flat's own posting holds its slots, so no
		// id is looked up.
		s.SearchOwner(c.s, p, m, k, c.f.Owner, f, out, counts)
	case sp.plan == PlanDirect:
		s.SearchIDs(c.s, p, m, k, sp.cands, f, out, counts)
	default:
		s.SearchFiltered(c.s, p, m, k, f, out, counts)
	}
	c.flatCoverage()
}

// column is c, or n zeros when the structure holds none.
func column[T uint64 | int64 | float32](c []T, n int) []T {
	if len(c) == n {
		return c
	}
	return make([]T, n)
}

// graphStructure walks an HNSW graph, which takes inserts and deletes
// beside searches.
type graphStructure struct{ *hnsw.Graph }

func (graphStructure) kind() Kind         { return KindHNSW }
func (graphStructure) sharedWrites() bool { return true }

// parallelBuildMin is the batch size from which an insert into a graph is
// a parallel build rather than one insert after another.
const parallelBuildMin = 256

func (s graphStructure) insert(b *batch, p *pool.Pool) error {
	if len(b.ids) >= parallelBuildMin {
		return s.build(b, p)
	}
	stride := s.Kernel().Stride()
	s.Reserve(len(b.ids))
	for i, id := range b.ids {
		if err := s.Insert(id, b.recs[i*stride:(i+1)*stride], b.bias[i], b.scales[i], b.attr(i)); err != nil {
			return errorf(ErrInvalidArgument, "%v", err) // unreachable: the engine checked the ids
		}
	}
	return nil
}

// build is a deterministic parallel build on p's workers: the same graph
// whatever the thread count.
func (s graphStructure) build(b *batch, p *pool.Pool) error {
	adj, mul := b.bias, b.scales
	if s.Adjust() == score.AdjustNone {
		adj = nil
	}
	if s.Adjust() != score.AdjustScaleSubtract {
		mul = nil
	}
	if err := s.Build(b.ids, b.recs, adj, mul, b.attrs, p, true); err != nil {
		return errorf(ErrInvalidArgument, "%v", err) // unreachable: the engine checked the ids
	}
	return nil
}

func (s graphStructure) remove(ids []uint64) error {
	for _, id := range ids {
		if err := s.Delete(id); err != nil {
			return errorf(ErrNotFound, "%v", err) // unreachable: the engine checked the ids
		}
	}
	return nil
}

// Tombstones still route searches, but lengthen them.
func (s graphStructure) tombstones() int      { return s.Deleted() }
func (s graphStructure) compact(p *pool.Pool) { s.Compact(p) }

func (s graphStructure) queryBuffer(c *queryCtx, m int) []float32 {
	ql := s.Kernel().QueryLen()
	if cap(c.gqs) < MaxBatch*ql {
		c.gqs = make([]float32, MaxBatch*ql)
	}
	return c.gqs[:m*ql]
}

func (s graphStructure) queryLen() int             { return s.Kernel().QueryLen() }
func (s graphStructure) layQuery(dst, q []float32) { s.Kernel().PrepareQuery(dst, q) }

// search walks the graph once per query: a walk reads few records, so
// there is nothing to share between them.
func (s graphStructure) search(c *queryCtx, _ *pool.Pool, qs []float32, m, k, ef int, out []Result, counts []int) {
	hs := c.graphSearcher()
	hs.SetBudget(c.budget.start, c.budget.d)
	ql := s.Kernel().QueryLen()
	for j := 0; j < m; j++ {
		counts[j] = len(s.Search(hs, qs[j*ql:(j+1)*ql], k, ef, out[j*k:j*k:(j+1)*k]))
	}
	c.complete, c.covered = hs.Coverage()
}

func (s graphStructure) bytesPerVector() float64   { return s.BytesPerVector() }
func (graphStructure) participants(*pool.Pool) int { return 1 }

func (graphStructure) plainPlan() Plan                             { return PlanGraph }
func (s graphStructure) attr(id uint64) (match.Attr, bool)         { return s.Attr(id) }
func (s graphStructure) setTags(id, tags uint64)                   { s.SetTags(id, tags) }
func (s graphStructure) setTime(id uint64, t int64)                { s.SetTime(id, t) }
func (s graphStructure) setImportance(id uint64, v float32)        { s.SetImportance(id, v) }
func (s graphStructure) eachAttr(fn func(id uint64, a match.Attr)) { s.EachAttr(fn) }
func (s graphStructure) entry(id uint64, buf []byte) ([]byte, float32, float32, bool) {
	return s.Entry(id, buf)
}

// offered is how many participants p offers: its workers and the caller.
func offered(p *pool.Pool) int {
	if p == nil {
		return 1
	}
	return p.Workers() + 1
}

// searchFiltered walks the graph admitting only matches (PlanGraph), or
// scores the matches exactly on p's workers and the caller: all of them
// (PlanScan) or those among the candidates (PlanDirect).
func (s graphStructure) searchFiltered(c *queryCtx, p *pool.Pool, qs []float32, m, k int, sp scopedPlan, f *match.Filter, out []Result, counts []int) {
	ql := s.Kernel().QueryLen()
	hs := c.graphSearcher()
	hs.SetBudget(c.budget.start, c.budget.d)
	for j := 0; j < m; j++ {
		q, dst := qs[j*ql:(j+1)*ql], out[j*k:j*k:(j+1)*k]
		switch sp.plan {
		case PlanGraph:
			counts[j] = len(s.SearchFiltered(hs, q, k, sp.ef, f, dst))
			c.complete, c.covered = hs.Coverage()
		case PlanScan:
			counts[j] = len(s.Exact(c.budgetedExact(offered(p)), p, q, k, nil, f, dst))
			c.exactCoverage()
		default:
			counts[j] = len(s.Exact(c.budgetedExact(offered(p)), p, q, k, sp.cands, f, dst))
			c.exactCoverage()
		}
	}
}

// searchRanked runs the filtered scan or direct plan (the plain scan for
// a filter that is not active) by combined score.
func (s flatStructure) searchRanked(c *queryCtx, p *pool.Pool, qs []float32, m, k int, sp scopedPlan, f *match.Filter, out []Result, counts []int) {
	c.s.SetRank(&c.scorer)
	s.searchFiltered(c, p, qs, m, k, sp, f, out, counts)
	c.s.SetRank(nil)
}

// searchRanked walks the graph and sweeps the ranking columns
// (PlanGraph), or scores the matches exactly by combined score.
func (s graphStructure) searchRanked(c *queryCtx, p *pool.Pool, qs []float32, m, k int, sp scopedPlan, f *match.Filter, out []Result, counts []int) {
	if sp.plan != PlanGraph {
		es := c.exactSearcher(offered(p))
		es.SetRank(&c.scorer)
		s.searchFiltered(c, p, qs, m, k, sp, f, out, counts)
		es.SetRank(nil)
		return
	}
	ql := s.Kernel().QueryLen()
	hs := c.graphSearcher()
	hs.SetBudget(c.budget.start, c.budget.d)
	for j := 0; j < m; j++ {
		counts[j] = len(s.SearchRanked(hs, qs[j*ql:(j+1)*ql], k, sp.ef, f, &c.scorer, out[j*k:j*k:(j+1)*k]))
		c.complete, c.covered = hs.Coverage()
	}
}
