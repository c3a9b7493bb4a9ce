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
// It is built from a copy of the columns in the background and published
// whole; writes made after that copy are noted in dirty, nodes inserted
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

// kickOrder starts a rebuild of the order in the background unless one
// is running: searches never wait for it, they sweep meanwhile.
func (g *Graph) kickOrder() {
	if g.orderBusy.CompareAndSwap(false, true) {
		go func() {
			defer g.orderBusy.Store(false)
			g.buildOrder()
		}()
	}
}

// buildOrder copies the time and importance columns, sorts them and
// publishes the order, unless Compact dropped it meanwhile.
func (g *Graph) buildOrder() {
	g.orderMu.Lock()
	g.allocMu.Lock()
	st, n := g.st.Load(), g.st.Load().n
	g.allocMu.Unlock()
	capDirty := orderDirtyCap(n)
	b := &rankOrder{numbering: st.numbering, n: n, dirty: make([]uint32, capDirty), marked: make([]bool, n)}
	g.building = b
	times, imps := make([]int64, n), make([]float32, n)
	for slot := range n {
		times[slot], imps[slot] = atomic.LoadInt64(&st.times[slot]), loadImp(&st.imps[slot])
	}
	g.orderMu.Unlock()

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
