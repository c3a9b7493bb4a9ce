package score

import "math"

// Entry is a result with the slot of the record that holds it, which an
// index needs to go on from a result (hnsw expands its links). It packs
// into 16 bytes, as Result does.
type Entry struct {
	Score float32
	Slot  uint32
	ID    uint64
}

// Better is the order of results (Result.Better) over entries.
func (a Entry) Better(b Entry) bool { return before(a.Score, a.ID, b.Score, b.ID) }

// Result drops the slot.
func (a Entry) Result() Result { return Result{ID: a.ID, Score: a.Score} }

// CompareEntries is Entry.Better in slices.SortFunc's form.
func CompareEntries(a, b Entry) int { return compare(a.Score, a.ID, b.Score, b.ID) }

// Sort orders short lists best first without allocating (insertion sort;
// use slices.SortFunc with CompareEntries for long ones).
func Sort(es []Entry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Better(es[j-1]); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// TopK keeps the k best entries pushed, worst at the root of a binary
// heap, so a candidate that cannot enter costs one comparison. The zero
// value keeps nothing until Reset.
type TopK struct {
	h []Entry
	k int
}

// Reset empties t to keep up to k entries, growing it once to that size.
func (t *TopK) Reset(k int) {
	if cap(t.h) < k {
		t.h = make([]Entry, 0, k)
	}
	t.h = t.h[:0]
	t.k = k
}

// Clear empties t and keeps its k.
func (t *TopK) Clear() { t.h = t.h[:0] }

// Len is the number of entries kept.
func (t *TopK) Len() int { return len(t.h) }

// Full reports whether t holds k entries.
func (t *TopK) Full() bool { return len(t.h) >= t.k }

// Worst is the entry a newcomer must beat once t is full.
func (t *TopK) Worst() Entry { return t.h[0] }

// Entries are the entries kept, in heap order.
func (t *TopK) Entries() []Entry { return t.h }

// Threshold is the score a candidate must reach to be considered: -Inf
// until t is full.
func (t *TopK) Threshold() float32 {
	if len(t.h) < t.k {
		return float32(math.Inf(-1))
	}
	return t.h[0].Score
}

// Admits reports whether e would enter t.
func (t *TopK) Admits(e Entry) bool { return len(t.h) < t.k || e.Better(t.h[0]) }

// Push offers e: it enters when t has room or e beats the worst, which it
// then replaces. Scores must not be NaN (see Ranked).
func (t *TopK) Push(e Entry) {
	h := t.h
	if len(h) < t.k {
		h = append(h, e)
		// Sift up: parents better than e move down into the hole.
		i := len(h) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !h[p].Better(e) {
				break
			}
			h[i] = h[p]
			i = p
		}
		h[i] = e
		t.h = h
		return
	}
	if len(h) == 0 || !e.Better(h[0]) {
		return
	}
	siftWorst(h, 0, e)
}

// Sorted orders the entries best first in place and returns them; t is
// spent until the next Reset or Clear. Heap sort: the root is the worst
// entry, so it moves to the back each round.
func (t *TopK) Sorted() []Entry {
	h := t.h
	for end := len(h) - 1; end > 0; end-- {
		last := h[end]
		h[end] = h[0]
		siftWorst(h[:end], 0, last)
	}
	return h
}

// BestSorted returns t's k best entries, best first, gathered in scratch
// (reset to k); t is left as it was. Heap order puts t's better entries
// toward the back, so walking it backwards most entries fail scratch's
// first comparison: far cheaper than sorting all of t to keep a few.
func (t *TopK) BestSorted(k int, scratch *TopK) []Entry {
	scratch.Reset(k)
	for i := len(t.h) - 1; i >= 0; i-- {
		scratch.Push(t.h[i])
	}
	return scratch.Sorted()
}

// siftWorst puts e at i, whose entry is being replaced, and restores the
// worst-at-root heap below it: the worse child moves up into the hole
// while it is worse than e. Each level writes one entry, not a swap's two.
func siftWorst(h []Entry, i int, e Entry) {
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n {
			c += BetterBit(h[c], h[r]) // to the worse child
		}
		if !e.Better(h[c]) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}

// BetterBit is a.Better(b) as 1 or 0, without branches: heap sifts use it
// to pick a child, a choice no predictor guesses.
func BetterBit(a, b Entry) int {
	var gt, eq, lt int
	if a.Score > b.Score {
		gt = 1
	}
	if a.Score == b.Score {
		eq = 1
	}
	if a.ID < b.ID {
		lt = 1
	}
	return gt | eq&lt
}
