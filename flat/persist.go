package flat

import (
	"errors"
	"fmt"

	"github.com/astral-engine/astral/internal/mem"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// ErrCorrupt reports parts that cannot form an index (FromParts).
var ErrCorrupt = errors.New("flat: corrupt parts")

// Parts is a flat index's storage as a file holds it: the records
// (stride bytes each, slot order), their ids, Adjust values (nil for
// AdjustNone), AdjustScaleSubtract multipliers (nil otherwise), and each
// record's tags, owner, time and importance (nil in FromParts: all zero,
// as a file written before they existed).
type Parts struct {
	Records []byte
	IDs     []uint64
	Adjust  []float32
	Scales  []float32
	Tags    []uint64
	Owners  []uint64
	Times   []int64
	Imps    []float32
}

// Parts returns the live records and what goes with them as the index
// holds them: no copy. The slices are valid until the next Add, Remove,
// SetTags or Detach; the caller excludes writers while it reads them.
func (x *Index) Parts() Parts {
	n := len(x.ids)
	return Parts{Records: x.slab[:n*x.stride], IDs: x.ids, Adjust: x.bias, Scales: x.scale, Tags: x.tags, Owners: x.owners, Times: x.times, Imps: x.imps}
}

// FromParts returns an index over p (len(p.IDs) records of k.Stride()
// bytes, one Adjust value each but for AdjustNone, one multiplier each
// for AdjustScaleSubtract only, tags and owners one each or nil), using the
// slices in place: they may alias read-only memory (a mapped file) as long
// as the caller calls Detach before the first Add, Remove or SetTags.
// Searches read them; nothing is copied but a nil attribute column, which
// becomes zeros. It fails, wrapping ErrCorrupt, when the lengths disagree
// or an id repeats.
func FromParts(k *kernel.Kernel, adjust score.Adjust, p Parts) (*Index, error) {
	recs, ids, bias, scales := p.Records, p.IDs, p.Adjust, p.Scales
	if k == nil || adjust > score.AdjustScaleSubtract {
		return nil, fmt.Errorf("%w: no kernel or unknown adjust %d", ErrCorrupt, adjust)
	}
	n := len(ids)
	if n > 1<<31-1 {
		return nil, fmt.Errorf("%w: %d records: at most %d", ErrCorrupt, n, 1<<31-1)
	}
	stride := k.Stride()
	if len(recs) != n*stride {
		return nil, fmt.Errorf("%w: %d record bytes for %d records of %d bytes", ErrCorrupt, len(recs), n, stride)
	}
	if adjust == score.AdjustNone && bias != nil {
		return nil, fmt.Errorf("%w: adjust values given without an adjust", ErrCorrupt)
	}
	if adjust != score.AdjustNone && len(bias) != n {
		return nil, fmt.Errorf("%w: %d adjust values for %d records", ErrCorrupt, len(bias), n)
	}
	if adjust == score.AdjustScaleSubtract && len(scales) != n || adjust != score.AdjustScaleSubtract && len(scales) != 0 {
		return nil, fmt.Errorf("%w: %d multipliers for %d records", ErrCorrupt, len(scales), n)
	}
	if p.Tags != nil && len(p.Tags) != n || p.Owners != nil && len(p.Owners) != n {
		return nil, fmt.Errorf("%w: %d tag and %d owner words for %d records", ErrCorrupt, len(p.Tags), len(p.Owners), n)
	}
	if p.Times != nil && len(p.Times) != n || p.Imps != nil && len(p.Imps) != n {
		return nil, fmt.Errorf("%w: %d times and %d importances for %d records", ErrCorrupt, len(p.Times), len(p.Imps), n)
	}
	x := &Index{kern: k, stride: stride, adjust: adjust}
	x.slots.Reserve(n)
	for i, id := range ids {
		if s, dup := x.slots.Get(id); dup {
			return nil, fmt.Errorf("%w: id %d stored twice (slots %d and %d)", ErrCorrupt, id, s, i)
		}
		x.slots.Put(id, int32(i))
	}
	// Full slices: the first Add finds no room and copies (Reserve).
	x.slab = recs[:len(recs):len(recs)]
	x.ids = ids[:n:n]
	x.tags, x.owners = attrColumn(p.Tags, n), attrColumn(p.Owners, n)
	x.times, x.imps = attrColumn(p.Times, n), attrColumn(p.Imps, n)
	x.owned, x.ownAt = map[uint64][]uint32{}, make([]uint32, n)
	for i := range n {
		x.own(i)
	}
	x.rebuildCeilings()
	if adjust != score.AdjustNone {
		x.bias = bias[:n:n]
		if x.bias == nil {
			x.bias = []float32{} // non-nil even when empty: nil means AdjustNone to Add
		}
	}
	if adjust == score.AdjustScaleSubtract {
		x.scale = scales[:n:n]
		if x.scale == nil {
			x.scale = []float32{} // non-nil even when empty, as bias
		}
	}
	return x, nil
}

// attrColumn is an attribute column of n records for FromParts: c in
// place, or zeros when the parts have none.
func attrColumn[T uint64 | int64 | float32](c []T, n int) []T {
	if c == nil {
		return make([]T, n)
	}
	return c[:n:n]
}

// Detach copies the records, ids, attributes and Adjust values into memory
// of the index's own, so it no longer reads the slices given to FromParts.
// Searches must not run meanwhile (the caller holds its write lock).
func (x *Index) Detach() {
	n := len(x.ids)
	slab := mem.Bytes(n * x.stride)
	copy(slab, x.slab[:n*x.stride])
	x.slab = slab
	x.ids = append(make([]uint64, 0, n), x.ids...)
	x.tags = append(make([]uint64, 0, n), x.tags...)
	x.owners = append(make([]uint64, 0, n), x.owners...)
	x.times = append(make([]int64, 0, n), x.times...)
	x.imps = append(make([]float32, 0, n), x.imps...)
	if x.bias != nil {
		x.bias = append(make([]float32, 0, n), x.bias...)
	}
	if x.scale != nil {
		x.scale = append(make([]float32, 0, n), x.scale...)
	}
}
