package flat

import (
	"math"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// Ranked scans: a record's similarity is scored as in a plain scan, then
// the combined score (rank.Scorer.Score) replaces it. A power per record
// would cost more than the scan, so bounds come first. Per chunk, the
// newest time and the highest importance bound every record's extra
// terms, and with the chunk's best similarity the whole chunk: most chunks
// stop there. Per record, two compares against the importance and time
// the threshold needs (rank.Scorer.Floors), then a ceiling that bounds the
// recency by a table look-up; only a record past all three pays the power.

// scanRanked offers every record in [lo, hi) by its combined score; f (nil
// for none) may test ids only.
func (j *job) scanRanked(pt *part, lo, hi int, f *match.Filter) {
	x := j.x
	if f == nil {
		f = &matchAll
	}
	for base := lo; base < hi; base += chunk {
		m := min(chunk, hi-base)
		scores := j.scoreChunk(pt, base, m)
		newest, most := x.ceiling(base, m)
		rec, im := j.rank.Extra(newest, most)
		for q := 0; q < j.nq; q++ {
			collectRanked(&pt.top[q], scores[q*m:(q+1)*m], base, x, f, j.rank, rec, im)
		}
	}
}

// collectRanked offers one query's similarities of a chunk from slot base,
// whose records' extra terms are at most rec and im. Once t is full, the
// chunk is skipped when its best similarity cannot reach t's threshold,
// and a record when its importance or time is below what the threshold
// needs (Floors); the rest pay for a ceiling, then the exact score.
func collectRanked(t *score.TopK, sims []float32, base int, x *Index, f *match.Filter, r *rank.Scorer, rec, im float32) {
	times, imps, ids := x.times[base:base+len(sims)], x.imps[base:base+len(sims)], x.ids[base:base+len(sims)]
	// Until t is full every record enters, at its exact score.
	first := 0
	for ; first < len(sims) && math.IsInf(float64(t.Threshold()), -1); first++ {
		offer(t, score.Entry{Score: score.Ranked(r.Score(sims[first], times[first], imps[first])), Slot: uint32(base + first), ID: ids[first]}, f)
	}
	thr := t.Threshold()
	if first == len(sims) || math.IsInf(float64(thr), -1) {
		return
	}
	// A NaN similarity is left out of the best: its record ranks last and
	// cannot pass a threshold above -Inf.
	best := kernel.MaxScore(sims[first:])
	if r.Bound(best, rec, im) < thr {
		return
	}
	minImp, minTime := r.Floors(thr, best, rec, im)
	// A vector compare skips to the next record recent enough (or, with
	// no floor on time, important enough), as collect skips to the next
	// score high enough; recency decays fast, so its floor skips most.
	for i := first + nextViable(times[first:], imps[first:], minTime, minImp); i < len(sims); {
		sim := sims[i]
		// Not "below": NaN goes on, as in collect, and ranks last.
		if times[i] >= minTime && imps[i] >= minImp && !(r.Ceiling(sim, times[i], imps[i]) < thr) {
			offer(t, score.Entry{Score: score.Ranked(r.Score(sim, times[i], imps[i])), Slot: uint32(base + i), ID: ids[i]}, f)
			if next := t.Threshold(); next != thr {
				thr = next
				minImp, minTime = r.Floors(thr, best, rec, im)
			}
		}
		i++
		i += nextViable(times[i:], imps[i:], minTime, minImp)
	}
}

// nextViable is the index of the first record whose time (or, when any
// time will do, importance) is not below its floor.
func nextViable(times []int64, imps []float32, minTime int64, minImp float32) int {
	if minTime != math.MinInt64 {
		return kernel.FirstAtLeastInt64(times, minTime)
	}
	return kernel.FirstAtLeast(imps, minImp)
}

// offerRanked offers the record at slot s of similarity sim by its
// combined score.
func offerRanked(t *score.TopK, sim float32, s uint32, x *Index, f *match.Filter, r *rank.Scorer) {
	tm, imp := x.times[s], x.imps[s]
	if !(r.Ceiling(sim, tm, imp) < t.Threshold()) {
		offer(t, score.Entry{Score: score.Ranked(r.Score(sim, tm, imp)), Slot: s, ID: x.ids[s]}, f)
	}
}

// offerDenseRanked is offerDense by combined score.
func offerDenseRanked(t *score.TopK, sims []float32, sel []uint32, base int, x *Index, f *match.Filter, r *rank.Scorer) {
	for _, s := range sel {
		offerRanked(t, sims[int(s)-base], s, x, f, r)
	}
}

// offerGatheredRanked is offerGathered by combined score.
func offerGatheredRanked(t *score.TopK, sims []float32, sel []uint32, x *Index, f *match.Filter, r *rank.Scorer) {
	for i, s := range sel {
		offerRanked(t, sims[i], s, x, f, r)
	}
}
