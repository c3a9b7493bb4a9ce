//go:build !hnswprof

package hnsw

// probe counts a search's work under the hnswprof build tag (probe_on.go);
// in every other build it is empty and its calls compile to nothing.
type probe struct{}

func (*probe) expand()         {}
func (*probe) links(int)       {}
func (*probe) scored(int, int) {}
func (*probe) pushed()         {}
func (*probe) admitted()       {}
func (*probe) peers(int)       {}
func (*probe) selected(int)    {}
func (*probe) relink(bool)     {}
