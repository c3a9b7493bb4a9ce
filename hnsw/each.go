package hnsw

import (
	"math"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
)

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

// Entry appends a live node's record to dst[:0] and returns it with the
// node's adjust value and multiplier (1 unless score.AdjustScaleSubtract);
// false if id is not live. It allocates only when dst is too small.
func (g *Graph) Entry(id uint64, dst []byte) (rec []byte, adj, scale float32, ok bool) {
	g.gate.RLock()
	defer g.gate.RUnlock()
	g.allocMu.Lock()
	slot, ok := g.slotOf(id)
	st := g.st.Load()
	g.allocMu.Unlock()
	if !ok {
		return dst[:0], 0, 0, false
	}
	scale = 1
	if g.adjust == score.AdjustScaleSubtract {
		scale = math.Float32frombits(st.words[g.head(slot)-1])
	}
	return append(dst[:0], g.record(st, slot)...), g.adjOf(st, slot), scale, true
}
