package astral

import (
	"math"

	"github.com/astral-engine/astral/hnsw"
)

// scopedPlan is how one filtered search runs.
type scopedPlan struct {
	plan Plan
	// cands are the candidate ids of PlanDirect: the allowlist or the
	// owner's posting, whichever is smaller.
	cands []uint64
	ef    int // the graph's beam under PlanGraph
	// holdsAttrs: cands is an owner's posting, read under attrs.mu held
	// shared until the search ends.
	holdsAttrs bool
	// share is the estimated share of records that pass the filter under
	// PlanScan: an IVF index widens its probes by its inverse.
	share float64
}

const (
	// directShare is the largest share of the records a candidate set may
	// hold and still be scored directly: past it a scan that tests every
	// record's words reads less than the id lookups and gathers cost.
	directShare = 0.25
	// exactShare is the share of matching records below which an HNSW
	// index scores every match exactly instead of walking its graph: the
	// walk would have to pass through ever more non-matching nodes to find
	// k matches, and lose recall. At a tenth the exact scan costs less than
	// three unfiltered walks and recalls everything; a walk wide enough to
	// match hnswlib's recall there costs more (docs/SCOPED.md).
	exactShare = 0.12
	// A filtered walk's beam is the query's times widen(share): wider as
	// fewer nodes match, from 2.5 (share 0.15 and up) to 3 (share 0.1 and
	// below); at ef 128 on spectral 100k that keeps recall at half
	// selectivity at or above hnswlib's with the same ef (docs/SCOPED.md).
	widenMin, widenMax = 2.5, 3.0
	widenScale         = 0.95
	// wideShare: above it a filter passes nearly everything (a denylist)
	// and the beam stays as asked.
	wideShare = 0.9
	// directAlways is a candidate set small enough to score directly
	// whatever the index holds.
	directAlways = 2048
)

// direct reports whether m candidates of n records are scored directly.
func (x *Index) direct(s structure, m, n int) bool {
	if m <= directAlways {
		return true
	}
	if s.kind() == KindHNSW {
		return float64(m) < exactShare*float64(n)
	}
	return float64(m) <= directShare*float64(n)
}

// plan picks the cheapest exact-enough way to answer c's filter (active)
// over s with kc results and beam ef; hold mu shared. When the plan's
// holdsAttrs is set the caller releases attrs.mu after the search.
func (x *Index) plan(c *queryCtx, s structure, kc, ef int) scopedPlan {
	f := &c.f
	n := s.Len()
	var sp scopedPlan
	if f.Allow.On {
		sp.cands = f.Allow.IDs()
	}
	x.attrs.mu.RLock()
	ready := x.attrs.ready.Load()
	var group []uint64
	if f.Owner != 0 && ready {
		if group = x.attrs.owners[f.Owner]; group == nil {
			group = []uint64{}
		}
		if !f.Allow.On || len(group) < len(sp.cands) {
			sp.cands, sp.holdsAttrs = group, true
		}
	}
	if sp.cands != nil && x.direct(s, len(sp.cands), n) {
		sp.plan = PlanDirect
		if !sp.holdsAttrs {
			x.attrs.mu.RUnlock()
		}
		return sp
	}
	// Too many candidates to look up one by one: every record is tested.
	share := 1.0
	if ready {
		share = x.attrs.share(f, n)
	}
	if f.Allow.On {
		share *= float64(f.Allow.Len()) / float64(max(n, 1))
	}
	if group != nil {
		share *= float64(len(group)) / float64(max(n, 1))
	}
	x.attrs.mu.RUnlock()
	sp.cands, sp.holdsAttrs = nil, false
	if s.kind() != KindHNSW {
		sp.plan, sp.share = PlanScan, share
		return sp
	}
	if share < exactShare {
		sp.plan = PlanScan
		return sp
	}
	sp.plan = PlanGraph
	sp.ef = ef
	if share < wideShare {
		widen := min(widenMax, max(widenMin, widenScale/math.Sqrt(share)))
		sp.ef = int(math.Min(hnsw.MaxEf, math.Ceil(widen*float64(ef))))
	}
	if d := f.Deny.Len(); d > 0 {
		sp.ef = min(hnsw.MaxEf, sp.ef+d)
	}
	return sp
}
