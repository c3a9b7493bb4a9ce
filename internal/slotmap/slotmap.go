// Package slotmap maps record ids to the slots that hold them: an open
// addressing table with linear probing, its cells in one flat array (on
// huge pages when large, see internal/mem). A lookup that misses the cache
// costs one line, not the two or three of a general map, and a loop of
// lookups has no call in it, so the misses of many ids overlap.
package slotmap

import "github.com/astral-engine/astral/internal/mem"

// Map is a set of id → slot pairs. The zero Map is empty and ready.
// It is not safe for concurrent writes; concurrent Gets are fine.
type Map struct {
	// cells holds two words per cell: the id, then its slot + 1 (0:
	// empty), so fresh zeroed memory is an empty table.
	cells []uint64
	mask  uint64 // cells/2 - 1
	shift uint   // 64 - log2(cells/2)
	n     int
}

// minCells is the smallest table, in cells.
const minCells = 16

// New returns a Map with room for n ids before it grows.
func New(n int) *Map {
	m := &Map{}
	m.Reserve(n)
	return m
}

// Reserve makes room for n ids in all before the map grows again.
func (m *Map) Reserve(n int) {
	if 2*n > len(m.cells)/2 {
		m.resize(n)
	}
}

// Len is the number of ids.
func (m *Map) Len() int { return m.n }

// home is id's first cell: the high bits of a multiplicative hash after a
// mix, so sequential, strided and clustered ids all spread.
func (m *Map) home(id uint64) uint64 {
	id ^= id >> 33
	id *= 0xff51afd7ed558ccd
	id ^= id >> 33
	return (id * 0x9e3779b97f4a7c15) >> m.shift
}

// Get returns id's slot.
func (m *Map) Get(id uint64) (int32, bool) {
	if m.n == 0 {
		return 0, false
	}
	c := m.cells
	for i := m.home(id); ; i = (i + 1) & m.mask {
		s := c[2*i+1]
		if s == 0 {
			return 0, false
		}
		if c[2*i] == id {
			return int32(s - 1), true
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
func (m *Map) Put(id uint64, slot int32) {
	if 2*(m.n+1) > len(m.cells)/2 {
		m.resize(2 * (m.n + 1))
	}
	c := m.cells
	for i := m.home(id); ; i = (i + 1) & m.mask {
		if c[2*i+1] == 0 {
			c[2*i], c[2*i+1] = id, uint64(slot)+1
			m.n++
			return
		}
		if c[2*i] == id {
			c[2*i+1] = uint64(slot) + 1
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
	for ; ; i = (i + 1) & m.mask {
		if c[2*i+1] == 0 {
			return false
		}
		if c[2*i] == id {
			break
		}
	}
	for j := (i + 1) & m.mask; c[2*j+1] != 0; j = (j + 1) & m.mask {
		// The id at j may fill the hole at i unless its home lies
		// cyclically in (i, j]: then i is before its home.
		if h := m.home(c[2*j]); (j-h)&m.mask >= (j-i)&m.mask {
			c[2*i], c[2*i+1] = c[2*j], c[2*j+1]
			i = j
		}
	}
	c[2*i], c[2*i+1] = 0, 0
	m.n--
	return true
}

// Remap replaces every id's slot s with to(s).
func (m *Map) Remap(to func(slot int32) int32) {
	c := m.cells
	for i := 1; i < len(c); i += 2 {
		if c[i] != 0 {
			c[i] = uint64(to(int32(c[i]-1))) + 1
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

// resize makes a table with room for n ids at most half full and moves
// the ids into it.
func (m *Map) resize(n int) {
	cells := minCells
	for cells < 2*n {
		cells *= 2
	}
	old := m.cells
	m.cells = mem.Words[uint64](2 * cells)
	m.mask = uint64(cells - 1)
	m.shift = 64
	for c := cells; c > 1; c >>= 1 {
		m.shift--
	}
	m.n = 0
	for i := 0; i < len(old); i += 2 {
		if old[i+1] != 0 {
			m.Put(old[i], int32(old[i+1]-1))
		}
	}
}
