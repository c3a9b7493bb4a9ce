package flat

import "math"

// Result is one hit: the caller's id and its score.
type Result struct {
	ID    uint64
	Score float32
}

// better is the one order of results: higher score first, then lower id.
func better(a, b Result) bool {
	return a.Score > b.Score || (a.Score == b.Score && a.ID < b.ID)
}

// compareResults orders results best first (slices.SortFunc's form of
// better).
func compareResults(a, b Result) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

// topK keeps the k best results seen, worst at the root of a binary heap,
// so a candidate that cannot enter costs one comparison.
type topK struct {
	h []Result
	k int
}

func (t *topK) reset(k int) {
	if cap(t.h) < k {
		t.h = make([]Result, 0, k)
	}
	t.h = t.h[:0]
	t.k = k
}

// threshold is the score a candidate must reach to be considered.
func (t *topK) threshold() float32 {
	if len(t.h) < t.k {
		return float32(math.Inf(-1))
	}
	return t.h[0].Score
}

func (t *topK) push(r Result) {
	if r.Score != r.Score { // NaN ranks last, so it can never block a real score
		r.Score = float32(math.Inf(-1))
	}
	h := t.h
	if len(h) < t.k {
		h = append(h, r)
		// Sift up.
		i := len(h) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !better(h[p], h[i]) {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		t.h = h
		return
	}
	if !better(r, h[0]) {
		return
	}
	h[0] = r
	siftWorst(h, 0)
}

// sorted writes the results best first into dst and returns it.
func (t *topK) sorted(dst []Result) []Result {
	dst = append(dst[:0], t.h...)
	// Insertion sort is allocation-free and fast for the usual small k;
	// heap order already puts much of it in place.
	if len(dst) > 64 {
		heapSort(dst)
		return dst
	}
	for i := 1; i < len(dst); i++ {
		for j := i; j > 0 && better(dst[j], dst[j-1]); j-- {
			dst[j], dst[j-1] = dst[j-1], dst[j]
		}
	}
	return dst
}

// heapSort orders s best first without allocating: the root of the heap
// is the worst result, so it is moved to the back each round.
func heapSort(s []Result) {
	for i := len(s)/2 - 1; i >= 0; i-- {
		siftWorst(s, i)
	}
	for end := len(s) - 1; end > 0; end-- {
		s[0], s[end] = s[end], s[0]
		siftWorst(s[:end], 0)
	}
}

// siftWorst restores the worst-at-root heap below i.
func siftWorst(h []Result, i int) {
	n := len(h)
	for {
		w, l, r := i, 2*i+1, 2*i+2
		if l < n && better(h[w], h[l]) {
			w = l
		}
		if r < n && better(h[w], h[r]) {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}
