package astral

import (
	"runtime/debug"

	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/kernel"
)

// Contains reports whether id is stored. It allocates nothing.
func (x *Index) Contains(id uint64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.Has(id)
}

// Clear removes every record with its attributes and payloads, keeping
// the configuration and the tag names; an auto index goes back to a flat
// one. A query running meanwhile sees the index before or after, never
// half of it. An index OpenFile mapped stops using the file. Clear also
// lifts a failed background check (VerifyInBackground): nothing of the
// file remains.
func (x *Index) Clear() error {
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.awaitCompaction()
	// The background check reads the mapping: it must end before the unmap.
	if c := x.check; c != nil {
		<-c.done
	}
	live, err := x.emptyStructure(x.cfg.Kind)
	if err != nil {
		return err
	}
	x.mu.Lock()
	x.live = live
	if x.rerank != nil {
		x.rerank = flat.New(x.rkern, x.rerank.Adjust())
	}
	// A background build in flight finds itself dropped (finishSwitch).
	x.switching, x.building, x.pending = nil, false, nil
	x.check = nil
	x.attrs = newAttrStore()
	m := x.mapped
	x.mapped = nil
	x.faults.mapped.Store(false)
	x.mu.Unlock()
	if m != nil {
		if err := m.Release(); err != nil {
			return errorf(ErrIO, "unmapping: %v", err)
		}
	}
	return nil
}

// Upsert is AddWith where an id already stored is replaced (vector, tags,
// owner and payload) rather than refused. It checks its input as AddWith
// does (dimension, NaN or Inf, an id repeated in the call, payload size)
// and on any error changes nothing. A query running meanwhile sees each
// record old or new, never missing: the replacement holds queries off
// while it runs, also in an HNSW index, whose plain Add runs beside them.
func (x *Index) Upsert(ids []uint64, vectors []float32, attrs []Attributes) error {
	b, err := x.encodeWith(ids, vectors, attrs)
	if err != nil {
		return err
	}
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.awaitCompaction()
	if err := x.ownMemory(); err != nil {
		return err
	}
	s := x.live
	x.mu.Lock()
	defer x.mu.Unlock()
	var old []uint64
	var oldAttrs []match.Attr
	for _, id := range b.ids {
		if a, ok := s.attr(id); ok {
			old = append(old, id)
			oldAttrs = append(oldAttrs, a)
		}
	}
	if len(old) > 0 {
		if err := s.remove(old); err != nil {
			return err // unreachable: the ids are stored and distinct
		}
		if err := x.removeRerank(old); err != nil {
			return err
		}
		if x.building {
			for i, id := range old {
				x.pending = append(x.pending, pendingOp{id: id, first: i == 0, replace: true})
			}
		}
	}
	x.attrs.mu.Lock()
	for i, id := range old {
		x.attrs.remove(id, oldAttrs[i])
	}
	for i, id := range b.ids {
		var p []byte
		if b.payloads != nil {
			p = b.payloads[i]
		}
		x.attrs.add(id, b.attr(i), p)
	}
	x.attrs.mu.Unlock()
	if err := x.addRerank(b); err != nil {
		return err
	}
	if err := s.insert(b, x.rt.workers()); err != nil {
		return err
	}
	x.keepAdds(b, true)
	// Compacted after the insert, as replay does (order.go).
	x.compactIfSparse(s, false)
	x.growIfFull()
	return nil
}

// Vector appends the stored vector of id, decoded to float32, to dst[:0]
// and returns it: from the rerank copy when the index has one (it is the
// wider), else from the searched records, dequantized (E5M2, E4M3 and
// Int8 with the record's scale, F16, F32). A cosine index stores vectors
// normalized, so this is the unit vector, not the one given to Add. It
// allocates only when dst is too small. ErrNotFound when id is absent.
func (x *Index) Vector(id uint64, dst []float32) (v []float32, err error) {
	if x.faults.mapped.Load() {
		defer x.endVectorGuard(debug.SetPanicOnFault(true), &v, &err)
	}
	dim := x.cfg.Dim
	if cap(dst) < dim {
		dst = make([]float32, dim)
	}
	dst = dst[:dim]
	x.mu.RLock()
	if err := x.damaged(); err != nil {
		x.mu.RUnlock()
		return dst[:0], err
	}
	found := false
	if x.rerank != nil {
		var rec []byte
		rec, _, _, found = x.rerank.Entry(id)
		if found {
			kernel.DecodeUnits(x.cfg.Rerank, dst, rec) // f16 or f32: the values themselves
		}
	} else if g, isGraph := x.live.(graphStructure); isGraph {
		// Copied out under the graph's gate, into pooled scratch.
		c := x.getCtx()
		var rec []byte
		var adj, scale float32
		rec, adj, scale, found = g.entry(id, c.rec)
		if found {
			x.decodeRecord(dst, rec, adj, scale)
		}
		c.rec = rec[:0]
		x.putCtx(c)
	} else {
		var rec []byte
		var adj, scale float32
		if rec, adj, scale, found = x.live.entry(id, nil); found {
			x.decodeRecord(dst, rec, adj, scale)
		}
	}
	x.mu.RUnlock()
	if !found {
		return dst[:0], errorf(ErrNotFound, "id %d", id)
	}
	return dst, nil
}

// decodeRecord writes a searched record's values to dst (Dim values):
// the kernel's units times the factor Encode returned, which the record's
// adjust value or multiplier keeps where the kind is scaled.
func (x *Index) decodeRecord(dst []float32, rec []byte, adj, scale float32) {
	s := x.cfg.Storage
	kernel.DecodeUnits(s, dst, rec)
	if !s.Scaled() {
		return
	}
	f := adj // dot: the factor itself; cosine: 1/|units|, the unit vector's factor
	if x.cfg.Metric == L2 {
		f = scale
	}
	for i := range dst {
		dst[i] *= f
	}
}

// endVectorGuard ends a guarded Vector: it reads the mapping with mu held
// shared, so a fault leaves it held.
func (x *Index) endVectorGuard(prev bool, v *[]float32, err *error) {
	debug.SetPanicOnFault(prev)
	if r := recover(); r != nil {
		*err = x.faults.latch(r)
		x.mu.RUnlock()
		*v = nil
	}
}
