//go:build hnswprof

package hnsw

import "sync/atomic"

// probe counts a search's work (go test -tags hnswprof): the profile of
// docs/BENCHMARKS.md, "What the HNSW profile shows". Never built into the
// library.
type probe struct {
	Expansions  int // candidates popped and expanded, all levels
	Links       int // links read from expanded lists
	Scored0     int // distance evaluations on level 0
	ScoredUpper int // distance evaluations above level 0
	Pushes      int // candidate-heap pushes
	Admitted    int // result-set pushes

	relinking bool // scores now are a full list's re-selection
}

// Distance evaluations by purpose, summed over every searcher: what a
// Build spends (TestProbeBuild resets and reads them).
const (
	evalSearch0  = iota // searches on level 0
	evalSearchUp        // searches and descents above level 0
	evalPeers           // batch members scored against earlier members
	evalSelect          // the heuristic choosing a new node's links
	evalRelink          // re-selecting a full list that gains links
	evalPurposes
)

var evals [evalPurposes]atomic.Int64

func (p *probe) expand()     { p.Expansions++ }
func (p *probe) links(n int) { p.Links += n }
func (p *probe) scored(l, n int) {
	if l == 0 {
		p.Scored0 += n
		evals[evalSearch0].Add(int64(n))
	} else {
		p.ScoredUpper += n
		evals[evalSearchUp].Add(int64(n))
	}
}
func (p *probe) peers(n int) { evals[evalPeers].Add(int64(n)) }
func (p *probe) selected(n int) {
	if p.relinking {
		evals[evalRelink].Add(int64(n))
	} else {
		evals[evalSelect].Add(int64(n))
	}
}
func (p *probe) relink(on bool) { p.relinking = on }
func (p *probe) pushed()        { p.Pushes++ }
func (p *probe) admitted()      { p.Admitted++ }
