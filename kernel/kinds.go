package kernel

import (
	"fmt"
	"math"
	"strings"
	"unsafe"
)

// The storage kinds besides E5M2. Values are written into index files and
// the C ABI: numbered once, never reused.
const (
	// E4M3 stores one byte per component (OCP FP8 E4M3FN: bias 7, ±448, no
	// infinities) after dividing the vector by a per-vector scale.
	E4M3 Storage = 2
	// Int8 stores one signed byte per component, symmetric, with a
	// per-vector scale (max |x| maps to 127).
	Int8 Storage = 3
	// F16 stores IEEE binary16 components, saturating at ±65504.
	F16 Storage = 4
	// F32 stores float32 components.
	F32 Storage = 5
)

// Storages lists every kind, E5M2 first.
var Storages = []Storage{E5M2, E4M3, Int8, F16, F32}

// ParseStorage is the inverse of String.
func ParseStorage(name string) (Storage, error) {
	for _, s := range Storages {
		if s.String() == strings.ToLower(name) {
			return s, nil
		}
	}
	return 0, fmt.Errorf("kernel: unknown storage %q (want e5m2, e4m3, int8, f16 or f32)", name)
}

// Valid reports whether s is a known kind.
func (s Storage) Valid() bool { return s >= E5M2 && s <= F32 }

// Scaled reports whether records carry a per-vector scale: a stored vector
// is its scale times what the kernel scores (DecodeUnits).
func (s Storage) Scaled() bool { return s == E4M3 || s == Int8 }

// Floor limits on the laid-out query (see doc.go, "Denormals"): with every
// query component 0 or at least the floor, and every stored component a
// multiple of its kind's smallest step, all products and partial sums are
// multiples of 2^-126, so none is a denormal and FTZ/DAZ change nothing.
const (
	flushF16 = 0x1p-79 // f16 and E4M3 (as f16/256) steps are >= 2^-24
	flushF32 = 0x1p-40 // f32 records are flushed below 2^-40 too
)

// laidOut reports whether records of s are stored in the canonical lane
// order (f16, f32: the kernels then load them as they are) rather than in
// component order (the one-byte kinds, which the kernels split into evens
// and odds as they widen them).
func (s Storage) laidOut() bool { return s == F16 || s == F32 }

// Encode stores v (len(v) components) as a record of kind s into dst, which
// holds Stride(len(v), s) bytes and is zeroed here, and returns the factor
// that turns a kernel score of the record into the dot product with v's
// stored value: the per-vector scale of E4M3 (times 256, see DecodeUnits)
// and Int8, 1 for the others. Callers refuse NaN and Inf before encoding.
func Encode(s Storage, dst []byte, v []float32) float32 {
	dst = dst[:Stride(len(v), s)]
	clear(dst)
	switch s {
	case E5M2:
		EncodeE5M2Slice(dst, v)
	case F16:
		for c, f := range v {
			h := EncodeF16(f)
			p := 2 * layoutPos(c)
			dst[p], dst[p+1] = byte(h), byte(h>>8)
		}
	case F32:
		for c, f := range v {
			if math.Abs(float64(f)) < flushF32 {
				f = 0
			}
			b := math.Float32bits(f)
			p := 4 * layoutPos(c)
			dst[p], dst[p+1], dst[p+2], dst[p+3] = byte(b), byte(b>>8), byte(b>>16), byte(b>>24)
		}
	case E4M3, Int8:
		var amax float32
		for _, f := range v {
			amax = max(amax, float32(math.Abs(float64(f))))
		}
		if amax < 0x1p-100 { // zero (or vanishing): every code 0
			return 1
		}
		if s == Int8 {
			scale := amax / 127
			for c, f := range v {
				q := math.RoundToEven(float64(f / scale))
				dst[c] = byte(int8(min(max(q, -127), 127)))
			}
			return scale
		}
		scale := amax / E4M3Max
		for c, f := range v {
			dst[c] = EncodeE4M3(f / scale)
		}
		return scale * 256
	default:
		panic("kernel: Encode of an unknown storage kind")
	}
	return 1
}

// DecodeUnits writes the values the kernels multiply the query by for a
// record of dim components, in component order, into dst[:dim]: E5M2 and
// F16, F32 values as stored; Int8 codes as integers; E4M3 values divided by
// 256 (a code's bits shifted into a binary16, the kernels' cheap decode).
// The stored vector is Encode's factor times these.
func DecodeUnits(s Storage, dst []float32, rec []byte) {
	// One loop per kind: graph construction decodes a record for every
	// neighbour its heuristic keeps.
	switch s {
	case E5M2:
		rec = rec[:len(dst)]
		for c, b := range rec {
			dst[c] = e5m2Table[b]
		}
	case E4M3:
		rec = rec[:len(dst)]
		for c, b := range rec {
			dst[c] = e4m3Units[b]
		}
	case Int8:
		rec = rec[:len(dst)]
		for c, b := range rec {
			dst[c] = float32(int8(b))
		}
	case F16:
		for c := range dst {
			p := 2 * layoutPos(c)
			dst[c] = f16ToF32(uint16(rec[p]) | uint16(rec[p+1])<<8)
		}
	case F32:
		for c := range dst {
			p := 4 * layoutPos(c)
			dst[c] = math.Float32frombits(uint32(rec[p]) | uint32(rec[p+1])<<8 | uint32(rec[p+2])<<16 | uint32(rec[p+3])<<24)
		}
	}
}

// E4M3Max is the largest finite E4M3 magnitude; encoding saturates to it.
const E4M3Max = 448

// e4m3Units decodes an E4M3 code to its value / 256: sign to bit 15 and
// the other 7 bits to bits 13..7 of a binary16 (subnormals included, since
// both formats' subnormals are their exponent-0 codes).
var e4m3Units = func() (t [256]float32) {
	for i := range t {
		t[i] = f16ToF32(e4m3ToF16(byte(i)))
	}
	return t
}()

func e4m3ToF16(b byte) uint16 { return uint16(b&0x80)<<8 | uint16(b&0x7f)<<7 }

// DecodeE4M3 returns the value of code b (0x7f and 0xff are NaN).
func DecodeE4M3(b byte) float32 {
	if b&0x7f == 0x7f {
		return float32(math.NaN())
	}
	return e4m3Units[b] * 256
}

// EncodeE4M3 rounds f to the nearest E4M3 code (ties to even), saturating
// at ±448.
func EncodeE4M3(f float32) byte {
	bits := math.Float32bits(f)
	sign := byte(bits>>24) & 0x80
	abs := bits & 0x7fffffff
	switch {
	case abs > 0x7f800000:
		return sign | 0x7f
	case abs >= 0x43e00000: // 448 and above
		return sign | 0x7e
	case abs < 0x3c800000: // below 2^-6: subnormal, steps of 2^-9
		m := math.RoundToEven(float64(math.Float32frombits(abs)) * 512)
		return sign | byte(m)
	}
	r := (abs + 0x7ffff + (abs>>20)&1) >> 20
	code := r - (127-7)<<3
	return sign | byte(min(code, 0x7e))
}

// EncodeF16 rounds f to the nearest binary16 (ties to even), saturating at
// ±65504.
func EncodeF16(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	abs := bits & 0x7fffffff
	switch {
	case abs > 0x7f800000:
		return sign | 0x7e00
	case abs >= 0x477fe000: // 65504 and above
		return sign | 0x7bff
	case abs < 0x38800000: // below 2^-14: subnormal, steps of 2^-24
		m := math.RoundToEven(float64(math.Float32frombits(abs)) * (1 << 24))
		return sign | uint16(m)
	}
	r := (abs + 0xfff + (abs>>13)&1) >> 13
	return sign | uint16(r-(127-15)<<10)
}

// DecodeF16 returns the value of binary16 bits h.
func DecodeF16(h uint16) float32 { return f16ToF32(h) }

// queryLen is the length of a prepared query of kind s and padded
// dimension pdim: laid-out float32 values, or for Int8 pdim int16 values
// (pdim/2 words), the query's power-of-two scale, and padding to a cache
// line.
func queryLen(s Storage, pdim int) int {
	if s == Int8 {
		return pdim/2 + 16
	}
	return pdim
}

// prepareQuery writes q into dst as kernels of kind s read it and returns
// dst[:queryLen].
func prepareQuery(s Storage, dst []float32, q []float32) []float32 {
	switch s {
	case E5M2:
		return LayoutQuery(dst, q)
	case Int8:
		return quantizeQuery(dst, q)
	case F32:
		return layoutFlushed(dst, q, flushF32)
	}
	return layoutFlushed(dst, q, flushF16)
}

// layoutFlushed is LayoutQuery with floor (a power of two) in place of
// 2^-87. Whole blocks of 32 are moved by a fixed pattern, which a query's
// cost notices: it runs once per query, before a search of a few records.
func layoutFlushed(dst []float32, q []float32, floor float64) []float32 {
	n := LayoutLen(len(q))
	dst = dst[:n]
	// |v| < floor compares as the bits without the sign (NaN stays).
	limit := math.Float32bits(float32(floor))
	flush := func(v float32) float32 {
		if math.Float32bits(v)&0x7fffffff < limit {
			return 0
		}
		return v
	}
	whole := len(q) &^ 31
	for b := 0; b < whole; b += 32 {
		s, d := (*[32]float32)(q[b:b+32]), (*[32]float32)(dst[b:b+32])
		for i := range 8 {
			d[i], d[8+i] = flush(s[2*i]), flush(s[16+2*i])
			d[16+i], d[24+i] = flush(s[2*i+1]), flush(s[17+2*i])
		}
	}
	clear(dst[whole:])
	for c := whole; c < len(q); c++ {
		dst[layoutPos(c)] = flush(q[c])
	}
	return dst
}

// quantizeBlocks is quantizeQuery's rounding loop over a multiple of 8
// values, the same bits; nil means the Go loop does all of them.
var quantizeBlocks func(q []float32, pow float64, dst []int16)

// widenBlocks is Int8RecordQuery's loop over a multiple of 64 codes; nil
// means the Go loop does all of them.
var widenBlocks func(src []byte, dst []int16)

// quantizeQuery is the Int8 query: q times 2^e rounded to int16, with e
// chosen so max |q| lands in [16384, 32767], and 2^-e after the values.
// Products and sums are then exact in int32/int64, so every implementation
// and order gives the same integer, and score = float32(sum) * 2^-e is
// rounded once. The power of two keeps that multiply exact.
func quantizeQuery(dst []float32, q []float32) []float32 {
	pdim := LayoutLen(len(q))
	dst = dst[:queryLen(Int8, pdim)]
	clear(dst)
	q16 := int16s(dst, pdim)
	// max |q| by its bits: for float32 magnitudes the bit order is the
	// value order.
	var amaxBits uint32
	for _, v := range q {
		amaxBits = max(amaxBits, math.Float32bits(v)&0x7fffffff)
	}
	if amaxBits == 0 {
		dst[pdim/2] = 1
		return dst
	}
	if amaxBits >= 0x7f800000 {
		return quantizeNonFinite(dst, q, pdim)
	}
	_, exp := math.Frexp(float64(math.Float32frombits(amaxBits))) // amax in [2^(exp-1), 2^exp); exp <= 128
	// 2^-e stays a normal float32 (e >= -113 always); below 2^-85 the
	// query keeps fewer than 15 bits.
	e := min(15-exp, 100)
	// v * 2^e is exact in float64 (it lies in [2^-262, 2^15)), so the
	// multiply is math.Ldexp(v, e) at a fraction of its cost; graph
	// construction quantizes a record for every neighbour it keeps.
	pow := math.Ldexp(1, e)
	q16 = q16[:len(q)]
	c := 0
	if whole := len(q) &^ 7; whole > 0 && quantizeBlocks != nil {
		quantizeBlocks(q[:whole], pow, q16[:whole])
		c = whole
	}
	for ; c < len(q); c++ {
		// |r| <= 2^15: only 32768 (from 32767.5 and up) needs the clamp.
		r := int32(math.RoundToEven(float64(q[c]) * pow))
		q16[c] = int16(min(max(r, -32767), 32767))
	}
	dst[pdim/2] = float32(math.Ldexp(1, -e))
	return dst
}

// Int8RecordQuery prepares Int8 record rec (pdim codes, pdim a multiple
// of 64) as a query whose values are its codes times mul: the codes
// themselves as the int16 values and mul as the scale. A score against
// another record is then their exact integer dot, rounded to float32 once
// and multiplied by mul, with no decoding or rounding of rec; graph
// construction prepares a record this way for every neighbour it weighs.
func Int8RecordQuery(dst []float32, rec []byte, mul float32) []float32 {
	pdim := len(rec)
	dst = dst[:queryLen(Int8, pdim)]
	q16 := int16s(dst, pdim)
	c := 0
	if whole := pdim &^ 63; whole > 0 && widenBlocks != nil {
		widenBlocks(rec[:whole], q16[:whole])
		c = whole
	}
	for ; c < pdim; c++ {
		q16[c] = int16(int8(rec[c]))
	}
	dst[pdim/2] = mul
	clear(dst[pdim/2+1:])
	return dst
}

// quantizeNonFinite is quantizeQuery for a q holding an infinity or a NaN
// (the engine refuses both before a kernel sees them), as it always was:
// Frexp of either gives exponent 0, so e is 15.
func quantizeNonFinite(dst []float32, q []float32, pdim int) []float32 {
	q16 := int16s(dst, pdim)
	for c, v := range q {
		r := math.RoundToEven(math.Ldexp(float64(v), 15))
		q16[c] = int16(min(max(r, -32767), 32767))
	}
	dst[pdim/2] = float32(math.Ldexp(1, -15))
	return dst
}

// int16s views the first pdim int16 values of a prepared Int8 query.
func int16s(qp []float32, pdim int) []int16 {
	_ = qp[pdim/2-1]
	return unsafe.Slice((*int16)(unsafe.Pointer(unsafe.SliceData(qp))), pdim)
}

// decodeLaidOut writes record rec of kind s (a float kind) as pdim values
// in the canonical lane order.
func decodeLaidOut(s Storage, dst []float32, rec []byte, pdim int) {
	dst = dst[:pdim]
	switch s {
	case E4M3:
		for c := 0; c < pdim; c++ {
			dst[layoutPos(c)] = e4m3Units[rec[c]]
		}
	case F16:
		for p := range dst {
			dst[p] = f16ToF32(uint16(rec[2*p]) | uint16(rec[2*p+1])<<8)
		}
	case F32:
		for p := range dst {
			dst[p] = math.Float32frombits(uint32(rec[4*p]) | uint32(rec[4*p+1])<<8 | uint32(rec[4*p+2])<<16 | uint32(rec[4*p+3])<<24)
		}
	default:
		panic("kernel: decodeLaidOut of " + s.String())
	}
}

// dotInt8Go is the Int8 reference: the exact integer dot, then one rounding.
func dotInt8Go(qp []float32, rec []byte, pdim int) float32 {
	q16 := int16s(qp, pdim)
	var sum int64
	for c, v := range q16 {
		sum += int64(v) * int64(int8(rec[c]))
	}
	return float32(sum) * qp[pdim/2]
}

// goFuncs returns the pure-Go kernels of kind s: the references every
// other implementation must match bit for bit.
func goFuncs(s Storage) *Funcs {
	switch s {
	case E5M2:
		return &Funcs{scan: scanE5M2Go, batch: batchE5M2Go}
	case Int8:
		return &Funcs{scan: func(qp []float32, pdim int, recs []byte, stride int, out []float32) {
			for i := range out {
				out[i] = dotInt8Go(qp, recs[i*stride:], pdim)
			}
		}}
	}
	return &Funcs{scan: func(qp []float32, pdim int, recs []byte, stride int, out []float32) {
		var buf [MaxDim]float32
		x := buf[:pdim]
		for i := range out {
			decodeLaidOut(s, x, recs[i*stride:], pdim)
			out[i] = dotLaidOutGo(qp, x, pdim)
		}
	}}
}
