//go:build hnswprof

package hnsw

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
}

func (p *probe) expand()     { p.Expansions++ }
func (p *probe) links(n int) { p.Links += n }
func (p *probe) scored(l, n int) {
	if l == 0 {
		p.Scored0 += n
	} else {
		p.ScoredUpper += n
	}
}
func (p *probe) pushed()   { p.Pushes++ }
func (p *probe) admitted() { p.Admitted++ }
