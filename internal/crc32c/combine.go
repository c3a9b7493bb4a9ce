package crc32c

// Combine returns the CRC-32C of A followed by B from crcA = Checksum(A),
// crcB = Checksum(B) and lenB = len(B) (zlib's crc32_combine for the
// Castagnoli polynomial): crcA is shifted past lenB zero bytes, that is
// multiplied by x^(8·lenB), and crcB added. Checksumming pieces in
// parallel and combining them gives the checksum of the whole.
func Combine(crcA, crcB uint32, lenB int64) uint32 {
	shift := uint32(1) << 31 // x^0
	n := uint64(lenB)
	for k := 3; n != 0; k, n = k+1, n>>1 {
		if n&1 != 0 {
			shift = mulMod(pow2[k&63], shift)
		}
	}
	return mulMod(shift, crcA) ^ crcB
}

// mulMod returns a·b modulo the polynomial, both in the reflected order
// (the top bit is x^0).
func mulMod(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 {
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
	return p
}

// pow2 holds x^(2^k) modulo the polynomial for k = 0..63: a shift by n
// bits multiplies the entries of n's set bits.
var pow2 = func() (t [64]uint32) {
	t[0] = 1 << 30 // x^1
	for k := 1; k < 64; k++ {
		t[k] = mulMod(t[k-1], t[k-1])
	}
	return t
}()
