package ivf

import (
	"errors"
	"fmt"
	"math"

	"github.com/astral-engine/astral/internal/score"
)

// ErrCorrupt reports parts that cannot form an index (FromParts).
var ErrCorrupt = errors.New("ivf: corrupt parts")

// PartitionParts is one partition as a file holds it: its slots' records
// (Stride bytes each), ids, adjust values (nil for AdjustNone),
// multipliers (nil unless AdjustScaleSubtract), tags and owners (nil: all
// zero), and the tombstoned slots, ascending.
type PartitionParts struct {
	Records    []byte
	IDs        []uint64
	Adjust     []float32
	Scales     []float32
	Tags       []uint64
	Owners     []uint64
	Tombstones []uint32
	// Times and Imps are the ranking columns (each nil: all zero).
	Times []int64
	Imps  []float32
	// Dirty: the partition changed since MarkClean (FromParts ignores it).
	Dirty bool
	// Saved: slots [0, Saved) are unchanged since MarkSaved (ids, records,
	// attributes; not the tombstones), so a save may keep them.
	Saved int
}

// Parts is an index's storage as a file holds it: the centroids (NList ×
// Dim values) and each partition, as separate pieces so that a save can
// rewrite only the dirty partitions.
type Parts struct {
	Centroids  []float32
	Partitions []PartitionParts
	// SplitAt is the split size in force (-1: never).
	SplitAt int
	// CentroidsDirty: the centroids changed since MarkClean (a split).
	CentroidsDirty bool
}

// Parts returns the index's pieces as it holds them: no copy but the
// tombstone lists. The slices are valid until the next write; the caller
// excludes writers while it reads them.
func (x *Index) Parts() Parts {
	ps := Parts{SplitAt: x.splitAt, CentroidsDirty: x.centsDirty}
	if x.cents == nil {
		return ps
	}
	ps.Centroids = x.cents.vecs
	ps.Partitions = make([]PartitionParts, len(x.parts))
	for i, p := range x.parts {
		n := p.slots()
		pp := PartitionParts{Records: p.slab[:n*x.stride], IDs: p.ids, Adjust: p.bias, Scales: p.scale,
			Tags: p.tags, Owners: p.owners, Times: p.times, Imps: p.imps, Dirty: p.dirty, Saved: p.saved}
		if p.ndead > 0 {
			pp.Tombstones = make([]uint32, 0, p.ndead)
			for s := 0; s < n; s++ {
				if p.isDead(s) {
					pp.Tombstones = append(pp.Tombstones, uint32(s))
				}
			}
		}
		ps.Partitions[i] = pp
	}
	return ps
}

// Dirty returns the partitions changed since MarkClean, ascending, and
// whether the centroids changed.
func (x *Index) Dirty() (parts []int, centroids bool) {
	for i, p := range x.parts {
		if p.dirty {
			parts = append(parts, i)
		}
	}
	return parts, x.centsDirty
}

// MarkClean records that every piece has been saved: Dirty is empty.
func (x *Index) MarkClean() {
	for _, p := range x.parts {
		p.dirty = false
	}
	x.centsDirty = false
}

// MarkSaved records that a file holds every slot as it is now: each
// partition's Saved becomes its slots. (A save to a file a later save may
// append to calls it; a save elsewhere only MarkClean.)
func (x *Index) MarkSaved() {
	for _, p := range x.parts {
		p.saved = p.slots()
	}
}

// FromParts returns an index over ps with cfg (its NList the trained
// count; partitions past it come from splits), using the slices in place:
// they may alias read-only memory (a mapped file), as each partition is
// copied before its first write. It fails, wrapping ErrCorrupt, when a
// length, a tombstone or a centroid is wrong or a live id repeats.
func FromParts(x *Index, ps Parts) error {
	if x.cents != nil || x.live != 0 {
		return fmt.Errorf("%w: load into an empty index", ErrCorrupt)
	}
	nl := len(ps.Partitions)
	if nl < 1 || nl > MaxNList || len(ps.Centroids) != nl*x.dim {
		return fmt.Errorf("%w: %d centroid values for %d partitions of dimension %d", ErrCorrupt, len(ps.Centroids), nl, x.dim)
	}
	if ps.SplitAt < -1 {
		return fmt.Errorf("%w: split size %d", ErrCorrupt, ps.SplitAt)
	}
	for _, v := range ps.Centroids {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: a centroid is not finite", ErrCorrupt)
		}
	}
	cents, err := newCentroids(x.dim, x.l2)
	if err != nil {
		return err
	}
	for i := 0; i < nl; i++ {
		cents.set(i, ps.Centroids[i*x.dim:(i+1)*x.dim])
	}
	parts := make([]*partition, nl)
	total := 0
	for i := range ps.Partitions {
		p, err := x.partitionFrom(&ps.Partitions[i])
		if err != nil {
			return fmt.Errorf("partition %d: %w", i, err)
		}
		parts[i] = p
		total += p.liveLen()
	}
	x.slots.Reserve(total)
	dead := 0
	for pi, p := range parts {
		for s, id := range p.ids {
			if p.isDead(s) {
				continue
			}
			if x.slots.Has(id) {
				x.slots.Clear()
				return fmt.Errorf("%w: id %d stored twice", ErrCorrupt, id)
			}
			x.place(id, pi, s)
		}
		dead += p.ndead
	}
	x.cents, x.parts, x.live, x.dead, x.splitAt = cents, parts, total, dead, ps.SplitAt
	return nil
}

// partitionFrom checks one partition's pieces and borrows them.
func (x *Index) partitionFrom(pp *PartitionParts) (*partition, error) {
	n := len(pp.IDs)
	switch {
	case n > math.MaxInt32:
		return nil, fmt.Errorf("%w: %d records", ErrCorrupt, n)
	case len(pp.Records) != n*x.stride:
		return nil, fmt.Errorf("%w: %d record bytes for %d records of %d bytes", ErrCorrupt, len(pp.Records), n, x.stride)
	case x.adjust == score.AdjustNone && pp.Adjust != nil || x.adjust != score.AdjustNone && len(pp.Adjust) != n:
		return nil, fmt.Errorf("%w: %d adjust values for %d records", ErrCorrupt, len(pp.Adjust), n)
	case x.adjust == score.AdjustScaleSubtract && len(pp.Scales) != n || x.adjust != score.AdjustScaleSubtract && len(pp.Scales) != 0:
		return nil, fmt.Errorf("%w: %d multipliers for %d records", ErrCorrupt, len(pp.Scales), n)
	case pp.Tags != nil && len(pp.Tags) != n || pp.Owners != nil && len(pp.Owners) != n:
		return nil, fmt.Errorf("%w: %d tag and %d owner words for %d records", ErrCorrupt, len(pp.Tags), len(pp.Owners), n)
	case len(pp.Tombstones) > n:
		return nil, fmt.Errorf("%w: %d tombstones for %d records", ErrCorrupt, len(pp.Tombstones), n)
	}
	p := &partition{borrowed: true, saved: n}
	p.slab = pp.Records[:len(pp.Records):len(pp.Records)]
	p.ids = pp.IDs[:n:n]
	p.tags, p.owners = nonzero(pp.Tags, n, isZero), nonzero(pp.Owners, n, isZero)
	if err := p.borrowRanks(pp.Times, pp.Imps, n); err != nil {
		return nil, err
	}
	if x.adjust != score.AdjustNone {
		p.bias = pp.Adjust[:n:n]
		if p.bias == nil {
			p.bias = []float32{}
		}
	}
	if x.adjust == score.AdjustScaleSubtract {
		p.scale = pp.Scales[:n:n]
		if p.scale == nil {
			p.scale = []float32{}
		}
	}
	if len(pp.Tombstones) > 0 {
		p.dead = make([]uint64, (n+63)/64)
		prev := -1
		for _, s := range pp.Tombstones {
			if int(s) <= prev || int(s) >= n {
				return nil, fmt.Errorf("%w: tombstone %d out of order or past %d records", ErrCorrupt, s, n)
			}
			prev = int(s)
			p.dead[s>>6] |= 1 << (s & 63)
		}
		p.ndead = len(pp.Tombstones)
	}
	return p, nil
}

// nonzero is an attribute column of n records: c in place, or nil (the
// partition's form of all zero) when c is nil or holds only zeros.
func nonzero[T any](c []T, n int, zero func(T) bool) []T {
	for _, v := range c[:min(n, len(c))] {
		if !zero(v) {
			return c[:n:n]
		}
	}
	return nil
}

func isZero[T uint64 | int64](v T) bool { return v == 0 }

// isZeroBits: -0 is kept, as every other value, bit for bit.
func isZeroBits(v float32) bool { return math.Float32bits(v) == 0 }
