package hnsw

import (
	"time"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
)

// Searcher is the reusable scratch of one search at a time: keep one per
// goroutine (or in a free list). It grows to the largest graph and ef it
// has served and then allocates nothing. The zero value is ready to use.
type Searcher struct {
	prof probe // counters under the hnswprof tag; empty otherwise
	// visited[slot] == epoch marks slot seen by the current search: a new
	// search bumps the epoch instead of clearing the array. A byte a slot
	// keeps the array in L1/L2 (100 KB at 100k nodes); the clear it costs
	// every 255 epochs is a few hundred bytes a search.
	visited []uint8
	epoch   uint8
	beam    beam       // the walk's frontier and result (searchLayer)
	cand    candHeap   // SearchFiltered's frontier
	res     score.TopK // SearchFiltered: the ef best live nodes seen
	pass    score.TopK // SearchFiltered: the best live nodes that pass the filter
	ranked  score.TopK // SearchRanked: the best by combined score
	rslots  []uint32   // SearchRanked: nodes the sweep gathers
	rscores []float32
	links   []uint32     // one node's links
	ids     []uint32     // the unvisited ones, for one kernel call
	scores  []float32    // their scores
	attrs   []match.Attr // SearchFiltered: their tags and owners, read before the gather
	qbuf    []float32    // QueryBuffer
	// A budgeted search (budget > 0) stops expanding level 0 once budget
	// has passed since start; expanded counts its expansions and left the
	// candidates that could still have improved the result when it stopped.
	start    time.Time
	budget   time.Duration
	expanded int
	left     int
	stopped  bool
	// Graph construction only.
	q, qn      []float32          // laid-out queries of the inserted node and of a neighbour
	selQ       []float32          // laid-out queries of the neighbours selected so far
	selOut     []float32          // a candidate's dots against them
	selSlots   []uint32           // the neighbours selected so far
	marked     bool               // selectNeighbors: clean candidates carry the visited mark
	selWorst   []float32          // selectNeighbors: clean candidates' worst scores against fresh kept nodes
	colSlots   []uint32           // scoreColumn: the clean candidates it scores
	colAt      []int32            // their places among the candidates
	colOut     []float32          // their dots
	addBuf     [2*MaxM + 1]uint32 // addLinks: a list and the links it gains
	selScratch []float32          // the batch kernel's scratch
	dec        []float32          // a record decoded by prepare (kinds other than E5M2; padded dimension)
	sel        []score.Entry
	pruned     []score.Entry
	owns       []float32     // own terms of selQ's queries
	cands      []score.Entry // a neighbour's candidates when its list overflows
	entries    []score.Entry // entry points of the next level
	found      []score.Entry // a level's search result, best first
	pscores    []float32     // scores of cands, peers or repair candidates
	plan       []uint32      // an insert's chosen links, level by level
	srcs       []uint32      // Build: sources of one target's new links, or a member's peers
	peers      []score.Entry // Build: a member's peers, scored
	nearPeers  []score.Entry // those that could join one level's candidates
	rids       []uint32      // Compact: live candidates of a repair
	out        [1]float32
}

// NewSearcher returns an empty Searcher.
func NewSearcher() *Searcher { return &Searcher{} }

// QueryBuffer returns room for one laid-out query of g's kernel, owned by
// s: fill it with the kernel's PrepareQuery and pass it to Search.
func (s *Searcher) QueryBuffer(g *Graph) []float32 {
	n := g.kern.QueryLen()
	if cap(s.qbuf) < n {
		s.qbuf = make([]float32, n)
	}
	s.qbuf = s.qbuf[:n]
	return s.qbuf
}

// budgetEvery is how many level-0 expansions a budgeted search makes
// between clock reads: at 384 dimensions an expansion scores up to 32
// neighbours, about a microsecond, so a batch stays within ~10 µs.
const budgetEvery = 8

// SetBudget makes the searches that follow stop expanding once d has
// passed since start (d 0: no budget) and return the best nodes found by
// then; Coverage reports how far each got.
func (s *Searcher) SetBudget(start time.Time, d time.Duration) { s.start, s.budget = start, d }

// Coverage reports whether the last search ran whole and the share of its
// work done: expansions made over those plus the candidates still able to
// improve the result when the budget stopped it.
func (s *Searcher) Coverage() (complete bool, covered float64) {
	if !s.stopped {
		return true, 1
	}
	return false, float64(s.expanded) / float64(s.expanded+s.left)
}

// budgetSpent is the clock half of outOfTime: every budgetEvery calls it
// reads the clock, and once past the budget it marks the search stopped;
// the caller then counts what was left.
func (s *Searcher) budgetSpent() bool {
	if s.expanded%budgetEvery != 0 || time.Since(s.start) < s.budget {
		s.expanded++
		return false
	}
	s.stopped = true
	return true
}

// outOfTime is the budget check before a level-0 expansion of a budgeted
// search: every budgetEvery expansions it reads the clock, and once past
// the budget it counts what was left (the node just popped, and the
// frontier that could still enter the result) and says to stop.
func (s *Searcher) outOfTime() bool {
	if !s.budgetSpent() {
		return false
	}
	s.left = 1
	for _, e := range s.cand.h {
		if !s.res.Full() || !s.res.Worst().Better(e) {
			s.left++
		}
	}
	return true
}

// begin readies s for a search over a graph whose storage has slots slots,
// with lists of up to maxLinks links and a result set of ef.
func (s *Searcher) begin(slots, maxLinks, ef int) {
	if len(s.visited) < slots {
		s.visited = make([]uint8, max(slots, 2*len(s.visited)))
		s.epoch = 0
	}
	if cap(s.links) < maxLinks {
		s.links = make([]uint32, maxLinks)
		s.ids = make([]uint32, maxLinks)
		s.scores = make([]float32, maxLinks)
		s.attrs = make([]match.Attr, maxLinks)
	}
	s.cand.h = s.cand.h[:0]
	s.res.Reset(ef)
	s.expanded, s.left, s.stopped = 0, 0, false
}

// newEpoch starts a new visited set.
func (s *Searcher) newEpoch() {
	s.epoch++
	if s.epoch == 0 { // wrapped: every 255 epochs, clear
		clear(s.visited)
		s.epoch = 1
	}
}

// mark starts a new visited set holding slots (of a graph of n slots) and
// sets marked.
func (s *Searcher) mark(n int, slots []uint32) {
	if len(s.visited) < n {
		s.visited = make([]uint8, n)
		s.epoch = 0
	}
	s.newEpoch()
	for _, x := range slots {
		s.visited[x] = s.epoch
	}
	s.marked = true
}

// visit marks slot and reports whether it was new to this search.
func (s *Searcher) visit(slot uint32) bool {
	if s.visited[slot] == s.epoch {
		return false
	}
	s.visited[slot] = s.epoch
	return true
}

// candHeap is the search frontier, best at the root: unbounded and popped
// from the best end, unlike score.TopK.
type candHeap struct{ h []score.Entry }

func (c *candHeap) push(e score.Entry) {
	c.h = append(c.h, e)
	h := c.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.Better(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// pop takes the best entry; the last one fills its hole from the root
// down, behind the better child, one write a level.
func (c *candHeap) pop() score.Entry {
	h := c.h
	top := h[0]
	n := len(h) - 1
	e := h[n]
	c.h = h[:n]
	h = h[:n]
	i := 0
	for {
		b := 2*i + 1
		if b >= n {
			break
		}
		if r := b + 1; r < n {
			b += score.BetterBit(h[r], h[b]) // to the better child
		}
		if !h[b].Better(e) {
			break
		}
		h[i] = h[b]
		i = b
	}
	if n > 0 {
		h[i] = e
	}
	return top
}
