package main

// The score-vector kernels (kernel/scores.go) and the read-ceiling probe.

// elementwise sets s[i] = s[i] op v[i], 32 values a round; op is one IEEE
// operation, so the bits match the Go loop's.
func elementwise(f *file, name, op, what string) {
	a := f.text(name+"(s *float32, v *float32, n int)", "$0-24", "Requires: n is a multiple of 32. "+what)
	a.i("MOVQ s+0(FP), DI")
	a.i("MOVQ v+8(FP), SI")
	a.i("MOVQ n+16(FP), CX")
	a.i("XORQ AX, AX")
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.label("loop")
	for r := 0; r < 4; r++ {
		a.i("VMOVUPS %s, Y%d", idx(32*r, "DI"), r)
	}
	for r := 0; r < 4; r++ {
		a.i("%s %s, Y%d, Y%d", op, idx(32*r, "SI"), r, r)
	}
	for r := 0; r < 4; r++ {
		a.i("VMOVUPS Y%d, %s", r, idx(32*r, "DI"))
	}
	a.i("ADDQ $32, AX")
	a.i("CMPQ AX, CX")
	a.i("JB   loop")
	a.done("done")
}

// idx formats off(reg)(AX*4).
func idx(off int, reg string) string { return m(off, reg) + "(AX*4)" }

// firstHit is the loop firstAtLeast and firstAtLeastInt64 share: hit(r)
// sets Y<r> to the r-th vector of the round's hit mask (lanes lanes of
// 32/lanes bytes, four vectors a round); it returns the first hit's index,
// or n.
func firstHit(f *file, sig, frame string, lanes int, movmsk string, setup func(a *asm), hit func(a *asm, r int), doc ...string) {
	a := f.text(sig, frame, doc...)
	a.i("MOVQ s+0(FP), SI")
	a.i("MOVQ n+8(FP), CX")
	setup(a)
	a.i("XORQ AX, AX")
	a.i("TESTQ CX, CX")
	a.i("JZ   none")
	a.label("loop")
	for r := 0; r < 4; r++ {
		hit(a, r)
	}
	a.i("VORPS Y1, Y0, Y5")
	a.i("VORPS Y3, Y2, Y6")
	a.i("VORPS Y6, Y5, Y5")
	a.i("%s Y5, DX", movmsk)
	a.i("TESTL DX, DX")
	a.i("JNZ  found")
	a.i("ADDQ $%d, AX", 4*lanes)
	a.i("CMPQ AX, CX")
	a.i("JB   loop")
	a.label("none")
	a.i("MOVQ CX, ret+24(FP)")
	a.i("VZEROUPPER")
	a.i("RET")
	a.label("found")
	a.comment("Which of the four vectors holds the first hit.")
	for r := 0; r < 4; r++ {
		a.i("%s Y%d, DX", movmsk, r)
		if r == 3 {
			break
		}
		a.i("TESTL DX, DX")
		a.i("JNZ  hit")
		a.i("ADDQ $%d, AX", lanes)
	}
	a.label("hit")
	a.i("BSFL DX, DX")
	a.i("ADDQ DX, AX")
	a.i("MOVQ AX, ret+24(FP)")
	a.i("VZEROUPPER")
	a.i("RET")
}

// firstAtLeast returns the first i with !(s[i] < thr) (predicate NGT_UQ
// on thr vs s[i]), so NaN counts; or n. One compare per 8 scores instead
// of a branch per score.
func firstAtLeast(f *file) {
	firstHit(f, "firstAtLeastAVX2(s *float32, n int, thr float32) int", "$0-32", 8, "VMOVMSKPS",
		func(a *asm) { a.i("VBROADCASTSS thr+16(FP), Y4") },
		func(a *asm, r int) { a.i("VCMPPS $0x1a, %s, Y4, Y%d", idx(32*r, "SI"), r) },
		"Requires: n is a multiple of 32. Returns the first i with !(s[i] < thr)",
		"(predicate NGT_UQ on thr vs s[i]), so NaN counts; or n.")
}

// firstAtLeastInt64 returns the first i with s[i] >= min, or n: VPCMPGTQ
// gives "min > s[i]", and the all-ones word in Y7 turns it around.
func firstAtLeastInt64(f *file) {
	firstHit(f, "firstAtLeastInt64AVX2(s *int64, n int, min int64) int", "$0-32", 4, "VMOVMSKPD",
		func(a *asm) {
			a.i("VPBROADCASTQ min+16(FP), Y4")
			a.i("VPCMPEQQ Y7, Y7, Y7")
		},
		func(a *asm, r int) {
			a.i("VPCMPGTQ %s, Y4, Y%d", m(32*r, "SI")+"(AX*8)", r)
			a.i("VPXOR Y7, Y%d, Y%d", r, r)
		},
		"Requires: n is a multiple of 16. Returns the first i with s[i] >= min; or n.")
}

// shiftBelow moves the words of s[0..n) below w one place up, from the
// end down, and stops at the first word that is not below w: over a list
// sorted high to low that opens the gap where w's rank puts it, in one
// pass that compares and moves eight words at a time. A block with a word
// not below w ends the walk: its words below w are a suffix of it (the
// list is sorted), stored one place up under the compare's mask.
func shiftBelow(f *file) {
	a := f.text("shiftBelowAVX512(s *uint64, n int, w uint64) int", "$0-32",
		"Requires AVX-512F; s[n] is writable (the gap). Returns the gap's index:",
		"n less the number of words moved.")
	a.i("MOVQ s+0(FP), SI")
	a.i("MOVQ n+8(FP), CX")
	a.i("VPBROADCASTQ w+16(FP), Z0")
	a.label("block")
	a.i("CMPQ CX, $8")
	a.i("JLT  tail")
	a.comment("Z1: s[CX-8 .. CX); K1: those below w.")
	a.i("VMOVDQU64 -64(SI)(CX*8), Z1")
	a.i("VPCMPUQ $1, Z0, Z1, K1")
	a.i("KMOVB K1, AX")
	a.i("CMPL AX, $0xff")
	a.i("JNE  last")
	a.i("VMOVDQU64 Z1, -56(SI)(CX*8)")
	a.i("SUBQ $8, CX")
	a.i("JMP  block")
	a.label("last")
	a.i("VMOVDQU64 Z1, K1, -56(SI)(CX*8)")
	a.i("POPCNTL AX, AX")
	a.i("SUBQ AX, CX")
	a.i("JMP  done")
	a.label("tail")
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.comment("The first CX words, under a mask: nothing before s or past s[n-1] is read.")
	a.i("MOVL $1, BX")
	a.i("SHLL CX, BX")
	a.i("DECL BX")
	a.i("KMOVB BX, K2")
	a.i("VMOVDQU64.Z (SI), K2, Z1")
	a.i("VPCMPUQ $1, Z0, Z1, K2, K1")
	a.i("VMOVDQU64 Z1, K1, 8(SI)")
	a.i("KMOVB K1, AX")
	a.i("POPCNTL AX, AX")
	a.i("SUBQ AX, CX")
	a.label("done")
	a.i("MOVQ CX, ret+24(FP)")
	a.i("VZEROUPPER")
	a.i("RET")
}

// maxScore returns the largest of s, NaN skipped (-Inf when none): each
// lane keeps "x > acc ? x : acc", as the Go loop does, which is what
// VMAXPS gives with the accumulator as its second source.
func maxScore(f *file) {
	a := f.text("maxAVX2(s *float32, n int) float32", "$0-20",
		"Requires: n is a multiple of 32. Returns the largest s[i], NaN skipped;",
		"-Inf when there is none. A zero's sign may be either one's.")
	a.i("MOVQ s+0(FP), SI")
	a.i("MOVQ n+8(FP), CX")
	a.i("MOVL $0xff800000, AX")
	a.i("MOVL AX, X0")
	a.i("VBROADCASTSS X0, Y0")
	for r := 1; r < 4; r++ {
		a.i("VMOVAPS Y0, Y%d", r)
	}
	a.i("XORQ AX, AX")
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.label("loop")
	for r := 0; r < 4; r++ {
		a.i("VMOVUPS %s, Y%d", idx(32*r, "SI"), r+4)
	}
	for r := 0; r < 4; r++ {
		a.i("VMAXPS Y%d, Y%d, Y%d", r, r+4, r)
	}
	a.i("ADDQ $32, AX")
	a.i("CMPQ AX, CX")
	a.i("JB   loop")
	a.label("done")
	a.comment("No lane holds NaN now, so the order of the reduction is free.")
	a.i("VMAXPS Y1, Y0, Y0")
	a.i("VMAXPS Y3, Y2, Y2")
	a.i("VMAXPS Y2, Y0, Y0")
	a.i("VEXTRACTF128 $1, Y0, X1")
	a.i("VMAXPS X1, X0, X0")
	a.i("VPERMILPS $0x4e, X0, X1")
	a.i("VMAXPS X1, X0, X0")
	a.i("VPERMILPS $0xb1, X0, X1")
	a.i("VMAXPS X1, X0, X0")
	a.i("VMOVSS X0, ret+16(FP)")
	a.i("VZEROUPPER")
	a.i("RET")
}

// readSum is the widest plain load-and-add loop: the memory-read ceiling a
// scan is measured against; with prefetch, at the scans' distance.
func readSum(f *file, name string, prefetch bool, doc string) {
	a := f.text(name+"(p *byte, n int) uint64", "$0-24", "Requires: n is a multiple of 256. "+doc)
	a.i("MOVQ p+0(FP), SI")
	a.i("MOVQ n+8(FP), CX")
	a.i("SHRQ $8, CX")
	for r := 0; r < 4; r++ {
		a.i("VPXOR Y%d, Y%d, Y%d", r, r, r)
	}
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.label("loop")
	if prefetch {
		for l := 0; l < 4; l++ {
			a.i("PREFETCHT0 %s", m(avx2.pf+64*l, "SI"))
		}
	}
	for r := 0; r < 8; r++ {
		a.i("VPADDQ %s, Y%d, Y%d", m(32*r, "SI"), r%4, r%4)
	}
	a.i("ADDQ $256, SI")
	a.i("DECQ CX")
	a.i("JNZ  loop")
	a.label("done")
	a.i("VPADDQ Y1, Y0, Y0")
	a.i("VPADDQ Y3, Y2, Y2")
	a.i("VPADDQ Y2, Y0, Y0")
	a.i("VEXTRACTI128 $1, Y0, X1")
	a.i("VPADDQ X1, X0, X0")
	a.i("VPSHUFD $0x4e, X0, X1")
	a.i("VPADDQ X1, X0, X0")
	a.i("VMOVQ X0, AX")
	a.i("MOVQ AX, ret+16(FP)")
	a.i("VZEROUPPER")
	a.i("RET")
}

// prefetchLines asks for every cache line of [p, p+n) (n >= 1), from the
// line holding p up to the one holding its last byte: a graph walk's hint
// for the next node's links.
func prefetchLines(f *file) {
	a := f.text("prefetchLines(p *byte, n int)", "$0-16", "Requires: n >= 1. Prefetches the lines, reads nothing.")
	a.i("MOVQ p+0(FP), AX")
	a.i("MOVQ n+8(FP), CX")
	a.i("LEAQ -1(AX)(CX*1), CX")
	a.i("ANDQ $-64, AX")
	a.label("line")
	a.i("PREFETCHT0 (AX)")
	a.i("ADDQ $64, AX")
	a.i("CMPQ AX, CX")
	a.i("JLS  line")
	a.i("RET")
}

// quantizeInt16 is quantizeQuery's loop (kernel/kinds.go) eight values at
// a time: v·pow in float64 (exact there), rounded to nearest even by
// VROUNDPD's own mode (whatever MXCSR says, as Go's math.RoundToEven),
// converted, then packed with saturation and raised to -32767.
func quantizeInt16(f *file) {
	a := f.text("quantizeInt16AVX2(q *float32, n int, pow float64, dst *int16)", "$0-32",
		"Requires: n is a multiple of 8; |q[i]*pow| < 2^31. dst[i] = clamp(RoundToEven(q[i]*pow), -32767, 32767).")
	a.i("MOVQ q+0(FP), SI")
	a.i("MOVQ n+8(FP), CX")
	a.i("VBROADCASTSD pow+16(FP), Y15")
	a.i("MOVQ dst+24(FP), DI")
	a.i("MOVL $0x80018001, AX") // -32767 in both int16 halves
	a.i("MOVL AX, X14")
	a.i("VPBROADCASTD X14, X14")
	a.i("SHRQ $3, CX")
	a.i("JZ   done")
	a.label("loop")
	a.i("VCVTPS2PD (SI), Y0")
	a.i("VCVTPS2PD 16(SI), Y1")
	a.i("VMULPD Y15, Y0, Y0")
	a.i("VMULPD Y15, Y1, Y1")
	a.i("VROUNDPD $0, Y0, Y0")
	a.i("VROUNDPD $0, Y1, Y1")
	a.i("VCVTTPD2DQY Y0, X0")
	a.i("VCVTTPD2DQY Y1, X1")
	a.i("VPACKSSDW X1, X0, X0")
	a.i("VPMAXSW X14, X0, X0")
	a.i("VMOVDQU X0, (DI)")
	a.i("ADDQ $32, SI")
	a.i("ADDQ $16, DI")
	a.i("DECQ CX")
	a.i("JNZ  loop")
	a.done("done")
}

// widenInt8 is Int8RecordQuery's loop (kernel/kinds.go) 64 codes at a time:
// each signed byte sign-extended to int16.
func widenInt8(f *file) {
	a := f.text("widenInt8AVX2(src *byte, n int, dst *int16)", "$0-24",
		"Requires: n is a multiple of 64. dst[i] = int16(int8(src[i])).")
	a.i("MOVQ src+0(FP), SI")
	a.i("MOVQ n+8(FP), CX")
	a.i("MOVQ dst+16(FP), DI")
	a.i("SHRQ $6, CX")
	a.i("JZ   done")
	a.label("loop")
	for r := 0; r < 4; r++ {
		a.i("VPMOVSXBW %s, Y%d", m(16*r, "SI"), r)
	}
	for r := 0; r < 4; r++ {
		a.i("VMOVDQU Y%d, %s", r, m(32*r, "DI"))
	}
	a.i("ADDQ $64, SI")
	a.i("ADDQ $128, DI")
	a.i("DECQ CX")
	a.i("JNZ  loop")
	a.done("done")
}
