package main

// The float kinds (E5M2, E4M3, F16, F32) score in float32 with the
// canonical accumulators and reduction tree (kernel/doc.go), so every
// form and ISA computes the same bits.
//
// AVX2: Y0-Y7 are the 8 canonical accumulators, Y8-Y10 temporaries, Y15 a
// decode mask. AVX-512: each of Z0-Z3 holds two canonical accumulators,
// (acc0|acc2), (acc1|acc3), (acc4|acc6), (acc5|acc7), so a pair of blocks'
// evens (or odds) land in one register exactly where AVX2 puts them.

// isa is the vector width a kernel is written for.
type isa struct {
	name string // function name suffix
	wide bool   // AVX-512
	pf   int    // scan prefetch distance in bytes
}

var (
	// Measured on Zen 5: 4096 beats 1536 by 7 % at 100k records, 8192
	// gains nothing more for AVX2; the AVX-512 scans need about 20
	// records ahead (1536 reached 61 % of the read ceiling, 8192 85 %).
	avx2   = isa{name: "AVX2", pf: 4096}
	avx512 = isa{name: "AVX512", wide: true, pf: 8192}
)

// accOrder is the AVX2 accumulator of each 8-position group of a 64-
// component group in the laid-out order (doc.go).
var accOrder = [8]string{"Y0", "Y2", "Y1", "Y3", "Y4", "Y6", "Y5", "Y7"}

// floatKind is one float storage kind on one ISA.
type floatKind struct {
	isa
	kind   string // name infix: "" for E5M2, "E4M3", "F16", "F32"
	gbytes int    // record bytes per 64 components
	// first and setup, when set, run before and after the argument loads:
	// E4M3 sets its decode mask first, E5M2 after, the order the kernels
	// were measured with.
	first, setup func(a *asm)
	// group scores the 64 components at r(SI) against the query at q(DI).
	group func(a *asm, r, q int)
	// decode writes the 64 components at SI to R13 as laid-out float32;
	// nil when records are laid-out float32 already.
	decode func(a *asm)
}

func (k floatKind) name(form string) string { return form + k.kind + k.isa.name }

func (k floatKind) prologue(a *asm) {
	if k.first != nil {
		k.first(a)
	}
}

func (k floatKind) afterLoads(a *asm) {
	if k.setup != nil {
		k.setup(a)
	}
}

func (k floatKind) zero(a *asm) {
	if k.wide {
		for r := 0; r < 4; r++ {
			a.i("VPXORD Z%d, Z%d, Z%d", r, r, r)
		}
		return
	}
	for r := 0; r < 8; r++ {
		a.i("VXORPS Y%d, Y%d, Y%d", r, r, r)
	}
}

// reduce folds the accumulators into X0 in the canonical tree.
func (k floatKind) reduce(a *asm) {
	if k.wide {
		a.i("VADDPS Z1, Z0, Z0")
		a.i("VADDPS Z3, Z2, Z2")
		a.i("VEXTRACTF64X4 $1, Z0, Y1")
		a.i("VADDPS Y1, Y0, Y0")
		a.i("VEXTRACTF64X4 $1, Z2, Y3")
		a.i("VADDPS Y3, Y2, Y2")
		a.i("VADDPS Y2, Y0, Y0")
	} else {
		a.i("VADDPS Y1, Y0, Y0")
		a.i("VADDPS Y3, Y2, Y2")
		a.i("VADDPS Y5, Y4, Y4")
		a.i("VADDPS Y7, Y6, Y6")
		a.i("VADDPS Y2, Y0, Y0")
		a.i("VADDPS Y6, Y4, Y4")
		a.i("VADDPS Y4, Y0, Y0")
	}
	a.i("VEXTRACTF128 $1, Y0, X1")
	a.i("VADDPS X1, X0, X0")
	a.i("VMOVHLPS X0, X0, X1")
	a.i("VADDPS X1, X0, X0")
	a.i("VMOVSHDUP X0, X1")
	a.i("VADDSS X1, X0, X0")
}

// e5m2Mask sets Y15 to 0xff00 per word without a constant in memory.
func e5m2Mask(a *asm) {
	a.i("VPCMPEQB Y15, Y15, Y15")
	a.i("VPSLLW $8, Y15, Y15")
}

// e4m3Mask sets Y15 to 0xbf80 per word: the sign and the 7 code bits of
// an E4M3 byte once shifted into binary16 position.
func e4m3Mask(a *asm) {
	a.i("MOVL $0xbf80bf80, AX")
	a.i("VMOVD AX, X15")
	a.i("VPBROADCASTD X15, Y15")
}

// e5m2Halves splits the E5M2 bytes in reg into binary16 evens and odds:
// shifting each word left by 8 puts the even byte in place and masking
// keeps the odd one, both without a shuffle uop.
func e5m2Halves(a *asm, reg, mask, e, o string) {
	a.i("VPSLLW $8, %s, %s", reg, e)
	a.i("VPAND %s, %s, %s", mask, reg, o)
}

// e4m3Halves turns code b into (b&0x80)<<8 | (b&0x7f)<<7 (e4m3ToF16): an
// arithmetic shift right by 1 of a byte in the high half of a word puts
// its 7 low bits at 13..7 and copies the sign into bits 15 and 14; the
// mask clears bit 14 and the other byte's bits.
func e4m3Halves(a *asm, reg, mask, e, o string) {
	a.i("VPSLLW $8, %s, %s", reg, e)
	a.i("VPSRAW $1, %s, %s", e, e)
	a.i("VPSRAW $1, %s, %s", reg, o)
	a.i("VPAND %s, %s, %s", mask, e, e)
	a.i("VPAND %s, %s, %s", mask, o, o)
}

// byteKind is an 8-bit float kind: each block of bytes is split into
// evens and odds, widened to binary16 and then to float32; the query
// layout puts a pair of blocks' evens first, then their odds (doc.go).
func byteKind(i isa, kind string, first, setup func(*asm), halves func(a *asm, reg, mask, e, o string)) floatKind {
	// AVX2 takes 16 bytes a block into Y0-Y7 (evens at qe, odds at qe+64);
	// AVX-512 32 bytes into Z0-Z3.
	step, in, half, out, mask := 16, "X", "X", "Y", "X15"
	qe := []int{0, 32, 128, 160}
	if i.wide {
		step, in, half, out, mask = 32, "Y", "Y", "Z", "Y15"
		qe = []int{0, 128}
	}
	block := func(a *asm, r int) {
		a.i("VMOVDQU %s, %s8", m(r, "SI"), in)
		halves(a, in+"8", mask, half+"9", half+"10")
		a.i("VCVTPH2PS %s9, %s9", half, out)
		a.i("VCVTPH2PS %s10, %s10", half, out)
	}
	return floatKind{isa: i, kind: kind, gbytes: 64, first: first, setup: setup,
		group: func(a *asm, r, q int) {
			for b, e := range qe {
				block(a, r+b*step)
				a.i("VFMADD231PS %s, %s9, %s%d", m(q+e, "DI"), out, out, 2*b)
				a.i("VFMADD231PS %s, %s10, %s%d", m(q+e+64, "DI"), out, out, 2*b+1)
			}
		},
		decode: func(a *asm) {
			for b, e := range qe {
				block(a, b*step)
				a.i("VMOVUPS %s9, %s", out, m(e, "R13"))
				a.i("VMOVUPS %s10, %s", out, m(e+64, "R13"))
			}
		},
	}
}

// wordKind is F16 or F32: records are stored in the laid-out order, so
// position group g (8 values) goes to accumulator accOrder[g&7], and a
// load (widening f16) feeds the multiply directly.
func wordKind(i isa, kind, load string, size int) floatKind {
	regs, step := accOrder[:], 8
	if i.wide {
		regs, step = []string{"Z0", "Z1", "Z2", "Z3"}, 16
	}
	tmp := regs[0][:1] + "8"
	k := floatKind{isa: i, kind: kind, gbytes: 64 * size,
		group: func(a *asm, r, q int) {
			for g, acc := range regs {
				a.i("%s %s, %s", load, m(r+g*step*size, "SI"), tmp)
				a.i("VFMADD231PS %s, %s, %s", m(q+g*step*4, "DI"), tmp, acc)
			}
		},
	}
	if load != "VMOVUPS" {
		k.decode = func(a *asm) {
			for g := range regs {
				a.i("%s %s, %s", load, m(g*step*size, "SI"), tmp)
				a.i("VMOVUPS %s, %s", tmp, m(g*step*4, "R13"))
			}
		}
	}
	return k
}

// scan is the generic scan. The padded kinds take groups whole groups a
// record; E5M2 takes any dim >= 1 and copies the last partial group to a
// zeroed stack buffer, so nothing past dim is read.
func (k floatKind) scan(f *file, doc ...string) {
	byDim := k.kind == ""
	sig, frame, groups := "(qp *float32, groups int, recs *byte, stride int, n int, out *float32)", "$0-48", "groups+8(FP)"
	if byDim {
		sig, frame, groups = "(qp *float32, dim int, recs *byte, stride int, n int, out *float32)", "$64-48", "R9"
	}
	a := f.text(k.name("scan")+sig, frame, doc...)
	k.prologue(a)
	if byDim {
		a.i("MOVQ dim+8(FP), R9")
		a.i("MOVQ R9, R10")
		a.i("SHRQ $6, R9 // whole groups")
		a.i("ANDQ $63, R10 // bytes in the last partial group")
	}
	a.i("MOVQ recs+16(FP), R11")
	a.i("MOVQ n+32(FP), CX")
	a.i("MOVQ out+40(FP), DX")
	k.afterLoads(a)
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.label("record")
	k.zero(a)
	a.i("MOVQ R11, SI")
	a.i("MOVQ qp+0(FP), DI")
	a.i("MOVQ %s, BX", groups)
	kk := k.kernel()
	if !byDim {
		kk.groupLoop(a)
		kk.nextRecord(a, "stride+24(FP)")
		return
	}
	a.i("TESTQ BX, BX")
	a.i("JZ   tail")
	kk.groupLoop(a)
	a.label("tail")
	a.i("TESTQ R10, R10")
	a.i("JZ   reduce")
	a.i("VPXOR Y8, Y8, Y8")
	a.i("VMOVDQU Y8, 0(SP)")
	a.i("VMOVDQU Y8, 32(SP)")
	a.i("XORQ AX, AX")
	a.label("copy")
	a.i("MOVBLZX (SI)(AX*1), R12")
	a.i("MOVB R12B, (SP)(AX*1)")
	a.i("INCQ AX")
	a.i("CMPQ AX, R10")
	a.i("JB   copy")
	a.i("LEAQ 0(SP), SI")
	k.group(a, 0, 0)
	a.label("reduce")
	kk.nextRecord(a, "stride+24(FP)")
}

// batch decodes each record once into scratch (or reads a laid-out F32
// record in place), then runs every query's canonical order over it:
// AVX2 one query at a time, AVX-512 two (Z0-Z3 and Z4-Z7), one load
// serving both.
func (k floatKind) batch(f *file, doc ...string) {
	a := f.text(k.name("batch")+"(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)", "$0-64", doc...)
	k.prologue(a)
	if k.wide {
		a.i("MOVQ groups+16(FP), R12")
		a.i("SHLQ $8, R12 // bytes per laid-out query")
	}
	a.i("MOVQ recs+24(FP), R11")
	a.i("MOVQ n+40(FP), CX")
	a.i("MOVQ CX, R9")
	a.i("SHLQ $2, R9 // bytes between two queries' scores")
	a.i("MOVQ out+56(FP), DX")
	k.afterLoads(a)
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.label("record")
	rec := "R11"
	if k.decode != nil {
		rec = "scratch+48(FP)"
		a.i("MOVQ R11, SI")
		a.i("MOVQ scratch+48(FP), R13")
		a.i("MOVQ groups+16(FP), BX")
		a.label("decode")
		// The scan's prefetch distance: without it a batch over records
		// in DRAM waited on every line.
		for l := 0; l < k.gbytes; l += 64 {
			a.i("PREFETCHT0 %s", m(k.pf+l, "SI"))
		}
		k.decode(a)
		a.i("ADDQ $%d, SI", k.gbytes)
		a.i("ADDQ $256, R13")
		a.i("DECQ BX")
		a.i("JNZ  decode")
	} else {
		// Read in place: prefetch the record the scan's distance ahead.
		a.i("LEAQ %d(R11), AX", k.pf)
		a.i("MOVQ groups+16(FP), BX")
		a.label("ahead")
		for l := 0; l < k.gbytes; l += 64 {
			a.i("PREFETCHT0 %s", m(l, "AX"))
		}
		a.i("ADDQ $%d, AX", k.gbytes)
		a.i("DECQ BX")
		a.i("JNZ  ahead")
	}
	a.i("MOVQ qps+0(FP), DI")
	a.i("MOVQ nq+8(FP), R8")
	a.i("MOVQ DX, R10")
	if k.wide {
		k.queryPairs(a, rec)
	} else {
		k.queries(a, rec)
	}
	a.i("ADDQ $4, DX")
	a.i("ADDQ stride+32(FP), R11")
	a.i("DECQ CX")
	a.i("JNZ  record")
	a.done("done")
}

// dotLoop is the canonical dot of the query at DI (and, for a pair, the
// one at R14 into Z4-Z7: one load serves both) and the laid-out record at
// R13, BX groups.
func (k floatKind) dotLoop(a *asm, label string, pair bool) {
	regs, step, tmp := accOrder[:], 32, "Y8"
	if k.wide {
		regs, step, tmp = []string{"Z0", "Z1", "Z2", "Z3"}, 64, "Z8"
	}
	a.label(label)
	for g, acc := range regs {
		a.i("VMOVUPS %s, %s", m(step*g, "R13"), tmp)
		a.i("VFMADD231PS %s, %s, %s", m(step*g, "DI"), tmp, acc)
		if pair {
			a.i("VFMADD231PS %s, %s, Z%d", m(step*g, "R14"), tmp, g+4)
		}
	}
	a.i("ADDQ $256, R13")
	a.i("ADDQ $256, DI")
	if pair {
		a.i("ADDQ $256, R14")
	}
	a.i("DECQ BX")
	a.i("JNZ  %s", label)
}

// queries runs each query over the laid-out record at rec (AVX2).
func (k floatKind) queries(a *asm, rec string) {
	a.label("query")
	k.zero(a)
	a.i("MOVQ %s, R13", rec)
	a.i("MOVQ groups+16(FP), BX")
	k.dotLoop(a, "dot", false)
	k.reduce(a)
	a.i("VMOVSS X0, (R10)")
	a.i("ADDQ R9, R10")
	a.i("DECQ R8")
	a.i("JNZ  query")
}

// queryPairs runs the queries two at a time (DI and R14 = DI+R12), then
// the odd one out (AVX-512).
func (k floatKind) queryPairs(a *asm, rec string) {
	a.label("pair")
	a.i("CMPQ R8, $2")
	a.i("JB   single")
	a.i("LEAQ (DI)(R12*1), R14")
	for r := 0; r < 8; r++ {
		a.i("VPXORD Z%d, Z%d, Z%d", r, r, r)
	}
	a.i("MOVQ %s, R13", rec)
	a.i("MOVQ groups+16(FP), BX")
	k.dotLoop(a, "dot2", true)
	a.comment("The reduction uses Z0-Z3: keep the second query's sums.")
	for g := 0; g < 4; g++ {
		a.i("VMOVAPS Z%d, Z%d", g+4, g+16)
	}
	k.reduce(a)
	a.i("VMOVSS X0, (R10)")
	a.i("ADDQ R9, R10")
	for g := 0; g < 4; g++ {
		a.i("VMOVAPS Z%d, Z%d", g+16, g)
	}
	k.reduce(a)
	a.i("VMOVSS X0, (R10)")
	a.i("ADDQ R9, R10")
	a.i("MOVQ R14, DI")
	a.i("SUBQ $2, R8")
	a.i("JMP  pair")
	a.label("single")
	a.i("TESTQ R8, R8")
	a.i("JZ   next")
	k.zero(a)
	a.i("MOVQ %s, R13", rec)
	a.i("MOVQ groups+16(FP), BX")
	k.dotLoop(a, "dot1", false)
	k.reduce(a)
	a.i("VMOVSS X0, (R10)")
	a.label("next")
}

// kernel adapts a float kind to the forms every kind shares.
func (k floatKind) kernel() kernel {
	return kernel{
		name:   k.name,
		gbytes: k.gbytes,
		qbytes: 256,
		pf:     k.pf,
		first:  k.prologue,
		setup:  func(a *asm, _, _ string) { k.afterLoads(a) },
		zero:   k.zero,
		group:  k.group,
		score: func(a *asm, _ bool) {
			k.reduce(a)
			a.i("VMOVSS X0, (DX)")
		},
		// E5M2 (one line a group) keeps the line count in R12.
		ownLines: k.kind != "",
	}
}
