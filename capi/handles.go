package main

/*
#include "capi.h"
*/
import "C"

import (
	"sync"

	"github.com/astral-engine/astral/astral"
)

// A handle is a slot number (low 32 bits, plus one so that 0 is never a
// handle) and the generation the slot had when the index was created (high
// 32 bits). Destroying bumps the slot's generation, so a stale handle is
// caught even after its slot is reused, and a forged one names a slot that
// is empty, out of range or of another generation: reported, never
// dereferenced.

// entry is one live index.
type entry struct {
	x   *astral.Index
	dim int
	rt  *astral.Runtime
}

type slot struct {
	gen uint32 // odd while the slot holds an index
	e   *entry
}

// maxSlots bounds the table; far more indexes than a game keeps.
const maxSlots = 1 << 20

// registry is the process-wide state: the runtime and the handle table.
type registry struct {
	mu    sync.RWMutex
	rt    *astral.Runtime // non-nil while initialized
	slots []slot
	free  []uint32 // empty slot numbers, reused last-in first-out
	live  int
}

var reg registry

func makeHandle(i uint32, gen uint32) C.AstralIndex {
	return C.AstralIndex(uint64(gen)<<32 | uint64(i+1))
}

// lookup resolves handle h for export fn. It allocates nothing unless it
// fails.
func lookup(fn string, h C.AstralIndex) (*entry, C.AstralStatus) {
	if testHook != nil {
		testHook(fn)
	}
	reg.mu.RLock()
	if reg.rt == nil {
		reg.mu.RUnlock()
		return nil, fail(fn, C.ASTRAL_E_NOT_INITIALIZED, "astral_init has not been called (or astral_shutdown has)")
	}
	if h == 0 {
		reg.mu.RUnlock()
		return nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "index handle is ASTRAL_INDEX_NONE")
	}
	i, gen := uint64(h)&0xffffffff-1, uint32(uint64(h)>>32)
	if i < uint64(len(reg.slots)) && reg.slots[i].gen == gen && reg.slots[i].e != nil {
		e := reg.slots[i].e
		reg.mu.RUnlock()
		return e, statusOK
	}
	known := i < uint64(len(reg.slots)) && gen%2 == 1 && gen < reg.slots[i].gen
	reg.mu.RUnlock()
	if known {
		return nil, fail(fn, C.ASTRAL_E_STALE_HANDLE, "index handle %#x is stale: the index was destroyed", uint64(h))
	}
	return nil, fail(fn, C.ASTRAL_E_STALE_HANDLE, "index handle %#x was never issued by this process (forged or corrupted)", uint64(h))
}

// insert adds e to the table; reg.mu must be held for writing.
func (r *registry) insert(e *entry) (C.AstralIndex, bool) {
	var i uint32
	if n := len(r.free); n > 0 {
		i = r.free[n-1]
		r.free = r.free[:n-1]
	} else {
		if len(r.slots) >= maxSlots {
			return 0, false
		}
		i = uint32(len(r.slots))
		r.slots = append(r.slots, slot{})
	}
	s := &r.slots[i]
	s.gen++ // even (empty) -> odd (live)
	if s.gen == 0xffffffff {
		// This slot has served 2^31 indexes: retire it rather than let its
		// generation wrap and revive old handles.
		s.e = nil
		return r.insert(e)
	}
	s.e = e
	r.live++
	return makeHandle(i, s.gen), true
}

// remove empties the slot of a handle that lookup accepted; reg.mu must be
// held for writing. It reports whether h was still live.
func (r *registry) remove(h C.AstralIndex) bool {
	i, gen := uint64(h)&0xffffffff-1, uint32(uint64(h)>>32)
	if i >= uint64(len(r.slots)) || r.slots[i].gen != gen || r.slots[i].e == nil {
		return false
	}
	r.slots[i].e = nil
	r.slots[i].gen++ // odd -> even
	r.free = append(r.free, uint32(i))
	r.live--
	return true
}

// clear empties every slot, keeping the generations so that no handle from
// before comes back to life, and returns the indexes it held; reg.mu must
// be held for writing.
func (r *registry) clear() []*entry {
	var gone []*entry
	for i := range r.slots {
		if e := r.slots[i].e; e != nil {
			gone = append(gone, e)
			r.remove(makeHandle(uint32(i), r.slots[i].gen))
		}
	}
	return gone
}

// liveIndexes is the number of indexes not yet destroyed (the leak check).
func liveIndexes() int {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	return reg.live
}

// testHook, when set by a test, runs at the start of every handle lookup;
// the tests use it to raise a panic inside an export.
var testHook func(fn string)
