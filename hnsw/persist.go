package hnsw

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"
	"unsafe"

	"github.com/astral-engine/astral/internal/fpenv"
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/slotmap"
	"github.com/astral-engine/astral/kernel"
)

// Persistence: a graph leaves as its storage words (View) and comes back
// from them in place (FromParts), so a mapped file serves searches without
// a rebuild or a copy. The words are the storage's own layout (storage.go)
// with the list versions cleared, which is what FromParts accepts.

// ErrCorrupt reports parts that do not form a valid graph (FromParts).
var ErrCorrupt = errors.New("hnsw: corrupt graph")

// NoEntry is the entry word of an empty graph.
const NoEntry = noEntry

// BlockWords is the length in words of one level-0 block: a record of
// recBytes bytes (a multiple of 4), its multiplier under
// score.AdjustScaleSubtract, the 5-word header and 2·m links.
func BlockWords(recBytes, m int, adjust score.Adjust) int {
	w := recBytes/4 + hLinks + 2*m
	if adjust == score.AdjustScaleSubtract {
		w++
	}
	return w
}

// Parts is a graph's storage as a file holds it.
type Parts struct {
	// Nodes is the number of slots, tombstones included.
	Nodes int
	// Level0 holds Nodes level-0 blocks, BlockWords apart.
	Level0 []uint32
	// Upper holds the upper levels; Upper[0] is unused, so it has at least
	// one word.
	Upper []uint32
	// Entry is level<<32 | slot of the entry point, NoEntry when empty.
	Entry uint64
	// Tombstones lists the deleted slots in ascending order: exactly the
	// blocks flagged deleted.
	Tombstones []uint32
	// Tags and Owners are the nodes' attributes in slot order, Nodes each,
	// or nil for all zero. Used in place as Level0 is (copied when not
	// 8-byte aligned, as atomic loads need).
	Tags, Owners []uint64
	// Times and Imps are the nodes' ranking attributes, as Tags (Times
	// copied when not 8-byte aligned, Imps when not 4-byte aligned).
	Times []int64
	Imps  []float32
	// Visit, when set, is called with each run of ChunkNodes nodes' level-0
	// words (run i, in slot order) just before FromParts checks them, from
	// several goroutines at once: a caller checksums the words there while
	// they are in the cache instead of reading them all twice.
	Visit func(i int, words []uint32)
}

// View is a read-only view of a graph for writing it out, valid during the
// function given to Graph.View.
type View struct {
	g    *Graph
	st   *storage
	live int
}

// View calls fn with a view of the graph's current storage. It holds the
// graph's gate shared meanwhile, so Compact and growth wait; the caller
// must keep Insert, Delete and Build from running, or the view mixes
// states (it stays memory-safe either way).
func (g *Graph) View(fn func(v *View) error) error {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	v := &View{g: g, st: g.st.Load(), live: g.ids.Len()}
	g.allocMu.Unlock()
	return fn(v)
}

// Nodes is the number of slots in use, tombstones included.
func (v *View) Nodes() int { return v.st.n }

// Live is the number of live nodes.
func (v *View) Live() int { return v.live }

// Entry is level<<32 | slot of the entry point, or NoEntry.
func (v *View) Entry() uint64 { return v.st.entry.Load() }

// BlockWords is the length of a level-0 block.
func (v *View) BlockWords() int { return v.g.bw }

// UpperLen is the length of the upper-level words Upper appends.
func (v *View) UpperLen() int { return v.st.upLen }

// Level0 appends the level-0 blocks of slots [lo, hi) to dst, normalized:
// list versions cleared and link slots past the count zeroed, so the same
// graph always gives the same words.
func (v *View) Level0(dst []uint32, lo, hi int) []uint32 {
	g, st := v.g, v.st
	var buf [2 * MaxM]uint32
	for slot := lo; slot < hi; slot++ {
		base := slot * g.bw
		h := len(dst) + g.recWords
		dst = append(dst, st.words[base:base+g.recWords+hLinks]...)
		f := g.flags(st, uint32(slot))
		links := g.readLinks(st, uint32(slot), 0, buf[:])
		dst[h+hState] = f&^(verMask|countMask) | uint32(len(links))
		dst = append(dst, links...)
		for range g.maxM0 - len(links) {
			dst = append(dst, 0)
		}
	}
	return dst
}

// Upper appends the UpperLen upper-level words to dst, normalized as
// Level0's blocks are.
func (v *View) Upper(dst []uint32) []uint32 {
	g, st := v.g, v.st
	start := len(dst)
	for range st.upLen {
		dst = append(dst, 0)
	}
	out := dst[start:]
	var buf [MaxM]uint32
	for slot := range uint32(st.n) {
		l := levelOfFlags(g.flags(st, slot))
		if l == 0 {
			continue
		}
		u := int(st.words[g.head(slot)+hUpper])
		for i := 1; i <= l; i++ {
			links := g.readLinks(st, slot, i, buf[:])
			b := u + 1 + (i-1)*(1+g.maxM)
			out[b] = uint32(len(links))
			copy(out[b+1:], links)
		}
	}
	return dst
}

// Attrs appends the attributes of slots [lo, hi) to dst.
func (v *View) Attrs(dst []match.Attr, lo, hi int) []match.Attr {
	for slot := lo; slot < hi; slot++ {
		dst = append(dst, v.st.attr(uint32(slot)))
	}
	return dst
}

// Tombstones appends the deleted slots, ascending, to dst.
func (v *View) Tombstones(dst []uint32) []uint32 {
	for slot := range uint32(v.st.n) {
		if v.g.flags(v.st, slot)&flagDeleted != 0 {
			dst = append(dst, slot)
		}
	}
	return dst
}

// FromParts returns a graph over p's words, used in place: Level0, Upper
// and the attribute columns may alias read-only memory (a mapped file) as
// long as the caller calls Detach before the first Insert, Build, Delete,
// SetTags or Compact. cfg must be the saved graph's (M fixes the block
// layout; Seed and KeepPruned shape later inserts).
//
// Every word is checked before the graph is returned, on p's workers plus
// the caller (p nil: serially): link counts at most 2·M (M above level 0),
// every link below Nodes, levels at most MaxLevel, upper-level offsets in
// range and not overlapping, list versions zero, the entry point a node of
// its level, live ids distinct, the tombstones exactly the deleted slots, and every upper-level link to a node of that level. A
// failure wraps ErrCorrupt and names the first bad word; records and
// adjust values are not checked (any bits are safe to score).
//
// The id map, which serves Len, Has and writes but no search, is filled
// in the background after FromParts returns (a few ms at 100,000 nodes);
// those calls wait for it.
func FromParts(k *kernel.Kernel, adjust score.Adjust, cfg Config, p Parts, workers *pool.Pool) (*Graph, error) {
	g, v, err := fromParts(k, adjust, cfg, p, workers)
	if err != nil {
		return nil, err
	}
	if err := v.run(); err != nil {
		return nil, err
	}
	g.install(p)
	g.allocMu.Lock()
	g.fillIDs(v)
	return g, nil
}

// OpenParts is FromParts in two steps, for a caller that wants searches
// at once (a mapped file, before its bulk is read): it checks only what a
// search needs to stay inside the words and to end — list versions zero,
// upper-level offsets in range, the entry point — and returns the graph
// with finish, which runs FromParts' other checks (and p.Visit) and then,
// as FromParts does, fills the id map in the background. Searches
// meanwhile are safe on any words: they skip links outside the graph.
// Until finish returns, Len, Has, View, Stats and Digest wait; call it
// exactly once, and write to the graph only after it returned nil. When
// it fails the graph keeps answering searches over the damaged words and
// holds no ids: the caller must stop using it.
func OpenParts(k *kernel.Kernel, adjust score.Adjust, cfg Config, p Parts, workers *pool.Pool) (g *Graph, finish func() error, err error) {
	g, v, err := fromParts(k, adjust, cfg, p, workers)
	if err != nil {
		return nil, nil, err
	}
	if err := v.shallow(); err != nil {
		return nil, nil, err
	}
	g.install(p)
	g.allocMu.Lock()
	finish = func() error {
		if err := v.run(); err != nil {
			g.ids = slotmap.Map{}
			g.allocMu.Unlock()
			return err
		}
		g.fillIDs(v) // as FromParts: the id map is no check
		return nil
	}
	return g, finish, nil
}

// fromParts checks p's lengths and returns the graph to hold p with its
// validator.
func fromParts(k *kernel.Kernel, adjust score.Adjust, cfg Config, p Parts, workers *pool.Pool) (*Graph, *validator, error) {
	g, err := New(k, adjust, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	n := p.Nodes
	if n < 0 || n > maxNodes {
		return nil, nil, fmt.Errorf("%w: %d nodes: at most %d", ErrCorrupt, n, maxNodes)
	}
	if uint64(len(p.Level0)) != uint64(n)*uint64(g.bw) {
		return nil, nil, fmt.Errorf("%w: %d level-0 words for %d nodes of %d words", ErrCorrupt, len(p.Level0), n, g.bw)
	}
	if len(p.Upper) < 1 || int64(len(p.Upper)) > int64(noSlot) {
		return nil, nil, fmt.Errorf("%w: %d upper-level words: want 1 to %d", ErrCorrupt, len(p.Upper), int64(noSlot))
	}
	if p.Upper[0] != 0 {
		return nil, nil, fmt.Errorf("%w: upper word 0 is %#x, unused words hold 0", ErrCorrupt, p.Upper[0])
	}
	if p.Tags != nil && len(p.Tags) != n || p.Owners != nil && len(p.Owners) != n {
		return nil, nil, fmt.Errorf("%w: %d tags and %d owners for %d nodes", ErrCorrupt, len(p.Tags), len(p.Owners), n)
	}
	if p.Times != nil && len(p.Times) != n || p.Imps != nil && len(p.Imps) != n {
		return nil, nil, fmt.Errorf("%w: %d times and %d importances for %d nodes", ErrCorrupt, len(p.Times), len(p.Imps), n)
	}
	return g, newValidator(g, p, workers), nil
}

// install makes p's words the graph's storage.
func (g *Graph) install(p Parts) {
	n := p.Nodes
	st := &storage{words: p.Level0[:len(p.Level0):len(p.Level0)], up: p.Upper[:len(p.Upper):len(p.Upper)], cap: n, n: n, upLen: len(p.Upper)}
	if len(st.words) > 0 {
		st.bytes = unsafe.Slice((*byte)(unsafe.Pointer(&st.words[0])), len(st.words)*4)
	}
	st.tags, st.owners = attrColumn(p.Tags, n), attrColumn(p.Owners, n)
	st.times, st.imps = attrColumn(p.Times, n), attrColumn(p.Imps, n)
	for _, v := range st.imps {
		g.raiseImpCeil(v)
	}
	st.entry.Store(p.Entry)
	g.st.Store(st)
}

// attrColumn is an attribute column of n slots from parts: col itself
// when 8-byte aligned (atomic loads need it), else a copy; zeros for nil.
func attrColumn[T uint64 | int64 | float32](col []T, n int) []T {
	if col == nil {
		return make([]T, n)
	}
	if n > 0 && uintptr(unsafe.Pointer(&col[0]))%unsafe.Sizeof(col[0]) != 0 {
		return append(make([]T, 0, n), col...)
	}
	return col[:n:n]
}

// fillIDs fills the id map from v's checked chunks in the background and
// then unlocks allocMu, which the caller holds: every user of the id map
// takes it, so they wait until the map is in.
func (g *Graph) fillIDs(v *validator) {
	go func() {
		defer g.allocMu.Unlock()
		// This thread may carry a host's FTZ/DAZ (threads inherit it).
		defer fpenv.Leave(fpenv.Enter())
		var ids slotmap.Map
		ids.Reserve(v.live)
		for _, c := range v.chunkIDs {
			for _, part := range c {
				for _, e := range part {
					ids.Put(e.id, int32(e.slot))
				}
			}
		}
		g.ids = ids
	}()
}

// ChunkNodes is how many nodes FromParts checks as one task (and passes
// to Parts.Visit at once): about 256 KiB of level-0 blocks, so a caller
// that checksums them leaves them in the cache for the check.
func ChunkNodes(recBytes, m int, adjust score.Adjust) int {
	return max(1, (256<<10)/(4*BlockWords(recBytes, m, adjust)))
}

// idParts is how many parts the live ids are split into, by a hash, for
// the uniqueness check: each part's table fits in a core's cache.
const idParts = 16

// idSlot is a live node's id and slot.
type idSlot struct {
	id   uint64
	slot uint32
}

// upperNode is a node above level 0: its slot, level and upper offset.
type upperNode struct {
	slot  uint32
	level uint8
	u     uint32
}

// validator checks FromParts' words in two parallel phases (it is the
// pool task of both): chunks of nodes, checksummed through Parts.Visit
// and checked one by one, collecting each node's level, the nodes above
// level 0 and the live ids (split by a hash); then the upper-level lists
// against the levels, and the ids part by part for repeats.
type validator struct {
	g      *Graph
	p      Parts
	pool   *pool.Pool
	n      int
	chunk  int
	chunks int
	phase  int
	next   atomic.Int64
	levels []uint8 // every node's level
	// Per chunk: the first error, the first upper offset and the end of
	// the last upper space (-1: none), deleted nodes, nodes above level 0,
	// live ids by part.
	errs             []error
	firstUp, lastEnd []int64
	deleted          []int
	uppers           [][]upperNode
	chunkIDs         [][idParts][]idSlot
	// Phase 2: per chunk, the upper lists' first error; per part, the
	// first repeated id; per participant, the table its parts reuse.
	upErrs   []error
	idErrs   [idParts]error
	live     int
	idTables [][]uint64
}

func newValidator(g *Graph, p Parts, workers *pool.Pool) *validator {
	v := &validator{g: g, p: p, pool: workers, n: p.Nodes, chunk: ChunkNodes(g.recBytes, g.maxM, g.adjust)}
	v.chunks = (v.n + v.chunk - 1) / v.chunk
	v.levels = make([]uint8, v.n)
	v.errs = make([]error, v.chunks)
	v.firstUp = make([]int64, v.chunks)
	v.lastEnd = make([]int64, v.chunks)
	v.deleted = make([]int, v.chunks)
	v.uppers = make([][]upperNode, v.chunks)
	v.chunkIDs = make([][idParts][]idSlot, v.chunks)
	v.upErrs = make([]error, v.chunks)
	return v
}

// participants is how many goroutines can run RunPart at once.
func (v *validator) participants() int {
	if v.pool == nil {
		return 1
	}
	return v.pool.Workers() + 1
}

// runPhase runs RunPart over tasks work items on the pool.
func (v *validator) runPhase(phase, tasks int) {
	v.phase = phase
	v.next.Store(0)
	parts := min(v.participants(), tasks)
	if parts > 1 {
		v.pool.Run(v, parts)
	} else {
		v.RunPart(0)
	}
}

func (v *validator) RunPart(part int) {
	for {
		t := int(v.next.Add(1) - 1)
		switch {
		case v.phase == 0 && t < v.chunks:
			v.errs[t] = v.checkStates(t)
		case v.phase == 1 && t < v.chunks:
			if v.p.Visit != nil {
				lo, hi := t*v.chunk, min((t+1)*v.chunk, v.n)
				v.p.Visit(t, v.p.Level0[lo*v.g.bw:hi*v.g.bw])
			}
			v.errs[t] = v.checkNodes(t)
		case v.phase == 2 && t < v.chunks:
			v.upErrs[t] = v.checkUpper(t)
		case v.phase == 2 && t < v.chunks+idParts:
			v.idErrs[t-v.chunks] = v.checkIDs(t-v.chunks, &v.idTables[part])
		default:
			return
		}
	}
}

// run checks everything and returns the first problem.
func (v *validator) run() error {
	v.runPhase(1, v.chunks)
	for _, err := range v.errs {
		if err != nil {
			return err
		}
	}
	end, deleted := int64(-1), 0
	for c := range v.chunks {
		if v.firstUp[c] >= 0 {
			if v.firstUp[c] < end {
				return fmt.Errorf("%w: upper space at %d overlaps an earlier node's (ends at %d)", ErrCorrupt, v.firstUp[c], end)
			}
			end = v.lastEnd[c]
		}
		deleted += v.deleted[c]
	}
	v.live = v.n - deleted
	v.idTables = make([][]uint64, v.participants())
	v.runPhase(2, v.chunks+idParts)
	for _, err := range v.upErrs {
		if err != nil {
			return err
		}
	}
	for _, err := range v.idErrs {
		if err != nil {
			return err
		}
	}
	if err := v.checkEntry(); err != nil {
		return err
	}
	g, w, n := v.g, v.p.Level0, v.n
	ts := v.p.Tombstones
	if len(ts) != deleted {
		return fmt.Errorf("%w: %d tombstones listed, %d nodes flagged deleted", ErrCorrupt, len(ts), deleted)
	}
	for i, slot := range ts {
		if (i > 0 && slot <= ts[i-1]) || slot >= uint32(n) || w[int(slot)*g.bw+g.recWords+hState]&flagDeleted == 0 {
			return fmt.Errorf("%w: tombstone %d (slot %d) is out of order, out of range or not deleted", ErrCorrupt, i, slot)
		}
	}
	return nil
}

// checkEntry checks the entry point: a node of the level it names.
func (v *validator) checkEntry() error {
	ep, n := v.p.Entry, v.n
	if n == 0 {
		if ep != noEntry {
			return fmt.Errorf("%w: empty graph with entry point %#x", ErrCorrupt, ep)
		}
		return nil
	}
	slot, level := ep&(1<<32-1), ep>>32
	if slot >= uint64(n) || level > maxLevel {
		return fmt.Errorf("%w: entry point %#x (slot %d, level %d) outside the %d nodes", ErrCorrupt, ep, slot, level, n)
	}
	if l := levelOfFlags(v.p.Level0[int(slot)*v.g.bw+v.g.recWords+hState]); uint64(l) != level {
		return fmt.Errorf("%w: entry point slot %d at level %d has level %d", ErrCorrupt, slot, level, l)
	}
	return nil
}

// shallow is OpenParts' check: every node's state word and upper offset,
// then the entry point.
func (v *validator) shallow() error {
	v.runPhase(0, v.chunks)
	for _, err := range v.errs {
		if err != nil {
			return err
		}
	}
	return v.checkEntry()
}

// checkStates checks what a search relies on in chunk c's nodes: no list
// version set (a reader would wait for it to turn even, forever) and
// upper-level lists inside the upper words (upperSpace). Links outside
// the graph are skipped as they are read (readLinks).
func (v *validator) checkStates(c int) error {
	g, w := v.g, v.p.Level0
	lastEnd := int64(-1)
	for slot := c * v.chunk; slot < min((c+1)*v.chunk, v.n); slot++ {
		h := slot*g.bw + g.recWords
		state := w[h+hState]
		if state&verMask != 0 {
			return fmt.Errorf("%w: slot %d: state %#x has a list version set (saved graphs hold 0)", ErrCorrupt, slot, state)
		}
		if level := levelOfFlags(state); level > 0 {
			_, end, err := v.upperSpace(slot, level, lastEnd)
			if err != nil {
				return err
			}
			lastEnd = end
		}
	}
	return nil
}

// upperSpace checks the upper offset of slot, whose level is above 0: its
// lists [u, end) inside the upper words, after lastEnd (the previous
// node's), version word zero. Called for those nodes only: the level-0
// nodes' loop, nearly every node, stays free of calls.
func (v *validator) upperSpace(slot, level int, lastEnd int64) (u, end int64, err error) {
	g, up := v.g, v.p.Upper
	u = int64(v.p.Level0[slot*g.bw+g.recWords+hUpper])
	end = u + int64(g.upperWords(level))
	switch {
	case u == 0:
		err = fmt.Errorf("%w: slot %d: level %d without upper offset", ErrCorrupt, slot, level)
	case end > int64(len(up)):
		err = fmt.Errorf("%w: slot %d: upper space [%d, %d) past the %d upper words", ErrCorrupt, slot, u, end, len(up))
	case u < lastEnd:
		err = fmt.Errorf("%w: slot %d: upper space at %d overlaps the previous node's (ends at %d)", ErrCorrupt, slot, u, lastEnd)
	case up[u] != 0:
		err = fmt.Errorf("%w: slot %d: upper version word %#x (saved graphs hold 0)", ErrCorrupt, slot, up[u])
	}
	return u, end, err
}

// idPart picks an id's part and its place in that part's table from a
// hash keyed with a random seed, so ids chosen to collide (a hostile file)
// cannot be.
func idHash(id uint64) uint64 {
	hi, lo := bits.Mul64(id^idSeed[0], 0xa0761d6478bd642f)
	hi, lo = bits.Mul64(hi^lo^idSeed[1], 0xe7037ed1a0b428db)
	return hi ^ lo
}

var idSeed = [2]uint64{rand.Uint64(), rand.Uint64()}

// checkNodes checks chunk c's nodes: state words, level-0 lists and upper
// offsets; it records levels, upper nodes and live ids.
func (v *validator) checkNodes(c int) error {
	g, w := v.g, v.p.Level0
	n := uint32(v.n)
	lo, hi := c*v.chunk, min((c+1)*v.chunk, v.n)
	v.firstUp[c], v.lastEnd[c] = -1, -1
	live := make([]idSlot, 0, hi-lo)
	defer func() { v.chunkIDs[c] = splitIDs(live) }()
	for slot := lo; slot < hi; slot++ {
		h := slot*g.bw + g.recWords
		state := w[h+hState]
		if state&verMask != 0 {
			return fmt.Errorf("%w: slot %d: state %#x has a list version set (saved graphs hold 0)", ErrCorrupt, slot, state)
		}
		if state&flagDeleted != 0 {
			v.deleted[c]++
		} else {
			live = append(live, idSlot{uint64(w[h+hIDLo]) | uint64(w[h+hIDHi])<<32, uint32(slot)})
		}
		cnt := int(state & countMask)
		if cnt > g.maxM0 {
			return fmt.Errorf("%w: slot %d: %d level-0 links, at most %d", ErrCorrupt, slot, cnt, g.maxM0)
		}
		var top uint32 // one comparison per list: links are nearly all valid
		for _, l := range w[h+hLinks : h+hLinks+cnt] {
			top = max(top, l)
		}
		if cnt > 0 && top >= n {
			return fmt.Errorf("%w: slot %d: level-0 link to %d, only %d nodes", ErrCorrupt, slot, top, n)
		}
		level := levelOfFlags(state) // 5 bits: never above maxLevel
		v.levels[slot] = uint8(level)
		if level == 0 {
			if u := w[h+hUpper]; u != 0 {
				return fmt.Errorf("%w: slot %d: level 0 with upper offset %d", ErrCorrupt, slot, u)
			}
			continue
		}
		u, end, err := v.upperSpace(slot, level, v.lastEnd[c])
		if err != nil {
			return err
		}
		if v.firstUp[c] < 0 {
			v.firstUp[c] = u
		}
		v.lastEnd[c] = end
		v.uppers[c] = append(v.uppers[c], upperNode{uint32(slot), uint8(level), uint32(u)})
	}
	return nil
}

// splitIDs sorts a chunk's live ids into the idParts parts (a counting
// sort, in slot order within each part) and returns each part's run.
func splitIDs(live []idSlot) (parts [idParts][]idSlot) {
	var at [idParts + 1]int
	part := make([]uint8, len(live))
	for i, e := range live {
		part[i] = uint8(idHash(e.id) % idParts)
		at[part[i]+1]++
	}
	for p := range idParts {
		at[p+1] += at[p]
	}
	out := make([]idSlot, len(live))
	for p := range idParts {
		parts[p] = out[at[p]:at[p]:at[p+1]]
	}
	for i, e := range live {
		parts[part[i]] = append(parts[part[i]], e)
	}
	return parts
}

// checkUpper checks the upper-level lists of chunk c's nodes: counts, and
// links to nodes that have the list's level (inserts write a neighbour's
// list on the link's level).
func (v *validator) checkUpper(c int) error {
	g, up := v.g, v.p.Upper
	n := uint32(v.n)
	for _, x := range v.uppers[c] {
		for l := 1; l <= int(x.level); l++ {
			b := int(x.u) + 1 + (l-1)*(1+g.maxM)
			cnt := int(up[b])
			if cnt > g.maxM {
				return fmt.Errorf("%w: slot %d: %d links on level %d, at most %d", ErrCorrupt, x.slot, cnt, l, g.maxM)
			}
			for _, y := range up[b+1 : b+1+cnt] {
				if y >= n {
					return fmt.Errorf("%w: slot %d: level-%d link to %d, only %d nodes", ErrCorrupt, x.slot, l, y, n)
				}
				if ly := int(v.levels[y]); ly < l {
					return fmt.Errorf("%w: slot %d: level-%d link to slot %d of level %d", ErrCorrupt, x.slot, l, y, ly)
				}
			}
		}
	}
	return nil
}

// checkIDs looks for a repeated id among part p of the live ids, in an
// open-addressing table of ids at least twice their number (128 KiB a
// part at 100,000 nodes: it stays in the core's cache). The table is the
// participant's, reused for each part it checks: fresh memory costs a
// page fault per 4 KiB on first touch, which was most of this check's
// time when every part had its own.
func (v *validator) checkIDs(p int, table *[]uint64) error {
	total := 0
	for c := range v.chunks {
		total += len(v.chunkIDs[c][p])
	}
	b := bits.Len(uint(2*total + 63))
	if len(*table) < 1<<b {
		*table = make([]uint64, 1<<b)
	}
	keys := (*table)[:1<<b] // 0: empty; id 0 is zero
	clear(keys)
	mask, shift := uint64(len(keys)-1), uint(64-b)
	zero := false
	for c := range v.chunks {
		for _, e := range v.chunkIDs[c][p] {
			if e.id == 0 {
				if zero {
					return v.repeated(p, 0)
				}
				zero = true
				continue
			}
			for i := idHash(e.id) >> shift; ; i = (i + 1) & mask {
				if keys[i] == 0 {
					keys[i] = e.id
					break
				}
				if keys[i] == e.id {
					return v.repeated(p, e.id)
				}
			}
		}
	}
	return nil
}

// repeated reports the two first slots of an id found twice in part p.
func (v *validator) repeated(p int, id uint64) error {
	var slots []uint32
	for c := range v.chunks {
		for _, e := range v.chunkIDs[c][p] {
			if e.id == id && len(slots) < 2 {
				slots = append(slots, e.slot)
			}
		}
	}
	return fmt.Errorf("%w: id %d is live in slots %d and %d", ErrCorrupt, id, slots[0], slots[1])
}

// Detach copies the graph's storage into memory of its own, so it no
// longer reads the words given to FromParts. Writers must not run
// meanwhile. Searches that started before it keep reading the old words
// until they return: wait for them before releasing that memory.
func (g *Graph) Detach() {
	g.gate.Lock()
	defer g.gate.Unlock()
	st := g.st.Load()
	ns := g.newStorage(st.n, st.upLen)
	copy(ns.words, st.words[:st.n*g.bw])
	copy(ns.up, st.up[:st.upLen])
	copy(ns.tags, st.tags[:st.n])
	copy(ns.owners, st.owners[:st.n])
	copy(ns.times, st.times[:st.n])
	copy(ns.imps, st.imps[:st.n])
	ns.n, ns.upLen, ns.numbering = st.n, st.upLen, st.numbering
	ns.entry.Store(st.entry.Load())
	g.st.Store(ns)
}
