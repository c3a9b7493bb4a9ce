// Package flat is Astral's exact search: every record is scored. One query
// is split into contiguous record ranges, one per participant (the runtime's
// workers plus the calling goroutine), each keeping a private top-k that the
// caller merges; a batch of up to 16 queries reads every record once.
package flat

import (
	"errors"
	"math"
	"slices"
	"sync/atomic"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/mem"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/slotmap"
	"github.com/astral-engine/astral/kernel"
)

const (
	// MaxK is the largest k a query takes.
	MaxK = 1024
	// MaxBatch is the most queries one batch pass serves.
	MaxBatch = 16
	// chunk is how many records one kernel call scores: its scores stay in L1.
	chunk = 256
	// minShardBytes is the least work (bytes of records) worth handing to
	// another participant; below it dispatch costs more than it saves.
	// Measured by BenchmarkShardBreakEven.
	minShardBytes = 64 << 10
)

var (
	ErrDuplicateID = errors.New("flat: duplicate id")
	ErrNotFound    = errors.New("flat: id not found")
)

// Index holds records in one contiguous, 64-byte-aligned slab with their ids
// and attributes beside them. It is not safe for concurrent mutation; the caller
// synchronises (astral.Index does).
type Index struct {
	kern   *kernel.Kernel
	stride int
	slab   []byte // len = capacity*stride; records [0, n) are live
	ids    []uint64
	tags   []uint64  // per-record tag mask, slot order
	owners []uint64  // per-record owner key, slot order
	times  []int64   // per-record time (ranking), slot order
	imps   []float32 // per-record importance (ranking), slot order
	// newest and most bound the times and importances of each aligned
	// chunk of slots (chunk c: slots [c·chunk, (c+1)·chunk)), so a ranked
	// scan does not pass over them per query. Raised on every change,
	// never lowered: a bound that has gone stale is still a bound.
	newest []int64
	most   []float32
	adjust score.Adjust
	bias   []float32 // per-record value of adjust, nil when score.AdjustNone
	scale  []float32 // per-record multiplier of score.AdjustScaleSubtract, else nil
	slots  slotmap.Map
	// owned holds each owner's slots (in no order) and ownAt each owned
	// slot's place in them, so an owner's records are scored without a
	// lookup in the id table (SearchOwner).
	owned map[uint64][]uint32
	ownAt []uint32
	// blockCost is, per plan, the last budgeted participant's estimate
	// of one block's time in ns: the next participants' first guess.
	blockCost [planOwner + 1]atomic.Int64
}

// New returns an empty index whose records the kernel k scores.
func New(k *kernel.Kernel, adjust score.Adjust) *Index {
	x := &Index{kern: k, stride: k.Stride(), adjust: adjust, owned: map[uint64][]uint32{}}
	if adjust != score.AdjustNone {
		x.bias = []float32{}
	}
	if adjust == score.AdjustScaleSubtract {
		x.scale = []float32{}
	}
	return x
}

// Len is the number of records.
func (x *Index) Len() int { return len(x.ids) }

// Kernel returns the kernel scoring the records.
func (x *Index) Kernel() *kernel.Kernel { return x.kern }

// Bytes is the memory the records, ids, attributes and bias take.
func (x *Index) Bytes() int {
	return len(x.slab) + (cap(x.ids)+cap(x.tags)+cap(x.owners)+cap(x.times)+cap(x.newest))*8 + (cap(x.bias)+cap(x.scale)+cap(x.imps)+cap(x.ownAt)+cap(x.most))*4 + x.ownedBytes()
}

// ownedBytes is about what the owner postings take: their slots and a
// map entry each.
func (x *Index) ownedBytes() int {
	n := 0
	for _, p := range x.owned {
		n += cap(p)*4 + 48
	}
	return n
}

// Has reports whether id is stored.
func (x *Index) Has(id uint64) bool { return x.slots.Has(id) }

// Record returns the stored bytes of the record in slot i.
func (x *Index) Record(i int) []byte { return x.slab[i*x.stride : (i+1)*x.stride] }

// ID returns the id in slot i.
func (x *Index) ID(i int) uint64 { return x.ids[i] }

// Reserve makes room for n more records, so a batch of Adds cannot fail
// half-way for lack of memory.
func (x *Index) Reserve(n int) {
	need := (len(x.ids) + n) * x.stride
	if need <= len(x.slab) {
		return
	}
	capacity := max(need, 2*len(x.slab), 64*x.stride)
	capacity = capacity / x.stride * x.stride
	slab := mem.Bytes(capacity)
	copy(slab, x.slab[:len(x.ids)*x.stride])
	x.slab = slab
	x.slots.Reserve(capacity / x.stride)
	x.ids = growCap(x.ids, n)
	x.tags = growCap(x.tags, n)
	x.owners = growCap(x.owners, n)
	x.times = growCap(x.times, n)
	x.imps = growCap(x.imps, n)
	x.ownAt = growCap(x.ownAt, n)
	if x.bias != nil {
		x.bias = growCap(x.bias, n)
	}
	if x.scale != nil {
		x.scale = growCap(x.scale, n)
	}
}

func growCap[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	ns := make([]T, len(s), max(len(s)+n, 2*cap(s)))
	copy(ns, s)
	return ns
}

// Add stores one encoded record (Stride bytes, zero-padded) under id, with
// its adjust value, its multiplier (read only by score.AdjustScaleSubtract)
// and its attributes (a match.Attr{} for none).
func (x *Index) Add(id uint64, rec []byte, bias, scale float32, a match.Attr) error {
	if x.slots.Has(id) {
		return ErrDuplicateID
	}
	x.Reserve(1)
	i := len(x.ids)
	copy(x.slab[i*x.stride:(i+1)*x.stride], rec)
	x.ids = append(x.ids, id)
	x.tags = append(x.tags, a.Tags)
	x.owners = append(x.owners, a.Owner)
	x.times = append(x.times, a.Time)
	x.imps = append(x.imps, a.Importance)
	x.ownAt = append(x.ownAt, 0)
	x.own(i)
	x.raiseCeiling(i)
	if x.bias != nil {
		x.bias = append(x.bias, bias)
	}
	if x.scale != nil {
		x.scale = append(x.scale, scale)
	}
	x.slots.Put(id, int32(i))
	return nil
}

// Remove deletes id, moving the last record into its slot so the slab stays
// contiguous.
func (x *Index) Remove(id uint64) error {
	i, ok := x.slots.Get(id)
	if !ok {
		return ErrNotFound
	}
	last := len(x.ids) - 1
	x.disown(int(i))
	if int(i) != last {
		x.moveOwned(last, int(i))
		copy(x.Record(int(i)), x.Record(last))
		x.ids[i] = x.ids[last]
		x.tags[i] = x.tags[last]
		x.owners[i] = x.owners[last]
		x.times[i] = x.times[last]
		x.imps[i] = x.imps[last]
		if x.bias != nil {
			x.bias[i] = x.bias[last]
		}
		if x.scale != nil {
			x.scale[i] = x.scale[last]
		}
		x.slots.Put(x.ids[i], i)
		x.raiseCeiling(int(i))
	}
	clear(x.Record(last))
	x.ids = x.ids[:last]
	x.tags = x.tags[:last]
	x.owners = x.owners[:last]
	x.times = x.times[:last]
	x.imps = x.imps[:last]
	x.ownAt = x.ownAt[:last]
	x.newest, x.most = x.newest[:chunks(last)], x.most[:chunks(last)]
	if x.bias != nil {
		x.bias = x.bias[:last]
	}
	if x.scale != nil {
		x.scale = x.scale[:last]
	}
	x.slots.Delete(id)
	return nil
}

// own adds slot i to its owner's posting (none for owner 0).
func (x *Index) own(i int) {
	o := x.owners[i]
	if o == 0 {
		return
	}
	p := x.owned[o]
	x.ownAt[i] = uint32(len(p))
	x.owned[o] = append(p, uint32(i))
}

// disown drops slot i from its owner's posting, moving the posting's last
// slot into its place.
func (x *Index) disown(i int) {
	o := x.owners[i]
	if o == 0 {
		return
	}
	p := x.owned[o]
	at, end := x.ownAt[i], len(p)-1
	p[at] = p[end]
	x.ownAt[p[at]] = at
	if end == 0 {
		delete(x.owned, o)
	} else {
		x.owned[o] = p[:end]
	}
}

// moveOwned records in its owner's posting that slot from's record now
// lives in slot to (before the columns move).
func (x *Index) moveOwned(from, to int) {
	if o := x.owners[from]; o != 0 {
		at := x.ownAt[from]
		x.owned[o][at] = uint32(to)
		x.ownAt[to] = at
	}
}

// OwnerLen is how many stored records owner holds.
func (x *Index) OwnerLen(owner uint64) int { return len(x.owned[owner]) }

// SetTags changes a stored record's tags without touching its vector;
// false if id is not stored. Like Add, it needs an index that owns its
// memory (Detach after FromParts).
func (x *Index) SetTags(id, tags uint64) bool {
	i, ok := x.slots.Get(id)
	if ok {
		x.tags[i] = tags
	}
	return ok
}

// SetTime changes a stored record's time; false if id is not stored.
// Like SetTags, it needs an index that owns its memory.
func (x *Index) SetTime(id uint64, t int64) bool {
	i, ok := x.slots.Get(id)
	if ok {
		x.times[i] = t
		x.raiseCeiling(int(i))
	}
	return ok
}

// SetImportance changes a stored record's importance; false if id is not
// stored. Like SetTags, it needs an index that owns its memory.
func (x *Index) SetImportance(id uint64, v float32) bool {
	i, ok := x.slots.Get(id)
	if ok {
		x.imps[i] = v
		x.raiseCeiling(int(i))
	}
	return ok
}

// chunks is how many aligned chunks n slots span.
func chunks(n int) int { return (n + chunk - 1) / chunk }

// raiseCeiling makes slot i's chunk bound its time and importance; the
// slot's chunk is the last one or a new one after it.
func (x *Index) raiseCeiling(i int) {
	c, t, v := i/chunk, x.times[i], x.imps[i]
	if c == len(x.newest) {
		x.newest, x.most = append(x.newest, t), append(x.most, v)
		return
	}
	x.newest[c], x.most[c] = max(x.newest[c], t), max(x.most[c], v)
}

// rebuildCeilings computes every chunk's bounds afresh (exact again).
func (x *Index) rebuildCeilings() {
	x.newest, x.most = x.newest[:0], x.most[:0]
	for i := range x.ids {
		x.raiseCeiling(i)
	}
}

// ceiling bounds the times and importances of slots [base, base+m) by
// those of the aligned chunks they touch.
func (x *Index) ceiling(base, m int) (newest int64, most float32) {
	lo, hi := base/chunk, (base+m-1)/chunk
	newest, most = x.newest[lo], x.most[lo]
	for c := lo + 1; c <= hi; c++ {
		newest, most = max(newest, x.newest[c]), max(most, x.most[c])
	}
	return newest, most
}

// Attr returns a stored record's attributes.
func (x *Index) Attr(id uint64) (match.Attr, bool) {
	i, ok := x.slots.Get(id)
	if !ok {
		return match.Attr{}, false
	}
	return x.attr(int(i)), true
}

// Entry returns a stored record (aliasing the index's memory: read it
// before the next write), its adjust value (0 for score.AdjustNone) and
// its multiplier (1 unless score.AdjustScaleSubtract).
func (x *Index) Entry(id uint64) (rec []byte, bias, scale float32, ok bool) {
	i, ok := x.slots.Get(id)
	if !ok {
		return nil, 0, 0, false
	}
	bias, scale = 0, 1
	if x.bias != nil {
		bias = x.bias[i]
	}
	if x.scale != nil {
		scale = x.scale[i]
	}
	return x.Record(int(i)), bias, scale, true
}

// attr is the attributes of the record in slot i.
func (x *Index) attr(i int) match.Attr {
	return match.Attr{Tags: x.tags[i], Owner: x.owners[i], Time: x.times[i], Importance: x.imps[i]}
}

// Snapshot copies every record, id, Adjust value and multiplier, in slot
// order: the input of an HNSW build that replaces this index. adj is nil
// for score.AdjustNone, scales unless score.AdjustScaleSubtract.
func (x *Index) Snapshot() (ids []uint64, recs []byte, adj, scales []float32) {
	n := len(x.ids)
	ids = append([]uint64(nil), x.ids...)
	recs = append([]byte(nil), x.slab[:n*x.stride]...)
	if x.bias != nil {
		adj = append([]float32(nil), x.bias...)
	}
	if x.scale != nil {
		scales = append([]float32(nil), x.scale...)
	}
	return ids, recs, adj, scales
}

// Adjust is the index's score adjustment.
func (x *Index) Adjust() score.Adjust { return x.adjust }

// Rescore replaces each result's score by this index's score of the same
// id against qp (laid out by its kernel), then sorts them best first, ties
// by id. An id not stored here scores -Inf (callers keep both in step, so
// it does not happen). slots and scores are scratch of at least len(res).
func (x *Index) Rescore(qp []float32, res []score.Result, slots []uint32, scores []float32) {
	slots, scores = slots[:len(res)], scores[:len(res)]
	if len(x.ids) == 0 {
		for i := range res {
			res[i].Score = float32(math.Inf(-1))
		}
		return
	}
	missing := false
	for i, r := range res {
		s, ok := x.slots.Get(r.ID)
		slots[i], missing = uint32(s), missing || !ok
	}
	x.kern.ScanIDs(qp, x.slab, x.stride, slots, scores)
	x.adjust.Slots(scores, x.bias, x.scale, slots)
	for i := range res {
		res[i].Score = scores[i]
		if missing {
			if !x.slots.Has(res[i].ID) {
				res[i].Score = float32(math.Inf(-1))
			}
		}
	}
	slices.SortFunc(res, score.CompareResults)
}

// RecordBytes is the memory the records themselves take.
func (x *Index) RecordBytes() int64 { return int64(len(x.ids)) * int64(x.stride) }
