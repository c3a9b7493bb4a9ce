// Package match holds what a scoped query asks of a record: its attributes
// (tags and owner) and the filter they are tested against. The index
// structures test it while they score; the engine plans with it.
package match

import (
	"slices"
	"sync/atomic"

	"github.com/astral-engine/astral/internal/radix"
)

// Attr is the part of a record's attributes that queries read, kept beside
// the record in every structure: a 64-bit tag mask and an owner key
// (0 = none) that filters test, and the time and importance that ranking
// scores.
type Attr struct {
	Tags       uint64
	Owner      uint64
	Time       int64
	Importance float32
}

// Filter is what a record must satisfy; its conditions combine with AND.
// The zero Filter matches every record.
type Filter struct {
	Owner   uint64 // 0: any owner
	AllTags uint64 // every one of these bits
	AnyTags uint64 // at least one of these bits; 0: no condition
	NoTags  uint64 // none of these bits
	Allow   IDSet  // when Allow.On, only these ids
	Deny    IDSet  // never these ids
}

// TestsAttrs reports whether the filter looks at tags or owner.
func (f *Filter) TestsAttrs() bool {
	return f.Owner != 0 || f.AllTags != 0 || f.AnyTags != 0 || f.NoTags != 0
}

// TestsIDs reports whether the filter looks at ids.
func (f *Filter) TestsIDs() bool { return f.Allow.On || len(f.Deny.ids) > 0 }

// Active reports whether the filter excludes anything at all.
func (f *Filter) Active() bool { return f.TestsAttrs() || f.TestsIDs() }

// Attrs reports whether a record with these attributes passes the tag and
// owner conditions.
func (f *Filter) Attrs(a Attr) bool {
	return a.Tags&f.AllTags == f.AllTags &&
		(f.AnyTags == 0 || a.Tags&f.AnyTags != 0) &&
		a.Tags&f.NoTags == 0 &&
		(f.Owner == 0 || a.Owner == f.Owner)
}

// IDs reports whether id passes the allow and deny lists.
func (f *Filter) IDs(id uint64) bool {
	return (!f.Allow.On || f.Allow.Contains(id)) && !f.Deny.Contains(id)
}

// Match reports whether a record passes the whole filter.
func (f *Filter) Match(id uint64, a Attr) bool { return f.Attrs(a) && f.IDs(id) }

// IDSet is a sorted set of distinct ids, tested by binary search. It does
// not own its memory: Build fills caller scratch.
type IDSet struct {
	On  bool // for an allowlist: the list applies (an empty one matches nothing)
	ids []uint64
}

// Build makes s the set of ids, sorted and without repeats, in scratch
// (grown if short; returned so the caller keeps it for the next query).
// ids itself is not changed.
func (s *IDSet) Build(ids, scratch []uint64) []uint64 {
	n := len(ids)
	if cap(scratch) < 2*n {
		// Twice the ids: the radix sort's second buffer.
		scratch = make([]uint64, 2*n, max(2*n, 2*cap(scratch)))
	}
	scratch = scratch[:2*n]
	set := scratch[:n:n]
	copy(set, ids)
	if !slices.IsSorted(set) {
		if n >= radixMin {
			radix.Sort(set, scratch[n:], 0)
		} else {
			slices.Sort(set)
		}
	}
	s.ids, s.On = slices.Compact(set), true
	return scratch
}

// radixMin is the list length from which radix.Sort beats slices.Sort
// (BenchmarkSortIDs).
const radixMin = 700

// Len is the number of distinct ids.
func (s *IDSet) Len() int { return len(s.ids) }

// IDs returns the ids, ascending; the caller must not change them.
func (s *IDSet) IDs() []uint64 { return s.ids }

// Contains reports whether id is in the set.
func (s *IDSet) Contains(id uint64) bool {
	if len(s.ids) == 0 {
		return false
	}
	_, ok := slices.BinarySearch(s.ids, id)
	return ok
}

// Shard returns the ids a participant takes of an n-way split: part i of
// n, contiguous and in order, so every split covers each id once.
func Shard(ids []uint64, i, n int) []uint64 {
	return ids[len(ids)*i/n : len(ids)*(i+1)/n]
}

// AttrTest is a filter's tag and owner conditions in a form that tests a
// record without a branch: where about half the records pass, the
// branches of Attrs' short-circuit form mispredict every other record.
type AttrTest struct {
	all, no, any, anyOff uint64 // anyOff 1: no AnyTags condition
	owner, ownerMask     uint64 // ownerMask all ones when Owner is set
}

// AttrTest returns f's tag and owner conditions, tested as Attrs does.
func (f *Filter) AttrTest() AttrTest {
	t := AttrTest{all: f.AllTags, no: f.NoTags, any: f.AnyTags, owner: f.Owner}
	if f.AnyTags == 0 {
		t.anyOff = 1
	}
	if f.Owner != 0 {
		t.ownerMask = ^uint64(0)
	}
	return t
}

// Pass is 1 when a record with these tags and owner passes, else 0.
func (t *AttrTest) Pass(tags, owner uint64) uint32 {
	bad := (tags&t.all ^ t.all) | tags&t.no | (owner^t.owner)&t.ownerMask
	some := tags&t.any | t.anyOff
	// x|-x has its top bit set exactly when x is not zero.
	return uint32(((some | -some) &^ (bad | -bad)) >> 63)
}

// Select writes into sel the slots base+i, in order, of the records whose
// tags[i] and owners[i] pass, and returns them; sel, tags and owners have
// one word per record. Owners may be nil when the test has no owner. Tags
// are read atomically: a graph's tags change under its searches.
func (t *AttrTest) Select(sel []uint32, base int, tags, owners []uint64) []uint32 {
	// Locals, not t's fields: the stores to sel could alias them, and the
	// compiler would reload every field for every record.
	all, no := t.all, t.no
	sel = sel[:len(tags)]
	n := 0
	if t.ownerMask == 0 && t.anyOff == 1 {
		// The usual filter: required and excluded tags only. The first 64
		// records choose the loop for the rest: where nearly all or nearly
		// none of them pass, a branch predicts well and costs less than
		// the branch-free form.
		head := min(64, len(tags))
		for i := range head {
			tg := atomic.LoadUint64(&tags[i])
			sel[n] = uint32(base + i)
			bad := tg&all ^ all | tg&no
			n += int(((bad | -bad) >> 63) ^ 1)
		}
		if n*16 > head && n*16 < 15*head {
			for i := head; i < len(tags); i++ {
				tg := atomic.LoadUint64(&tags[i])
				sel[n] = uint32(base + i)
				bad := tg&all ^ all | tg&no
				n += int(((bad | -bad) >> 63) ^ 1)
			}
			return sel[:n]
		}
		for i := head; i < len(tags); i++ {
			if tg := atomic.LoadUint64(&tags[i]); tg&all == all && tg&no == 0 {
				sel[n] = uint32(base + i)
				n++
			}
		}
		return sel[:n]
	}
	test := *t
	if t.ownerMask == 0 {
		for i := range tags {
			sel[n] = uint32(base + i)
			n += int(test.Pass(atomic.LoadUint64(&tags[i]), 0))
		}
		return sel[:n]
	}
	owners = owners[:len(tags)]
	for i := range tags {
		sel[n] = uint32(base + i)
		n += int(test.Pass(atomic.LoadUint64(&tags[i]), owners[i]))
	}
	return sel[:n]
}
