package flat

import (
	"errors"
	"fmt"

	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// ErrCorrupt reports parts that cannot form an index (FromParts).
var ErrCorrupt = errors.New("flat: corrupt parts")

// Parts returns the live records (Len × Stride bytes, slot order), ids and
// Adjust values (nil for score.AdjustNone) as the index holds them: no copy. The
// slices are valid until the next Add, Remove or Detach; the caller
// excludes writers while it reads them.
func (x *Index) Parts() (recs []byte, ids []uint64, bias []float32) {
	n := len(x.ids)
	return x.slab[:n*x.stride], x.ids, x.bias
}

// Scales returns the score.AdjustScaleSubtract multipliers (nil otherwise), as
// Parts does.
func (x *Index) Scales() []float32 { return x.scale }

// FromParts returns an index over recs (len(ids) × k.Stride() bytes, slot
// order), ids and bias (one Adjust value per record; nil for score.AdjustNone),
// using the slices in place: they may alias read-only memory (a mapped
// file) as long as the caller calls Detach before the first Add or Remove.
// Searches read recs, ids and bias; nothing is copied. It fails, wrapping
// ErrCorrupt, when the lengths disagree or an id repeats.
func FromParts(k *kernel.Kernel, adjust score.Adjust, recs []byte, ids []uint64, bias []float32) (*Index, error) {
	return FromPartsScaled(k, adjust, recs, ids, bias, nil)
}

// FromPartsScaled is FromParts with the score.AdjustScaleSubtract multipliers
// (one per record for it, nil otherwise).
func FromPartsScaled(k *kernel.Kernel, adjust score.Adjust, recs []byte, ids []uint64, bias, scales []float32) (*Index, error) {
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
	slots := make(map[uint64]int32, n)
	for i, id := range ids {
		if _, dup := slots[id]; dup {
			return nil, fmt.Errorf("%w: id %d stored twice (slots %d and %d)", ErrCorrupt, id, slots[id], i)
		}
		slots[id] = int32(i)
	}
	x := &Index{kern: k, stride: stride, adjust: adjust, slots: slots}
	// Full slices: the first Add finds no room and copies (Reserve).
	x.slab = recs[:len(recs):len(recs)]
	x.ids = ids[:n:n]
	if adjust != score.AdjustNone {
		x.bias = bias[:n:n]
		if x.bias == nil {
			x.bias = []float32{} // non-nil even when empty: nil means score.AdjustNone to Add
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

// Detach copies the records, ids and Adjust values into memory of the
// index's own, so it no longer reads the slices given to FromParts.
// Searches must not run meanwhile (the caller holds its write lock).
func (x *Index) Detach() {
	n := len(x.ids)
	slab := alignedBytes(n * x.stride)
	copy(slab, x.slab[:n*x.stride])
	x.slab = slab
	x.ids = append(make([]uint64, 0, n), x.ids...)
	if x.bias != nil {
		x.bias = append(make([]float32, 0, n), x.bias...)
	}
	if x.scale != nil {
		x.scale = append(make([]float32, 0, n), x.scale...)
	}
}
