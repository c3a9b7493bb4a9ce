//go:build !noasm

package crc32c

import "math"

type testImpl struct {
	name string
	set  func() (restore func())
}

// withImpl selects implementation i with the given length ranges.
func withImpl(i, minPCLMUL, maxPCLMUL, minAVX512 int) func() func() {
	return func() func() {
		oi, omin, omax, oa := impl, minLenPCLMUL, maxLenPCLMUL, minLenAVX512
		impl, minLenPCLMUL, maxLenPCLMUL, minLenAVX512 = i, minPCLMUL, maxPCLMUL, minAVX512
		return func() { impl, minLenPCLMUL, maxLenPCLMUL, minLenAVX512 = oi, omin, omax, oa }
	}
}

// testImpls returns the default configuration, the hash/crc32 fallback and
// each folding kernel this CPU supports, forced for every length it accepts.
func testImpls() []testImpl {
	l := []testImpl{
		{"default", withImpl(impl, minLenPCLMUL, maxLenPCLMUL, minLenAVX512)},
		{"generic", withImpl(implGeneric, minLenPCLMUL, maxLenPCLMUL, minLenAVX512)},
	}
	if hasPCLMUL {
		l = append(l, testImpl{"pclmul", withImpl(implPCLMUL, 64, math.MaxInt, math.MaxInt)})
	}
	if hasAVX512 {
		l = append(l, testImpl{"avx512", withImpl(implAVX512, math.MaxInt, math.MaxInt, 256)})
	}
	return l
}
