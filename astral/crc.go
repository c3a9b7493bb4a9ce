package astral

import (
	"sync/atomic"

	"github.com/astral-engine/astral/internal/crc32c"
	"github.com/astral-engine/astral/internal/pool"
)

// Every section of an index file carries a CRC-32C (Castagnoli), the
// checksum with instructions on amd64 and arm64. Large sections are
// checksummed in pieces on the runtime's workers and the pieces' CRCs
// combined, which gives the very CRC of the whole.

// castagnoliReflected is the polynomial in the reflected bit order
// hash/crc32 computes in.
const castagnoliReflected = 0x82f63b78

// crcMulMod returns a·b modulo the polynomial, both in reflected order
// (the top bit is x^0).
func crcMulMod(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 {
			b = b>>1 ^ castagnoliReflected
		} else {
			b >>= 1
		}
	}
	return p
}

// crcPow2 holds x^(2^k) modulo the polynomial for k = 0..63.
var crcPow2 = func() (t [64]uint32) {
	t[0] = 1 << 30 // x^1
	for k := 1; k < 64; k++ {
		t[k] = crcMulMod(t[k-1], t[k-1])
	}
	return t
}()

// crcCombine returns the CRC-32C of A followed by B from crcA, crcB and
// len(B) (zlib's crc32_combine, for the Castagnoli polynomial): crcA is
// shifted past lenB zero bytes, multiplying it by x^(8·lenB).
func crcCombine(crcA, crcB uint32, lenB int64) uint32 {
	shift := uint32(1) << 31 // x^0
	n := uint64(lenB)
	for k := 3; n != 0; k, n = k+1, n>>1 {
		if n&1 != 0 {
			shift = crcMulMod(crcPow2[k&63], shift)
		}
	}
	return crcMulMod(shift, crcA) ^ crcB
}

// crc32Update is hash/crc32's Castagnoli Update, about twice as fast on
// CPUs with VPCLMULQDQ (internal/crc32c).
func crc32Update(c uint32, b []byte) uint32 { return crc32c.Update(c, b) }

// crcPiece is how many bytes one checksum task covers.
const crcPiece = 1 << 20

// checksums computes the CRC-32C of each of bufs, in pieces spread over
// p's workers plus the caller (p nil: serially).
func checksums(p *pool.Pool, bufs [][]byte) []uint32 {
	t := &crcTask{bufs: bufs}
	for i, b := range bufs {
		t.pieces = append(t.pieces, crcRange{buf: i, hi: min(crcPiece, len(b))})
		for off := crcPiece; off < len(b); off += crcPiece {
			t.pieces = append(t.pieces, crcRange{buf: i, lo: off, hi: min(off+crcPiece, len(b))})
		}
	}
	parts := 1
	if p != nil {
		parts = min(p.Workers()+1, len(t.pieces))
	}
	if parts > 1 {
		p.Run(t, parts)
	} else {
		t.RunPart(0)
	}
	out := make([]uint32, len(bufs))
	started := make([]bool, len(bufs))
	for _, r := range t.pieces {
		if !started[r.buf] {
			out[r.buf], started[r.buf] = r.crc, true
			continue
		}
		out[r.buf] = crcCombine(out[r.buf], r.crc, int64(r.hi-r.lo))
	}
	return out
}

type crcRange struct {
	buf, lo, hi int
	crc         uint32
}

type crcTask struct {
	bufs   [][]byte
	pieces []crcRange
	next   atomic.Int64
}

func (t *crcTask) RunPart(int) {
	for {
		i := int(t.next.Add(1) - 1)
		if i >= len(t.pieces) {
			return
		}
		r := &t.pieces[i]
		r.crc = crc32c.Checksum(t.bufs[r.buf][r.lo:r.hi])
	}
}
