package astral

// MaxNorm is the largest Euclidean length a vector may have under the dot
// and L2 metrics, 2^62 (about 4.6e18): with both a stored vector and a
// query at most this long, every dot product, squared norm and squared
// distance (at most (2·2^62)^2 = 2^126) stays finite in float32, so no
// score is ever +Inf. Cosine normalizes every vector and takes any finite
// one.
const MaxNorm = 1 << 62

// maxSquaredNorm is MaxNorm², exact in float64.
const maxSquaredNorm = float64(MaxNorm) * float64(MaxNorm)

// checkMagnitude refuses, for the dot and L2 metrics, any row of v (Dim
// values each, all finite) longer than MaxNorm; what names the rows.
func (x *Index) checkMagnitude(v []float32, what string) error {
	if x.cfg.Metric == Cosine {
		return nil
	}
	dim := x.cfg.Dim
	for r := 0; r+dim <= len(v); r += dim {
		s := 0.0
		for _, f := range v[r : r+dim] {
			s += float64(f) * float64(f)
		}
		if s > maxSquaredNorm {
			return errorf(ErrInvalidArgument, "%s %d is longer than MaxNorm (2^62): its %v scores could overflow", what, r/dim, x.cfg.Metric)
		}
	}
	return nil
}
