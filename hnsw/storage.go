package hnsw

import (
	"math"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/astral-engine/astral/internal/mem"
	"github.com/astral-engine/astral/kernel"
)

// A node's level-0 block is one fixed-stride run of 32-bit words: the
// E5M2 record first, then the header, then up to 2·M level-0 links. Blocks
// are packed one word apart, not rounded to cache lines (at dim 384, M 16:
// 133 words, 532 bytes, against 576 rounded), so a record is only 4-byte
// aligned; the kernels load records unaligned. The gather kernel prefetches
// a record's lines and the line after it, which brings the header's first
// words (adjust value, state, id) along with the score.
const (
	hAdj   = iota // the record's adjust value (float32 bits)
	hState        // packed level-0 state, see below
	hIDLo         // the caller's id, low word
	hIDHi         // high word
	hUpper        // where the node's upper lists start in storage.up; 0: none
	hLinks        // first level-0 link
)

// The state word packs, low bits first: the level-0 link count (10 bits;
// at most 2·MaxM = 256), flagDeleted, the node's level (5 bits; at most
// maxLevel = 31) and the level-0 list version (16 bits, odd while a writer
// changes the list). The version sits on top so a writer's atomic add
// wraps it with no carry into the other fields; writers (holding the node
// lock) change the word only by adds and Delete only by an atomic or of
// its own bit, so neither loses the other's update.
//
// The version's width is safe against ABA: a reader is fooled only if the
// word returns to the very value it first loaded, which takes 2^15 whole
// rewrites of this one list during its copy of at most 256 words. Each
// rewrite comes from a separate insert (the node's own list or one reverse
// link), each behind a full efConstruction search, so even a reader
// descheduled for a long while would need 32,768 inserts, all linking to
// this node, to finish meanwhile. And
// should it happen, the copy is still count-clamped and made of valid
// slots of this generation: a search would follow a stale mix of links,
// never read outside the block.
const (
	countMask   = 1<<10 - 1
	flagDeleted = 1 << 10
	levelShift  = 11
	levelMask   = 1<<5 - 1
	verShift    = 16
	verOne      = 1 << verShift // one version step
	verMask     = 0xffff << verShift
	// The fields must hold their largest values: these fail to compile
	// (a negative constant as uint) if a bound outgrows its field.
	_ = uint(countMask - 2*MaxM)
	_ = uint(levelMask - maxLevel)
	// noSlot marks "no node".
	noSlot = math.MaxUint32
	// maxNodes bounds a graph's slots: the id map keeps a slot as an
	// int32, and the construction beam keeps two flags above it.
	maxNodes = 1 << 30
	// noEntry is the entry word of an empty graph.
	noEntry = math.MaxUint64
)

// storage is one generation of the graph's memory. Writers (inserts,
// deletes) only touch the current one, and only under Graph.gate held
// shared; growth and Compact build a new one under the gate held
// exclusively and publish it atomically. A search keeps the generation it
// loaded, which no one writes once it is replaced, so growth never moves
// memory under a reader.
type storage struct {
	words []uint32 // level-0 blocks, starting 64-byte aligned
	bytes []byte   // the same memory, for the kernel
	// up holds the upper levels: per node with level L >= 1 a version word,
	// then L lists of [count, M links]. up[0] is unused so 0 means none.
	up  []uint32
	cap int // slots words can hold
	// tags and owners are the records' attributes by slot, apart from the
	// blocks so a filter reads 8 bytes a node, not its record. Tags are
	// loaded and stored atomically (SetTags runs beside searches); an
	// owner is written once, before its node is published.
	tags, owners []uint64
	// times and imps are the ranking attributes by slot, stored and loaded
	// atomically (SetTime and SetImportance run beside searches).
	times []int64
	imps  []float32
	// n and upLen are the slots and up words handed out; guarded by
	// Graph.allocMu (and fixed while the gate is held exclusively).
	n, upLen int
	// entry is level<<32 | slot of the entry point, or noEntry.
	entry atomic.Uint64
	// numbering changes when Compact renumbers the slots: a rankOrder
	// is only good for storage of its numbering.
	numbering uint64
}

func (g *Graph) newStorage(slots, upWords int) *storage {
	st := &storage{cap: slots, upLen: 1}
	st.words = mem.Words[uint32](slots * g.bw)
	if len(st.words) > 0 {
		st.bytes = unsafe.Slice((*byte)(unsafe.Pointer(&st.words[0])), len(st.words)*4)
	}
	st.up = make([]uint32, max(upWords, 1))
	st.tags, st.owners = make([]uint64, slots), make([]uint64, slots)
	st.times, st.imps = make([]int64, slots), make([]float32, slots)
	st.entry.Store(noEntry)
	return st
}

// upperWords is the up space of a node of level l.
func (g *Graph) upperWords(l int) int {
	if l == 0 {
		return 0
	}
	return 1 + l*(1+g.maxM)
}

// head is the index of slot's header in words.
func (g *Graph) head(slot uint32) int { return int(slot)*g.bw + g.recWords }

func (g *Graph) record(st *storage, slot uint32) []byte {
	off := int(slot) * g.bstride
	return st.bytes[off : off+g.recBytes]
}

func (g *Graph) adjOf(st *storage, slot uint32) float32 {
	return math.Float32frombits(st.words[g.head(slot)+hAdj])
}

func (g *Graph) idOf(st *storage, slot uint32) uint64 {
	h := g.head(slot)
	return uint64(st.words[h+hIDLo]) | uint64(st.words[h+hIDHi])<<32
}

// flags is slot's state word, loaded atomically (writers and Delete change
// it while searches read it): test it with flagDeleted and levelOfFlags.
func (g *Graph) flags(st *storage, slot uint32) uint32 {
	return atomic.LoadUint32(&st.words[g.head(slot)+hState])
}

func levelOfFlags(f uint32) int { return int(f >> levelShift & levelMask) }

// upperList returns the version word, count word and link words of slot's
// list at level l >= 1. The caller knows slot has level >= l.
func (g *Graph) upperList(st *storage, slot uint32, l int) (seq, count *uint32, links []uint32) {
	u := int(st.words[g.head(slot)+hUpper])
	b := u + 1 + (l-1)*(1+g.maxM)
	return &st.up[u], &st.up[b], st.up[b+1 : b+1+g.maxM]
}

// readLinks copies slot's links at level l into dst. It takes no lock: a
// version (a seqlock) makes the copy whole, never half of one write and
// half of the next, and every word is read atomically, so the race
// detector sees no race either.
//
// Links at or past the storage's capacity are dropped: a graph only makes
// links to its nodes, but a mapped file's may be searched before its
// links were checked (OpenParts), and nothing past the capacity is
// memory of the graph's.
func (g *Graph) readLinks(st *storage, slot uint32, l int, dst []uint32) []uint32 {
	h, lim := g.head(slot), uint32(st.cap)
	if l == 0 {
		state, links := &st.words[h+hState], st.words[h+hLinks:h+hLinks+g.maxM0]
		for spin := 0; ; spin++ {
			v := atomic.LoadUint32(state)
			if v&verOne == 0 {
				dst = copyLinks(dst, links[:min(int(v&countMask), len(links))], lim)
				// A Delete meanwhile changes only its bit, not the list.
				if (atomic.LoadUint32(state)^v)&^flagDeleted == 0 {
					return dst
				}
			}
			if spin > 64 {
				runtime.Gosched() // the writer was preempted mid-write
			}
		}
	}
	if levelOfFlags(g.flags(st, slot)) < l {
		return dst[:0]
	}
	seq, count, links := g.upperList(st, slot, l)
	for spin := 0; ; spin++ {
		v := atomic.LoadUint32(seq)
		if v&1 == 0 {
			dst = copyLinks(dst, links[:min(int(atomic.LoadUint32(count)), len(links))], lim)
			if atomic.LoadUint32(seq) == v {
				return dst
			}
		}
		if spin > 64 {
			runtime.Gosched()
		}
	}
}

// unvisitedLinks is readLinks on level 0 and Searcher.unvisited in one
// pass: the links of slot new to s's search, marked visited, and how many
// links the list has. Should the list change meanwhile (its version
// moved), the links marked from it are unmarked and it is read again.
func (g *Graph) unvisitedLinks(st *storage, s *Searcher, slot uint32) ([]uint32, int) {
	h := g.head(slot)
	state, links := &st.words[h+hState], st.words[h+hLinks:h+hLinks+g.maxM0]
	visited := s.visited[:st.cap]
	for spin := 0; ; spin++ {
		v := atomic.LoadUint32(state)
		if v&verOne == 0 {
			n := min(int(v&countMask), len(links))
			ids := freshLinks(s.ids, links[:n], visited, s.epoch)
			if (atomic.LoadUint32(state)^v)&^flagDeleted == 0 {
				return ids, n
			}
			for _, x := range ids {
				visited[x] = s.epoch - 1 // any value but the epoch
			}
		}
		if spin > 64 {
			runtime.Gosched()
		}
	}
}

// freshLinks loads links into ids, keeping and marking those within
// visited not yet visited in this epoch. It runs without a branch on the
// visited bytes, which no predictor guesses, so their loads overlap.
func freshLinks(ids, links []uint32, visited []uint8, epoch uint8) []uint32 {
	ids = ids[:len(links)]
	m := 0
	for i := range links {
		x := atomic.LoadUint32(&links[i])
		if int(x) >= len(visited) {
			continue
		}
		seen := visited[x]
		visited[x] = epoch
		ids[m] = x
		if seen != epoch {
			m++
		}
	}
	return ids[:m]
}

// prefetchNext starts loading the level-0 list of the best candidate left
// while the current node's neighbours are scored: most often it is the
// next one expanded, and its list is then in the cache.
func (g *Graph) prefetchNext(st *storage, s *Searcher) {
	if len(s.cand.h) > 0 {
		g.prefetchList(st, s.cand.h[0].Slot)
	}
}

// prefetchList starts loading slot's level-0 list.
func (g *Graph) prefetchList(st *storage, slot uint32) {
	h := g.head(slot)
	kernel.Prefetch(st.bytes[4*(h+hState) : 4*(h+hLinks+g.maxM0)])
}

// copyLinks loads links into dst atomically, keeping those below lim.
func copyLinks(dst, links []uint32, lim uint32) []uint32 {
	dst = dst[:len(links)]
	m := 0
	for i := range links {
		x := atomic.LoadUint32(&links[i])
		dst[m] = x
		if x < lim {
			m++
		}
	}
	return dst[:m]
}

// writeLinks replaces slot's list at level l. The caller holds slot's lock,
// so writers never interleave; readers retry while the version is odd.
func (g *Graph) writeLinks(st *storage, slot uint32, l int, ids []uint32) {
	if l == 0 {
		h := g.head(slot)
		state, links := &st.words[h+hState], st.words[h+hLinks:h+hLinks+g.maxM0]
		// Adds, not stores, so a concurrent Delete's bit survives: the
		// first makes the version odd, the second even again and swaps
		// the count (which only lock holders change) for the new one.
		old := atomic.AddUint32(state, verOne) & countMask
		storeLinks(links, ids)
		atomic.AddUint32(state, verOne+uint32(len(ids))-old)
		return
	}
	seq, count, links := g.upperList(st, slot, l)
	atomic.AddUint32(seq, 1)
	storeLinks(links, ids)
	atomic.StoreUint32(count, uint32(len(ids)))
	atomic.AddUint32(seq, 1)
}

// storeLinks writes ids over the start of links, skipping the words that
// already hold their value: an atomic store is a locked exchange on amd64,
// and a list gaining links or re-selected keeps most of its words. Only
// lock holders write links, so a word read equal stays equal.
func storeLinks(links, ids []uint32) {
	for i, id := range ids {
		if atomic.LoadUint32(&links[i]) != id {
			atomic.StoreUint32(&links[i], id)
		}
	}
}

// grow makes room for slots more nodes and upWords more upper words. It
// takes the gate exclusively: the caller must not hold it.
func (g *Graph) grow(slots, upWords int) {
	g.gate.Lock()
	defer g.gate.Unlock()
	st := g.st.Load()
	needSlots, needUp := st.n+slots, st.upLen+upWords
	if needSlots <= st.cap && needUp <= len(st.up) {
		return // someone else grew it meanwhile
	}
	newSlots := st.cap
	if needSlots > st.cap {
		newSlots = max(needSlots, 2*st.cap, 256)
	}
	newUp := len(st.up)
	if needUp > len(st.up) {
		newUp = max(needUp, 2*len(st.up), 1024)
	}
	ns := g.newStorage(newSlots, newUp)
	copy(ns.words, st.words[:st.n*g.bw])
	copy(ns.up, st.up[:st.upLen])
	copy(ns.tags, st.tags[:st.n]) // SetTags waits: it holds the gate shared
	copy(ns.owners, st.owners[:st.n])
	copy(ns.times, st.times[:st.n])
	copy(ns.imps, st.imps[:st.n])
	ns.n, ns.upLen, ns.numbering = st.n, st.upLen, st.numbering
	ns.entry.Store(st.entry.Load())
	g.st.Store(ns)
}
