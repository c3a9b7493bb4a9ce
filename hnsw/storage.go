package hnsw

import (
	"math"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// A node's level-0 block is one fixed-stride run of 32-bit words, a whole
// number of cache lines: the E5M2 record first (so it is line-aligned for
// the kernel), then the header, then up to 2·M level-0 links. The kernel
// prefetches a record's lines and the line after it, so scoring a node
// brings its adjust value, flags and id too.
const (
	hAdj   = iota // the record's adjust value (float32 bits)
	hSeq          // level-0 list version: odd while a writer changes it
	hCount        // level-0 link count
	hFlags        // flagDeleted | level<<levelShift
	hIDLo         // the caller's id, low word
	hIDHi         // high word
	hUpper        // where the node's upper lists start in storage.up; 0: none
	hLinks        // first level-0 link
)

const (
	flagDeleted = 1
	levelShift  = 8
	// noSlot marks "no node"; slots are below it.
	noSlot = math.MaxUint32
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
	words []uint32 // level-0 blocks, 64-byte aligned
	bytes []byte   // the same memory, for the kernel
	// up holds the upper levels: per node with level L >= 1 a version word,
	// then L lists of [count, M links]. up[0] is unused so 0 means none.
	up  []uint32
	cap int // slots words can hold
	// n and upLen are the slots and up words handed out; guarded by
	// Graph.allocMu (and fixed while the gate is held exclusively).
	n, upLen int
	// entry is level<<32 | slot of the entry point, or noEntry.
	entry atomic.Uint64
}

// alignedWords returns n zero words starting on a 64-byte boundary.
func alignedWords(n int) []uint32 {
	w := make([]uint32, n+16)
	off := (64 - int(uintptr(unsafe.Pointer(unsafe.SliceData(w)))&63)) & 63 / 4
	return w[off : off+n : off+n]
}

func (g *Graph) newStorage(slots, upWords int) *storage {
	st := &storage{cap: slots, upLen: 1}
	st.words = alignedWords(slots * g.bw)
	if len(st.words) > 0 {
		st.bytes = unsafe.Slice((*byte)(unsafe.Pointer(&st.words[0])), len(st.words)*4)
	}
	st.up = make([]uint32, max(upWords, 1))
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

// flags is atomic: Delete sets flagDeleted while searches read it.
func (g *Graph) flags(st *storage, slot uint32) uint32 {
	return atomic.LoadUint32(&st.words[g.head(slot)+hFlags])
}

func levelOfFlags(f uint32) int { return int(f >> levelShift & 0xff) }

// list returns the version word, count word and link words of slot's list
// at level l. The caller knows slot has level >= l.
func (g *Graph) list(st *storage, slot uint32, l int) (seq, count *uint32, links []uint32) {
	h := g.head(slot)
	if l == 0 {
		return &st.words[h+hSeq], &st.words[h+hCount], st.words[h+hLinks : h+hLinks+g.maxM0]
	}
	u := int(st.words[h+hUpper])
	b := u + 1 + (l-1)*(1+g.maxM)
	return &st.up[u], &st.up[b], st.up[b+1 : b+1+g.maxM]
}

// readLinks copies slot's links at level l into dst. It takes no lock: a
// version word (a seqlock) makes the copy whole, never half of one write
// and half of the next, and every word is read atomically, so the race
// detector sees no race either.
func (g *Graph) readLinks(st *storage, slot uint32, l int, dst []uint32) []uint32 {
	if l > 0 && levelOfFlags(g.flags(st, slot)) < l {
		return dst[:0]
	}
	seq, count, links := g.list(st, slot, l)
	for spin := 0; ; spin++ {
		v := atomic.LoadUint32(seq)
		if v&1 == 0 {
			n := min(int(atomic.LoadUint32(count)), len(links))
			dst = dst[:n]
			for i := range dst {
				dst[i] = atomic.LoadUint32(&links[i])
			}
			if atomic.LoadUint32(seq) == v {
				return dst
			}
		}
		if spin > 64 {
			runtime.Gosched() // the writer was preempted mid-write
		}
	}
}

// writeLinks replaces slot's list at level l. The caller holds slot's lock,
// so writers never interleave; readers retry while the version is odd.
func (g *Graph) writeLinks(st *storage, slot uint32, l int, ids []uint32) {
	seq, count, links := g.list(st, slot, l)
	atomic.AddUint32(seq, 1)
	for i, id := range ids {
		atomic.StoreUint32(&links[i], id)
	}
	atomic.StoreUint32(count, uint32(len(ids)))
	atomic.AddUint32(seq, 1)
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
	ns.n, ns.upLen = st.n, st.upLen
	ns.entry.Store(st.entry.Load())
	g.st.Store(ns)
}
