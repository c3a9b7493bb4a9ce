// Package crc32c computes CRC-32C (Castagnoli, reflected polynomial
// 0x82F63B78) checksums. Update and Checksum are drop-in replacements for
// hash/crc32.Update / crc32.Checksum with the Castagnoli table: same pre- and
// post-conditioning, same results for every input.
//
// On amd64 (unless built with the noasm tag) large buffers are folded with
// carry-less multiplication (AVX-512 VPCLMULQDQ over four 512-bit lanes, or
// 128-bit PCLMULQDQ on CPUs without it) and finished with the CRC32
// instruction; short buffers and other architectures use hash/crc32.
package crc32c

import "hash/crc32"

// Size is the size of a CRC-32C checksum in bytes.
const Size = 4

// castagnoli is hash/crc32's shared Castagnoli table; passing this exact
// pointer to crc32.Update selects the standard library's accelerated path.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC-32C checksum of p.
func Checksum(p []byte) uint32 { return Update(0, p) }

// Update returns the result of adding the bytes in p to crc, exactly as
// crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), p).
func Update(crc uint32, p []byte) uint32 { return update(crc, p) }

// updateGeneric is the standard library implementation.
func updateGeneric(crc uint32, p []byte) uint32 {
	return crc32.Update(crc, castagnoli, p)
}

// poly is the reflected Castagnoli polynomial.
const poly = 0x82F63B78

// xnModP returns x^n mod P in the reflected 32-bit representation used by
// the CRC register: bit 31-d holds the coefficient of x^d.
func xnModP(n int) uint32 {
	v := uint32(1) << 31 // x^0
	for ; n > 0; n-- {
		if v&1 != 0 { // x^31 * x = x^32 ≡ P - x^32
			v = v>>1 ^ poly
		} else {
			v >>= 1
		}
	}
	return v
}

// foldConstants returns the pair of PCLMULQDQ multipliers that fold a
// 128-bit state forward by dist bits (dist >= 32).
//
// In the reflected domain a 64-bit lane value a represents the polynomial
// sum a_i x^(63-i) (bit 0 of the first byte is the highest power). The
// 128-bit state S at some offset is A0*x^64 + A1 (A0 = low quadword = first
// eight bytes). Moving S forward by dist bits means replacing it with a
// polynomial congruent to S*x^dist = A0*x^(dist+64) + A1*x^dist modulo P.
// A constant c stored in the low 33 bits of a quadword represents
// x^31 * Q(x) with Q = sum c_j x^(32-j); PCLMULQDQ of a and c, read back as a
// 128-bit reflected value, represents a*x^31*Q*x = a*Q*x^32. Hence the
// multiplier for A0 is Q = x^(dist+32) mod P and for A1 Q = x^(dist-32) mod P,
// and the stored value is the reflected 32-bit residue shifted left by one.
// The products have at most 96 significant bits, so they fit the 128-bit
// state and the fold is exact modulo P.
func foldConstants(dist int) (lo, hi uint64) {
	return uint64(xnModP(dist+32)) << 1, uint64(xnModP(dist-32)) << 1
}
