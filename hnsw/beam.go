package hnsw

import (
	"math"

	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// beam is the walk's frontier and result set in one array sorted best
// first (searchLayer), in place of a candidate heap beside a TopK: at ef
// in the hundreds, an insertion (a branch-free binary search and one
// move) costs less than the heaps' sifts, the next node to expand is the
// first one not yet expanded, and the result comes out sorted.
//
// It holds what the heaps would still act on: the k best live nodes seen
// and the deleted ones better than the worst of them (a deleted node
// routes, it is never a result). Anything worse than the k-th live node
// could only end the heaps' walk, so the walk expands exactly the nodes
// the heaps would, in the same order (a test holds it to that).
type beam struct {
	// e holds an entry as one word: its score's order key (scoreKey) in
	// the high half, then beamDead, beamDone and the slot. The id that
	// breaks a tie is read only when scores are equal.
	e     []uint64
	k     int // live entries kept
	live  int
	first int // no entry before it is unexpanded
	// bound is the worst live score once full, -Inf before: a score
	// below it cannot enter.
	bound float32
}

const (
	beamDone uint64 = 1 << 30 // expanded
	beamDead uint64 = 1 << 31 // deleted: routes, never a result
	beamSlot uint64 = beamDone - 1
)

// vectorShift: the kernel opens a beam's gap in vector compares and moves
// on this CPU (kernel.ShiftBelow).
var vectorShift = kernel.ShiftBelowIsVector()

// The flags sit above every slot.
var _ = uint(beamDone - maxNodes)

// scoreKey maps a score (not NaN) to a word that orders as the score
// does, with -0 and +0 as one key: they are equal scores, which rank by id.
func scoreKey(s float32) uint32 {
	b := math.Float32bits(s + 0) // -0 + 0 is +0
	if b&(1<<31) != 0 {
		return ^b
	}
	return b | 1<<31
}

// keyScore is scoreKey's inverse (a zero comes back +0).
func keyScore(k uint32) float32 {
	if k&(1<<31) != 0 {
		return math.Float32frombits(k &^ (1 << 31))
	}
	return math.Float32frombits(^k)
}

func (b *beam) reset(k int) {
	b.e, b.k, b.live, b.first = b.e[:0], k, 0, 0
	b.bound = float32(math.Inf(-1))
}

func (b *beam) full() bool { return b.live >= b.k }

// insert adds (sc, slot), deleted or not, if it ranks before the k-th live
// entry or the beam is not full, and drops what then falls behind the
// k-th live entry. It reports whether the entry went in.
func (b *beam) insert(g *Graph, st *storage, sc float32, slot uint32, deleted bool) bool {
	key := scoreKey(sc)
	w := uint64(key)<<32 | uint64(slot)
	if deleted {
		w |= beamDead
	}
	var i int
	if vectorShift {
		var ok bool
		if i, ok = b.place(g, st, key, slot); !ok {
			return false
		}
	} else if i = b.rank(g, st, key, slot); b.full() && i == len(b.e) {
		return false
	} else {
		b.e = append(b.e, 0)
		copy(b.e[i+1:], b.e[i:])
	}
	b.e[i] = w
	b.first = min(b.first, i)
	if deleted {
		return true
	}
	b.live++
	if b.live > b.k { // the old worst, last, leaves
		b.live--
		b.e = b.e[:len(b.e)-1]
	}
	if b.live == b.k { // deleted entries behind the worst live one leave
		n := len(b.e)
		for b.e[n-1]&beamDead != 0 {
			n--
		}
		b.e = b.e[:n]
		b.bound = keyScore(uint32(b.e[n-1] >> 32))
	}
	return true
}

// place opens a gap for an entry of key and slot where it ranks: one
// vector pass moves the entries behind it up (kernel.ShiftBelow), then
// those of an equal score and a larger id. It reports false, moving
// nothing, when the beam is full and its worst entry ranks first.
func (b *beam) place(g *Graph, st *storage, key uint32, slot uint32) (int, bool) {
	if n := len(b.e); b.full() {
		if n == 0 { // a beam of k 0 takes nothing, as rank's path
			return 0, false
		}
		last := b.e[n-1]
		if k := uint32(last >> 32); k > key || k == key && g.idOf(st, uint32(last&beamSlot)) < g.idOf(st, slot) {
			return 0, false
		}
	}
	b.e = append(b.e, 0)
	e := b.e
	i := kernel.ShiftBelow(e, uint64(key)<<32)
	// Equal scores rank by id: read it only then.
	if i > 0 && uint32(e[i-1]>>32) == key {
		id := g.idOf(st, slot)
		for i > 0 && uint32(e[i-1]>>32) == key && g.idOf(st, uint32(e[i-1]&beamSlot)) > id {
			e[i] = e[i-1]
			i--
		}
	}
	return i, true
}

// rank is where an entry of key and slot ranks: how many entries rank
// before it, by a binary search that runs without branches ((key - k) >>
// 63 is 1 when an entry's key k is above key), then by id among equal
// scores.
func (b *beam) rank(g *Graph, st *storage, key uint32, slot uint32) int {
	e := b.e
	i, k := 0, uint64(key)
	if n := len(e); n > 0 {
		for n > 1 {
			half := n / 2
			i += half & -int((k-e[i+half-1]>>32)>>63)
			n -= half
		}
		i += int((k - e[i]>>32) >> 63)
	}
	// Equal scores rank by id: read it only then.
	if i < len(e) && uint32(e[i]>>32) == key {
		id := g.idOf(st, slot)
		for i < len(e) && uint32(e[i]>>32) == key && g.idOf(st, uint32(e[i]&beamSlot)) < id {
			i++
		}
	}
	return i
}

// next marks the best unexpanded entry expanded and returns its slot;
// false when every entry is.
func (b *beam) next() (uint32, bool) {
	e := b.e
	i := b.first
	for i < len(e) && e[i]&beamDone != 0 {
		i++
	}
	b.first = i
	if i == len(e) {
		return 0, false
	}
	e[i] |= beamDone
	b.first++
	return uint32(e[i] & beamSlot), true
}

// upcoming returns the slot next would return, without taking it.
func (b *beam) upcoming() (uint32, bool) {
	for _, w := range b.e[b.first:] {
		if w&beamDone == 0 {
			return uint32(w & beamSlot), true
		}
	}
	return 0, false
}

// appendLive appends the live entries, best first, to dst.
func (b *beam) appendLive(g *Graph, st *storage, dst []score.Entry) []score.Entry {
	for _, w := range b.e {
		if w&beamDead == 0 {
			slot := uint32(w & beamSlot)
			dst = append(dst, score.Entry{Score: keyScore(uint32(w >> 32)), Slot: slot, ID: g.idOf(st, slot)})
		}
	}
	return dst
}

// unexpanded counts the entries not yet expanded: the candidates that
// could still have improved the result when a budget stops the walk.
func (b *beam) unexpanded() int {
	n := 0
	for _, w := range b.e[b.first:] {
		if w&beamDone == 0 {
			n++
		}
	}
	return n
}

// appendResults appends the k best live entries, best first, to dst.
func (b *beam) appendResults(g *Graph, st *storage, k int, dst []score.Result) []score.Result {
	for _, w := range b.e {
		if len(dst) == k {
			break
		}
		if w&beamDead == 0 {
			slot := uint32(w & beamSlot)
			dst = append(dst, score.Result{ID: g.idOf(st, slot), Score: keyScore(uint32(w >> 32))})
		}
	}
	return dst
}
