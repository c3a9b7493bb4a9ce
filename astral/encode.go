package astral

import (
	"math"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/kernel"
)

// batch is an Add's vectors checked and encoded for the index: nothing in
// it depends on what the index holds, so it is made with no lock held and
// queries run meanwhile.
type batch struct {
	ids          []uint64
	recs         []byte    // the kernel's stride bytes per id
	bias, scales []float32 // each record's Adjust value and multiplier (see adjustValues)
	rrecs        []byte    // the rerank copy's records; nil without one
	rbias        []float32
	attrs        []match.Attr // nil: none
	payloads     [][]byte     // nil: none
}

// attr is record i's attributes.
func (b *batch) attr(i int) match.Attr {
	if b.attrs == nil {
		return match.Attr{}
	}
	return b.attrs[i]
}

// encode checks vectors (len(ids) × Dim values) and ids (distinct; whether
// they are stored is apply's to check) and encodes them.
func (x *Index) encode(ids []uint64, vectors []float32) (*batch, error) {
	dim := x.cfg.Dim
	if len(vectors) != len(ids)*dim {
		return nil, errorf(ErrDimension, "%d values for %d ids of dimension %d", len(vectors), len(ids), dim)
	}
	if !checkFinite(vectors) {
		return nil, errorf(ErrNonFinite, "vectors hold NaN or Inf")
	}
	if err := x.checkMagnitude(vectors, "vector"); err != nil {
		return nil, err
	}
	seen := make(map[uint64]struct{}, len(ids))
	for _, id := range ids {
		if _, dup := seen[id]; dup {
			return nil, errorf(ErrDuplicateID, "id %d repeated in one Add", id)
		}
		seen[id] = struct{}{}
	}
	stride := x.kern.Stride()
	b := &batch{ids: ids, recs: make([]byte, len(ids)*stride), bias: make([]float32, len(ids)), scales: make([]float32, len(ids))}
	var rstride int
	if x.rkern != nil {
		rstride = x.rkern.Stride()
		b.rrecs, b.rbias = make([]byte, len(ids)*rstride), make([]float32, len(ids))
	}
	row := make([]float32, dim)
	var nb, rnb normBuffers
	for i := range ids {
		copy(row, vectors[i*dim:(i+1)*dim])
		if x.cfg.Metric == Cosine {
			normalize(row)
		}
		rec := b.recs[i*stride : (i+1)*stride]
		b.bias[i], b.scales[i] = x.adjustValues(&nb, x.kern, rec, kernel.Encode(x.cfg.Storage, rec, row))
		if x.rkern != nil {
			rrec := b.rrecs[i*rstride : (i+1)*rstride]
			b.rbias[i], _ = x.adjustValues(&rnb, x.rkern, rrec, kernel.Encode(x.cfg.Rerank, rrec, row))
		}
	}
	return b, nil
}

// checkFinite reports whether v holds no NaN or Inf: no value with an
// all-ones exponent. It runs on every query, so it tests bits, not floats.
func checkFinite(v []float32) bool {
	const exp = 0x7f800000
	for _, f := range v {
		if math.Float32bits(f)&exp == exp {
			return false
		}
	}
	return true
}

// normBuffers is squaredNorm's scratch, reused across one Add.
type normBuffers struct {
	dec, qp []float32
	out     [1]float32
}

// squaredNorm is |x|^2 of a record k stores, in k's units (see
// kernel.DecodeUnits), computed by the kernel in the canonical order so
// norms, like scores, are the same bits on every CPU.
func (x *Index) squaredNorm(b *normBuffers, k *kernel.Kernel, rec []byte) float32 {
	if b.dec == nil {
		b.dec, b.qp = make([]float32, x.cfg.Dim), make([]float32, k.QueryLen())
	}
	kernel.DecodeUnits(k.Storage(), b.dec, rec)
	k.Scan(k.PrepareQuery(b.qp, b.dec), rec, b.out[:])
	return b.out[0]
}

// adjustValues returns a record's Adjust value and multiplier (see
// adjustOf) from its encoding factor f.
func (x *Index) adjustValues(b *normBuffers, k *kernel.Kernel, rec []byte, f float32) (bias, scale float32) {
	switch x.cfg.Metric {
	case Cosine:
		// Score against the stored vector's own length: quantizing moves
		// |x| off 1 by ~0.5 %, as much as the gaps between neighbours.
		if n2 := x.squaredNorm(b, k, rec); n2 > 0 {
			return float32(1 / math.Sqrt(float64(n2))), 1
		}
		return 0, 1
	case L2:
		n2 := x.squaredNorm(b, k, rec)
		if k.Storage().Scaled() {
			return float32(float32(f*f) * n2), f
		}
		return n2, 1
	}
	return f, 1
}

// normalize scales v to unit length; a zero vector stays zero.
func normalize(v []float32) {
	s := 0.0
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i, f := range v {
		v[i] = float32(float64(f) * inv)
	}
}
