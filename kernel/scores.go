package kernel

import "math"

// firstAtLeastBlocks scans a multiple of 32 scores; nil means pure Go.
var firstAtLeastBlocks func(s []float32, thr float32) int

// FirstAtLeast returns the index of the first score in s that is not below
// thr (NaN counts, so top-k can rank it last), or len(s). Top-k calls it on
// each chunk of scores: after the first few chunks almost nothing passes.
func FirstAtLeast(s []float32, thr float32) int {
	i := 0
	if whole := len(s) &^ 31; whole > 0 && firstAtLeastBlocks != nil {
		if i = firstAtLeastBlocks(s[:whole], thr); i < whole {
			return i
		}
	}
	for ; i < len(s); i++ {
		if !(s[i] < thr) {
			return i
		}
	}
	return len(s)
}

// firstAtLeastInt64Blocks scans a multiple of 16 values; nil means pure Go.
var firstAtLeastInt64Blocks func(s []int64, min int64) int

// FirstAtLeastInt64 returns the index of the first value in s not below
// min, or len(s): FirstAtLeast for a column of times.
func FirstAtLeastInt64(s []int64, min int64) int {
	i := 0
	if whole := len(s) &^ 15; whole > 0 && firstAtLeastInt64Blocks != nil {
		if i = firstAtLeastInt64Blocks(s[:whole], min); i < whole {
			return i
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= min {
			return i
		}
	}
	return len(s)
}

// shiftBelowVector is set where ShiftBelow compares and moves eight words
// an instruction (AVX-512).
var shiftBelowVector bool

// ShiftBelowIsVector reports whether ShiftBelow runs in vector compares
// here; where it does not, a binary search and one move place an entry in
// a sorted list for less.
func ShiftBelowIsVector() bool { return shiftBelowVector }

// ShiftBelow moves the trailing words of s[:len(s)-1] that are below w,
// unsigned, one place up, and returns the index of the gap they leave;
// s's last word is the free place. Over a list sorted high to low the gap
// is where w's rank puts it, so an insertion costs one pass over the words
// that rank after it instead of a count over all of them and a move.
func ShiftBelow(s []uint64, w uint64) int {
	if len(s) == 0 {
		panic("kernel: ShiftBelow needs a free last word")
	}
	if shiftBelowVector {
		return shiftBelowAVX512(&s[0], len(s)-1, w)
	}
	return shiftBelowGo(s, w)
}

func shiftBelowGo(s []uint64, w uint64) int {
	j := len(s) - 1
	for j > 0 && s[j-1] < w {
		s[j] = s[j-1]
		j--
	}
	return j
}

// maxBlocks is MaxScore over a multiple of 32 scores; nil means pure Go.
var maxBlocks func(s []float32) float32

// MaxScore returns the largest score in s, NaN skipped, or -Inf when there
// is none; a zero comes back as +0 whichever sign it had, so every CPU
// gives the same bits.
func MaxScore(s []float32) float32 {
	best, i := float32(math.Inf(-1)), 0
	if whole := len(s) &^ 31; whole > 0 && maxBlocks != nil {
		best, i = maxBlocks(s[:whole]), whole
	}
	for ; i < len(s); i++ {
		if s[i] > best {
			best = s[i]
		}
	}
	return best + 0
}

// mulBlocks and subBlocks handle a multiple of 32 values; nil means pure Go.
var mulBlocks, subBlocks func(s, v []float32)

// Mul sets s[i] *= v[i] (v at least as long as s): one IEEE multiply each,
// the same bits on every CPU.
func Mul(s, v []float32) {
	v = v[:len(s)]
	i := 0
	if whole := len(s) &^ 31; whole > 0 && mulBlocks != nil {
		mulBlocks(s[:whole], v[:whole])
		i = whole
	}
	for ; i < len(s); i++ {
		s[i] *= v[i]
	}
}

// Sub sets s[i] -= v[i] (v at least as long as s).
func Sub(s, v []float32) {
	v = v[:len(s)]
	i := 0
	if whole := len(s) &^ 31; whole > 0 && subBlocks != nil {
		subBlocks(s[:whole], v[:whole])
		i = whole
	}
	for ; i < len(s); i++ {
		s[i] -= v[i]
	}
}
