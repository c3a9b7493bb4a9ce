package main

// Int8 kernels (kinds.go, dotInt8Go): a record is pdim signed bytes, the
// prepared query pdim int16 values followed by its float32 power-of-two
// scale at byte 2*pdim. VPMOVSXBW widens the codes to int16, VPMADDWD
// multiplies them by the query values and adds adjacent products into
// int32 lanes, VPADDD accumulates (AVX512_VNNI: VPDPWSSD does both).
// Integer sums are exact, so any lane order gives the reference's
// integer; it is converted to float32 once (rounding to nearest, as Go's
// float32(int64) does) and scaled exactly.
//
// Overflow: a pair sum is at most 2*32767*127 = 8322818 in magnitude. The
// pdim/2 pair sums of a record are spread evenly over 4 accumulators of 8
// lanes (Y0-Y3), so after adding the 4 accumulators lane by lane each lane
// holds pdim/16 <= 256 of them: at most 2130641408 < 2^31. Adding lanes
// together can exceed int32, so the generic forms finish in int64. The
// whole sum of a record of pdim <= 512 is at most 512*32767*127 =
// 2130641408, so the 384 forms finish in int32.
//
// AVX-512 accumulates into Z0 (codes 0-31 of each 64) and Z1 (32-63). A
// lane of Z0+Z1 holds pdim/64 pair sums, and after folding the upper 256
// bits onto the lower pdim/32 <= 128 of them: the AVX2 bound holds, and the
// AVX2 finish follows from the point where its four accumulators are one.
//
// Registers: Y0-Y3 (Z0-Z1) accumulators, Y8-Y11 (Z8-Z9) temporaries, X14
// the scale.

// int8Kind is the Int8 kind on one ISA.
type int8Kind struct {
	name string // "AVX2", "AVX512", "VNNI"
	wide bool
	// madd adds the products of the int16 codes in t and the query at
	// q(DI), pairwise, into acc (t may be clobbered).
	madd func(a *asm, q int, t, acc string)
}

var int8Kinds = []int8Kind{
	{name: "AVX2", madd: maddAdd},
	{name: "AVX512", wide: true, madd: maddAdd},
	{name: "VNNI", wide: true, madd: func(a *asm, q int, t, acc string) {
		a.i("VPDPWSSD %s, %s, %s", m(q, "DI"), t, acc)
	}},
}

func maddAdd(a *asm, q int, t, acc string) {
	a.i("VPMADDWD %s, %s, %s", m(q, "DI"), t, t)
	a.i("VPADDD %s, %s, %s", t, acc, acc)
}

// scanPF is how far ahead (bytes) the Int8 scans prefetch, as the E5M2
// AVX2 scans.
const scanPF = 4096

func (k int8Kind) fname(form string) string { return form + "Int8" + k.name }

func (k int8Kind) zero(a *asm) {
	if k.wide {
		a.i("VPXORD Z0, Z0, Z0")
		a.i("VPXORD Z1, Z1, Z1")
		return
	}
	for r := 0; r < 4; r++ {
		a.i("VPXOR Y%d, Y%d, Y%d", r, r, r)
	}
}

// group scores the 64 codes at r(SI) against the query at q(DI).
func (k int8Kind) group(a *asm, r, q int) {
	if k.wide {
		for j := 0; j < 2; j++ {
			t := fmtReg("Z", 8+j)
			a.i("VPMOVSXBW %s, %s", m(r+32*j, "SI"), t)
			k.madd(a, q+64*j, t, fmtReg("Z", j))
		}
		return
	}
	for j := 0; j < 4; j++ {
		t := fmtReg("Y", 8+j)
		a.i("VPMOVSXBW %s, %s", m(r+16*j, "SI"), t)
		k.madd(a, q+32*j, t, fmtReg("Y", j))
	}
}

// score folds the accumulators, sums them exactly (int32 when fixed: the
// 384 forms, else int64), scales and writes the score to (DX).
func (k int8Kind) score(a *asm, fixed bool) {
	if k.wide {
		a.i("VPADDD Z1, Z0, Z0")
		a.i("VEXTRACTI64X4 $1, Z0, Y1")
		a.i("VPADDD Y1, Y0, Y0")
	} else {
		a.i("VPADDD Y1, Y0, Y0")
		a.i("VPADDD Y3, Y2, Y2")
		a.i("VPADDD Y2, Y0, Y0")
	}
	a.i("VEXTRACTI128 $1, Y0, X1")
	if fixed {
		a.i("VPADDD X1, X0, X0")
		a.i("VPSHUFD $0x4e, X0, X1")
		a.i("VPADDD X1, X0, X0")
		a.i("VPSHUFD $0xb1, X0, X1")
		a.i("VPADDD X1, X0, X0")
		a.i("VCVTDQ2PS X0, X0")
	} else {
		a.i("VPMOVSXDQ X0, Y0")
		a.i("VPMOVSXDQ X1, Y1")
		a.i("VPADDQ Y1, Y0, Y0")
		a.i("VEXTRACTI128 $1, Y0, X1")
		a.i("VPADDQ X1, X0, X0")
		a.i("VPSHUFD $0x4e, X0, X1")
		a.i("VPADDQ X1, X0, X0")
		a.i("VMOVQ X0, AX")
		a.i("VCVTSI2SSQ AX, X0, X0")
	}
	a.i("VMULSS X14, X0, X0")
	a.i("VMOVSS X0, (DX)")
}

// loadScale loads the query's scale into X14: at byte 768 of a 384 query,
// else at groups*128. qp "" loads the query into DI first.
func loadScale(a *asm, qp, groups string) {
	if qp == "" {
		qp = "DI"
		a.i("MOVQ qp+0(FP), DI")
	}
	if groups == "" {
		a.i("VMOVSS 768(%s), X14", qp)
		return
	}
	a.i("MOVQ %s, AX", groups)
	a.i("SHLQ $7, AX")
	a.i("VMOVSS (%s)(AX*1), X14", qp)
}

func (k int8Kind) kernel() kernel {
	return kernel{name: k.fname, gbytes: 64, qbytes: 128, pf: scanPF,
		setup: loadScale, zero: k.zero, group: k.group, score: k.score}
}

// scan is the generic Int8 scan: groups >= 1 groups a record.
func (k int8Kind) scan(f *file, doc ...string) {
	a := f.text(k.fname("scan")+"(qp *float32, groups int, recs *byte, stride int, n int, out *float32)", "$0-48", doc...)
	a.i("MOVQ qp+0(FP), R8")
	a.i("MOVQ groups+8(FP), R9")
	a.i("MOVQ recs+16(FP), R11")
	a.i("MOVQ stride+24(FP), R12")
	a.i("MOVQ n+32(FP), CX")
	a.i("MOVQ out+40(FP), DX")
	loadScale(a, "R8", "R9")
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.label("record")
	k.zero(a)
	a.i("MOVQ R11, SI")
	a.i("MOVQ R8, DI")
	a.i("MOVQ R9, BX")
	k.kernel().groupLoop(a)
	k.kernel().nextRecord(a, "R12")
}

// batch widens each record to int16 in scratch once, then every query's
// dot reads it (AVX2; the AVX-512 implementations use it too).
func (k int8Kind) batch(f *file, doc ...string) {
	a := f.text(k.fname("batch")+"(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)", "$0-64", doc...)
	a.i("MOVQ groups+16(FP), R9")
	a.i("MOVQ R9, R12")
	a.i("SHLQ $7, R12 // bytes of int16 query values; the scale is there")
	a.i("LEAQ 64(R12), R14 // bytes between two queries")
	a.i("MOVQ recs+24(FP), R11")
	a.i("MOVQ n+40(FP), CX")
	a.i("MOVQ CX, R15")
	a.i("SHLQ $2, R15 // bytes between two queries' scores")
	a.i("MOVQ out+56(FP), R13 // this record's first score")
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.label("record")
	a.i("MOVQ R11, SI")
	a.i("MOVQ scratch+48(FP), DI")
	a.i("MOVQ R9, BX")
	a.label("widen")
	a.for4("VPMOVSXBW %d(SI), Y%d", func(j int) []any { return []any{16 * j, 8 + j} })
	a.for4("VMOVDQU Y%d, %d(DI)", func(j int) []any { return []any{8 + j, 32 * j} })
	a.i("ADDQ $64, SI")
	a.i("ADDQ $128, DI")
	a.i("DECQ BX")
	a.i("JNZ  widen")
	a.i("MOVQ qps+0(FP), R8")
	a.i("MOVQ nq+8(FP), R10")
	a.i("MOVQ R13, DX")
	a.label("query")
	k.zero(a)
	a.i("MOVQ scratch+48(FP), SI")
	a.i("MOVQ R8, DI")
	a.i("MOVQ R9, BX")
	a.label("dot")
	a.for4("VMOVDQU %d(SI), Y%d", func(j int) []any { return []any{32 * j, 8 + j} })
	a.for4("VPMADDWD %d(DI), Y%[2]d, Y%[2]d", func(j int) []any { return []any{32 * j, 8 + j} })
	a.for4("VPADDD Y%d, Y%[2]d, Y%[2]d", func(j int) []any { return []any{8 + j, j} })
	a.i("ADDQ $128, SI")
	a.i("ADDQ $128, DI")
	a.i("DECQ BX")
	a.i("JNZ  dot")
	a.i("VMOVSS (R8)(R12*1), X14")
	k.score(a, false)
	a.i("ADDQ R15, DX")
	a.i("ADDQ R14, R8")
	a.i("DECQ R10")
	a.i("JNZ  query")
	a.i("ADDQ $4, R13")
	a.i("ADDQ stride+32(FP), R11")
	a.i("DECQ CX")
	a.i("JNZ  record")
	a.done("done")
}
