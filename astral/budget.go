package astral

import (
	"runtime/debug"
	"time"

	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/pool"
)

// soloBudget is the shortest budget a search shares with the runtime's
// workers; a shorter one runs on the caller alone. Waking a worker takes
// a good part of so short a budget, and a worker that starts late makes
// the caller overshoot it (docs/BUDGETS.md).
const soloBudget = 200 * time.Microsecond

// workers is the pool c's search may use: rt's, or none under soloBudget.
func (c *queryCtx) workers(rt *Runtime) *pool.Pool {
	if c.budget.d > 0 && c.budget.d < soloBudget {
		return nil
	}
	return rt.workers()
}

// Coverage reports how much of its work a budgeted query did.
type Coverage struct {
	Complete bool    // the whole search ran: the result is the unbudgeted one
	Covered  float64 // share of the work done, in [0, 1]: records scanned (flat, exact plans), expansions (graph)
	Plan     Plan
}

// frameBudget is a query's frame budget: it stops d after start (d 0: none).
type frameBudget struct {
	start time.Time // read with its monotonic clock only
	d     time.Duration
}

// QueryWithin is QueryWith that returns once budget has passed since the
// call began, with the best results found by then, best first, and what
// the search covered. A flat scan, a direct plan and an exact filtered
// scan visit their records in blocks spread over the whole index (each
// participant in interleaved passes over its share), so a scan cut short
// ranks a sample of every part of the index rather than a prefix; an HNSW
// walk stops expanding. The clock is read once per block of records or
// per few graph expansions. A budget generous enough gives exactly
// QueryWith's results: the same ids, score bits and order. A budget under
// 200 µs runs on the caller alone. budget <= 0 is
// ErrInvalidArgument. With cap(dst) >= o.K it allocates nothing.
func (x *Index) QueryWithin(dst []Result, q []float32, o QueryOptions, budget time.Duration) (res []Result, cov Coverage, err error) {
	start := time.Now()
	if budget <= 0 {
		return dst[:0], Coverage{}, errorf(ErrInvalidArgument, "budget %v: want more than 0", budget)
	}
	if x.faults.mapped.Load() {
		defer x.endQueryGuard(debug.SetPanicOnFault(true), &res, &err)
	}
	return x.queryWithin(dst, q, &o, frameBudget{start: start, d: budget})
}

// flatCoverage records what the flat search just run with c.s covered.
func (c *queryCtx) flatCoverage() {
	if c.budget.d == 0 {
		return
	}
	done, work := c.s.Coverage()
	c.setCoverage(done, work)
}

// setCoverage records a search that visited done of work items.
func (c *queryCtx) setCoverage(done, work int) {
	c.complete = done >= work
	if c.complete {
		c.covered = 1
		return
	}
	c.covered = float64(done) / float64(work)
}

// budgetedExact is c's exact searcher for a graph, set to c's budget.
func (c *queryCtx) budgetedExact(participants int) *hnsw.ExactSearcher {
	es := c.exactSearcher(participants)
	es.SetBudget(c.budget.start, c.budget.d)
	return es
}

// exactCoverage records what the graph's exact scan just run covered.
func (c *queryCtx) exactCoverage() {
	if c.budget.d == 0 {
		return
	}
	done, work := c.es.Coverage()
	c.setCoverage(done, work)
}

// Hold keeps the index readable for a flat participant that a budgeted
// search leaves running at its deadline (flat.Holder): a read lock of its
// own, taken beside the caller's. TryRLock fails while a writer waits
// (a nested RLock would then deadlock): the caller then waits for the
// participant instead, as a writer would.
func (c *queryCtx) Hold() bool { return c.x.mu.TryRLock() }

// Left ends a participant left running (flat.Holder): a mapping fault it
// hit is latched as the index's, as on the caller; any other panic has no
// caller to reach, and its share was dropped from the answer already.
// The last one returns c to the free list.
func (c *queryCtx) Left(panicked any, last bool) {
	x := c.x
	if panicked != nil {
		x.faults.latchFault(panicked)
	}
	x.mu.RUnlock()
	if last {
		c.free()
	}
}
