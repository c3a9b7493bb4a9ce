package score

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOrderHigherScoreThenLowerID(t *testing.T) {
	a := Result{ID: 5, Score: 2}
	require.True(t, a.Better(Result{ID: 1, Score: 1}))
	require.False(t, Result{ID: 1, Score: 1}.Better(a))
	require.True(t, Result{ID: 4, Score: 2}.Better(a), "a tie breaks by the lower id")
	require.False(t, a.Better(Result{ID: 4, Score: 2}))
	require.False(t, a.Better(a), "nothing ranks before itself")
	require.True(t, Result{ID: 9, Score: 0}.Better(Result{ID: 1, Score: float32(math.Inf(-1))}))
	// -0 and +0 are one score, so the id decides.
	negZero := float32(math.Copysign(0, -1))
	require.True(t, Result{ID: 1, Score: negZero}.Better(Result{ID: 2, Score: 0}))
	require.True(t, Result{ID: 1, Score: 0}.Better(Result{ID: 2, Score: negZero}))

	require.Equal(t, -1, CompareResults(Result{ID: 4, Score: 2}, a))
	require.Equal(t, 1, CompareResults(a, Result{ID: 4, Score: 2}))
	require.Equal(t, 0, CompareResults(a, a))

	e, f := Entry{Score: 2, Slot: 9, ID: 4}, Entry{Score: 2, Slot: 1, ID: 5}
	require.True(t, e.Better(f), "entries order by id, never by slot")
	require.Equal(t, -1, CompareEntries(e, f))
	require.Equal(t, Result{ID: 4, Score: 2}, e.Result())
}

// TestBetterBitIsBetter checks the branch-free form against Better on
// every pair of a set with ties, signed zeros, infinities and equal ids.
func TestBetterBitIsBetter(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	inf := float32(math.Inf(1))
	var es []Entry
	for _, sc := range []float32{-inf, -1, negZero, 0, 0.5, 1, inf} {
		for _, id := range []uint64{0, 1, 7, math.MaxUint64} {
			es = append(es, Entry{Score: sc, Slot: uint32(id), ID: id})
		}
	}
	for _, a := range es {
		for _, b := range es {
			want := 0
			if a.Better(b) {
				want = 1
			}
			require.Equal(t, want, BetterBit(a, b), "%v vs %v", a, b)
		}
	}
}

func TestRankedPutsNaNLast(t *testing.T) {
	require.Equal(t, float32(math.Inf(-1)), Ranked(float32(math.NaN())))
	for _, v := range []float32{0, -1, 3.5, float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32} {
		require.Equal(t, math.Float32bits(v), math.Float32bits(Ranked(v)))
	}
	negZero := float32(math.Copysign(0, -1))
	require.Equal(t, math.Float32bits(negZero), math.Float32bits(Ranked(negZero)))
}

// TestAdjustFormsAgree: the scalar, chunk and slot forms give the same bits
// as one float32 rounding per step, for lengths around the vector width.
func TestAdjustFormsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, a := range []Adjust{AdjustNone, AdjustScale, AdjustSubtract, AdjustScaleSubtract} {
		for _, n := range []int{0, 1, 7, 31, 32, 33, 64, 100, 257} {
			first := r.IntN(5)
			values, scales := make([]float32, first+n), make([]float32, first+n)
			dots := make([]float32, n)
			for i := range values {
				values[i] = float32(r.NormFloat64() * 3)
				scales[i] = float32(r.Float64()*2 + 0.01)
			}
			for i := range dots {
				dots[i] = float32(r.NormFloat64() * 10)
			}
			want := make([]float32, n)
			for i, d := range dots {
				v, s := values[first+i], scales[first+i]
				switch a {
				case AdjustNone:
					want[i] = d
				case AdjustScale:
					want[i] = float32(d * v)
				case AdjustSubtract:
					want[i] = float32(d - v)
				case AdjustScaleSubtract:
					want[i] = float32(float32(d*s) - v)
				}
				require.Equal(t, math.Float32bits(want[i]), math.Float32bits(a.Of(d, v, s)), "adjust %d", a)
			}
			chunk := slices.Clone(dots)
			a.Chunk(chunk, values, scales, first)
			require.Equal(t, bitsOf(want), bitsOf(chunk), "adjust %d n %d", a, n)

			slots := make([]uint32, n)
			for i := range slots {
				slots[i] = uint32(first + i)
			}
			r.Shuffle(n, func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
			got := make([]float32, n)
			for i, s := range slots {
				got[i] = dots[int(s)-first]
			}
			a.Slots(got, values, scales, slots)
			for i, s := range slots {
				require.Equal(t, math.Float32bits(want[int(s)-first]), math.Float32bits(got[i]))
			}
		}
	}
	// nil values and scales are fine for the adjustments that do not read
	// them, at any first.
	s := []float32{1, 2}
	AdjustNone.Chunk(s, nil, nil, 7)
	AdjustScale.Chunk(s, []float32{0, 2, 3}, nil, 1)
	require.Equal(t, []float32{2, 6}, s)
	require.True(t, AdjustScaleSubtract.Valid())
	require.False(t, Adjust(AdjustScaleSubtract+1).Valid())
}

func bitsOf(s []float32) []uint32 {
	out := make([]uint32, len(s))
	for i, v := range s {
		out[i] = math.Float32bits(v)
	}
	return out
}

// TestTopKAgainstSort: whatever k and push order, TopK keeps exactly the k
// first of a full sort, ties broken by id.
func TestTopKAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var tk TopK
	for trial := 0; trial < 300; trial++ {
		k := 1 + r.IntN(100)
		n := 1 + r.IntN(300)
		seen := map[uint64]bool{}
		var all []Entry
		tk.Reset(k)
		for len(all) < n {
			e := Entry{Score: float32(r.IntN(10)), Slot: uint32(r.IntN(1 << 20)), ID: uint64(r.IntN(1 << 20))}
			if r.IntN(50) == 0 {
				e.Score = Ranked(float32(math.NaN()))
			}
			if seen[e.ID] {
				continue
			}
			seen[e.ID] = true
			all = append(all, e)
			require.Equal(t, tk.Admits(e), !tk.Full() || e.Better(tk.Worst()))
			tk.Push(e)
			require.LessOrEqual(t, tk.Len(), k)
			if tk.Full() {
				require.Equal(t, tk.Worst().Score, tk.Threshold())
			} else {
				require.Equal(t, float32(math.Inf(-1)), tk.Threshold())
			}
		}
		want := slices.Clone(all)
		slices.SortFunc(want, CompareEntries)
		want = want[:min(k, len(want))]
		require.ElementsMatch(t, want, tk.Entries())
		var scratch TopK
		for _, kb := range []int{1, 3, k, k + 5} {
			heap := slices.Clone(tk.Entries())
			require.Equal(t, want[:min(kb, len(want))], tk.BestSorted(kb, &scratch), "k %d of %d", kb, k)
			require.Equal(t, heap, tk.Entries(), "BestSorted changed its heap")
		}
		require.Equal(t, want, tk.Sorted())

		short := slices.Clone(all[:min(len(all), 40)])
		wantShort := slices.Clone(short)
		slices.SortFunc(wantShort, CompareEntries)
		Sort(short)
		require.Equal(t, wantShort, short)
	}
}

func TestTopKResetAndClear(t *testing.T) {
	var tk TopK
	tk.Push(Entry{Score: 1, ID: 1}) // the zero value keeps nothing
	require.Zero(t, tk.Len())
	tk.Reset(2)
	for i := range 5 {
		tk.Push(Entry{Score: float32(i), ID: uint64(i)})
	}
	require.Equal(t, []Entry{{Score: 4, ID: 4}, {Score: 3, ID: 3}}, tk.Sorted())
	tk.Clear()
	require.Zero(t, tk.Len())
	tk.Push(Entry{Score: -1, ID: 8})
	require.Equal(t, 1, tk.Len())
	require.False(t, tk.Full())
}

func TestTopKAllocatesNothing(t *testing.T) {
	var tk TopK
	tk.Reset(64)
	r := rand.New(rand.NewPCG(3, 4))
	es := make([]Entry, 1000)
	for i := range es {
		es[i] = Entry{Score: float32(r.NormFloat64()), Slot: uint32(i), ID: uint64(i)}
	}
	var scratch TopK
	scratch.Reset(10)
	allocs := testing.AllocsPerRun(20, func() {
		tk.Reset(64)
		for _, e := range es {
			if tk.Admits(e) {
				tk.Push(e)
			}
		}
		tk.BestSorted(10, &scratch)
		tk.Sorted()
		Sort(es[:50])
	})
	require.Zero(t, allocs)
}
