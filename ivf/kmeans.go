package ivf

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// Training: k-means over a seeded sample of the records, decoded to f32
// (unit length unless L2). Every step gives the same bits for a seed
// whatever the thread count: a point's assignment is its own kernel scores'
// best (ties to the lowest centroid), and each centroid sums its members in
// sample order in float64, one participant per centroid range.

// assignBlock is how many points one participant takes at a time.
const assignBlock = 256

// blocks runs fn over [0, n) in blocks of size taken in order from an
// atomic counter by p's workers and the caller. fn(part, lo, hi) must
// write only its own block's output.
type blocks struct {
	n, size int
	next    atomic.Int64
	fn      func(part, lo, hi int)
}

func (b *blocks) RunPart(i int) {
	for {
		lo := int(b.next.Add(1)-1) * b.size
		if lo >= b.n {
			return
		}
		b.fn(i, lo, min(lo+b.size, b.n))
	}
}

// parallel runs fn over [0, n) in blocks on up to p's workers plus the
// caller.
func parallel(p *pool.Pool, n, size int, fn func(part, lo, hi int)) {
	parts := 1
	if p != nil {
		parts = min(p.Workers()+1, (n+size-1)/size)
	}
	b := &blocks{n: n, size: size, fn: fn}
	if parts <= 1 {
		b.RunPart(0)
		return
	}
	p.Run(b, parts)
}

// participants is how many participants parallel may use on p.
func participants(p *pool.Pool) int {
	if p == nil {
		return 1
	}
	return p.Workers() + 1
}

// decoder turns stored records back into the vectors k-means clusters.
type decoder struct {
	kind   kernel.Storage
	dim    int
	stride int
	l2     bool
	scales []float32 // per-record multiplier (AdjustScaleSubtract), else nil
}

// decode writes record i of recs as a vector into dst[:dim]: its stored
// values, times its multiplier, and of unit length unless L2.
func (d *decoder) decode(dst []float32, recs []byte, i int) {
	dst = dst[:d.dim]
	kernel.DecodeUnits(d.kind, dst, recs[i*d.stride:(i+1)*d.stride])
	if d.scales != nil {
		s := d.scales[i]
		for c := range dst {
			dst[c] *= s
		}
	}
	if !d.l2 {
		normalize(dst)
	}
}

// assigner scores points against centroids, 16 at a time.
type assigner struct {
	c       *centroids
	qcs     []float32
	tmp     []float32
	scratch []float32
	out     []float32
}

func newAssigner(c *centroids) *assigner {
	ql := c.queryLen()
	return &assigner{c: c, qcs: make([]float32, MaxBatch*ql), tmp: make([]float32, c.dim),
		scratch: make([]float32, ql), out: make([]float32, MaxBatch*c.len())}
}

// assign writes the nearest centroid of each of the vectors (len(dst)
// of them, dim apart) and its score.
func (a *assigner) assign(vecs []float32, dst []int32, scores []float32) {
	c, ql, n := a.c, a.c.queryLen(), a.c.len()
	if cap(a.out) < MaxBatch*n {
		a.out = make([]float32, MaxBatch*n)
	}
	for lo := 0; lo < len(dst); lo += MaxBatch {
		nq := min(MaxBatch, len(dst)-lo)
		for q := 0; q < nq; q++ {
			v := vecs[(lo+q)*c.dim : (lo+q+1)*c.dim]
			c.prepare(a.qcs[q*ql:(q+1)*ql], v, false, a.tmp)
		}
		out := c.scoresBatch(a.qcs[:nq*ql], nq, a.scratch, a.out)
		for q := 0; q < nq; q++ {
			b, s := best(out[q*n : (q+1)*n])
			dst[lo+q] = int32(b)
			if scores != nil {
				scores[lo+q] = s
			}
		}
	}
}

// sampleRows returns m distinct rows of [0, n), ascending, drawn by a
// partial Fisher–Yates shuffle from PCG(seed, stream).
func sampleRows(n, m int, seed, stream uint64) []int32 {
	if m >= n {
		rows := make([]int32, n)
		for i := range rows {
			rows[i] = int32(i)
		}
		return rows
	}
	r := rand.New(rand.NewPCG(seed, stream))
	swapped := make(map[int32]int32, m)
	at := func(i int32) int32 {
		if v, ok := swapped[i]; ok {
			return v
		}
		return i
	}
	rows := make([]int32, m)
	for i := 0; i < m; i++ {
		j := int32(i + r.IntN(n-i))
		rows[i] = at(j)
		swapped[j] = at(int32(i))
	}
	slices.Sort(rows)
	return rows
}

// Train computes the centroids from the records recs (Stride bytes each)
// with their AdjustScaleSubtract multipliers (nil otherwise). It does not
// add the records (Build does). The centroids are the same bits for a seed
// whatever p's worker count.
func (x *Index) Train(recs []byte, scales []float32, p *pool.Pool) error {
	n := len(recs) / x.stride
	if n < 1 || len(recs) != n*x.stride {
		return fmt.Errorf("%w: %d record bytes: want a positive multiple of %d", ErrConfig, len(recs), x.stride)
	}
	if x.adjust == score.AdjustScaleSubtract && len(scales) != n {
		return fmt.Errorf("%w: %d multipliers for %d records", ErrConfig, len(scales), n)
	}
	if x.adjust != score.AdjustScaleSubtract {
		scales = nil
	}
	if x.live > 0 || x.dead > 0 {
		return fmt.Errorf("%w: train an empty index", ErrConfig)
	}
	nlist := min(x.cfg.NList, n)
	m := x.cfg.Sample
	if m == 0 {
		m = DefaultSample(n, nlist)
	}
	m = min(max(m, nlist), n)
	dec := x.decoder(scales)
	rows := sampleRows(n, m, x.cfg.Seed, 0x1f5)
	pts := make([]float32, m*x.dim)
	parallel(p, m, assignBlock, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			dec.decode(pts[i*x.dim:(i+1)*x.dim], recs, int(rows[i]))
		}
	})
	cents, err := kmeans(pts, x.dim, nlist, x.cfg.Rounds, x.l2, x.cfg.Seed, p)
	if err != nil {
		return err
	}
	x.cents = cents
	x.parts = make([]*partition, nlist)
	for i := range x.parts {
		x.parts[i] = x.newPartition(0)
	}
	x.splitAt = x.cfg.SplitAt
	if x.splitAt == 0 {
		x.splitAt = max(8*((n+nlist-1)/nlist), MinSplitAt)
	}
	x.centsDirty = true
	return nil
}

func (x *Index) decoder(scales []float32) *decoder {
	return &decoder{kind: x.kern.Storage(), dim: x.dim, stride: x.stride, l2: x.l2, scales: scales}
}

// kmeans clusters the m points of pts (dim apart) into k centroids: seeded
// sample initialisation, then rounds of Lloyd's algorithm. An empty
// cluster takes the point that scores worst against its own centroid
// (lowest point on ties) among those not already taken this round.
func kmeans(pts []float32, dim, k, rounds int, l2 bool, seed uint64, p *pool.Pool) (*centroids, error) {
	m := len(pts) / dim
	c, err := newCentroids(dim, l2)
	if err != nil {
		return nil, err
	}
	init := sampleRows(m, k, seed, 0x1f6)
	for _, r := range init {
		c.set(c.len(), pts[int(r)*dim:(int(r)+1)*dim])
	}
	assign := make([]int32, m)
	scores := make([]float32, m)
	nparts := participants(p)
	as := make([]*assigner, nparts)
	sums := make([][]float64, nparts)
	members := make([]int32, m)
	start := make([]int32, k+1)
	next := make([]float32, k*dim)
	for round := 0; round <= rounds; round++ {
		for i := range as {
			as[i] = newAssigner(c)
		}
		parallel(p, m, assignBlock, func(part, lo, hi int) {
			as[part].assign(pts[lo*dim:hi*dim], assign[lo:hi], scores[lo:hi])
		})
		if round == rounds {
			break
		}
		copy(next, c.vecs) // a centroid left empty and not reseeded stays
		// Members of each centroid in point order (a counting sort).
		clear(start)
		for _, a := range assign {
			start[a+1]++
		}
		for i := 0; i < k; i++ {
			start[i+1] += start[i]
		}
		fill := append([]int32(nil), start[:k]...)
		for i, a := range assign {
			members[fill[a]] = int32(i)
			fill[a]++
		}
		parallel(p, k, 16, func(part, lo, hi int) {
			if sums[part] == nil {
				sums[part] = make([]float64, dim)
			}
			s := sums[part]
			for ci := lo; ci < hi; ci++ {
				mem := members[start[ci]:start[ci+1]]
				if len(mem) == 0 {
					continue
				}
				clear(s)
				for _, pi := range mem {
					for d, f := range pts[int(pi)*dim : (int(pi)+1)*dim] {
						s[d] += float64(f)
					}
				}
				out := next[ci*dim : (ci+1)*dim]
				for d := range out {
					out[d] = float32(s[d] / float64(len(mem)))
				}
				if !l2 {
					normalize(out)
				}
			}
		})
		reseedEmpty(pts, dim, k, start, scores, next)
		for ci := 0; ci < k; ci++ {
			c.set(ci, next[ci*dim:(ci+1)*dim])
		}
	}
	return c, nil
}

// reseedEmpty gives each empty centroid (ascending) the point that scores
// worst against its own centroid, ties to the lowest point, each point at
// most once.
func reseedEmpty(pts []float32, dim, k int, start []int32, scores []float32, next []float32) {
	var order []int32
	used := 0
	for ci := 0; ci < k; ci++ {
		if start[ci+1] != start[ci] {
			continue
		}
		if order == nil {
			order = make([]int32, len(scores))
			for i := range order {
				order[i] = int32(i)
			}
			slices.SortStableFunc(order, func(a, b int32) int {
				switch {
				case scores[a] < scores[b]:
					return -1
				case scores[a] > scores[b]:
					return 1
				}
				return 0
			})
		}
		if used >= len(order) {
			return // fewer distinct points than centroids: keep the old one
		}
		pi := int(order[used])
		used++
		copy(next[ci*dim:(ci+1)*dim], pts[pi*dim:(pi+1)*dim])
	}
}
