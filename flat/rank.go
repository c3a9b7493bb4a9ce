package flat

import (
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/rank"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// Ranked scans: a record's similarity is scored as in a plain scan, then
// the combined score (rank.Scorer.Score) replaces it. A power per record
// would cost more than the scan, so two bounds come first. Per chunk, the
// newest time and the highest importance bound every record's extra terms:
// similarities below MinSim of them are skipped with the vector compare
// collect uses. Per record, Ceiling bounds the recency by a table look-up;
// only a record whose ceiling reaches the top-k's threshold pays the power.

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
		newest, most := chunkCeiling(x.times[base:base+m], x.imps[base:base+m])
		rec, im := j.rank.Extra(newest, most)
		for q := 0; q < j.nq; q++ {
			collectRanked(&pt.top[q], scores[q*m:(q+1)*m], base, x, f, j.rank, rec, im)
		}
	}
}

// chunkCeiling is the newest time and the highest importance of a chunk.
func chunkCeiling(times []int64, imps []float32) (newest int64, most float32) {
	newest, most = times[0], imps[0]
	for _, t := range times[1:] {
		newest = max(newest, t)
	}
	for _, v := range imps[1:] {
		most = max(most, v)
	}
	return newest, most
}

// collectRanked offers one query's similarities of a chunk from slot base,
// whose records' extra terms are at most rec and im.
func collectRanked(t *score.TopK, sims []float32, base int, x *Index, f *match.Filter, r *rank.Scorer, rec, im float32) {
	times, imps, ids := x.times[base:base+len(sims)], x.imps[base:base+len(sims)], x.ids[base:base+len(sims)]
	for i := kernel.FirstAtLeast(sims, r.MinSim(t.Threshold(), rec, im)); i < len(sims); {
		// Not "below": NaN goes on, as in collect, and ranks last.
		if !(r.Ceiling(sims[i], times[i], imps[i]) < t.Threshold()) {
			offer(t, score.Entry{Score: score.Ranked(r.Score(sims[i], times[i], imps[i])), Slot: uint32(base + i), ID: ids[i]}, f)
		}
		i++
		i += kernel.FirstAtLeast(sims[i:], r.MinSim(t.Threshold(), rec, im))
	}
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
