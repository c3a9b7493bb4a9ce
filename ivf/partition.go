package ivf

import (
	"fmt"
	"math"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/mem"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/slotmap"
)

// partition is one list: its records in one aligned slab, slot order, with
// their ids, attributes and adjust values beside them, as flat keeps them.
// A removed record stays as a tombstone (a bit in dead) until the
// partition is compacted.
type partition struct {
	slab []byte // cap(ids)*stride bytes; slots [0, len(ids)) used
	ids  []uint64
	// tags, owners, times and imps are the attribute columns, one value
	// per slot, moved with the others by put, compact and split. Each is
	// nil while every slot's value is zero (read them through tag, owner,
	// time, imp and the …At chunk forms): an index without attributes
	// keeps 28 bytes a record fewer. times and imps rank (rank.go).
	tags   []uint64
	owners []uint64
	times  []int64
	imps   []float32
	// newest and most bound every slot's time and importance (tombstones
	// included): raised by each write, made exact again by keep and at
	// load. A ranked query skips the partitions they rule out.
	newest int64
	most   float32
	bias   []float32 // nil for AdjustNone
	scale  []float32 // nil unless AdjustScaleSubtract
	dead   []uint64  // tombstone bits by slot; nil or all zero when ndead == 0
	ndead  int
	dirty  bool // changed since MarkClean
	// saved: slots [0, saved) are as MarkSaved left them (ids, records,
	// attributes); a save may keep their bytes and write only the rest.
	saved int
	// noSplitBelow: a split found the records alike; retry past this size.
	noSplitBelow int
	// borrowed: the slices alias parts given to FromParts (perhaps a
	// read-only mapping); the first write copies them (own).
	borrowed bool
}

// compactMin and compactShare trigger a partition's compaction: more than
// compactMin tombstones and more than 1/compactShare of its slots.
const (
	compactMin   = 32
	compactShare = 8
)

func (x *Index) newPartition(capacity int) *partition {
	p := &partition{dirty: true, newest: math.MinInt64, most: float32(math.Inf(-1))}
	p.grow(x, capacity)
	if x.adjust != score.AdjustNone && p.bias == nil {
		p.bias = []float32{}
	}
	if x.adjust == score.AdjustScaleSubtract && p.scale == nil {
		p.scale = []float32{}
	}
	return p
}

// slots is the number of used slots, tombstones included.
func (p *partition) slots() int { return len(p.ids) }

func (p *partition) liveLen() int { return len(p.ids) - p.ndead }

func (p *partition) record(s, stride int) []byte { return p.slab[s*stride : (s+1)*stride] }

func (p *partition) isDead(s int) bool { return p.ndead > 0 && p.dead[s>>6]&(1<<(s&63)) != 0 }

func (p *partition) bytes() int64 {
	return int64(len(p.slab)) + int64(cap(p.ids)+cap(p.tags)+cap(p.owners)+cap(p.dead)+cap(p.times))*8 + int64(cap(p.bias)+cap(p.scale)+cap(p.imps))*4
}

// grow makes room for n more slots, copying into memory of the index's own.
func (p *partition) grow(x *Index, n int) {
	used := len(p.ids)
	if !p.borrowed && (used+n)*x.stride <= len(p.slab) {
		return
	}
	capacity := used + n
	if capacity*x.stride > len(p.slab) {
		capacity = max(capacity, 2*len(p.slab)/x.stride, 16)
	} else {
		capacity = len(p.slab) / x.stride
	}
	slab := mem.Bytes(capacity * x.stride)
	copy(slab, p.slab[:used*x.stride])
	p.slab = slab
	p.ids = regrow(p.ids, capacity)
	p.tags = regrowSet(p.tags, capacity)
	p.owners = regrowSet(p.owners, capacity)
	p.times = regrowSet(p.times, capacity)
	p.imps = regrowSet(p.imps, capacity)
	if p.bias != nil {
		p.bias = regrow(p.bias, capacity)
	}
	if p.scale != nil {
		p.scale = regrow(p.scale, capacity)
	}
	if p.dead != nil {
		p.dead = regrow(p.dead, (capacity+63)/64)[:(capacity+63)/64]
	}
	p.borrowed = false
}

// regrow copies s into a new slice of capacity c.
func regrow[T any](s []T, c int) []T {
	ns := make([]T, len(s), c)
	copy(ns, s)
	return ns
}

// regrowSet is regrow for a column that may be nil (all zero): it stays nil.
func regrowSet[T any](s []T, c int) []T {
	if s == nil {
		return nil
	}
	return regrow(s, c)
}

// set returns column c ready to hold a nonzero value: c, or zeros for
// p's slots with p's capacity if it was nil.
func set[T any](p *partition, c []T) []T {
	if c == nil {
		return make([]T, len(p.ids), cap(p.ids))
	}
	return c
}

// appendAttr appends v (zero: all its bits are) to column c of the s
// slots before the new one, leaving a nil column nil while v is zero.
func appendAttr[T any](p *partition, c []T, v T, zero bool, s int) []T {
	if c == nil {
		if zero {
			return nil
		}
		c = make([]T, s, cap(p.ids))
	}
	return append(c, v)
}

// Zero chunks stand in for nil columns in the chunked loops.
var (
	zeroWords [chunk]uint64
	zeroTimes [chunk]int64
	zeroImps  [chunk]float32
)

// at is c[base:base+m], or m zeros when c is nil.
func at[T any](c []T, zeros []T, base, m int) []T {
	switch {
	case c != nil:
		return c[base : base+m]
	case m <= len(zeros):
		return zeros[:m]
	}
	return make([]T, m) // unreachable: the loops go a chunk at a time
}

func (p *partition) tag(s int) uint64 {
	if p.tags == nil {
		return 0
	}
	return p.tags[s]
}

func (p *partition) owner(s int) uint64 {
	if p.owners == nil {
		return 0
	}
	return p.owners[s]
}

func (p *partition) time(s int) int64 {
	if p.times == nil {
		return 0
	}
	return p.times[s]
}

func (p *partition) imp(s int) float32 {
	if p.imps == nil {
		return 0
	}
	return p.imps[s]
}

// put appends one record to p and returns its slot.
func (p *partition) put(x *Index, id uint64, rec []byte, bias, scale float32, a match.Attr) int {
	p.grow(x, 1)
	s := len(p.ids)
	copy(p.slab[s*x.stride:(s+1)*x.stride], rec)
	p.tags = appendAttr(p, p.tags, a.Tags, a.Tags == 0, s)
	p.owners = appendAttr(p, p.owners, a.Owner, a.Owner == 0, s)
	p.times = appendAttr(p, p.times, a.Time, a.Time == 0, s)
	p.imps = appendAttr(p, p.imps, a.Importance, math.Float32bits(a.Importance) == 0, s)
	p.ids = append(p.ids, id)
	p.newest, p.most = max(p.newest, a.Time), max(p.most, a.Importance)
	if p.bias != nil {
		p.bias = append(p.bias, bias)
	}
	if p.scale != nil {
		p.scale = append(p.scale, scale)
	}
	p.dirty = true
	return s
}

// place records that id lives at partition pi, slot s.
func (x *Index) place(id uint64, pi, s int) {
	x.slots.Put64(id, uint64(pi)<<32|uint64(uint32(s)))
}

// Add stores one encoded record (Stride bytes) under id in the partition of
// its nearest centroid, with its adjust value, multiplier (read only by
// AdjustScaleSubtract) and attributes. A partition that grows past the
// split size is split in two.
func (x *Index) Add(id uint64, rec []byte, bias, scale float32, a match.Attr) error {
	if x.cents == nil {
		return ErrNotTrained
	}
	if x.slots.Has(id) {
		return ErrDuplicateID
	}
	if len(rec) < x.stride {
		return fmt.Errorf("%w: record of %d bytes, want %d", ErrConfig, len(rec), x.stride)
	}
	x.addTo(x.nearest(rec[:x.stride], scale), id, rec, bias, scale, a)
	return nil
}

// addTo stores a checked record in partition pi, splitting it if it grew
// past the split size.
func (x *Index) addTo(pi int, id uint64, rec []byte, bias, scale float32, a match.Attr) {
	p := x.parts[pi]
	s := p.put(x, id, rec, bias, scale, a)
	x.place(id, pi, s)
	x.live++
	if x.splitAt > 0 && p.liveLen() > x.splitAt && len(x.parts) < MaxNList {
		x.split(pi)
	}
}

// batchAssignMin is the smallest AddBatch whose centroid choices are made
// on the pool; smaller ones choose record by record, as Add.
const batchAssignMin = 64

// AddBatch is Add for each record in order (ids[i], the Stride bytes of
// record i, bias[i], scales[i], attr(i)), its centroid choices made first
// on p's workers: the same partitions and slots as Adds one by one,
// whatever the workers. A split changes the centroids, so the choices
// after one are made again. It stops at the first duplicate id.
func (x *Index) AddBatch(ids []uint64, recs []byte, bias, scales []float32, attr func(i int) match.Attr, p *pool.Pool) error {
	if x.cents == nil {
		return ErrNotTrained
	}
	n := len(ids)
	if len(recs) < n*x.stride || len(bias) < n || len(scales) < n {
		return fmt.Errorf("%w: %d ids, %d record bytes, %d adjust values, %d multipliers", ErrConfig, n, len(recs), len(bias), len(scales))
	}
	for lo := 0; lo < n; {
		if n-lo < batchAssignMin {
			for i := lo; i < n; i++ {
				if err := x.Add(ids[i], recs[i*x.stride:(i+1)*x.stride], bias[i], scales[i], attr(i)); err != nil {
					return err
				}
			}
			return nil
		}
		from, choice := lo, x.Assign(recs[lo*x.stride:n*x.stride], scales[lo:n], p)
		nlist := len(x.parts)
		for lo < n {
			i := lo
			if x.slots.Has(ids[i]) {
				return ErrDuplicateID
			}
			x.addTo(int(choice[i-from]), ids[i], recs[i*x.stride:(i+1)*x.stride], bias[i], scales[i], attr(i))
			if lo++; len(x.parts) != nlist {
				break
			}
		}
	}
	return nil
}

// nearest is the partition whose centroid scores best against rec.
func (x *Index) nearest(rec []byte, scale float32) int {
	if x.addVec == nil {
		x.addVec = make([]float32, x.dim)
		x.addTmp = make([]float32, x.dim)
		x.addQ = make([]float32, x.cents.queryLen())
	}
	if len(x.addScores) < x.cents.len() {
		x.addScores = make([]float32, 2*x.cents.len())
	}
	d := x.decoder(nil)
	d.decode(x.addVec, rec, 0)
	if x.adjust == score.AdjustScaleSubtract {
		for i := range x.addVec {
			x.addVec[i] *= scale
		}
	}
	qc := x.cents.prepare(x.addQ, x.addVec, false, x.addTmp)
	b, _ := best(x.cents.scores(qc, x.addScores))
	return b
}

// Remove deletes id: its slot becomes a tombstone, and the partition is
// compacted once tombstones are many.
func (x *Index) Remove(id uint64) error {
	pi, s, ok := x.locate(id)
	if !ok {
		return ErrNotFound
	}
	p := x.parts[pi]
	if p.dead == nil || len(p.dead) < (cap(p.ids)+63)/64 {
		p.dead = regrow(p.dead, (cap(p.ids)+63)/64)[:(cap(p.ids)+63)/64]
	}
	p.dead[s>>6] |= 1 << (s & 63)
	p.ndead++
	p.dirty = true
	x.live--
	x.dead++
	x.slots.Delete(id)
	if p.ndead > compactMin && p.ndead*compactShare > p.slots() {
		x.compact(pi)
	}
	return nil
}

// compact drops partition pi's tombstones, keeping the live records in
// slot order.
func (x *Index) compact(pi int) {
	p := x.parts[pi]
	if p.borrowed {
		p.grow(x, 0)
	}
	x.keep(pi, func(s int) bool { return !p.isDead(s) })
}

// keep keeps, in slot order, the slots of partition pi that keep reports,
// updating their handles; the others (tombstones or records moved away)
// are dropped.
func (x *Index) keep(pi int, keep func(s int) bool) {
	p := x.parts[pi]
	if p.borrowed {
		p.grow(x, 0)
	}
	st := x.stride
	j := 0
	for s := range p.ids {
		if !keep(s) {
			continue
		}
		if j != s {
			copy(p.slab[j*st:(j+1)*st], p.slab[s*st:(s+1)*st])
			p.ids[j] = p.ids[s]
			move(p.tags, j, s)
			move(p.owners, j, s)
			move(p.times, j, s)
			move(p.imps, j, s)
			if p.bias != nil {
				p.bias[j] = p.bias[s]
			}
			if p.scale != nil {
				p.scale[j] = p.scale[s]
			}
			x.place(p.ids[j], pi, j)
		}
		j++
	}
	clear(p.slab[j*st : len(p.ids)*st])
	x.dead -= p.ndead
	p.ids = p.ids[:j]
	p.tags, p.owners = cut(p.tags, j), cut(p.owners, j)
	p.times, p.imps = cut(p.times, j), cut(p.imps, j)
	p.bound()
	if p.bias != nil {
		p.bias = p.bias[:j]
	}
	if p.scale != nil {
		p.scale = p.scale[:j]
	}
	clear(p.dead)
	p.ndead = 0
	p.dirty = true
	p.saved = 0
}

// move copies slot s of column c to slot j (nothing for a nil column).
func move[T any](c []T, j, s int) {
	if c != nil {
		c[j] = c[s]
	}
}

// cut is c's first n slots (nil for a nil column).
func cut[T any](c []T, n int) []T {
	if c == nil {
		return nil
	}
	return c[:n]
}

// SetTags changes a stored record's tags; false if id is not stored.
func (x *Index) SetTags(id, tags uint64) bool {
	pi, s, ok := x.locate(id)
	if ok {
		p := x.parts[pi]
		if p.borrowed {
			p.grow(x, 0)
		}
		if p.tags == nil && tags == 0 {
			return true
		}
		p.tags = set(p, p.tags)
		p.tags[s] = tags
		p.touch(s)
	}
	return ok
}

// touch records that slot s changed in place.
func (p *partition) touch(s int) {
	p.dirty = true
	p.saved = min(p.saved, s)
}

// Build trains an index on the records (Stride bytes each, slot order)
// and adds them all: Train, Assign, then Fill.
func Build(x *Index, recs []byte, ids []uint64, bias, scales []float32, tags, owners []uint64, p *pool.Pool) error {
	if err := x.checkColumns(recs, ids, bias, scales, tags, owners); err != nil {
		return err
	}
	if x.adjust != score.AdjustScaleSubtract {
		scales = nil
	}
	if err := x.Train(recs, scales, p); err != nil {
		return err
	}
	return x.Fill(recs, ids, bias, scales, tags, owners, x.Assign(recs, scales, p))
}

// checkColumns checks that the columns describe len(ids) distinct records.
func (x *Index) checkColumns(recs []byte, ids []uint64, bias, scales []float32, tags, owners []uint64) error {
	n := len(ids)
	switch {
	case len(recs) != n*x.stride:
		return fmt.Errorf("%w: %d record bytes for %d records", ErrConfig, len(recs), n)
	case x.adjust != score.AdjustNone && len(bias) != n:
		return fmt.Errorf("%w: %d adjust values for %d records", ErrConfig, len(bias), n)
	case x.adjust == score.AdjustScaleSubtract && len(scales) != n:
		return fmt.Errorf("%w: %d multipliers for %d records", ErrConfig, len(scales), n)
	case tags != nil && len(tags) != n || owners != nil && len(owners) != n:
		return fmt.Errorf("%w: attribute columns of %d and %d for %d records", ErrConfig, len(tags), len(owners), n)
	}
	var seen slotmap.Map
	seen.Reserve(n)
	for i, id := range ids {
		if seen.Has(id) {
			return fmt.Errorf("%w: %d", ErrDuplicateID, id)
		}
		seen.Put(id, int32(i))
	}
	return nil
}

// Fill adds the records of a trained, empty index to the partitions
// assign gives (Assign's answer), each partition keeping them in input
// order: ids, adjust values (nil for AdjustNone), multipliers (nil unless
// AdjustScaleSubtract) and attributes (nil for zeros).
func (x *Index) Fill(recs []byte, ids []uint64, bias, scales []float32, tags, owners []uint64, assign []int32) error {
	if x.cents == nil {
		return ErrNotTrained
	}
	if x.live > 0 || x.dead > 0 {
		return fmt.Errorf("%w: fill an empty index", ErrConfig)
	}
	if err := x.checkColumns(recs, ids, bias, scales, tags, owners); err != nil {
		return err
	}
	n := len(ids)
	if len(assign) != n {
		return fmt.Errorf("%w: %d assignments for %d records", ErrConfig, len(assign), n)
	}
	if x.adjust != score.AdjustScaleSubtract {
		scales = nil
	}
	counts := make([]int, len(x.parts))
	for _, a := range assign {
		if a < 0 || int(a) >= len(x.parts) {
			return fmt.Errorf("%w: assignment to partition %d of %d", ErrConfig, a, len(x.parts))
		}
		counts[a]++
	}
	for i, c := range counts {
		x.parts[i].grow(x, c)
	}
	x.slots.Reserve(n)
	for i, a := range assign {
		var at match.Attr
		if tags != nil {
			at.Tags = tags[i]
		}
		if owners != nil {
			at.Owner = owners[i]
		}
		var b, sc float32 = 0, 1
		if bias != nil {
			b = bias[i]
		}
		if scales != nil {
			sc = scales[i]
		}
		pt := x.parts[a]
		s := pt.put(x, ids[i], recs[i*x.stride:(i+1)*x.stride], b, sc, at)
		x.place(ids[i], int(a), s)
	}
	x.live = n
	return nil
}

// Assign returns the partition of each record (Stride bytes each) with its
// multiplier (nil unless AdjustScaleSubtract), scored on p's workers.
func (x *Index) Assign(recs []byte, scales []float32, p *pool.Pool) []int32 {
	n := len(recs) / x.stride
	if x.adjust != score.AdjustScaleSubtract {
		scales = nil
	}
	out := make([]int32, n)
	dec := x.decoder(scales)
	nparts := participants(p)
	as := make([]*assigner, nparts)
	vecs := make([][]float32, nparts)
	parallel(p, n, assignBlock, func(part, lo, hi int) {
		if as[part] == nil {
			as[part] = newAssigner(x.cents)
			vecs[part] = make([]float32, assignBlock*x.dim)
		}
		v := vecs[part]
		for i := lo; i < hi; i++ {
			dec.decode(v[(i-lo)*x.dim:], recs, i)
		}
		as[part].assign(v[:(hi-lo)*x.dim], out[lo:hi], nil)
	})
	return out
}
