package kernel

import (
	"math"
)

// Storage is the kind of a stored component. Values are written into index
// files, so they are numbered once and never reused.
type Storage uint8

const (
	// E5M2 stores each component as one byte, the high byte of a binary16.
	E5M2 Storage = 1
)

func (s Storage) String() string {
	switch s {
	case E5M2:
		return "e5m2"
	case E4M3:
		return "e4m3"
	case Int8:
		return "int8"
	case F16:
		return "f16"
	case F32:
		return "f32"
	}
	return "unknown"
}

// BytesPerComponent is the stored size of one component of kind s.
func (s Storage) BytesPerComponent() int {
	switch s {
	case E5M2, E4M3, Int8:
		return 1
	case F16:
		return 2
	case F32:
		return 4
	}
	return 0
}

// E5M2Max is the largest finite E5M2 magnitude; encoding saturates to it.
const E5M2Max = 57344

// e5m2Table decodes a code to float32; the table is the fast portable form.
var e5m2Table = func() (t [256]float32) {
	for i := range t {
		t[i] = f16ToF32(uint16(i) << 8)
	}
	return t
}()

// DecodeE5M2 returns the value of code b.
func DecodeE5M2(b byte) float32 { return e5m2Table[b] }

// f16ToF32 converts IEEE binary16 bits to float32 exactly.
func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal binary16: mant * 2^-24, normal in float32.
	v := float32(mant) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}

// EncodeE5M2 rounds f to the nearest E5M2 code (ties to even), saturating at
// ±57344. NaN encodes as a quiet NaN code; callers refuse NaN before storing.
func EncodeE5M2(f float32) byte {
	bits := math.Float32bits(f)
	sign := byte(bits>>24) & 0x80
	abs := bits & 0x7fffffff
	switch {
	case abs > 0x7f800000:
		return sign | 0x7f
	case abs >= 0x47600000: // 57344 and above, Inf included
		return sign | 0x7b
	case abs < 0x38800000: // below 2^-14: the subnormal range, steps of 2^-16
		m := math.RoundToEven(float64(math.Float32frombits(abs)) * 65536)
		return sign | byte(m) // m == 4 is 2^-14, code 0x04
	}
	// Normal: keep 2 of 23 mantissa bits, rounding to nearest even; a carry
	// into the exponent is the right answer.
	r := (abs + 0xfffff + (abs>>21)&1) >> 21
	code := r - (127-15)<<2
	if code > 0x7b {
		code = 0x7b
	}
	return sign | byte(code)
}

// EncodeE5M2Slice encodes src into dst[:len(src)].
func EncodeE5M2Slice(dst []byte, src []float32) {
	dst = dst[:len(src)]
	for i, f := range src {
		dst[i] = EncodeE5M2(f)
	}
}

// DecodeE5M2Slice decodes src into dst[:len(src)].
func DecodeE5M2Slice(dst []float32, src []byte) {
	dst = dst[:len(src)]
	for i, b := range src {
		dst[i] = e5m2Table[b]
	}
}
