// Package score holds the scoring words both indexes share: a result and
// its one order, the adjustment that turns a kernel dot product into a
// score, and the bounded heap that keeps the best results. flat and hnsw
// import it and not each other, so both rank by the same rules and a graph
// result carries the very score an exact scan gives it.
package score

import (
	"math"

	"github.com/astral-engine/astral/kernel"
)

// Result is one hit: the caller's id and its score.
type Result struct {
	ID    uint64
	Score float32
}

// Better reports whether a ranks before b in the one order of results:
// higher score first, then lower id. Ties breaking by id keep results the
// same whatever the thread count or batch.
func (a Result) Better(b Result) bool { return before(a.Score, a.ID, b.Score, b.ID) }

// CompareResults is Result.Better in slices.SortFunc's form.
func CompareResults(a, b Result) int { return compare(a.Score, a.ID, b.Score, b.ID) }

// before is the order itself, shared by results and entries.
func before(as float32, aid uint64, bs float32, bid uint64) bool {
	return as > bs || (as == bs && aid < bid)
}

func compare(as float32, aid uint64, bs float32, bid uint64) int {
	switch {
	case before(as, aid, bs, bid):
		return -1
	case before(bs, bid, as, aid):
		return 1
	}
	return 0
}

// Ranked returns s, or -Inf for NaN: a NaN score ranks last, so it can
// never keep a real score out of a result set, and the order stays total.
func Ranked(s float32) float32 {
	if s != s {
		return float32(math.Inf(-1))
	}
	return s
}

// Adjust is how a record's stored value turns the kernel's dot product
// into its score. Each step is one IEEE operation rounded to float32, so the
// vector form (Chunk), the gathered form (Slots) and the scalar form (Of)
// give the same bits on every CPU; no step may be fused (FMA).
type Adjust uint8

const (
	AdjustNone     Adjust = iota
	AdjustScale           // score = dot × v (cosine: v = 1/|x|)
	AdjustSubtract        // score = dot − v (L2: v = |x|²)
	// AdjustScaleSubtract is L2 over records with a per-vector scale s:
	// score = dot × s − v, two roundings (v = s²|x|²).
	AdjustScaleSubtract
)

// Valid reports whether a is one of the defined adjustments.
func (a Adjust) Valid() bool { return a <= AdjustScaleSubtract }

// Of is the score of one record: its dot product, value v and multiplier
// s (read only by AdjustScaleSubtract). The float32 conversions round each
// step, so no compiler fuses them.
func (a Adjust) Of(dot, v, s float32) float32 {
	switch a {
	case AdjustScale:
		return float32(dot * v)
	case AdjustSubtract:
		return float32(dot - v)
	case AdjustScaleSubtract:
		return float32(float32(dot*s) - v)
	}
	return dot
}

// Chunk adjusts the scores of consecutive records, the first of which has
// index first in values and scales (each nil when a does not read it).
func (a Adjust) Chunk(scores, values, scales []float32, first int) {
	switch a {
	case AdjustScale:
		kernel.Mul(scores, values[first:])
	case AdjustSubtract:
		kernel.Sub(scores, values[first:])
	case AdjustScaleSubtract:
		kernel.Mul(scores, scales[first:])
		kernel.Sub(scores, values[first:])
	}
}

// Slots adjusts scores of the records at slots (one per score) in values
// and scales.
func (a Adjust) Slots(scores, values, scales []float32, slots []uint32) {
	switch a {
	case AdjustScale:
		for i, s := range slots {
			scores[i] *= values[s]
		}
	case AdjustSubtract:
		for i, s := range slots {
			scores[i] -= values[s]
		}
	case AdjustScaleSubtract:
		for i, s := range slots {
			scores[i] = float32(scores[i]*scales[s]) - values[s]
		}
	}
}
