// Package ivf is Astral's partitioned index: k-means centroids split the
// records into partitions, each a contiguous slab like flat's, and a query
// scores only the nprobe partitions whose centroids score best against it.
// The probed partitions are tasks shared by the runtime's workers and the
// caller; each task keeps its own top-k, merged in task order, so every
// thread count returns the same bits. A batch scores each probed partition
// once for all the queries that probe it.
//
// Like flat, an Index is not safe for concurrent mutation: searches may run
// together, writes exclude them (astral.Index holds the lock).
package ivf

import (
	"errors"
	"fmt"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/slotmap"
	"github.com/astral-engine/astral/kernel"
)

const (
	// MaxK is the largest k a query takes.
	MaxK = 1024
	// MaxBatch is the most queries one batch serves.
	MaxBatch = 16
	// MaxNList bounds the partition count, splits included.
	MaxNList = 1 << 20
	// chunk is how many records one kernel call scores: its scores stay in L1.
	chunk = 256
	// minTaskBytes is the least work (bytes of records) worth handing to
	// another participant, as flat's minShardBytes.
	minTaskBytes = 64 << 10
)

var (
	ErrDuplicateID = errors.New("ivf: duplicate id")
	ErrNotFound    = errors.New("ivf: id not found")
	ErrConfig      = errors.New("ivf: bad configuration")
	ErrNotTrained  = errors.New("ivf: no centroids")
)

// Config is how an index partitions its records.
type Config struct {
	// Dim is the records' dimension (the kernel's, unpadded).
	Dim int
	// NList is the number of partitions training makes.
	NList int
	// Seed picks the training sample and the first centroids.
	Seed uint64
	// Rounds is the number of Lloyd rounds (0: DefaultRounds).
	Rounds int
	// Sample is how many records training reads (0: DefaultSample).
	Sample int
	// SplitAt is the live size past which a partition is split in two
	// (0: max(8 × the mean size at training, MinSplitAt); -1: never).
	SplitAt int
}

const (
	// DefaultRounds is the Lloyd rounds of a zero Config.Rounds.
	DefaultRounds = 10
	// samplePerList and maxSample give the default sample:
	// min(n, max(samplePerList·nlist, …), maxSample).
	samplePerList = 64
	maxSample     = 256 << 10
	// MinSplitAt is the least default split size.
	MinSplitAt = 4096
)

// DefaultSample is the training sample for n records in nlist partitions.
func DefaultSample(n, nlist int) int { return min(n, max(samplePerList*nlist, 4096), maxSample) }

// Index holds the centroids and the partitions.
type Index struct {
	kern   *kernel.Kernel
	stride int
	dim    int
	adjust score.Adjust
	cfg    Config
	// l2 means centroids are ranked by 2q·c − |c|² (the engine's L2 score,
	// its query doubled); otherwise by q·c over unit centroids (spherical
	// k-means, for cosine and dot).
	l2      bool
	splitAt int

	cents      *centroids
	parts      []*partition
	slots      slotmap.Map // id → partition<<32 | slot (a dense table)
	live       int
	dead       int
	splits     int
	centsDirty bool

	// Scratch of Add's centroid choice (writes are exclusive).
	addVec, addTmp, addQ, addScores []float32
}

// New returns an empty index without centroids: Train or Build gives it
// some. adjust is the records' score adjustment (as flat's); centroids are
// ranked by L2 when it subtracts, by inner product over unit centroids
// otherwise.
func New(k *kernel.Kernel, adjust score.Adjust, cfg Config) (*Index, error) {
	if k == nil || !adjust.Valid() {
		return nil, fmt.Errorf("%w: no kernel or unknown adjust %d", ErrConfig, adjust)
	}
	if cfg.Dim < 1 || kernel.Stride(cfg.Dim, k.Storage()) != k.Stride() {
		return nil, fmt.Errorf("%w: dimension %d does not match the kernel", ErrConfig, cfg.Dim)
	}
	if cfg.NList < 1 || cfg.NList > MaxNList {
		return nil, fmt.Errorf("%w: nlist %d: want 1 to %d", ErrConfig, cfg.NList, MaxNList)
	}
	if cfg.Rounds < 0 || cfg.Sample < 0 || cfg.SplitAt < -1 {
		return nil, fmt.Errorf("%w: negative rounds, sample or split size", ErrConfig)
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = DefaultRounds
	}
	l2 := adjust == score.AdjustSubtract || adjust == score.AdjustScaleSubtract
	x := &Index{kern: k, stride: k.Stride(), dim: cfg.Dim, adjust: adjust, cfg: cfg, l2: l2}
	x.slots.MakeDense()
	return x, nil
}

// Len is the number of live records.
func (x *Index) Len() int { return x.live }

// Kernel returns the kernel scoring the records.
func (x *Index) Kernel() *kernel.Kernel { return x.kern }

// Adjust is the index's score adjustment.
func (x *Index) Adjust() score.Adjust { return x.adjust }

// Config is the configuration the index was made with (defaults filled).
func (x *Index) Config() Config { return x.cfg }

// NList is the number of partitions now (splits add some).
func (x *Index) NList() int { return len(x.parts) }

// Has reports whether id is stored.
func (x *Index) Has(id uint64) bool { return x.slots.Has(id) }

// locate returns the partition and slot of id.
func (x *Index) locate(id uint64) (int, int, bool) {
	w, ok := x.slots.Get64(id)
	if !ok {
		return 0, 0, false
	}
	return int(w >> 32), int(uint32(w)), true
}

// Attr returns a stored record's attributes.
func (x *Index) Attr(id uint64) (match.Attr, bool) {
	p, s, ok := x.locate(id)
	if !ok {
		return match.Attr{}, false
	}
	return attrOf(x.parts[p], s), true
}

// Entry returns a stored record (aliasing the index's memory), its adjust
// value (0 for AdjustNone) and its multiplier (1 unless AdjustScaleSubtract).
func (x *Index) Entry(id uint64) (rec []byte, bias, scale float32, ok bool) {
	p, s, ok := x.locate(id)
	if !ok {
		return nil, 0, 0, false
	}
	pt := x.parts[p]
	bias, scale = 0, 1
	if pt.bias != nil {
		bias = pt.bias[s]
	}
	if pt.scale != nil {
		scale = pt.scale[s]
	}
	return pt.record(s, x.stride), bias, scale, true
}

// Stats describes the partitions.
type Stats struct {
	Partitions int
	Records    int // live
	Tombstones int
	// Largest is the live size of the largest partition (the lowest index
	// on ties), Share its share of the live records (0 when empty).
	Largest      int
	LargestIndex int
	Share        float64
	Splits       int // partitions split since training or loading
	Dirty        int // partitions changed since MarkClean
	// RetrainDue says the partitions have drifted from the training: more
	// than a quarter of them come from splits.
	RetrainDue bool
	Bytes      int64 // records, ids, attributes and centroids
}

// Stats returns the partitions' statistics.
func (x *Index) Stats() Stats {
	st := Stats{Partitions: len(x.parts), Records: x.live, Tombstones: x.dead, Splits: x.splits}
	for i, p := range x.parts {
		if l := p.liveLen(); l > st.Largest {
			st.Largest, st.LargestIndex = l, i
		}
		if p.dirty {
			st.Dirty++
		}
		st.Bytes += p.bytes()
	}
	if x.live > 0 {
		st.Share = float64(st.Largest) / float64(x.live)
	}
	st.RetrainDue = x.splits*4 > x.cfg.NList
	if x.cents != nil {
		st.Bytes += int64(len(x.cents.vecs))*4 + int64(len(x.cents.recs))
	}
	st.Bytes += int64(x.slots.Bytes())
	return st
}

// Bytes is the memory the index holds, growth room included.
func (x *Index) Bytes() int { return int(x.Stats().Bytes) }

// BytesPerVector is what one live record costs: its share of Bytes.
func (x *Index) BytesPerVector() float64 {
	if x.live == 0 {
		return 0
	}
	return float64(x.Bytes()) / float64(x.live)
}

// Participants is the most threads (p's workers plus the caller) one
// query uses; a query probing fewer or smaller partitions uses fewer.
func (x *Index) Participants(p *pool.Pool) int {
	if p == nil {
		return 1
	}
	return p.Workers() + 1
}

// Detach copies every partition still reading the parts given to
// FromParts into memory of the index's own. Searches must not run
// meanwhile.
func (x *Index) Detach() {
	for _, p := range x.parts {
		if p.borrowed {
			p.grow(x, 0)
		}
	}
}

// Each calls fn with every live record's id and attributes, partition by
// partition in slot order.
func (x *Index) Each(fn func(id uint64, a match.Attr)) {
	for _, p := range x.parts {
		for s, id := range p.ids {
			if !p.isDead(s) {
				fn(id, attrOf(p, s))
			}
		}
	}
}

// Snapshot copies every live record, id, adjust value and multiplier in
// Each's order: the input of a rebuild (a retrain, or another structure).
// adj is nil for AdjustNone, scales unless AdjustScaleSubtract.
func (x *Index) Snapshot() (ids []uint64, recs []byte, adj, scales []float32) {
	ids = make([]uint64, 0, x.live)
	recs = make([]byte, 0, x.live*x.stride)
	if x.adjust != score.AdjustNone {
		adj = make([]float32, 0, x.live)
	}
	if x.adjust == score.AdjustScaleSubtract {
		scales = make([]float32, 0, x.live)
	}
	for _, p := range x.parts {
		for s, id := range p.ids {
			if p.isDead(s) {
				continue
			}
			ids = append(ids, id)
			recs = append(recs, p.record(s, x.stride)...)
			if adj != nil {
				adj = append(adj, p.bias[s])
			}
			if scales != nil {
				scales = append(scales, p.scale[s])
			}
		}
	}
	return ids, recs, adj, scales
}
