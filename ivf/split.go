package ivf

import (
	"math"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
)

// splitRounds is the Lloyd rounds of a split's 2-means.
const splitRounds = 6

// split divides partition pi in two by 2-means over its live records: the
// first centres are the record scoring worst against pi's centroid (lowest
// slot on ties) and the record scoring worst against that one. The records
// nearer the second centre move, in slot order, to a new partition at the
// end. A partition whose records cannot be told apart is left whole, and
// tried again once it has doubled.
func (x *Index) split(pi int) {
	p := x.parts[pi]
	if p.ndead > 0 {
		x.compact(pi)
	}
	n := p.slots()
	if n < 2 || n <= p.noSplitBelow {
		return
	}
	dec := x.decoder(p.scale)
	if x.adjust != score.AdjustScaleSubtract {
		dec.scales = nil
	}
	pts := make([]float32, n*x.dim)
	for s := 0; s < n; s++ {
		dec.decode(pts[s*x.dim:(s+1)*x.dim], p.slab, s)
	}
	two, err := newCentroids(x.dim, x.l2)
	if err != nil {
		return
	}
	two.set(0, x.cents.vec(pi))
	a := newAssigner(two)
	assign := make([]int32, n)
	scores := make([]float32, n)
	a.assign(pts, assign, scores)
	first := worst(scores)
	two.set(0, pts[first*x.dim:(first+1)*x.dim])
	a.assign(pts, assign, scores)
	second := worst(scores)
	two.set(1, pts[second*x.dim:(second+1)*x.dim])
	a = newAssigner(two)
	sum := make([]float64, x.dim)
	next := make([]float32, x.dim)
	for round := 0; round <= splitRounds; round++ {
		a.assign(pts, assign, nil)
		if round == splitRounds {
			break
		}
		for c := 0; c < 2; c++ {
			clear(sum)
			cnt := 0
			for s, as := range assign {
				if int(as) != c {
					continue
				}
				cnt++
				for d, f := range pts[s*x.dim : (s+1)*x.dim] {
					sum[d] += float64(f)
				}
			}
			if cnt == 0 {
				continue
			}
			for d := range next {
				next[d] = float32(sum[d] / float64(cnt))
			}
			if !x.l2 {
				normalize(next)
			}
			two.set(c, next)
		}
	}
	moved := 0
	for _, as := range assign {
		moved += int(as)
	}
	if moved == 0 || moved == n {
		p.noSplitBelow = 2 * n
		return
	}
	ni := len(x.parts)
	np := x.newPartition(moved)
	x.parts = append(x.parts, np)
	for s, as := range assign {
		if as == 1 {
			b, sc := float32(0), float32(1)
			if p.bias != nil {
				b = p.bias[s]
			}
			if p.scale != nil {
				sc = p.scale[s]
			}
			ns := np.put(x, p.ids[s], p.record(s, x.stride), b, sc, attrOf(p, s))
			x.place(p.ids[s], ni, ns)
		}
	}
	x.keep(pi, func(s int) bool { return assign[s] == 0 })
	x.cents.set(pi, two.vec(0))
	x.cents.set(ni, two.vec(1))
	x.centsDirty = true
	x.splits++
}

// worst is the slot of the lowest score, the lowest slot on ties (NaN
// counts as lowest).
func worst(scores []float32) int {
	wi, ws := 0, float32(math.Inf(1))
	for i, s := range scores {
		if s < ws || s != s {
			if s != s {
				return i
			}
			wi, ws = i, s
		}
	}
	return wi
}

// attrOf is the attributes of partition p's slot s.
func attrOf(p *partition, s int) match.Attr {
	return match.Attr{Tags: p.tag(s), Owner: p.owner(s), Time: p.time(s), Importance: p.imp(s)}
}
