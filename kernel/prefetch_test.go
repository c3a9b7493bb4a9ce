package kernel

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPrefetch runs the prefetch loop over every length and alignment up
// to a few lines, at the ends of a buffer too: it must end (the loop's
// bound is the last byte's line) and leave the bytes as they were.
func TestPrefetch(t *testing.T) {
	buf := make([]byte, 512)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	want := append([]byte(nil), buf...)
	for lo := 0; lo < 128; lo++ {
		for n := 0; lo+n <= len(buf); n += 1 + n/8 {
			Prefetch(buf[lo : lo+n])
		}
		Prefetch(buf[len(buf)-lo-1:])
	}
	Prefetch(nil)
	require.Equal(t, want, buf)
}
