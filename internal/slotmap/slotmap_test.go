package slotmap

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAgainstMap runs random puts, overwrites and deletes against a Go map
// on ids drawn from small, sequential, strided and full-range sets.
func TestAgainstMap(t *testing.T) {
	draws := map[string]func(r *rand.Rand) uint64{
		"small":   func(r *rand.Rand) uint64 { return r.Uint64N(64) },
		"dense":   func(r *rand.Rand) uint64 { return r.Uint64N(5000) },
		"strided": func(r *rand.Rand) uint64 { return r.Uint64N(3000) << 20 },
		"any":     func(r *rand.Rand) uint64 { return r.Uint64() | uint64(r.IntN(2))<<63 },
	}
	for _, dense := range []bool{false, true} {
		for name, draw := range draws {
			t.Run(fmt.Sprintf("%s/dense=%v", name, dense), func(t *testing.T) {
				r := rand.New(rand.NewPCG(1, 7))
				var m Map
				if dense {
					m.MakeDense()
				}
				want := map[uint64]int32{}
				for step := range 30000 {
					id := draw(r)
					switch r.IntN(3) {
					case 0, 1:
						s := int32(r.IntN(1 << 30))
						m.Put(id, s)
						want[id] = s
					default:
						_, had := want[id]
						require.Equal(t, had, m.Delete(id), "step %d delete %d", step, id)
						delete(want, id)
					}
					require.Equal(t, len(want), m.Len())
					probe := draw(r)
					s, ok := m.Get(probe)
					ws, wok := want[probe]
					require.Equal(t, wok, ok, "step %d get %d", step, probe)
					require.Equal(t, ws, s)
				}
				for id, s := range want {
					got, ok := m.Get(id)
					require.True(t, ok)
					require.Equal(t, s, got)
				}
			})
		}
	}
}

func TestZeroAndClear(t *testing.T) {
	var m Map
	_, ok := m.Get(0)
	require.False(t, ok)
	require.False(t, m.Delete(0))
	m.Put(0, 0)
	m.Put(^uint64(0), 1<<31-1)
	s, ok := m.Get(0)
	require.True(t, ok)
	require.Zero(t, s)
	s, ok = m.Get(^uint64(0))
	require.True(t, ok)
	require.EqualValues(t, 1<<31-1, s)
	m.Clear()
	require.Zero(t, m.Len())
	require.False(t, m.Has(0))
	n := New(1000)
	require.Equal(t, 2000*16, n.Bytes(), "1000 ids reserved: a table of 2000 cells of 2 words")
}

// TestDense checks the dense table's size at a reservation and after
// growth, and 64-bit values.
func TestDense(t *testing.T) {
	var m Map
	m.MakeDense()
	m.Reserve(300000)
	require.Equal(t, (300000*20/17+1)*16, m.Bytes(), "reserved: 85 % full")
	cells := m.Bytes()
	for i := range 300000 {
		m.Put64(uint64(i)*977, uint64(i)<<32|uint64(i%5000))
	}
	require.Equal(t, cells, m.Bytes(), "the reserved ids fit without growing")
	require.Less(t, float64(m.Bytes())/300000, 18.9, "bytes per id")
	for i := range 300000 {
		v, ok := m.Get64(uint64(i) * 977)
		require.True(t, ok)
		require.Equal(t, uint64(i)<<32|uint64(i%5000), v)
	}
	for i := 300000; i < 400000; i++ {
		m.Put64(uint64(i)*977, ^uint64(0)-1)
	}
	require.Equal(t, 400000, m.Len())
	require.LessOrEqual(t, float64(400000*16)/float64(m.Bytes()), 0.85, "grown: at most 85 % full")
	v, ok := m.Get64(399999 * 977)
	require.True(t, ok)
	require.Equal(t, ^uint64(0)-1, v, "the largest value")
}

func TestGetAllocatesNothing(t *testing.T) {
	m := New(100)
	for i := range 100 {
		m.Put(uint64(i)*7, int32(i))
	}
	require.Zero(t, testing.AllocsPerRun(100, func() { m.Get(350) }))
}

func BenchmarkGet(b *testing.B) {
	const n = 100000
	m := New(n)
	g := make(map[uint64]int32, n)
	for i := range n {
		m.Put(uint64(i), int32(i))
		g[uint64(i)] = int32(i)
	}
	r := rand.New(rand.NewPCG(2, 2))
	ids := make([]uint64, 1000)
	for i := range ids {
		ids[i] = r.Uint64N(n)
	}
	var sink int32
	b.Run("slotmap", func(b *testing.B) {
		for b.Loop() {
			for _, id := range ids {
				s, _ := m.Get(id)
				sink += s
			}
		}
	})
	b.Run("gomap", func(b *testing.B) {
		for b.Loop() {
			for _, id := range ids {
				sink += g[id]
			}
		}
	})
	_ = sink
}

func TestTouch(t *testing.T) {
	var m Map
	require.Zero(t, m.Touch([]uint64{1, 2, 3}), "an empty map reads nothing")
	m.Put(5, 0)
	require.NotZero(t, m.Touch([]uint64{5}), "a stored id's first cell holds its slot + 1")
	require.NotPanics(t, func() { m.Touch([]uint64{0, ^uint64(0), 1 << 40}) })
}

func TestRemap(t *testing.T) {
	var m Map
	for i := range 100 {
		m.Put(uint64(i)*3, int32(i))
	}
	m.Remap(func(s int32) int32 { return 1000 - s })
	for i := range 100 {
		s, ok := m.Get(uint64(i) * 3)
		require.True(t, ok)
		require.EqualValues(t, 1000-i, s)
	}
	require.Equal(t, 100, m.Len())
}
