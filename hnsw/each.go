package hnsw

import "github.com/astral-engine/astral/internal/match"

// EachAttr calls fn with every live node's id and attributes, in slot
// order. Writers wait meanwhile.
func (g *Graph) EachAttr(fn func(id uint64, a match.Attr)) {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	defer g.allocMu.Unlock()
	st := g.st.Load()
	for slot := range uint32(st.n) {
		if g.flags(st, slot)&flagDeleted == 0 {
			fn(g.idOf(st, slot), st.attr(slot))
		}
	}
}
