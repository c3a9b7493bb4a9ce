package ivf

import (
	"math"

	"github.com/astral-engine/astral/kernel"
)

// centroids are the partitions' centres in f32, also stored as F32 records
// so that the kernels score a query against all of them in one call: the
// same canonical sums, so the same bits on every CPU.
type centroids struct {
	dim   int
	l2    bool
	kern  *kernel.Kernel // F32 records of dim components
	vecs  []float32      // n × dim
	recs  []byte         // n × kern.Stride()
	norms []float32      // |c|² per centroid when l2, else nil
}

func newCentroids(dim int, l2 bool) (*centroids, error) {
	k, err := kernel.New(nil, dim, kernel.F32)
	if err != nil {
		return nil, err
	}
	c := &centroids{dim: dim, l2: l2, kern: k}
	if l2 {
		c.norms = []float32{}
	}
	return c, nil
}

// len is the number of centroids.
func (c *centroids) len() int { return len(c.vecs) / c.dim }

// vec returns centroid i.
func (c *centroids) vec(i int) []float32 { return c.vecs[i*c.dim : (i+1)*c.dim] }

// set makes centroid i (i == len() appends) v.
func (c *centroids) set(i int, v []float32) {
	st := c.kern.Stride()
	if i == c.len() {
		c.vecs = append(c.vecs, v...)
		c.recs = append(c.recs, make([]byte, st)...)
		if c.l2 {
			c.norms = append(c.norms, 0)
		}
	} else {
		copy(c.vec(i), v)
	}
	kernel.Encode(kernel.F32, c.recs[i*st:(i+1)*st], v)
	if c.l2 {
		c.norms[i] = float32(sumSquares(v))
	}
}

// queryLen is the length of one laid-out query.
func (c *centroids) queryLen() int { return c.kern.QueryLen() }

// prepare lays v out as a query of the centroids' kernel into dst. v is in
// the engine's query form (doubled for L2) when engine is set, else a
// record's own vector, which prepare doubles for L2.
func (c *centroids) prepare(dst, v []float32, engine bool, tmp []float32) []float32 {
	if c.l2 && !engine {
		for i, f := range v {
			tmp[i] = 2 * f
		}
		v = tmp[:len(v)]
	}
	return c.kern.PrepareQuery(dst, v)
}

// scores writes the score of each centroid against the laid-out query qc
// into out[:len()]: q·c, less |c|² for L2.
func (c *centroids) scores(qc []float32, out []float32) []float32 {
	out = out[:c.len()]
	c.kern.Scan(qc, c.recs, out)
	if c.l2 {
		kernel.Sub(out, c.norms)
	}
	return out
}

// scoresBatch is scores for nq laid-out queries, query-major.
func (c *centroids) scoresBatch(qcs []float32, nq int, scratch, out []float32) []float32 {
	n := c.len()
	out = out[:nq*n]
	c.kern.ScanBatch(qcs, nq, c.recs, scratch, out)
	if c.l2 {
		for q := 0; q < nq; q++ {
			kernel.Sub(out[q*n:(q+1)*n], c.norms)
		}
	}
	return out
}

// best returns the index of the best score (the lowest index on ties; NaN
// never wins) and the score.
func best(s []float32) (int, float32) {
	bi, bs := 0, float32(math.Inf(-1))
	for i, v := range s {
		if v > bs {
			bi, bs = i, v
		}
	}
	return bi, bs
}

// sumSquares is Σ v² in float64, each product rounded, in index order.
func sumSquares(v []float32) float64 {
	var s float64
	for _, f := range v {
		s += float64(float64(f) * float64(f))
	}
	return s
}

// normalize scales v to unit length (a zero vector stays zero).
func normalize(v []float32) {
	n := math.Sqrt(sumSquares(v))
	if n == 0 {
		return
	}
	for i, f := range v {
		v[i] = float32(float64(f) / n)
	}
}
