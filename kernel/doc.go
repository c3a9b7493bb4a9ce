// Package kernel holds Astral's storage codecs and the dot-product kernels
// that score a float32 query against stored records.
//
// # E5M2
//
// A stored component is one byte: 1 sign bit, 5 exponent bits (bias 15) and
// 2 mantissa bits, exactly the high byte of an IEEE binary16, so decoding b is
// f16(b<<8). Encoding rounds to nearest even and saturates at ±57344.
//
// # Other storage kinds
//
// E4M3 (one byte, a per-vector scale; a code decodes to a binary16 as
// (b&0x80)<<8 | (b&0x7f)<<7, its value / 256), f16 and f32 are scored in
// the canonical order below, exactly like E5M2; f16 and f32 records are
// stored already in the laid-out order, so their kernels load them as they
// are. Int8 (one signed byte, a per-vector scale) is scored in integers:
// the query is rounded once to int16 times a power of two, products and
// sums are exact in int32/int64, and the sum is converted to float32 once,
// so every implementation returns the same bits in any order. kinds.go
// holds the codecs and the pure-Go references.
//
// # The canonical accumulation order
//
// Every implementation (pure Go, AVX2, NEON, ...) returns bit-identical
// float32 scores because all of them add the same products in the same order
// with fused multiply-adds. Replays and lockstep multiplayer depend on it.
//
//  1. The query is laid out once per query (PrepareQuery): components are
//     taken in blocks of 16 and blocks in pairs; a pair (32 components) is
//     stored as the 8 even components of its first block, the 8 even ones of
//     its second, then the odd ones of each (layoutPos). AVX2 reads 8 of them
//     per FMA and AVX-512 16, the same memory either way. The layout is
//     zero-padded to a multiple of 64 components, and components with
//     |q| < 2^-87 become +0 (see "Denormals").
//  2. Half-block h (h = 2b for the evens of block b, 2b+1 for the odds) holds
//     8 components; component j of half-block h goes to lane j of
//     accumulator h mod 8. There are 8 accumulators of 8 float32 lanes, all
//     starting at +0.
//  3. Each component does acc = fma(q, x, acc) in float32 (one rounding),
//     half-blocks in increasing order; components past the end of the
//     record are x = 0 (which leaves acc unchanged).
//  4. Reduction: u = ((a0+a1)+(a2+a3)) + ((a4+a5)+(a6+a7)) lane by lane;
//     v[i] = u[i]+u[i+4] for i < 4; w[i] = v[i]+v[i+2] for i < 2;
//     score = w[0]+w[1].
//
// The pure-Go kernel computes each fma from the exact float64 product and a
// float64 sum rounded to odd (fma32). Rounding that sum to nearest, as
// float32(math.FMA(...)) does, is a double rounding: when acc and q*x are
// more than about 2^26 apart it is sometimes a float32 ulp off.
//
// # Denormals
//
// Game engines often run with FTZ/DAZ set, and Go does not reset MXCSR on a
// cgo call. E5M2 subnormals are decoded with VCVTPH2PS (or FCVTL), which
// turns them into normal float32 values. Flushing query components below
// 2^-87 makes every product and partial sum a multiple of 2^-126, the
// smallest normal float32, so no denormal ever appears and FTZ/DAZ cannot
// change a score.
//
// # Choosing an implementation
//
// The implementation is chosen once per index from the CPU's features
// (Best); the record loop then calls one function. The registry (All,
// Lookup) lets tests force every variant on the same input, and the build
// tag noasm leaves only the pure-Go one.
package kernel
