package astral

import (
	"math"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/astral-engine/astral/internal/match"
)

// MaxPayload is the most bytes a record's payload holds.
const MaxPayload = 4096

// Attributes are what a record carries beside its vector: a 64-bit tag
// mask (64 tags the host defines), an owner key (0 = none; e.g. the
// character that holds a memory) and an optional payload (up to
// MaxPayload bytes, e.g. a memory's text or a host key), and for memory
// ranking a time (in the host's units: ticks or milliseconds) and an
// importance (finite; any scale the host picks). Queries test tags and
// owner and rank by time and importance; the payload is only returned by
// id.
type Attributes struct {
	Tags       uint64
	Owner      uint64
	Payload    []byte
	Time       int64
	Importance float32
}

// Filter scopes a query; its conditions combine with AND and the zero
// Filter matches every record. It is read during the call only.
type Filter struct {
	Owner   uint64 // only records of this owner; 0: any owner
	AllTags uint64 // only records holding every one of these tags
	AnyTags uint64 // only records holding at least one of these; 0: no condition
	NoTags  uint64 // only records holding none of these
	// Allow restricts the query to these ids: nil means no allowlist, a
	// non-nil empty one matches nothing. Order and repeats do not matter.
	Allow []uint64
	Deny  []uint64 // never these ids (e.g. the asking character's own)
}

// QueryOptions are a query's k, its HNSW beam, its filter and its
// ranking.
type QueryOptions struct {
	K  int
	Ef int // HNSW candidates; 0: the index's SetEfSearch value
	// NProbe is the partitions an IVF query scans, 0 to MaxNList (0: the
	// index's SetNProbe value; past the partition count: all of them, an
	// exact scan). Other kinds ignore it, as IVF ignores Ef.
	NProbe int
	Filter Filter
	Rank   Rank
}

// Rank orders a query's results by a combined score instead of the
// similarity (docs/RANKING.md):
//
//	Relevance·similarity + Recency·Decay^(Now − Time) + Importance·importance
//
// summed in that order, each product and sum rounded to float32, and the
// recency 1 for a Time not before Now. It is on when Recency or Importance
// is not 0; the zero Rank ranks by similarity. Weights are finite and not
// negative; Decay (per time unit) is in (0, 1] when Recency is set. Cosine
// and dot indexes only.
type Rank struct {
	Relevance, Recency, Importance float32
	Decay                          float64
	Now                            int64
}

// Plan is how a query was answered.
type Plan uint8

const (
	// PlanScan scores every record that passes the filter: a flat scan
	// (tag and owner words tested before records are scored), or the exact
	// scan an HNSW index falls back to for a rare tag.
	PlanScan Plan = iota
	// PlanDirect scores only a small candidate set (an allowlist, an
	// owner's records) through the gather kernel: exact in every index.
	PlanDirect
	// PlanGraph walks the HNSW graph, admitting only matching records.
	PlanGraph
)

var planNames = [...]string{PlanScan: "scan", PlanDirect: "direct", PlanGraph: "graph"}

func (p Plan) String() string {
	if int(p) < len(planNames) {
		return planNames[p]
	}
	return "unknown"
}

// attrStore is what the engine keeps of the attributes beside the
// structures (which hold each record's tags and owner with its vector):
// the owner → ids postings that let a small group be found without a
// scan, per-tag counts for planning, and the payloads, out of the scan
// path. Postings are a superset of what is stored while a write is under
// way (added before, removed after the structure), and queries skip ids
// the structure does not hold.
type attrStore struct {
	mu       sync.RWMutex
	owners   map[uint64][]uint64 // owner → its ids, in no order
	ownerAt  map[uint64]int      // id → its place in owners[its owner]
	payloads map[uint64][]byte
	payBytes int64
	tagCount [64]int64 // records holding each tag
	// ready: the postings and counts cover every record. A file opened
	// with VerifyInBackground fills them in its background check (writes
	// wait for it); until then queries test owners record by record.
	ready atomic.Bool
}

func newAttrStore() *attrStore {
	s := &attrStore{owners: map[uint64][]uint64{}, ownerAt: map[uint64]int{}, payloads: map[uint64][]byte{}}
	s.ready.Store(true)
	return s
}

// add records a new record's attributes; hold mu.
func (s *attrStore) add(id uint64, a match.Attr, payload []byte) {
	s.countTags(a.Tags, 1)
	if a.Owner != 0 {
		s.ownerAt[id] = len(s.owners[a.Owner])
		s.owners[a.Owner] = append(s.owners[a.Owner], id)
	}
	if len(payload) > 0 {
		s.payloads[id] = payload
		s.payBytes += int64(len(payload))
	}
}

// remove forgets a removed record's attributes; hold mu.
func (s *attrStore) remove(id uint64, a match.Attr) {
	s.countTags(a.Tags, -1)
	if a.Owner != 0 {
		group := s.owners[a.Owner]
		at, last := s.ownerAt[id], len(group)-1
		group[at] = group[last]
		s.ownerAt[group[at]] = at
		delete(s.ownerAt, id)
		if last == 0 {
			delete(s.owners, a.Owner)
		} else {
			s.owners[a.Owner] = group[:last]
		}
	}
	if p, ok := s.payloads[id]; ok {
		s.payBytes -= int64(len(p))
		delete(s.payloads, id)
	}
}

func (s *attrStore) countTags(tags uint64, d int64) {
	for tags != 0 {
		s.tagCount[bits.TrailingZeros64(tags)] += d
		tags &= tags - 1
	}
}

// share estimates the share of n records that pass f's tag conditions
// from the per-tag counts, taking the tags as independent; hold mu
// shared.
func (s *attrStore) share(f *match.Filter, n int) float64 {
	if n == 0 {
		return 0
	}
	of := func(tag int) float64 { return min(1, float64(s.tagCount[tag])/float64(n)) }
	share := 1.0
	for t := f.AllTags; t != 0; t &= t - 1 {
		share *= of(bits.TrailingZeros64(t))
	}
	if f.AnyTags != 0 {
		any := 0.0
		for t := f.AnyTags; t != 0; t &= t - 1 {
			any += of(bits.TrailingZeros64(t))
		}
		share *= min(1, any)
	}
	for t := f.NoTags; t != 0; t &= t - 1 {
		share *= 1 - of(bits.TrailingZeros64(t))
	}
	return share
}

// checkAttributes validates an AddWith's attributes.
func checkAttributes(ids []uint64, attrs []Attributes) error {
	if attrs == nil {
		return nil
	}
	if len(attrs) != len(ids) {
		return errorf(ErrInvalidArgument, "%d attributes for %d ids", len(attrs), len(ids))
	}
	for i, a := range attrs {
		if len(a.Payload) > MaxPayload {
			return errorf(ErrInvalidArgument, "payload of id %d holds %d bytes: at most %d", ids[i], len(a.Payload), MaxPayload)
		}
		if !finite32(a.Importance) {
			return errorf(ErrNonFinite, "importance of id %d is %v", ids[i], a.Importance)
		}
	}
	return nil
}

// AddWith is Add with each record's attributes (attrs nil: none; else one
// per id). Payloads are copied.
func (x *Index) AddWith(ids []uint64, vectors []float32, attrs []Attributes) error {
	b, err := x.encodeWith(ids, vectors, attrs)
	if err != nil {
		return err
	}
	return x.apply(b)
}

// encodeWith checks and encodes an AddWith's or Upsert's records with
// their attributes, the payloads copied.
func (x *Index) encodeWith(ids []uint64, vectors []float32, attrs []Attributes) (*batch, error) {
	if err := checkAttributes(ids, attrs); err != nil {
		return nil, err
	}
	b, err := x.encode(ids, vectors)
	if err != nil {
		return nil, err
	}
	if attrs != nil {
		b.attrs = make([]match.Attr, len(ids))
		b.payloads = make([][]byte, len(ids))
		total := 0
		for _, a := range attrs {
			total += len(a.Payload)
		}
		arena := make([]byte, 0, total)
		for i, a := range attrs {
			b.attrs[i] = match.Attr{Tags: a.Tags, Owner: a.Owner, Time: a.Time, Importance: a.Importance}
			if len(a.Payload) > 0 {
				arena = append(arena, a.Payload...)
				b.payloads[i] = arena[len(arena)-len(a.Payload) : len(arena) : len(arena)]
			}
		}
	}
	return b, nil
}

// SetTags replaces the tags of stored records (tags[i] for ids[i]) without
// re-adding their vectors. If any id is not stored or repeated, nothing
// changes.
func (x *Index) SetTags(ids []uint64, tags []uint64) error {
	if len(tags) != len(ids) {
		return errorf(ErrInvalidArgument, "%d tag masks for %d ids", len(tags), len(ids))
	}
	return x.setEach(ids, "SetTags", func(s structure, i int, id uint64) pendingOp {
		old, _ := s.attr(id)
		x.attrs.countTags(old.Tags, -1)
		x.attrs.countTags(tags[i], 1)
		s.setTags(id, tags[i])
		return pendingOp{id: id, attr: match.Attr{Tags: tags[i]}, retag: true}
	})
}

// Touch sets the time of stored records (e.g. when a memory is recalled)
// without re-adding their vectors. If any id is not stored or repeated,
// nothing changes; a query meanwhile sees each record's old or new time.
func (x *Index) Touch(ids []uint64, time int64) error {
	return x.setEach(ids, "Touch", func(s structure, _ int, id uint64) pendingOp {
		s.setTime(id, time)
		return pendingOp{id: id, attr: match.Attr{Time: time}, retime: true}
	})
}

// SetImportance sets the importance (finite) of stored records, as Touch
// their time.
func (x *Index) SetImportance(ids []uint64, v float32) error {
	if !finite32(v) {
		return errorf(ErrNonFinite, "importance %v", v)
	}
	return x.setEach(ids, "SetImportance", func(s structure, _ int, id uint64) pendingOp {
		s.setImportance(id, v)
		return pendingOp{id: id, attr: match.Attr{Importance: v}, reimp: true}
	})
}

func finite32(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }

// setEach checks that ids are stored and distinct, then calls set for
// each under the write locks (and attrs.mu), keeping what it returns for
// a background build to replay. op names the call in errors.
func (x *Index) setEach(ids []uint64, op string, set func(s structure, i int, id uint64) pendingOp) error {
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.awaitCompaction()
	if err := x.ownMemory(); err != nil {
		return err
	}
	x.mu.RLock()
	for i, id := range ids {
		if !x.live.Has(id) {
			x.mu.RUnlock()
			return errorf(ErrNotFound, "id %d", id)
		}
		for _, prev := range ids[:i] {
			if prev == id {
				x.mu.RUnlock()
				return errorf(ErrDuplicateID, "id %d repeated in one %s", id, op)
			}
		}
	}
	x.mu.RUnlock()
	s := x.live
	if s.sharedWrites() {
		x.mu.RLock()
		defer x.mu.RUnlock()
	} else {
		x.mu.Lock()
		defer x.mu.Unlock()
	}
	x.attrs.mu.Lock()
	defer x.attrs.mu.Unlock()
	for i, id := range ids {
		p := set(s, i, id)
		if x.building {
			p.first = i == 0
			x.pending = append(x.pending, p)
		}
	}
	return nil
}

// Attributes returns a stored record's attributes, its payload copied.
func (x *Index) Attributes(id uint64) (Attributes, error) {
	x.mu.RLock()
	a, ok := x.live.attr(id)
	x.mu.RUnlock()
	if !ok {
		return Attributes{}, errorf(ErrNotFound, "id %d", id)
	}
	p, err := x.Payload(id, nil)
	if err != nil {
		return Attributes{}, err
	}
	return Attributes{Tags: a.Tags, Owner: a.Owner, Payload: p, Time: a.Time, Importance: a.Importance}, nil
}

// Payload appends the payload of a stored record to dst[:0] and returns
// it: empty for a record stored without one. It allocates only when dst
// is too small.
func (x *Index) Payload(id uint64, dst []byte) ([]byte, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if !x.live.Has(id) {
		return dst[:0], errorf(ErrNotFound, "id %d", id)
	}
	x.attrs.mu.RLock()
	defer x.attrs.mu.RUnlock()
	return append(dst[:0], x.attrs.payloads[id]...), nil
}

// PayloadLen is the length of a stored record's payload.
func (x *Index) PayloadLen(id uint64) (int, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if !x.live.Has(id) {
		return 0, errorf(ErrNotFound, "id %d", id)
	}
	x.attrs.mu.RLock()
	defer x.attrs.mu.RUnlock()
	return len(x.attrs.payloads[id]), nil
}

// Memory returns a stored record's time and importance without copying
// its payload.
func (x *Index) Memory(id uint64) (time int64, importance float32, err error) {
	x.mu.RLock()
	a, ok := x.live.attr(id)
	x.mu.RUnlock()
	if !ok {
		return 0, 0, errorf(ErrNotFound, "id %d", id)
	}
	return a.Time, a.Importance, nil
}
