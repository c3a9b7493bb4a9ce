// Package slotmap maps record ids to the slots that hold them: an open
// addressing table with linear probing, its cells in one flat array (on
// huge pages when large, see internal/mem). A lookup that misses the cache
// costs one line, not the two or three of a general map, and a loop of
// lookups has no call in it, so the misses of many ids overlap.
package slotmap

import (
	"math/bits"

	"github.com/astral-engine/astral/internal/mem"
)

// Map is a set of id → slot pairs. The zero Map is empty and ready.
// It is not safe for concurrent writes; concurrent Gets are fine.
type Map struct {
	// cells holds two words per cell: the id, then its value + 1 (0:
	// empty), so fresh zeroed memory is an empty table.
	cells []uint64
	size  uint64 // cells; any count, not only a power of two
	n     int
	// dense keeps the table 60–85 % full (85 % as reserved: a loaded
	// index's table) instead of 25–50 %: 18.8 bytes an id reserved
	// instead of 32–64, for an index whose other per-record costs are a
	// few words (ivf), at a few probes more per lookup.
	dense bool
}

// minCells is the smallest table, in cells.
const minCells = 16

// New returns a Map with room for n ids before it grows.
func New(n int) *Map {
	m := &Map{}
	m.Reserve(n)
	return m
}

// MakeDense makes m a dense table (see Map.dense). Call it while m is
// empty; it keeps no cells.
func (m *Map) MakeDense() {
	m.dense = true
	if m.n == 0 {
		m.cells, m.size = nil, 0
	}
}

// limit is how many ids the table holds before it grows.
func (m *Map) limit() int {
	if m.dense {
		return int(m.size * 17 / 20)
	}
	return int(m.size / 2)
}

// cellsFor is the table size for n ids: reserved (exact) or grown into
// (room to grow again before the next resize).
func (m *Map) cellsFor(n int, growing bool) int {
	var c int
	switch {
	case m.dense && growing:
		c = n * 5 / 3
	case m.dense:
		c = n*20/17 + 1
	case growing:
		c = 4 * n
	default:
		c = 2 * n
	}
	return max(c, minCells)
}

// Reserve makes room for n ids in all before the map grows again.
func (m *Map) Reserve(n int) {
	if n > m.limit() {
		m.resize(m.cellsFor(n, false))
	}
}

// Len is the number of ids.
func (m *Map) Len() int { return m.n }

// home is id's first cell: a mix, then the high word of its product with
// the table size (a multiply instead of a division), so sequential,
// strided and clustered ids all spread over any table size.
func (m *Map) home(id uint64) uint64 {
	id ^= id >> 33
	id *= 0xff51afd7ed558ccd
	id ^= id >> 33
	hi, _ := bits.Mul64(id*0x9e3779b97f4a7c15, m.size)
	return hi
}

// next is the cell after i, wrapping at the end.
func (m *Map) next(i uint64) uint64 {
	if i++; i == m.size {
		return 0
	}
	return i
}

// Get returns id's slot.
func (m *Map) Get(id uint64) (int32, bool) {
	v, ok := m.Get64(id)
	return int32(v), ok
}

// Get64 returns id's value as Put64 stored it.
func (m *Map) Get64(id uint64) (uint64, bool) {
	if m.n == 0 {
		return 0, false
	}
	c := m.cells
	for i := m.home(id); ; i = m.next(i) {
		s := c[2*i+1]
		if s == 0 {
			return 0, false
		}
		if c[2*i] == id {
			return s - 1, true
		}
	}
}

// Touch reads the first cell of each id, so that the cache misses of a
// batch of lookups overlap: the loop has no branch on what it reads, and
// the Gets that follow find their cells cached. It returns a sum of what
// it read: keep it somewhere (the caller's own scratch) so that the reads
// are not optimized away.
func (m *Map) Touch(ids []uint64) uint64 {
	if m.n == 0 {
		return 0
	}
	// Homes first, then the loads alone: a load loop of a few instructions
	// an id keeps more misses in flight than one that also hashes.
	var at [touchBlock]uint64
	var sum uint64
	c := m.cells
	for len(ids) > 0 {
		n := min(len(ids), touchBlock)
		for i, id := range ids[:n] {
			at[i] = 2*m.home(id) + 1
		}
		for _, i := range at[:n] {
			sum += c[i]
		}
		ids = ids[n:]
	}
	return sum
}

// touchBlock is how many homes Touch computes before loading them.
const touchBlock = 64

// Has reports whether id is in the map.
func (m *Map) Has(id uint64) bool {
	_, ok := m.Get(id)
	return ok
}

// Put sets id's slot, adding id if absent.
func (m *Map) Put(id uint64, slot int32) { m.Put64(id, uint64(uint32(slot))) }

// Put64 sets id's value (below 2⁶⁴ − 1), adding id if absent.
func (m *Map) Put64(id, v uint64) {
	if m.n+1 > m.limit() {
		m.resize(m.cellsFor(m.n+1, true))
	}
	c := m.cells
	for i := m.home(id); ; i = m.next(i) {
		if c[2*i+1] == 0 {
			c[2*i], c[2*i+1] = id, v+1
			m.n++
			return
		}
		if c[2*i] == id {
			c[2*i+1] = v + 1
			return
		}
	}
}

// Delete removes id and reports whether it was there. The cells after it
// in its run move back so that every id stays reachable from its home
// without tombstones.
func (m *Map) Delete(id uint64) bool {
	if m.n == 0 {
		return false
	}
	c := m.cells
	i := m.home(id)
	for ; ; i = m.next(i) {
		if c[2*i+1] == 0 {
			return false
		}
		if c[2*i] == id {
			break
		}
	}
	for j := m.next(i); c[2*j+1] != 0; j = m.next(j) {
		// The id at j may fill the hole at i unless its home lies
		// cyclically in (i, j]: then i is before its home.
		if h := m.home(c[2*j]); m.dist(h, j) >= m.dist(i, j) {
			c[2*i], c[2*i+1] = c[2*j], c[2*j+1]
			i = j
		}
	}
	c[2*i], c[2*i+1] = 0, 0
	m.n--
	return true
}

// dist is how many cells lie from a forward to b, wrapping.
func (m *Map) dist(a, b uint64) uint64 {
	if b >= a {
		return b - a
	}
	return b + m.size - a
}

// Remap replaces every id's slot s with to(s).
func (m *Map) Remap(to func(slot int32) int32) {
	c := m.cells
	for i := 1; i < len(c); i += 2 {
		if c[i] != 0 {
			c[i] = uint64(uint32(to(int32(c[i]-1)))) + 1
		}
	}
}

// Clear removes every id and keeps the table.
func (m *Map) Clear() {
	clear(m.cells)
	m.n = 0
}

// Bytes is the memory the table holds.
func (m *Map) Bytes() int { return len(m.cells) * 8 }

// resize moves the ids into a table of cells cells.
func (m *Map) resize(cells int) {
	old := m.cells
	m.cells = mem.Words[uint64](2 * cells)
	m.size = uint64(cells)
	m.n = 0
	for i := 0; i < len(old); i += 2 {
		if old[i+1] != 0 {
			m.Put64(old[i], old[i+1]-1)
		}
	}
}
