package crc32c

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func ref(crc uint32, p []byte) uint32 {
	return crc32.Update(crc, crc32.MakeTable(crc32.Castagnoli), p)
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// eachImpl runs f once per implementation available on this machine with
// the folding kernels' minimum lengths lowered to what the assembly accepts,
// so that small inputs exercise them too, plus once with the defaults.
func eachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, c := range testImpls() {
		t.Run(c.name, func(t *testing.T) {
			defer c.set()()
			f(t)
		})
	}
}

// thresholds are lengths around which an implementation changes strategy.
var thresholds = []int{0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 48, 63, 64, 65,
	79, 80, 127, 128, 129, 191, 192, 255, 256, 257, 271, 272, 319, 320, 321,
	383, 384, 511, 512, 513, 527, 575, 576, 767, 768, 1023, 1024, 1025, 2047,
	2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193}

func TestConstants(t *testing.T) {
	// x^32 mod P is the polynomial itself without the x^32 term.
	require.Equal(t, uint32(poly), xnModP(32))
	require.Equal(t, uint32(1)<<31, xnModP(0))
	require.Equal(t, uint32(1)<<(31-31), xnModP(31))
	// Multiplying x^a mod P by x^b mod P gives x^(a+b) mod P.
	for _, ab := range [][2]int{{100, 200}, {1000, 33}, {2048 + 32, 512 - 32}} {
		require.Equal(t, xnModP(ab[0]+ab[1]), mulModP(xnModP(ab[0]), xnModP(ab[1])))
	}
}

// mulModP multiplies two reflected residues modulo P.
func mulModP(a, b uint32) uint32 {
	var r uint32
	for i := 0; i < 32; i++ { // bit 31-i of a: x^i
		if a&(1<<(31-i)) != 0 {
			r ^= b
		}
		// b *= x
		if b&1 != 0 {
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
	return r
}

func clmul(a, b uint64) (lo, hi uint64) {
	for i := 0; i < 64; i++ {
		if b&(1<<i) != 0 {
			lo ^= a << i
			if i > 0 {
				hi ^= a >> (64 - i)
			}
		}
	}
	return
}

// modelFold is a portable model of the assembly: fold 16-byte blocks with
// the 128-bit constants, then two CRC32Q of the state and the tail through
// hash/crc32. It validates foldConstants independently of the assembly.
func modelFold(crc uint32, p []byte) uint32 {
	if len(p) < 16 {
		return ref(crc, p)
	}
	klo, khi := foldConstants(128)
	a0 := binary.LittleEndian.Uint64(p) ^ uint64(^crc)
	a1 := binary.LittleEndian.Uint64(p[8:])
	p = p[16:]
	for len(p) >= 16 {
		l0, h0 := clmul(a0, klo)
		l1, h1 := clmul(a1, khi)
		a0 = l0 ^ l1 ^ binary.LittleEndian.Uint64(p)
		a1 = h0 ^ h1 ^ binary.LittleEndian.Uint64(p[8:])
		p = p[16:]
	}
	var s [16]byte
	binary.LittleEndian.PutUint64(s[:], a0)
	binary.LittleEndian.PutUint64(s[8:], a1)
	r := ^ref(0xFFFFFFFF, s[:]) // raw CRC with zero register
	return ref(^r, p)
}

func TestModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		p := randBytes(r, n)
		c := r.Uint32()
		require.Equal(t, ref(c, p), modelFold(c, p), "n=%d", n)
	}
}

func TestAllLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := randBytes(r, 4096+64)
	eachImpl(t, func(t *testing.T) {
		for n := 0; n <= 4096; n++ {
			off := r.IntN(64)
			p := buf[off : off+n]
			c := r.Uint32()
			require.Equal(t, ref(c, p), Update(c, p), "n=%d off=%d", n, off)
		}
	})
}

func TestThresholds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	buf := randBytes(r, 9000)
	eachImpl(t, func(t *testing.T) {
		for _, n := range thresholds {
			for off := 0; off < 64; off++ {
				p := buf[off : off+n]
				for _, c := range []uint32{0, 0xFFFFFFFF, r.Uint32()} {
					require.Equal(t, ref(c, p), Update(c, p), "n=%d off=%d", n, off)
				}
			}
		}
	})
}

func TestLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	big := randBytes(r, 1<<20+7+3)
	zeros := make([]byte, 1<<20+7)
	ones := bytes.Repeat([]byte{0xFF}, 1<<20+7)
	eachImpl(t, func(t *testing.T) {
		for _, n := range []int{1 << 20, 1<<20 + 7, 1<<20 - 1, 100003} {
			for off := 0; off < 3; off++ {
				p := big[off : off+n]
				c := r.Uint32()
				require.Equal(t, ref(c, p), Update(c, p), "n=%d off=%d", n, off)
			}
		}
		for _, p := range [][]byte{zeros, ones} {
			for _, n := range []int{0, 15, 16, 64, 255, 256, 1000, 4096, 1<<20 + 7} {
				for _, c := range []uint32{0, 0xFFFFFFFF, 0x12345678} {
					require.Equal(t, ref(c, p[:n]), Update(c, p[:n]), "n=%d byte=%#x c=%#x", n, p[0], c)
				}
			}
		}
		require.Equal(t, crc32.Checksum(big, crc32.MakeTable(crc32.Castagnoli)), Checksum(big))
	})
}

func TestChaining(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	buf := randBytes(r, 20000)
	eachImpl(t, func(t *testing.T) {
		for i := 0; i < 500; i++ {
			n := r.IntN(len(buf))
			if i < len(thresholds) {
				n = thresholds[i] * 2
			}
			k := r.IntN(n + 1)
			c := r.Uint32()
			whole := Update(c, buf[:n])
			require.Equal(t, ref(c, buf[:n]), whole)
			require.Equal(t, whole, Update(Update(c, buf[:k]), buf[k:n]), "n=%d k=%d", n, k)
		}
	})
}

func TestKnownValues(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		require.Equal(t, uint32(0xE3069283), Checksum([]byte("123456789")))
		require.Equal(t, uint32(0), Checksum(nil))
		// iSCSI (RFC 3720 B.4) test vectors.
		require.Equal(t, uint32(0x8A9136AA), Checksum(make([]byte, 32)))
		require.Equal(t, uint32(0x62A8AB43), Checksum(bytes.Repeat([]byte{0xFF}, 32)))
		long := bytes.Repeat([]byte("The quick brown fox jumps over the lazy dog. "), 1000)
		require.Equal(t, ref(0, long), Checksum(long))
	})
}

func FuzzUpdate(f *testing.F) {
	f.Add(uint32(0), []byte{})
	f.Add(uint32(0), []byte("123456789"))
	f.Add(uint32(0xFFFFFFFF), make([]byte, 300))
	f.Add(uint32(0xDEADBEEF), bytes.Repeat([]byte{0xFF}, 1025))
	f.Add(uint32(42), bytes.Repeat([]byte{1, 2, 3, 5, 8, 13, 21}, 300))
	impls := testImpls()
	f.Fuzz(func(t *testing.T, crc uint32, p []byte) {
		want := ref(crc, p)
		for _, c := range impls {
			restore := c.set()
			got := Update(crc, p)
			restore()
			if got != want {
				t.Fatalf("%s: Update(%#x, len %d) = %#x, want %#x", c.name, crc, len(p), got, want)
			}
		}
	})
}

func BenchmarkChecksum(b *testing.B) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20, 51 << 20} {
		buf := randBytes(rand.New(rand.NewPCG(1, 1)), size)
		name := fmt.Sprintf("%dKiB", size>>10)
		b.Run(name+"/crc32c", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				Checksum(buf)
			}
		})
		b.Run(name+"/hash-crc32", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				crc32.Checksum(buf, tab)
			}
		})
	}
}
