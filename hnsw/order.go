package hnsw

import (
	"cmp"
	"slices"
	"sort"
	"sync/atomic"
)

// rankOrder lists the nodes by time and by importance, newest and most
// important first, so a ranked search reads the short prefix of one list
// whose nodes can still pass its floors instead of every node's columns.
// It is built from a copy of the columns, sorted in the background and
// published whole; writes made after that copy are noted in dirty, nodes inserted
// after it sit at slots >= n (the tail). A search reads the prefix, the
// dirty nodes and the tail: every node whose values could pass a floor.
type rankOrder struct {
	numbering uint64    // the storage's, when built
	n         int       // slots the lists cover
	times     []int64   // time of tslots[i] when built, descending
	tslots    []uint32  // slots by time
	imps      []float32 // importance of islots[i] when built, descending
	islots    []uint32  // slots by importance
	// dirty lists the slots below n whose time or importance changed after
	// the copy, each once (marked): written under Graph.orderMu, its length
	// published atomically after the slot. Full, the order is no longer
	// whole (overflow) and searches sweep every node until a rebuild.
	dirty    []uint32
	ndirty   atomic.Int32
	marked   []bool
	overflow atomic.Bool
}

// orderDirtyCap is how many changed nodes an order of n notes before a
// search stops using it; half of it, or as many inserted after it, has a
// search start a rebuild.
func orderDirtyCap(n int) int { return 256 + n/32 }

// noteRankChange records that slot's time or importance is about to
// change, in the published order and in one being built. The caller holds
// orderMu and stores the new value before it lets go, so a build's copy
// taken under orderMu either sees the value or has it noted.
func (g *Graph) noteRankChange(slot uint32) {
	if o := g.order.Load(); o != nil {
		o.note(slot)
	}
	if b := g.building; b != nil {
		b.note(slot)
	}
}

func (o *rankOrder) note(slot uint32) {
	if int(slot) >= o.n || o.marked[slot] || o.overflow.Load() {
		return // the tail, already noted, or no longer used
	}
	m := int(o.ndirty.Load())
	if m == len(o.dirty) {
		o.overflow.Store(true)
		return
	}
	o.marked[slot] = true
	o.dirty[m] = slot
	o.ndirty.Store(int32(m + 1))
}

// dropOrder forgets the order (Compact renumbers the slots). The caller
// holds the gate exclusively.
func (g *Graph) dropOrder() {
	g.orderMu.Lock()
	g.order.Store(nil)
	g.building = nil
	g.orderMu.Unlock()
}

// kickOrder starts a rebuild of the order unless one is running. The
// caller is a search, which copies the two columns itself (the storage
// may be a mapped file, which its caller keeps mapped only while searches
// run) and leaves the sort to a goroutine: searches never wait for it and
// sweep meanwhile. A fault in the copy panics out as the search's own
// read would, leaving no build marked running.
func (g *Graph) kickOrder() {
	if !g.orderBusy.CompareAndSwap(false, true) {
		return
	}
	started := false
	defer func() {
		if !started {
			g.orderBusy.Store(false)
		}
	}()
	b, times, imps := g.copyOrder()
	started = true
	go func() {
		defer g.orderBusy.Store(false)
		g.sortOrder(b, times, imps)
	}()
}

// buildOrder builds and publishes the order in the caller.
func (g *Graph) buildOrder() {
	b, times, imps := g.copyOrder()
	g.sortOrder(b, times, imps)
}

// copyOrder starts an order: it copies the time and importance columns
// and makes the order the one being built, so every change from now on
// is noted in it.
func (g *Graph) copyOrder() (b *rankOrder, times []int64, imps []float32) {
	g.orderMu.Lock()
	defer g.orderMu.Unlock()
	g.allocMu.Lock()
	st := g.st.Load()
	n := st.n
	g.allocMu.Unlock()
	b = &rankOrder{numbering: st.numbering, n: n, dirty: make([]uint32, orderDirtyCap(n)), marked: make([]bool, n)}
	times, imps = make([]int64, n), make([]float32, n)
	for slot := range n {
		times[slot], imps[slot] = atomic.LoadInt64(&st.times[slot]), loadImp(&st.imps[slot])
	}
	g.building = b
	return b, times, imps
}

// sortOrder sorts the copied columns into b and publishes it, unless
// Compact dropped it meanwhile.
func (g *Graph) sortOrder(b *rankOrder, times []int64, imps []float32) {
	n := b.n
	// Ties by slot, so one copy gives one order.
	b.tslots, b.islots = make([]uint32, n), make([]uint32, n)
	for i := range n {
		b.tslots[i], b.islots[i] = uint32(i), uint32(i)
	}
	slices.SortFunc(b.tslots, func(x, y uint32) int {
		return cmp.Or(cmp.Compare(times[y], times[x]), cmp.Compare(x, y))
	})
	// NaN never comes in (importances are checked finite), but would sort
	// last and fail every floor compare, as in the sweep.
	slices.SortFunc(b.islots, func(x, y uint32) int {
		return cmp.Or(cmp.Compare(imps[y], imps[x]), cmp.Compare(x, y))
	})
	b.times, b.imps = make([]int64, n), make([]float32, n)
	for i := range n {
		b.times[i], b.imps[i] = times[b.tslots[i]], imps[b.islots[i]]
	}
	g.orderMu.Lock()
	if g.building == b {
		g.order.Store(b)
		g.building = nil
	}
	g.orderMu.Unlock()
}

// BuildRankOrder builds the ranking order now (a ranked search otherwise
// starts it in the background when it finds none): for tests and for a
// host that wants its first ranked searches fast.
func (g *Graph) BuildRankOrder() {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.buildOrder()
}

// prefixes are how many entries of o's time and importance lists are at
// or above minTime and minImp.
func (o *rankOrder) prefixes(minTime int64, minImp float32) (pt, pi int) {
	pt = sort.Search(len(o.times), func(i int) bool { return o.times[i] < minTime })
	pi = sort.Search(len(o.imps), func(i int) bool { return !(o.imps[i] >= minImp) })
	return pt, pi
}
