// Package rank is memory ranking: a record's score is a weighted sum of
// its similarity to the query, the recency of its time and its
// importance. Every step is one IEEE operation rounded explicitly (no FMA,
// no library pow), so each CPU and thread count gives the same bits.
package rank

import (
	"math"
	"math/bits"
)

// Params are one query's ranking: the three weights, the decay of
// recency per time unit and the host's current time.
type Params struct {
	Relevance, Recency, Importance float32
	Decay                          float64
	Now                            int64
}

// On reports whether the ranking changes anything: a recency or an
// importance weight is set.
func (p *Params) On() bool { return p != nil && (p.Recency != 0 || p.Importance != 0) }

// Pow is decay^n by squaring, each product rounded to float64: exact
// integer powers that math.Pow does not promise to give alike on every
// CPU. A power that underflows stops early at 0.
func Pow(decay float64, n uint64) float64 {
	r, b := 1.0, decay
	for n != 0 {
		if n&1 != 0 {
			r = float64(r * b)
		}
		if n >>= 1; n == 0 {
			break
		}
		if b = float64(b * b); b == 0 {
			return 0 // a bit of n is left: the product is 0 too
		}
	}
	return r
}

// age is now − t, or 0 when t is not before now; the difference is taken
// unsigned so no pair of int64 overflows.
func age(now, t int64) uint64 {
	if t >= now {
		return 0
	}
	return uint64(now) - uint64(t)
}

// Scorer is a query's ranking made ready to score records: the recency
// term's table of upper bounds, and the weights.
type Scorer struct {
	rel, rec, imp float32
	decay         float64
	now           int64
	// ceil[j] bounds the recency term of an age whose highest bit is j-1
	// (ceil[0]: age 0): decay^(2^(j-1)) bounds decay^age, and Pow reaches
	// the same value by the same roundings as its last factor, so the
	// bound holds on the rounded values too.
	ceil [65]float32
}

// NewScorer readies p (checked: weights finite and ≥ 0, decay in (0, 1]
// when the recency weight is set).
func NewScorer(p *Params) Scorer {
	s := Scorer{rel: p.Relevance, rec: p.Recency, imp: p.Importance, decay: p.Decay, now: p.Now}
	if s.rec == 0 {
		return s // the term is 0 whatever the age
	}
	s.ceil[0] = float32(s.rec * 1)
	b := p.Decay
	for j := 1; j < len(s.ceil); j++ {
		s.ceil[j] = float32(s.rec * float32(b))
		b = float64(b * b)
	}
	return s
}

// Recency is decay^(now − t) as a float32: 1 for a time not before now.
func (s *Scorer) Recency(t int64) float32 {
	return float32(Pow(s.decay, age(s.now, t)))
}

// Score is the combined score of a record of similarity sim, time t and
// importance imp: relevance·sim + recency·decay^(now−t) + importance·imp,
// summed in that order, each product and sum rounded to float32.
func (s *Scorer) Score(sim float32, t int64, imp float32) float32 {
	var rec float32
	if s.rec != 0 {
		rec = float32(s.rec * s.Recency(t))
	}
	c := float32(s.rel * sim)
	c = float32(c + rec)
	return float32(c + float32(s.imp*imp))
}

// Ceiling is at least Score(sim, t, imp), whose recency it bounds by a
// table look-up instead of a power: the same roundings over inputs no
// smaller, so it never falls below the score (NaN stays NaN).
func (s *Scorer) Ceiling(sim float32, t int64, imp float32) float32 {
	c := float32(s.rel * sim)
	c = float32(c + s.ceil[bits.Len64(age(s.now, t))])
	return float32(c + float32(s.imp*imp))
}

// Extra is the recency and importance terms' most, for records of time at
// most t and importance at most imp.
func (s *Scorer) Extra(t int64, imp float32) (rec, im float32) {
	if s.rec != 0 {
		rec = float32(s.rec * s.Recency(t))
	}
	return rec, float32(s.imp * imp)
}

// Bound is the most a record of similarity at most sim scores when its
// recency and importance terms are at most rec and im (Extra's).
func (s *Scorer) Bound(sim, rec, im float32) float32 {
	c := float32(s.rel * sim)
	c = float32(c + rec)
	return float32(c + im)
}

// margin is a slack past the float32 roundings of a combined score of
// terms of these magnitudes: three roundings of 2^-24 each, with room.
func margin(terms ...float64) float64 {
	m := 0.0
	for _, t := range terms {
		m += math.Abs(t)
	}
	return m * 0x1p-19
}

// Floors are the least importance and the earliest time a record needs to
// score thr when its similarity is at most sim and its other terms at most
// rec and im (Extra's): records below either cannot, so a scan skips them
// with two compares. Conservative by a margin past the roundings; a NaN
// anywhere gives no floor.
func (s *Scorer) Floors(thr, sim, rec, im float32) (imp float32, t int64) {
	imp, t = float32(math.Inf(-1)), math.MinInt64
	base := float64(s.rel) * float64(sim)
	slack := margin(float64(thr), base, float64(rec), float64(im))
	if s.imp != 0 {
		if f := (float64(thr) - base - float64(rec) - slack) / float64(s.imp); f == f {
			imp = float32(f - math.Abs(f)*0x1p-20 - 0x1p-126)
		}
	}
	if s.rec == 0 || s.decay == 1 {
		return imp, t
	}
	y := (float64(thr) - base - float64(im) - slack) / float64(s.rec)
	if !(y > 0) {
		return imp, t // NaN, or every age can
	}
	if y > 1 {
		return imp, math.MaxInt64 // not even age 0
	}
	// decay^age >= y holds for age <= ln y / ln decay; a little more.
	ages := math.Log(y)/math.Log(s.decay)*(1+0x1p-20) + 2
	if ages >= float64(math.MaxInt64)/2 || float64(s.now)-ages < math.MinInt64/2 {
		return imp, t
	}
	return imp, s.now - int64(ages)
}

// MinSim is a similarity below which no record whose recency and
// importance terms are at most rec and im can score thr: conservative by
// a margin past the roundings (-Inf when any similarity might).
func (s *Scorer) MinSim(thr, rec, im float32) float32 {
	if math.IsInf(float64(thr), -1) || thr != thr {
		return float32(math.Inf(-1))
	}
	if s.rel == 0 {
		if float32(float32(0+rec)+im) < thr {
			return float32(math.Inf(1))
		}
		return float32(math.Inf(-1))
	}
	rest := float64(thr) - float64(rec) - float64(im)
	sim := rest / float64(s.rel)
	slack := (math.Abs(float64(thr))+math.Abs(float64(rec))+math.Abs(float64(im)))/float64(s.rel)*0x1p-20 + math.Abs(sim)*0x1p-20
	return float32(sim - slack - 0x1p-126)
}
