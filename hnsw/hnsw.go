// Package hnsw is Astral's approximate index: a hierarchical navigable
// small world graph (Malkov & Yashunin, 2016) over records of any storage
// kind (E5M2, E4M3, int8, f16, f32), scored by the same kernels and in the
// same order as the exact index, so a graph result carries the very score
// flat search would give it.
//
// # Layout
//
// Level 0 is one fixed-stride block per node: the record, its adjust value,
// a packed state word (link count, version, level, deleted), id and up to
// 2·M links, so the lines one prefetch brings serve both scoring and
// expansion. Blocks are packed a word apart (storage.go). Upper levels (M
// links each) live apart.
//
// # Concurrency
//
// Insert, Delete, Search, Build and Compact may run at once from any
// goroutines. Link lists are written under a per-node (striped) lock and
// read through a version word, so a search never sees half a list and takes
// no lock. Memory grows by copying into a new generation that later
// searches pick up; a search in flight keeps the one it started on.
//
// # Scores
//
// A query is laid out by the kernel's PrepareQuery, prepared as the caller's
// metric needs (normalized for cosine, doubled for L2), and a record's
// score is the kernel dot adjusted by the record's value, as in flat. For
// construction the query is a stored record decoded and prepared the same
// way: AdjustScale multiplies it by its own value (normalizing it),
// AdjustSubtract doubles it and also subtracts its own value, so that
// scores seen from different nodes compare (-|a-b|² for L2).
package hnsw

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/slotmap"
	"github.com/astral-engine/astral/kernel"
)

const (
	// DefaultM is the links per node on upper levels; level 0 keeps 2·M.
	DefaultM = 16
	// DefaultEfConstruction is the search width used to insert a node.
	DefaultEfConstruction = 200
	// MaxM bounds M (level-0 blocks hold 2·M links).
	MaxM = 128
	// MaxEf bounds ef and k of a search.
	MaxEf = 4096
	// maxLevel caps a node's level; with M >= 2 higher draws are too rare
	// to matter.
	maxLevel = 31
	// upperBeam caps the beam a search keeps on level 1 (ef/2 below it).
	upperBeam = 16
	// nLocks is the number of striped node locks.
	nLocks = 4096
)

var (
	ErrDuplicateID = errors.New("hnsw: duplicate id")
	ErrNotFound    = errors.New("hnsw: id not found")
	ErrRecordSize  = errors.New("hnsw: record length is not the kernel's stride")
	ErrConfig      = errors.New("hnsw: invalid configuration")
)

// Config holds the graph's parameters; zero fields take the defaults.
type Config struct {
	// M is the number of links a node keeps on upper levels (2·M on level
	// 0) and selects when inserted there (M + M/4 on level 0). 2 to MaxM;
	// default 16.
	M int
	// EfConstruction is the candidate list size of an insert; default 200,
	// raised to M when lower.
	EfConstruction int
	// Seed draws the levels: a node's level is a function of Seed and its
	// id alone, so the same inserts give the same levels in any order.
	Seed uint64
	// KeepPruned fills a node's list up to its size with the candidates
	// the heuristic discarded (the paper's keepPrunedConnections).
	KeepPruned bool
}

// Graph is an HNSW index. All methods are safe for concurrent use.
type Graph struct {
	kern   *kernel.Kernel
	adjust score.Adjust
	cfg    Config

	maxM, maxM0 int
	// ownM0 is how many level-0 links an inserted node selects for itself:
	// M + M/4, where hnswlib takes M and FAISS 2·M. The extra diverse links
	// buy recall at equal ef for little latency; 2·M costs much more time
	// (docs/BENCHMARKS.md, "HNSW against hnswlib", has the measurements).
	ownM0    int
	recBytes int // record length (the kernel's stride)
	recWords int // record length in words: the header follows
	bw       int // block length in words
	bstride  int // block length in bytes
	levelCut [maxLevel + 1]uint64

	st atomic.Pointer[storage]
	// gate is held shared by every writer of the current storage and
	// exclusively by growth and Compact, which replace it.
	gate sync.RWMutex
	// allocMu guards ids, slot and up allocation, and deletion flags.
	allocMu sync.Mutex
	ids     slotmap.Map
	// epMu serialises entry point changes.
	epMu  sync.Mutex
	locks [nLocks]sync.Mutex

	freeMu sync.Mutex
	free   []*Searcher // scratch of inserts

	// impCeil bounds every node's importance (float32 bits, only raised;
	// 0 bits until a node has a larger one): SearchRanked's sweep floors
	// on it.
	impCeil atomic.Uint32

	// order speeds up SearchRanked (order.go): nil until built, dropped by
	// Compact. orderMu serialises the time and importance writers with a
	// build's copy; building is the order being built (guarded by it);
	// orderBusy is set while a build runs.
	order     atomic.Pointer[rankOrder]
	orderMu   sync.Mutex
	building  *rankOrder
	orderBusy atomic.Bool
	// noRankOrder makes SearchRanked sweep every node (tests compare).
	noRankOrder bool
}

// raiseImpCeil makes impCeil at least v.
func (g *Graph) raiseImpCeil(v float32) {
	for {
		old := g.impCeil.Load()
		if v <= math.Float32frombits(old) || g.impCeil.CompareAndSwap(old, math.Float32bits(v)) {
			return
		}
	}
}

// New returns an empty graph whose records k scores, with adjust applied
// to each score as in flat.
func New(k *kernel.Kernel, adjust score.Adjust, cfg Config) (*Graph, error) {
	if cfg.M == 0 {
		cfg.M = DefaultM
	}
	if cfg.EfConstruction == 0 {
		cfg.EfConstruction = DefaultEfConstruction
	}
	if cfg.M < 2 || cfg.M > MaxM || cfg.EfConstruction < 0 || k == nil || !adjust.Valid() {
		return nil, ErrConfig
	}
	cfg.EfConstruction = min(max(cfg.EfConstruction, cfg.M), MaxEf)
	g := &Graph{kern: k, adjust: adjust, cfg: cfg, maxM: cfg.M, maxM0: 2 * cfg.M, ownM0: cfg.M + cfg.M/4}
	g.recBytes = k.Stride()
	g.recWords = g.recBytes / 4
	if adjust == score.AdjustScaleSubtract {
		g.recWords++ // the record's multiplier, just before the header
	}
	// No rounding to cache lines: it would cost 44 bytes a node at dim
	// 384, M 16, and the kernels take unaligned records.
	g.bw = g.recWords + hLinks + g.maxM0
	g.bstride = g.bw * 4
	// A node reaches level l with probability M^-l: the paper's level
	// multiplier 1/ln M, drawn with integer cut-offs so no libm is involved.
	cut, _ := bits.Div64(1, 0, uint64(cfg.M))
	for l := 1; l <= maxLevel; l++ {
		g.levelCut[l] = cut
		cut /= uint64(cfg.M)
	}
	g.st.Store(g.newStorage(0, 0))
	return g, nil
}

// Config returns the graph's parameters, defaults filled in.
func (g *Graph) Config() Config { return g.cfg }

// Kernel returns the kernel scoring the records.
func (g *Graph) Kernel() *kernel.Kernel { return g.kern }

// Adjust returns how record values adjust scores.
func (g *Graph) Adjust() score.Adjust { return g.adjust }

// levelFor draws id's level from a PCG keyed by the seed and the id.
func (g *Graph) levelFor(id uint64) int {
	var r rand.PCG
	r.Seed(g.cfg.Seed, id)
	h := r.Uint64()
	l := 0
	for l < maxLevel && h < g.levelCut[l+1] {
		l++
	}
	return l
}

// Len is the number of live (not deleted) nodes.
func (g *Graph) Len() int {
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	return g.ids.Len()
}

// Has reports whether id is stored and not deleted.
func (g *Graph) Has(id uint64) bool {
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	return g.ids.Has(id)
}

// Deleted is the number of tombstones Compact would reclaim.
func (g *Graph) Deleted() int {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	return g.st.Load().n - g.ids.Len()
}

// Bytes is the memory the graph holds: blocks, upper lists and the id map.
func (g *Graph) Bytes() int {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	st := g.st.Load()
	return len(st.words)*4 + len(st.up)*4 + g.ids.Bytes() + nLocks*8
}

// BytesPerVector is the graph's storage per node: level-0 blocks plus the
// upper-level words handed out, over the slots in use (tombstones
// included). The id map and locks are left out, as hnswlib's per-vector
// figure leaves out its label map.
func (g *Graph) BytesPerVector() float64 {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	st := g.st.Load()
	if st.n == 0 {
		return 0
	}
	return float64(st.n*g.bstride+st.upLen*4) / float64(st.n)
}

// Reserve makes room for n more nodes and their expected upper levels, so
// inserts up to that count almost never copy the graph.
func (g *Graph) Reserve(n int) {
	if n > 0 {
		// Expected upper words: sum over l >= 1 of M^-l (1+M), plus a
		// version word per node above level 0.
		g.grow(n, n*(g.maxM+1)/(g.maxM-1)+n/g.maxM+g.upperWords(4))
	}
}

func (g *Graph) lock(slot uint32) *sync.Mutex { return &g.locks[slot&(nLocks-1)] }

// Insert adds one record (kernel stride bytes, zero-padded, as flat stores
// it) under id with its adjust value, its multiplier (read only by
// score.AdjustScaleSubtract) and its attributes.
func (g *Graph) Insert(id uint64, rec []byte, adj, scale float32, a match.Attr) error {
	if len(rec) != g.recBytes {
		return ErrRecordSize
	}
	level := g.levelFor(id)
	g.gate.RLock()
	defer g.gate.RUnlock()
	in := nodes{recs: rec, adj: []float32{adj}, scales: []float32{scale}, attrs: []match.Attr{a}}
	slot, err := g.allocate([]uint64{id}, []uint8{uint8(level)}, &in)
	if err != nil {
		return err
	}
	s := g.scratch()
	g.connect(g.st.Load(), s, slot, level)
	g.release(s)
	return nil
}

// nodes is what allocate writes into new slots: records back to back,
// and per node an adjust value, a multiplier and attributes (each nil:
// zero, multiplier 1).
type nodes struct {
	recs        []byte
	adj, scales []float32
	attrs       []match.Attr
}

// allocate hands out consecutive slots for ids (all new and distinct) and
// writes their ids, levels, upper-list offsets and in's records and
// attributes, all before the slots count as handed out: Exact reads every
// slot below the count it sees under allocMu. The gate must be held
// shared; allocate lets go of it while it grows the storage.
func (g *Graph) allocate(ids []uint64, levels []uint8, in *nodes) (uint32, error) {
	up := 0
	for _, l := range levels {
		up += g.upperWords(int(l))
	}
	for {
		g.allocMu.Lock()
		for _, id := range ids {
			if g.ids.Has(id) {
				g.allocMu.Unlock()
				return 0, ErrDuplicateID
			}
		}
		st := g.st.Load()
		if st.n+len(ids) <= st.cap && st.upLen+up <= len(st.up) {
			if st.n+len(ids) > maxNodes {
				g.allocMu.Unlock()
				return 0, errors.New("hnsw: too many nodes")
			}
			first := uint32(st.n)
			for i, id := range ids {
				slot := first + uint32(i)
				g.writeNode(st, slot, in, i)
				h := g.head(slot)
				st.words[h+hIDLo], st.words[h+hIDHi] = uint32(id), uint32(id>>32)
				if l := int(levels[i]); l > 0 {
					st.words[h+hUpper] = uint32(st.upLen)
					st.upLen += g.upperWords(l)
				}
				atomic.StoreUint32(&st.words[h+hState], uint32(levels[i])<<levelShift)
				g.ids.Put(id, int32(slot))
			}
			st.n += len(ids)
			g.allocMu.Unlock()
			return first, nil
		}
		g.allocMu.Unlock()
		g.gate.RUnlock()
		g.grow(len(ids), up)
		g.gate.RLock()
	}
}

// writeNode stores input i of in (record, adjust value, multiplier,
// attributes) into slot before it is linked.
func (g *Graph) writeNode(st *storage, slot uint32, in *nodes, i int) {
	copy(g.record(st, slot), in.recs[i*g.recBytes:(i+1)*g.recBytes])
	h := g.head(slot)
	var adj float32
	if in.adj != nil {
		adj = in.adj[i]
	}
	st.words[h+hAdj] = math.Float32bits(adj)
	if g.adjust == score.AdjustScaleSubtract {
		scale := float32(1)
		if in.scales != nil {
			scale = in.scales[i]
		}
		st.words[h-1] = math.Float32bits(scale)
	}
	var a match.Attr
	if in.attrs != nil {
		a = in.attrs[i]
	}
	atomic.StoreUint64(&st.tags[slot], a.Tags)
	st.owners[slot] = a.Owner
	atomic.StoreInt64(&st.times[slot], a.Time)
	storeImp(&st.imps[slot], a.Importance)
	g.raiseImpCeil(a.Importance)
}

// Delete tombstones id: searches stop returning it at once, while it keeps
// routing them until Compact reconnects its neighbours and frees its slot.
func (g *Graph) Delete(id uint64) error {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	slot, ok := g.slotOf(id)
	if !ok {
		return ErrNotFound
	}
	g.ids.Delete(id)
	g.markDeleted(g.st.Load(), slot)
	return nil
}

// markDeleted sets slot's deleted bit with an atomic or, so it cannot undo
// a concurrent writeLinks' adds to the same word, nor they it.
func (g *Graph) markDeleted(st *storage, slot uint32) {
	atomic.OrUint32(&st.words[g.head(slot)+hState], flagDeleted)
}

func (g *Graph) scratch() *Searcher {
	g.freeMu.Lock()
	defer g.freeMu.Unlock()
	if n := len(g.free); n > 0 {
		s := g.free[n-1]
		g.free = g.free[:n-1]
		return s
	}
	return NewSearcher()
}

func (g *Graph) release(s *Searcher) {
	g.freeMu.Lock()
	g.free = append(g.free, s)
	g.freeMu.Unlock()
}

// Search finds the k best live nodes for the laid-out query qp (QueryLen
// values, prepared for the metric) with a candidate list of ef (raised to k;
// both capped at MaxEf) and appends them to dst[:0], best first (higher
// score, then lower id). With cap(dst) >= k and a warmed-up s it allocates
// nothing. An empty graph or k < 1 gives no results.
func (g *Graph) Search(s *Searcher, qp []float32, k, ef int, dst []score.Result) []score.Result {
	dst = dst[:0]
	if len(qp) < g.kern.QueryLen() {
		panic("hnsw: query shorter than the kernel's QueryLen")
	}
	if k < 1 {
		return dst
	}
	k = min(k, MaxEf)
	ef = min(max(ef, k), MaxEf)
	st := g.st.Load()
	if !g.descend(st, s, qp, ef) {
		return dst
	}
	g.searchLayer(st, s, qp, 0, s.entries, 0, noSlot, false, ef)
	return s.beam.appendResults(g, st, k, dst)
}

// descend readies s for a level-0 search of width ef and walks the upper
// levels down to it, leaving level 0's entry points in s.entries; false
// for an empty graph.
func (g *Graph) descend(st *storage, s *Searcher, qp []float32, ef int) bool {
	ep := st.entry.Load()
	if ep == noEntry {
		return false
	}
	s.begin(st.cap, g.maxM0, ef)
	cur := g.score1(st, s, qp, 0, uint32(ep))
	top := int(ep >> 32)
	for l := top; l > 1; l-- {
		cur = g.greedy(st, s, qp, 0, cur, l)
	}
	s.entries = append(s.entries[:0], cur)
	if top >= 1 {
		// Level 1 gets a small beam rather than a greedy step, and all of
		// its best nodes enter level 0: a greedy descent often ends beside
		// the query's cluster, which a small ef cannot leave (docs/BENCHMARKS.md, "HNSW
		// against hnswlib", has the measurements).
		g.searchLayer(st, s, qp, 0, s.entries, 1, noSlot, true, min(max(ef/2, 1), upperBeam))
		s.entries = s.beam.appendLive(g, st, s.entries[:0])
	}
	return true
}

// entryOf turns a kernel dot of slot into its scored entry: the record's
// adjustment (score.Adjust.Of), minus own (construction only, see the
// package comment; own is 0 wherever subtracting it could change bits).
func (g *Graph) entryOf(st *storage, slot uint32, dot, own float32) score.Entry {
	return score.Entry{Score: g.scoreOf(st, slot, dot, own), Slot: slot, ID: g.idOf(st, slot)}
}

// scoreOf is entryOf's score alone.
func (g *Graph) scoreOf(st *storage, slot uint32, dot, own float32) float32 {
	h := g.head(slot)
	var mul float32
	if g.adjust == score.AdjustScaleSubtract {
		mul = math.Float32frombits(st.words[h-1])
	}
	return score.Ranked(g.adjust.Of(dot, math.Float32frombits(st.words[h+hAdj]), mul) - own)
}

// adjustScores turns the kernel dots of ids into their scores in place,
// each exactly scoreOf's, with the adjustment chosen once for the list.
func (g *Graph) adjustScores(st *storage, ids []uint32, scores []float32, own float32) {
	scores = scores[:len(ids)]
	w, bw := st.words, g.bw
	at := g.recWords + hAdj // the adjust value's word in a block
	switch g.adjust {
	case score.AdjustScale:
		for i, n := range ids {
			v := math.Float32frombits(w[int(n)*bw+at])
			scores[i] = score.Ranked(score.AdjustScale.Of(scores[i], v, 0) - own)
		}
	case score.AdjustSubtract:
		for i, n := range ids {
			v := math.Float32frombits(w[int(n)*bw+at])
			scores[i] = score.Ranked(score.AdjustSubtract.Of(scores[i], v, 0) - own)
		}
	default:
		for i, n := range ids {
			scores[i] = g.scoreOf(st, n, scores[i], own)
		}
	}
}

// score1 scores one node.
func (g *Graph) score1(st *storage, s *Searcher, qp []float32, own float32, slot uint32) score.Entry {
	s.ids[0] = slot
	s.prof.scored(1, 1)
	g.kern.ScanIDs(qp, st.bytes, g.bstride, s.ids[:1], s.scores[:1])
	return g.entryOf(st, slot, s.scores[0], own)
}

// greedy walks level l from cur to a local best: the upper-level descent.
func (g *Graph) greedy(st *storage, s *Searcher, qp []float32, own float32, cur score.Entry, l int) score.Entry {
	for {
		links := g.readLinks(st, cur.Slot, l, s.links)
		if len(links) == 0 {
			return cur
		}
		scores := s.scores[:len(links)]
		s.prof.expand()
		s.prof.links(len(links))
		s.prof.scored(l, len(links))
		g.kern.ScanIDs(qp, st.bytes, g.bstride, links, scores)
		best := cur
		for i, n := range links {
			if e := g.entryOf(st, n, scores[i], own); e.Better(best) {
				best = e
			}
		}
		if best.Slot == cur.Slot {
			return cur
		}
		cur = best
	}
}

// searchLayerLive is the construction search: it keeps live nodes only,
// unless every node it reaches is deleted; then it links the new node to
// those, which still route, rather than leave it unreachable until Compact.
// It appends what it found to dst, best first.
func (g *Graph) searchLayerLive(st *storage, s *Searcher, qp []float32, own float32, entries []score.Entry, l int, self uint32, dst []score.Entry) []score.Entry {
	efc := g.cfg.EfConstruction
	g.searchLayer(st, s, qp, own, entries, l, self, false, efc)
	if s.beam.live == 0 {
		g.searchLayer(st, s, qp, own, entries, l, self, true, efc)
	}
	return s.beam.appendLive(g, st, dst)
}

// searchLayer is the paper's SEARCH-LAYER: a best-first walk of level l
// from entries keeping the k best live nodes in s.beam. Deleted nodes are
// walked through but kept only with keepDeleted. self, when not noSlot,
// is the node being inserted, which must not find itself. A budgeted
// search (s.SetBudget) stops expanding level 0 when its time is up.
func (g *Graph) searchLayer(st *storage, s *Searcher, qp []float32, own float32, entries []score.Entry, l int, self uint32, keepDeleted bool, k int) {
	var skip uint32 = flagDeleted
	if keepDeleted {
		skip = 0
	}
	s.newEpoch()
	b := &s.beam
	b.reset(k)
	if self != noSlot {
		s.visit(self)
	}
	for _, e := range entries {
		if s.visit(e.Slot) {
			b.insert(g, st, e.Score, e.Slot, g.flags(st, e.Slot)&skip != 0)
		}
	}
	for {
		c, ok := b.next()
		if !ok {
			break
		}
		if l == 0 {
			if s.budget > 0 && s.budgetSpent() {
				s.left = 1 + b.unexpanded()
				break
			}
			if n, ok := b.upcoming(); ok {
				g.prefetchList(st, n)
			}
		}
		ids, scores := g.expand(st, s, qp, own, c, l)
		for i, n := range ids {
			// Most neighbours score below the worst kept: refused on the
			// score alone, before the node's flags are read.
			sc := scores[i]
			if sc < b.bound {
				continue
			}
			if dead := g.flags(st, n)&skip != 0; b.insert(g, st, sc, n, dead) {
				s.prof.pushed()
				if !dead {
					s.prof.admitted()
				}
			}
		}
	}
}

// expand reads c's links on level l, marks them visited and scores those
// new to s's search: their slots and scores, empty when there are none.
func (g *Graph) expand(st *storage, s *Searcher, qp []float32, own float32, c uint32, l int) ([]uint32, []float32) {
	var ids []uint32
	if l == 0 {
		var n int
		ids, n = g.unvisitedLinks(st, s, c)
		s.prof.expand()
		s.prof.links(n)
	} else {
		links := g.readLinks(st, c, l, s.links)
		s.prof.expand()
		s.prof.links(len(links))
		ids = freshLinks(s.ids, links, s.visited[:st.cap], s.epoch)
	}
	scores := s.scores[:len(ids)]
	if len(ids) > 0 {
		s.prof.scored(l, len(ids))
		g.kern.ScanIDs(qp, st.bytes, g.bstride, ids, scores)
		g.adjustScores(st, ids, scores, own)
	}
	return ids, scores
}

// prepare lays out slot's record as a construction query into dst and
// returns it with the node's own term (see the package comment).
func (g *Graph) prepare(st *storage, s *Searcher, slot uint32, dst []float32) ([]float32, float32) {
	mul, own := g.queryTerms(st, slot)
	switch g.kern.Storage() {
	case kernel.E5M2:
		return layoutRecord(dst, g.record(st, slot), mul), own
	case kernel.Int8:
		// The codes as they are: scores between records are exact.
		return kernel.Int8RecordQuery(dst, g.record(st, slot), mul), own
	}
	// The other kinds: decode, scale, and prepare as a query is.
	v := s.dec[:g.recBytes/g.kern.Storage().BytesPerComponent()] // sized by buffers
	kernel.DecodeUnits(g.kern.Storage(), v, g.record(st, slot))
	for i := range v {
		v[i] = float32(v[i] * mul)
	}
	return g.kern.PrepareQuery(dst, v), own
}

// queryTerms are slot's record's multiplier and own term as a
// construction query.
func (g *Graph) queryTerms(st *storage, slot uint32) (mul, own float32) {
	adj := g.adjOf(st, slot)
	switch g.adjust {
	case score.AdjustScale:
		return adj, 0
	case score.AdjustSubtract:
		return 2, adj
	case score.AdjustScaleSubtract:
		return 2 * math.Float32frombits(st.words[g.head(slot)-1]), adj
	}
	return 1, 0
}

// layoutRecord decodes rec (a multiple of kernel.GroupLen components),
// multiplies each value by scale and lays the result out exactly as
// kernel.LayoutQuery would: in every 32 components the first 16's evens,
// the second 16's evens, then their odds, and values below 2^-87 as +0.
// It is LayoutQuery fused with the decode, with no index arithmetic: graph
// construction lays out a record for every node its heuristic keeps.
func layoutRecord(dst []float32, rec []byte, scale float32) []float32 {
	dst = dst[:len(rec)]
	for b := 0; b+32 <= len(rec); b += 32 {
		r := rec[b : b+32 : b+32]
		d := dst[b : b+32 : b+32]
		for j := 0; j < 8; j++ {
			d[j] = flushed(float32(kernel.DecodeE5M2(r[2*j]) * scale))
			d[8+j] = flushed(float32(kernel.DecodeE5M2(r[16+2*j]) * scale))
			d[16+j] = flushed(float32(kernel.DecodeE5M2(r[2*j+1]) * scale))
			d[24+j] = flushed(float32(kernel.DecodeE5M2(r[17+2*j]) * scale))
		}
	}
	return dst
}

// flushed is LayoutQuery's rule: |v| < 2^-87 (float32 bits below
// 0x14000000, signed zeros included) becomes +0.
func flushed(v float32) float32 {
	if math.Float32bits(v)&0x7fffffff < 0x14000000 {
		return 0
	}
	return v
}

// buffers sizes the construction scratch of s for g.
func (g *Graph) buffers(s *Searcher) {
	ql := g.kern.QueryLen()
	if len(s.q) < ql {
		s.q, s.qn = make([]float32, ql), make([]float32, ql)
		s.selQ = nil
	}
	if len(s.selQ) < g.maxM0*ql {
		s.selQ = make([]float32, g.maxM0*ql)
		s.selScratch = make([]float32, ql)
		s.selOut = make([]float32, g.maxM0)
	}
	if pdim := g.recBytes / g.kern.Storage().BytesPerComponent(); len(s.dec) < pdim {
		s.dec = make([]float32, pdim)
	}
}

// selectNeighbors is the paper's heuristic (Algorithm 4, without extending
// the candidates): take candidates best first and keep one only if it is
// closer to the base node than to every one kept so far, up to m. cands
// must be sorted best first with scores seen from the base node. The kept
// nodes are returned in s.sel (best first).
//
// With s.marked, the candidates carrying the visited mark of s's epoch
// are clean: an earlier run kept them together, from the same base and
// with the same scores, so none was closer to another one before it than
// to the base. Int8 then weighs a clean candidate against the kept nodes
// that are not clean only, and the choice is the same.
func (g *Graph) selectNeighbors(st *storage, s *Searcher, cands []score.Entry, m int) []score.Entry {
	ql := g.kern.QueryLen()
	sel, pruned := s.sel[:0], s.pruned[:0]
	kept := s.selSlots[:0]
	owns := s.owns[:0] // own terms of the kept nodes' queries
	byCandidate := g.kern.Storage() == kernel.Int8
	// A clean candidate's worst (highest) score against the fresh kept
	// nodes before it: each fresh node, once kept, scores all the clean
	// candidates after it in one call (scoreColumn).
	columns := byCandidate && s.marked
	var worst []float32
	if columns {
		worst = s.selWorst[:0]
		for range cands {
			worst = append(worst, float32(math.Inf(-1)))
		}
		s.selWorst = worst
	}
	// Without the clean marks, Int8 scores the first kept node against
	// the candidates after it a window at a time (into first, up to
	// firstEnd): most pruned candidates are closer to it than to the base,
	// and one call for a window costs less than a row call each.
	var first []float32
	firstEnd := 0
	if byCandidate && !columns {
		if cap(s.selWorst) < len(cands) {
			s.selWorst = make([]float32, len(cands))
		}
		first = s.selWorst[:len(cands)]
	}
	for j, e := range cands {
		if len(sel) >= m {
			break
		}
		good := true
		clean := columns && s.visited[e.Slot] == s.epoch
		switch {
		case clean:
			good = !(worst[j] > e.Score)
		case len(kept) > 0 && byCandidate && !columns:
			if j >= firstEnd {
				firstEnd = min(j+firstWindow, len(cands))
				g.scoreAgainst(st, s, kept[0], cands[j:firstEnd], first[j:firstEnd])
			}
			good = !(first[j] > e.Score) && (len(kept) == 1 || g.fartherThanKept(st, s, e, kept[1:]))
		case len(kept) > 0 && byCandidate:
			good = g.fartherThanKept(st, s, e, kept)
		case len(kept) > 0:
			// One call scores e against every kept node's query (a batch
			// decodes e's record once), the same bits as one Scan each.
			out := s.selOut[:len(kept)]
			s.prof.selected(len(sel))
			g.kern.ScanBatch(s.selQ[:len(sel)*ql], len(sel), g.record(st, e.Slot), s.selScratch, out)
			for j, dot := range out {
				if g.scoreOf(st, e.Slot, dot, owns[j]) > e.Score {
					good = false // e is closer to a kept node than to the base
					break
				}
			}
		}
		if !good {
			if g.cfg.KeepPruned {
				pruned = append(pruned, e)
			}
			continue
		}
		sel, kept = append(sel, e), append(kept, e.Slot)
		if columns && !clean && len(sel) < m {
			g.scoreColumn(st, s, e.Slot, cands[j+1:], worst[j+1:])
		}
		if !byCandidate && len(sel) < m {
			_, own := g.prepare(st, s, e.Slot, s.selQ[(len(sel)-1)*ql:len(sel)*ql])
			owns = append(owns, own)
		}
	}
	for _, e := range pruned {
		if len(sel) >= m {
			break
		}
		sel = append(sel, e)
	}
	s.sel, s.pruned, s.owns, s.selSlots = sel, pruned, owns, kept
	return sel
}

// fartherThanKept reports whether Int8 candidate e scores no higher
// against any kept node than against the base. A record is a query at the
// cost of a copy: e as the query, the kept nodes gathered a few at a time,
// 2 then twice as many each call, since a pruned candidate is most often
// closer to one of the first kept nodes (the nearest to the base) and the
// rest of its scores would go unused.
func (g *Graph) fartherThanKept(st *storage, s *Searcher, e score.Entry, kept []uint32) bool {
	qp, own := g.prepare(st, s, e.Slot, s.selScratch)
	for lo, n := 0, 2; lo < len(kept); lo, n = lo+n, 2*n {
		part := kept[lo:min(lo+n, len(kept))]
		out := s.selOut[:len(part)]
		s.prof.selected(len(part))
		g.kern.ScanIDs(qp, st.bytes, g.bstride, part, out)
		g.adjustScores(st, part, out, own)
		for _, sc := range out {
			if sc > e.Score {
				return false
			}
		}
	}
	return true
}

// scoreColumn raises worst[i] to the score of each clean rest[i] as the
// query against the Int8 record of k (columnScores).
func (g *Graph) scoreColumn(st *storage, s *Searcher, k uint32, rest []score.Entry, worst []float32) {
	targets, at := s.colSlots[:0], s.colAt[:0]
	for i, e := range rest {
		if s.visited[e.Slot] == s.epoch {
			targets, at = append(targets, e.Slot), append(at, int32(i))
		}
	}
	s.colSlots, s.colAt = targets, at
	if len(targets) == 0 {
		return
	}
	if cap(s.colOut) < len(targets) {
		s.colOut = make([]float32, len(targets))
	}
	scores := s.colOut[:len(targets)]
	g.columnScores(st, s, k, targets, scores)
	for i, sc := range scores {
		if sc > worst[at[i]] {
			worst[at[i]] = sc
		}
	}
}

// scoreAgainst sets out[i] to the score of rest[i] as the query against
// the Int8 record of k (columnScores).
func (g *Graph) scoreAgainst(st *storage, s *Searcher, k uint32, rest []score.Entry, out []float32) {
	targets := s.colSlots[:0]
	for _, e := range rest {
		targets = append(targets, e.Slot)
	}
	s.colSlots = targets
	g.columnScores(st, s, k, targets, out)
}

// columnScores sets out[i] to the score of targets[i] as the query against
// the Int8 record of k, bit for bit what selectNeighbors' row would give:
// an Int8 score is float32(the integer dot) times the query's multiplier,
// so one call with k's codes as the query (multiplier 1) yields the
// integer dots of all of them, and each target's own multiplier and term
// follow as its row applies them.
func (g *Graph) columnScores(st *storage, s *Searcher, k uint32, targets []uint32, out []float32) {
	qp := kernel.Int8RecordQuery(s.selScratch, g.record(st, k), 1)
	s.prof.selected(len(targets))
	g.kern.ScanIDs(qp, st.bytes, g.bstride, targets, out)
	for i, t := range targets {
		mul, own := g.queryTerms(st, t)
		out[i] = g.scoreOf(st, k, float32(out[i]*mul), own)
	}
}

// firstWindow is how many candidates the first kept node scores a call.
const firstWindow = 16

// ownLinks is how many links an inserted node selects on level l.
func (g *Graph) ownLinks(l int) int {
	if l == 0 {
		return g.ownM0
	}
	return g.maxM
}

// maxLinks is the list size of level l.
func (g *Graph) maxLinks(l int) int {
	if l == 0 {
		return g.maxM0
	}
	return g.maxM
}

// connect links an allocated, written node into the graph (INSERT of the
// paper; the node selects ownLinks(l) neighbours on each level).
func (g *Graph) connect(st *storage, s *Searcher, slot uint32, level int) {
	g.buffers(s)
	qp, own := g.prepare(st, s, slot, s.q)
	ep := st.entry.Load()
	if ep == noEntry {
		g.epMu.Lock()
		if ep = st.entry.Load(); ep == noEntry {
			st.entry.Store(uint64(level)<<32 | uint64(slot))
			g.epMu.Unlock()
			return
		}
		g.epMu.Unlock()
	}
	efc := g.cfg.EfConstruction
	s.begin(st.cap, g.maxM0, efc)
	top := int(ep >> 32)
	cur := g.score1(st, s, qp, own, uint32(ep))
	for l := top; l > level; l-- {
		cur = g.greedy(st, s, qp, own, cur, l)
	}
	// Choose the neighbours top-down, then link bottom-up: a search that
	// reaches this node on some level then always finds its lists below.
	plan := s.plan[:0]
	s.entries = append(s.entries[:0], cur)
	for l := min(level, top); l >= 0; l-- {
		// The next level starts from everything found here.
		s.entries = g.searchLayerLive(st, s, qp, own, s.entries, l, slot, s.found[:0])
		s.found = s.entries
		sel := g.selectNeighbors(st, s, s.entries, g.ownLinks(l))
		plan = append(slots(plan, sel), uint32(len(sel)))
	}
	s.plan = plan
	end := len(plan)
	for l := 0; l <= min(level, top); l++ {
		n := int(plan[end-1])
		sel := plan[end-1-n : end-1]
		end -= 1 + n
		g.setOwn(st, slot, l, sel)
		one := [1]uint32{slot}
		for _, nb := range sel {
			g.addLinks(st, s, nb, l, one[:], 0)
		}
	}
	if level > top {
		g.epMu.Lock()
		if cur := st.entry.Load(); level > int(cur>>32) {
			st.entry.Store(uint64(level)<<32 | uint64(slot))
		}
		g.epMu.Unlock()
	}
}

// setOwn writes a new node's list at level l: the selected neighbours,
// then any links concurrent inserts already added to it, while room lasts.
func (g *Graph) setOwn(st *storage, slot uint32, l int, sel []uint32) {
	mu := g.lock(slot)
	mu.Lock()
	defer mu.Unlock()
	var buf [2 * MaxM]uint32
	ids := append(buf[:0], sel...)
	var old [2 * MaxM]uint32
	for _, n := range g.readLinks(st, slot, l, old[:]) {
		if len(ids) < g.maxLinks(l) && !contains(ids, n) {
			ids = append(ids, n)
		}
	}
	g.writeLinks(st, slot, l, ids)
}

// slots appends the slots of es to dst.
func slots(dst []uint32, es []score.Entry) []uint32 {
	for _, e := range es {
		dst = append(dst, e.Slot)
	}
	return dst
}

func contains(ids []uint32, x uint32) bool {
	for _, v := range ids {
		if v == x {
			return true
		}
	}
	return false
}

// addLinks adds the links srcs (in order) to n's list at level l; when the
// list overflows, the heuristic chooses among old and new links, scored
// from n. Deterministic for a given list and srcs.
//
// clean says how many of the list's first links are known to be a
// heuristic's choice, in its order (see selectNeighbors); 0 when unknown.
// addLinks returns the same for the list it leaves: a choice's length
// after a re-selection, clean after appending.
func (g *Graph) addLinks(st *storage, s *Searcher, n uint32, l int, srcs []uint32, clean int) int {
	mu := g.lock(n)
	mu.Lock()
	defer mu.Unlock()
	buf := s.addBuf[:] // a local array escaped: one allocation a call
	ids := g.readLinks(st, n, l, buf)
	clean = min(clean, len(ids))
	all := ids
	var extra []uint32
	for i, src := range srcs {
		if src == n || contains(all, src) {
			continue
		}
		if cap(all) > len(all) {
			all = append(all, src)
		} else { // more sources than fit the buffer (Build): spill
			extra = append(extra[:0], all...)
			extra = append(extra, srcs[i:]...)
			all = dedupe(extra, n)
			break
		}
	}
	if len(all) == len(ids) {
		return clean
	}
	maxL := g.maxLinks(l)
	if len(all) <= maxL {
		g.writeLinks(st, n, l, all) // the old links stay first
		return clean
	}
	g.buffers(s)
	qn, own := g.prepare(st, s, n, s.qn)
	cands := s.cands[:0]
	if cap(s.pscores) < len(all) {
		s.pscores = make([]float32, len(all))
	}
	scores := s.pscores[:len(all)]
	s.prof.relink(true)
	s.prof.selected(len(all))
	g.kern.ScanIDs(qn, st.bytes, g.bstride, all, scores)
	for i, id := range all {
		cands = append(cands, g.entryOf(st, id, scores[i], own))
	}
	score.Sort(cands)
	if clean > 0 {
		s.mark(st.cap, ids[:clean])
	}
	sel := g.selectNeighbors(st, s, cands, maxL)
	s.prof.relink(false)
	s.marked = false
	g.writeLinks(st, n, l, slots(buf[:0], sel))
	s.cands = cands
	if g.cfg.KeepPruned {
		return 0 // the list may end with pruned candidates
	}
	return len(sel)
}

// dedupe drops repeats (keeping first occurrences) and self.
func dedupe(ids []uint32, self uint32) []uint32 {
	out := ids[:0]
	for _, v := range ids {
		if v != self && !contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// slotOf is id's slot, if live; hold allocMu.
func (g *Graph) slotOf(id uint64) (uint32, bool) {
	s, ok := g.ids.Get(id)
	return uint32(s), ok
}
