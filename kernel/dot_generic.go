package kernel

import "math"

// fma32 is a float32 fused multiply-add: round(a*b+c) with one rounding,
// as FMA hardware does. The float64 product is exact (48 bits), but the
// float64 sum is not when c and a*b are far apart, and rounding it first
// can land on a float32 tie the exact sum was not on (double rounding).
// Rounding the float64 sum to odd keeps the lost bits as a sticky bit, which
// makes the float32 rounding exact (Boldo and Melquiond, 2008).
func fma32(a, b, c float32) float32 {
	p, z := float64(a)*float64(b), float64(c)
	s := p + z
	// TwoSum: e is exactly p+z-s (NaN when s is infinite).
	bz := s - p
	e := (p - (s - bz)) + (z - bz)
	if bits := math.Float64bits(s); (e < 0 || e > 0) && bits&1 == 0 {
		if (e > 0) == (s > 0) {
			bits++
		} else {
			bits--
		}
		s = math.Float64frombits(bits)
	}
	return float32(s)
}

// accumulators are the 8 accumulators of 8 lanes of the canonical order.
type accumulators [8][8]float32

func (a *accumulators) reduce() float32 {
	var u [8]float32
	for l := range u {
		u[l] = ((a[0][l] + a[1][l]) + (a[2][l] + a[3][l])) + ((a[4][l] + a[5][l]) + (a[6][l] + a[7][l]))
	}
	v0, v1, v2, v3 := u[0]+u[4], u[1]+u[5], u[2]+u[6], u[3]+u[7]
	return (v0 + v2) + (v1 + v3)
}

// dotE5M2Go scores one record of dim components against the laid-out query.
func dotE5M2Go(qp []float32, rec []byte, dim int) float32 {
	var acc accumulators
	full := dim / BlockLen
	for b := 0; b < full; b++ {
		blk := rec[b*BlockLen : b*BlockLen+BlockLen]
		qe := qp[layoutPos(b*BlockLen):][:8]
		qo := qp[layoutPos(b*BlockLen+1):][:8]
		ae, ao := &acc[(2*b)&7], &acc[(2*b+1)&7]
		for j := 0; j < 8; j++ {
			ae[j] = fma32(qe[j], e5m2Table[blk[2*j]], ae[j])
			ao[j] = fma32(qo[j], e5m2Table[blk[2*j+1]], ao[j])
		}
	}
	if rem := dim - full*BlockLen; rem > 0 {
		var blk [BlockLen]byte
		copy(blk[:], rec[full*BlockLen:dim])
		qe := qp[layoutPos(full*BlockLen):][:8]
		qo := qp[layoutPos(full*BlockLen+1):][:8]
		ae, ao := &acc[(2*full)&7], &acc[(2*full+1)&7]
		for j := 0; j < 8; j++ {
			ae[j] = fma32(qe[j], e5m2Table[blk[2*j]], ae[j])
			ao[j] = fma32(qo[j], e5m2Table[blk[2*j+1]], ao[j])
		}
	}
	return acc.reduce()
}

// dotLaidOutGo is the canonical dot of two laid-out vectors of n components.
func dotLaidOutGo(qp, xp []float32, n int) float32 {
	var acc accumulators
	for g := 0; g < n/8; g++ {
		a := &acc[accOf(g&7)]
		q, x := qp[8*g:8*g+8], xp[8*g:8*g+8]
		for j := 0; j < 8; j++ {
			a[j] = fma32(q[j], x[j], a[j])
		}
	}
	return acc.reduce()
}

// decodeLaidOutE5M2Go decodes a record of dim components into dst in the
// canonical lane order, zero-padded to LayoutLen(dim).
func decodeLaidOutE5M2Go(dst []float32, rec []byte, dim int) {
	n := LayoutLen(dim)
	clear(dst[:n])
	for c := 0; c < dim; c++ {
		dst[layoutPos(c)] = e5m2Table[rec[c]]
	}
}

func scanE5M2Go(qp []float32, dim int, recs []byte, stride int, out []float32) {
	for i := range out {
		out[i] = dotE5M2Go(qp, recs[i*stride:], dim)
	}
}

func batchE5M2Go(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32) {
	ql, n := LayoutLen(dim), len(out)/nq
	for i := 0; i < n; i++ {
		decodeLaidOutE5M2Go(scratch, recs[i*stride:], dim)
		for q := 0; q < nq; q++ {
			out[q*n+i] = dotLaidOutGo(qps[q*ql:], scratch, ql)
		}
	}
}
