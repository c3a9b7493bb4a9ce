package astral

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/fpenv"
	"github.com/astral-engine/astral/internal/match"
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
// when asked, walks an HNSW graph above that, and scans IVF partitions
// past IVFLimitRecords records. An auto index that grows past a limit
// builds the new structure in the background, answering queries from the
// old one meanwhile, and then switches atomically.
type Index struct {
	cfg    Config
	rt     *Runtime
	adjust score.Adjust
	kern   *kernel.Kernel

	// writeMu serialises Add and Remove. mu guards which structure is live:
	// queries hold it shared; writes hold it as the structure needs (see
	// structure.sharedWrites), the switch exclusively. live changes only
	// with both held.
	writeMu  sync.Mutex
	mu       sync.RWMutex
	efSearch atomic.Int32
	nprobe   atomic.Int32 // an IVF index's partitions per query
	live     structure
	// rerank is the second copy of every vector (Config.Rerank), scored by
	// rkern; nil without one. Its writes hold mu exclusively.
	rerank *flat.Index
	rkern  *kernel.Kernel

	// While a background build runs, writes also go to pending, replayed
	// into the new structure before the switch.
	building bool
	pending  []pendingOp
	bg       sync.WaitGroup
	// switching is the background switch to a graph or IVF, compacting the
	// compaction a Remove started; writers and saves finish or wait for
	// them first (order.go). Both guarded by writeMu.
	switching  *structureSwitch
	compacting chan struct{}
	holdSwitch chan struct{} // tests: a switch's build waits until it is closed

	ctxMu sync.Mutex
	ctxs  []*queryCtx // free list: sync.Pool would drop them at each GC and allocate on the hot path

	mapped *mapping   // the file OpenFile mapped, until the first write copies it (persist.go); guarded by writeMu
	faults faultLatch // a fault reading it (fault.go)
	check  *fileCheck // OpenFile's background check (VerifyInBackground), nil if none; guarded by mu

	saves saveState // what the last save wrote, and where an appending save may continue

	attrs *attrStore
	names tagNames                      // guarded by its own lock; writers also hold writeMu
	plans [len(planNames)]atomic.Uint64 // queries answered by each plan
}

// pendingOp is one write made during a background build.
type pendingOp struct {
	id            uint64
	rec           []byte // nil for a removal or an attribute change
	adjust, scale float32
	attr          match.Attr
	retag         bool // a SetTags: attr.Tags is the new mask
	retime        bool // a Touch: attr.Time is the new time
	reimp         bool // a SetImportance: attr.Importance is the new one
	first         bool // the first id of its Add, Remove or SetTags call
	replace       bool // part of an Upsert: its removal, then its insert, then the compaction
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
	return newIndex(rt, c)
}

// newIndex makes every Index, of the checked configuration c: it builds
// the kernels and starts empty structures, which the loader replaces with
// the ones it read.
func newIndex(rt *Runtime, c Config) (*Index, error) {
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
	x := &Index{cfg: c, rt: rt, adjust: adjustOf(c.Metric, c.Storage), kern: k, attrs: newAttrStore()}
	x.efSearch.Store(int32(c.EfSearch))
	x.nprobe.Store(int32(c.NProbe))
	if c.Rerank != 0 {
		if x.rkern, err = kernel.New(nil, c.Dim, c.Rerank); err != nil {
			return nil, errorf(ErrInvalidArgument, "%v", err)
		}
		x.rerank = flat.New(x.rkern, adjustOf(c.Metric, c.Rerank))
	}
	if x.live, err = x.emptyStructure(c.Kind); err != nil {
		return nil, err
	}
	return x, nil
}

// emptyStructure returns an empty graph for KindHNSW, an untrained IVF
// index for KindIVF, else an empty flat index.
func (x *Index) emptyStructure(kind Kind) (structure, error) {
	switch kind {
	case KindHNSW:
		return x.newGraph()
	case KindIVF:
		return x.newIVF(x.cfg.NList), nil
	}
	return flatStructure{flat.New(x.kern, x.adjust)}, nil
}

func (x *Index) newGraph() (graphStructure, error) {
	g, err := hnsw.New(x.kern, x.adjust, hnsw.Config{M: x.cfg.M, EfConstruction: x.cfg.EfConstruction})
	if err != nil {
		return graphStructure{}, errorf(ErrInvalidArgument, "%v", err)
	}
	return graphStructure{g}, nil
}

// Config returns the index's configuration.
func (x *Index) Config() Config { return x.cfg }

// Len is the number of stored vectors.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.Len()
}

// has reports whether id is stored; hold writeMu.
func (x *Index) has(id uint64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.hasLocked(id)
}

// hasLocked is has with mu held (or the index not yet shared).
func (x *Index) hasLocked(id uint64) bool { return x.live.Has(id) }

// Add stores vectors (len(ids) × Dim values, row after row) under ids. On
// any error (wrong length, NaN or Inf, an id already stored or repeated)
// nothing is stored.
func (x *Index) Add(ids []uint64, vectors []float32) error {
	return x.AddWith(ids, vectors, nil)
}

// apply stores an encoded batch, then starts the switch to a graph if an
// auto index has outgrown its flat limit.
func (x *Index) apply(b *batch) error {
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.awaitCompaction()
	if err := x.ownMemory(); err != nil {
		return err
	}
	for _, id := range b.ids {
		if x.has(id) {
			return errorf(ErrDuplicateID, "id %d already stored", id)
		}
	}
	// Postings first: a query skips ids its structure does not hold yet.
	x.attrs.mu.Lock()
	for i, id := range b.ids {
		var p []byte
		if b.payloads != nil {
			p = b.payloads[i]
		}
		x.attrs.add(id, b.attr(i), p)
	}
	x.attrs.mu.Unlock()
	s := x.live
	x.mu.Lock()
	// Its own lock would let a query see a vector in one copy and not the
	// other; the copy is small next to a graph insert.
	if err := x.addRerank(b); err != nil {
		x.mu.Unlock()
		return err
	}
	if s.sharedWrites() {
		// Inserts run beside queries.
		x.mu.Unlock()
		x.mu.RLock()
		defer x.mu.RUnlock()
	} else {
		defer x.mu.Unlock()
	}
	if err := s.insert(b, x.rt.workers()); err != nil {
		return err
	}
	x.keepAdds(b, false)
	x.growIfFull()
	return nil
}

// keepAdds keeps b's inserts for the replay while a switch builds; hold
// writeMu.
func (x *Index) keepAdds(b *batch, replace bool) {
	if !x.building {
		return
	}
	stride := x.kern.Stride()
	for i, id := range b.ids {
		x.pending = append(x.pending, pendingOp{id: id, rec: b.recs[i*stride : (i+1)*stride], adjust: b.bias[i], scale: b.scales[i],
			attr: b.attr(i), first: i == 0, replace: replace})
	}
}

// addRerank adds b to the rerank copy, if any; hold mu.
func (x *Index) addRerank(b *batch) error {
	if x.rerank == nil {
		return nil
	}
	rs := x.rkern.Stride()
	x.rerank.Reserve(len(b.ids))
	for i, id := range b.ids {
		if err := x.rerank.Add(id, b.rrecs[i*rs:(i+1)*rs], b.rbias[i], 1, match.Attr{}); err != nil {
			return err // unreachable: ids were checked under writeMu
		}
	}
	return nil
}

// growIfFull starts an auto index's switch to a graph once its flat
// records pass FlatLimitBytes, or to IVF once its records pass
// IVFLimitRecords (from flat directly, or from the graph); hold writeMu
// and mu (shared is enough).
func (x *Index) growIfFull() {
	if x.cfg.Kind != KindAuto {
		return
	}
	limit, ivfOK := x.cfg.ivfLimit()
	toIVF := ivfOK && int64(x.live.Len()) > limit
	switch s := x.live.(type) {
	case flatStructure:
		switch {
		case toIVF && (!x.building || x.switching != nil && x.switching.nlist == 0):
			// Straight to IVF, dropping a graph still building.
			x.startSwitch(flatSnapshot(s), true)
		case !x.building && s.RecordBytes() > x.cfg.FlatLimitBytes:
			x.startSwitch(flatSnapshot(s), false)
		}
	case graphStructure:
		if toIVF && !x.building {
			x.startSwitch(graphSnapshot(s), true)
		}
	}
}

// startSwitch builds the new structure from snap in the background; writes
// from now on are kept for the replay. Hold writeMu and mu.
func (x *Index) startSwitch(snap *batch, toIVF bool) {
	sw := &structureSwitch{built: make(chan struct{})}
	if toIVF {
		sw.nlist = cmp.Or(x.cfg.NList, AutoNList(len(snap.ids)))
		sw.nprobe = min(cmp.Or(x.cfg.NProbe, DefaultNProbe(sw.nlist)), sw.nlist)
	}
	x.building, x.pending, x.switching = true, nil, sw
	x.bg.Add(1)
	go x.switchInBackground(sw, snap)
}

// flatSnapshot copies a flat index's records and attributes.
func flatSnapshot(f flatStructure) *batch {
	ids, recs, adj, scales := f.Snapshot()
	parts := f.Parts()
	attrs := make([]match.Attr, len(ids))
	for i := range attrs {
		attrs[i] = match.Attr{Tags: parts.Tags[i], Owner: parts.Owners[i], Time: parts.Times[i], Importance: parts.Imps[i]}
	}
	return &batch{ids: ids, recs: recs, bias: adj, scales: scales, attrs: attrs}
}

// graphSnapshot copies a graph's live records and attributes, in slot
// order; writers are held off (writeMu).
func graphSnapshot(g graphStructure) *batch {
	b := &batch{}
	g.EachAttr(func(id uint64, a match.Attr) {
		b.ids, b.attrs = append(b.ids, id), append(b.attrs, a)
	})
	stride := g.Kernel().Stride()
	b.recs = make([]byte, len(b.ids)*stride)
	b.bias, b.scales = make([]float32, len(b.ids)), make([]float32, len(b.ids))
	for i, id := range b.ids {
		// Entry appends into the record's own room in b.recs.
		_, b.bias[i], b.scales[i], _ = g.Entry(id, b.recs[i*stride:i*stride:(i+1)*stride])
	}
	return b
}

// sortByID puts b's records in ascending id order, in place (b is a
// snapshot of the switch's own: a second copy would double its memory).
// IVF trains from a sample of rows, and the same records reach it from the
// flat index or from the graph (a graph switch finished or dropped, as
// timing had it): by id, both give the same partitions.
func sortByID(b *batch, stride int) {
	n := len(b.ids)
	if b.attrs == nil {
		b.attrs = make([]match.Attr, n)
	}
	if len(b.bias) != n {
		b.bias = make([]float32, n)
	}
	if len(b.scales) != n {
		b.scales = make([]float32, n)
	}
	order := make([]int32, n) // order[to] = from
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int { return cmp.Compare(b.ids[i], b.ids[j]) })
	// Each cycle of the permutation moves its rows along, one held aside.
	row := make([]byte, stride)
	for start := range order {
		if order[start] < 0 || int(order[start]) == start {
			continue
		}
		id, a, bias, scale := b.ids[start], b.attrs[start], b.bias[start], b.scales[start]
		copy(row, b.recs[start*stride:])
		to := start
		for {
			from := int(order[to])
			order[to] = -1
			if from == start {
				b.ids[to], b.attrs[to], b.bias[to], b.scales[to] = id, a, bias, scale
				copy(b.recs[to*stride:(to+1)*stride], row)
				break
			}
			b.ids[to], b.attrs[to], b.bias[to], b.scales[to] = b.ids[from], b.attrs[from], b.bias[from], b.scales[from]
			copy(b.recs[to*stride:(to+1)*stride], b.recs[from*stride:(from+1)*stride])
			to = from
		}
	}
}

// switchInBackground builds sw's structure from a snapshot while queries
// go on, then replays the writes made meanwhile and swaps, unless a save
// has already done so or a later switch dropped sw (finishSwitch).
func (x *Index) switchInBackground(sw *structureSwitch, snap *batch) {
	defer x.bg.Done()
	// This thread may carry a host's FTZ/DAZ (threads inherit it).
	defer fpenv.Leave(fpenv.Enter())
	if x.holdSwitch != nil {
		<-x.holdSwitch
	}
	if sw.nlist > 0 {
		sortByID(snap, x.kern.Stride())
		sw.to, sw.err = x.buildIVF(snap, sw.nlist)
	} else {
		var g graphStructure
		if g, sw.err = x.newGraph(); sw.err == nil {
			sw.err = g.build(snap, x.rt.workers())
		}
		sw.to = g
	}
	close(sw.built)
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.finishSwitch(sw)
}

// Wait returns once any background graph build or compaction has finished.
func (x *Index) Wait() { x.bg.Wait() }

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
	s := x.live
	// Postings last: a query skips ids its structure no longer holds.
	defer x.forget(s, ids)()
	if s.sharedWrites() {
		x.mu.RLock()
		if err := s.remove(ids); err != nil {
			x.mu.RUnlock()
			return err
		}
		x.keepRemoves(ids)
		x.compactIfSparse(s, false)
		x.mu.RUnlock()
		// Only now leave the rerank copy: a query that found the ids
		// before they were removed still rescores them.
		x.mu.Lock()
		defer x.mu.Unlock()
		return x.removeRerank(ids)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := s.remove(ids); err != nil {
		return err
	}
	x.keepRemoves(ids)
	return x.removeRerank(ids)
}

// keepRemoves keeps a Remove for the replay while a switch builds; hold
// writeMu.
func (x *Index) keepRemoves(ids []uint64) {
	if x.building {
		for i, id := range ids {
			x.pending = append(x.pending, pendingOp{id: id, first: i == 0})
		}
	}
}

// forget reads the attributes of ids, still stored in s, and returns what
// drops them from the postings once they are removed; hold writeMu.
func (x *Index) forget(s structure, ids []uint64) func() {
	x.mu.RLock()
	attrs := make([]match.Attr, len(ids))
	for i, id := range ids {
		attrs[i], _ = s.attr(id)
	}
	x.mu.RUnlock()
	return func() {
		x.attrs.mu.Lock()
		defer x.attrs.mu.Unlock()
		for i, id := range ids {
			x.attrs.remove(id, attrs[i])
		}
	}
}

// compactIfSparse compacts s once its tombstones (which still route but
// lengthen searches) are a fifth of it: at once with now (s not yet live),
// otherwise in the background, and the next write or save waits for it
// (awaitCompaction). Hold writeMu.
func (x *Index) compactIfSparse(s structure, now bool) {
	if s.tombstones()*5 <= s.Len() {
		return
	}
	if now {
		s.compact(x.rt.workers())
		return
	}
	done := make(chan struct{})
	x.compacting = done
	x.bg.Add(1)
	go func() {
		defer x.bg.Done()
		defer close(done)
		// This thread may carry a host's FTZ/DAZ (threads inherit it).
		defer fpenv.Leave(fpenv.Enter())
		s.compact(x.rt.workers())
	}()
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
	Payloads       int     // records that hold a payload
	PayloadBytes   int64   // their bytes (not in Bytes)
	Owners         int     // distinct owners among the records
	TagNames       int     // tag bits with a name (SetTagName)
}

// PlanCounts is how many searches each plan answered since the index was
// made or loaded (a batch counts once per MaxBatch queries).
type PlanCounts struct{ Scan, Direct, Graph uint64 }

// PlanCounts returns the plans' counts so far.
func (x *Index) PlanCounts() PlanCounts {
	return PlanCounts{Scan: x.plans[PlanScan].Load(), Direct: x.plans[PlanDirect].Load(), Graph: x.plans[PlanGraph].Load()}
}

// Stats returns the index's current statistics.
func (x *Index) Stats() Stats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.live
	st := Stats{Len: s.Len(), Dim: x.cfg.Dim, Metric: x.cfg.Metric, Kind: s.kind(), Storage: x.cfg.Storage,
		Kernel: x.kern.Name(), Participants: s.participants(x.rt.workers()),
		Bytes: int64(s.Bytes()), BytesPerVector: s.bytesPerVector()}
	if x.rerank != nil {
		st.Bytes += int64(x.rerank.Bytes())
		st.BytesPerVector += flatStructure{x.rerank}.bytesPerVector()
	}
	x.attrs.mu.RLock()
	st.Payloads, st.PayloadBytes, st.Owners = len(x.attrs.payloads), x.attrs.payBytes, len(x.attrs.owners)
	x.attrs.mu.RUnlock()
	x.names.mu.RLock()
	st.TagNames = x.names.count()
	x.names.mu.RUnlock()
	return st
}
