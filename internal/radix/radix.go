// Package radix sorts words a byte at a time: a few instructions a word
// for each byte some word sets, against a comparison sort's mispredicted
// branches.
package radix

// Sort sorts a ascending by its bytes above the lowest skip (0: the whole
// words), with tmp (as long as a) as the other buffer. It is stable: words
// equal in those bytes keep their order, so words appended in the order of
// their low bytes sort fully without passes over them. Only the bytes some
// word sets, and that not every word shares, cost a pass.
func Sort(a, tmp []uint64, skip int) {
	if len(a) < 2 {
		return
	}
	if len(tmp) < len(a) {
		panic("radix: Sort needs a buffer as long as the words")
	}
	var bits uint64
	for _, v := range a {
		bits |= v
	}
	digits := 0
	for digits < 8 && bits>>(8*digits) != 0 {
		digits++
	}
	var counts [8][256]int
	for _, v := range a {
		for d := skip; d < digits; d++ {
			counts[d][byte(v>>(8*d))]++
		}
	}
	src, dst := a, tmp[:len(a)]
	for d := skip; d < digits; d++ {
		c := &counts[d]
		if c[byte(src[0]>>(8*d))] == len(a) {
			continue // every word has this byte
		}
		sum := 0
		for i, k := range c {
			c[i], sum = sum, sum+k
		}
		shift := 8 * d
		for _, v := range src {
			b := byte(v >> shift)
			dst[c[b]] = v
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}
