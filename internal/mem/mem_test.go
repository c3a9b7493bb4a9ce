package mem

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestBytesAligned(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 1000, HugeMin - 1, HugeMin, HugeMin + 12345} {
		b := Bytes(n)
		require.Len(t, b, n)
		require.Equal(t, n, cap(b), "no room past the end to grow into")
		if n == 0 {
			continue
		}
		addr := uintptr(unsafe.Pointer(&b[0]))
		require.Zero(t, addr%Line, "n=%d", n)
		if n >= HugeMin {
			require.Zero(t, addr%HugePage, "n=%d", n)
		}
		for _, i := range []int{0, n / 2, n - 1} {
			require.Zero(t, b[i])
		}
	}
}

func TestWords(t *testing.T) {
	w := Words[uint32](1000)
	require.Len(t, w, 1000)
	require.Zero(t, uintptr(unsafe.Pointer(&w[0]))%Line)
	w[999] = 7
	require.NotNil(t, Words[float32](0))
	big := Words[uint64](HugeMin / 8)
	require.Zero(t, uintptr(unsafe.Pointer(&big[0]))%HugePage)
}
