package crc32c

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCombine: the combined checksums of two pieces equal the checksum of
// the whole, at every split of buffers around the word and fold sizes.
func TestCombine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{0, 1, 7, 64, 1000, 1<<20 + 17} {
		b := randBytes(r, n)
		whole := ref(0, b)
		for _, cut := range []int{0, 1, n / 3, n / 2, n - 1, n} {
			if cut < 0 || cut > n {
				continue
			}
			a, c := b[:cut], b[cut:]
			require.Equal(t, whole, Combine(ref(0, a), ref(0, c), int64(len(c))), "length %d cut at %d", n, cut)
		}
	}
	// The squaring table against x^n computed one shift at a time.
	for k := range 14 {
		require.Equal(t, xnModP(1<<k), pow2[k], "x^(2^%d)", k)
	}
}
