package main

// kernel is what the forms every kind shares (fixed-384 scan, gathers)
// need of one kind on one ISA.
type kernel struct {
	name   func(form string) string
	gbytes int // record bytes per 64 components
	qbytes int // query bytes per 64 components
	pf     int // scan prefetch distance in bytes
	// first, when set, runs before the argument loads; setup once after the argument loads. qp is the register holding
	// the query ("" when not loaded yet), groups the one holding the group
	// count ("" for the fixed-384 forms).
	first func(a *asm)
	setup func(a *asm, qp, groups string)
	zero  func(a *asm)
	// group scores the 64 components at r(SI) against the query at q(DI).
	group func(a *asm, r, q int)
	// score writes the record's score to (DX); fixed: the 384 forms.
	score func(a *asm, fixed bool)
	// ownLines: R14 counts a record's lines (groups*gbytes/64) and the
	// prefetch pointer advances before the group; else R12 (groups) does,
	// one line a group, and it advances after.
	ownLines bool
}

// scan384 is the fixed-384 scan: six groups unrolled, records 6*gbytes
// apart, each group's lines prefetched pf bytes ahead.
func (k kernel) scan384(f *file, doc ...string) {
	a := f.text(k.name("scan384")+"(qp *float32, recs *byte, n int, out *float32)", "$0-32", doc...)
	k.prologue(a)
	a.i("MOVQ qp+0(FP), DI")
	a.i("MOVQ recs+8(FP), SI")
	a.i("MOVQ n+16(FP), CX")
	a.i("MOVQ out+24(FP), DX")
	k.setup(a, "DI", "")
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.label("loop")
	k.zero(a)
	for g := 0; g < 6; g++ {
		for l := 0; l < k.gbytes; l += 64 {
			a.i("PREFETCHT0 %s", m(k.pf+g*k.gbytes+l, "SI"))
		}
		k.group(a, g*k.gbytes, g*k.qbytes)
	}
	k.score(a, true)
	a.i("ADDQ $4, DX")
	a.i("ADDQ $%d, SI", 6*k.gbytes)
	a.i("DECQ CX")
	a.i("JNZ  loop")
	a.done("done")
}

// groupLoop scores BX groups of the record at SI, prefetching each
// group's lines pf bytes ahead.
func (k kernel) groupLoop(a *asm) {
	a.label("group")
	for l := 0; l < k.gbytes; l += 64 {
		a.i("PREFETCHT0 %s", m(k.pf+l, "SI"))
	}
	k.group(a, 0, 0)
	a.i("ADDQ $%d, SI", k.gbytes)
	a.i("ADDQ $%d, DI", k.qbytes)
	a.i("DECQ BX")
	a.i("JNZ  group")
}

// nextRecord scores the record, steps R11 by stride to the next one and
// loops while CX records are left.
func (k kernel) nextRecord(a *asm, stride string) {
	k.score(a, false)
	a.i("ADDQ $4, DX")
	a.i("ADDQ %s, R11", stride)
	a.i("DECQ CX")
	a.i("JNZ  record")
	a.done("done")
}

// Gathers: record i is at base + ids[i]*stride (any stride: graph blocks
// are only 4-byte aligned). Neighbours of a graph node lie at random
// places, in DRAM more often than not, so a gather keeps about 112 lines
// in flight: it prefetches every line of the first R13 records before its
// loop, then, while scoring record i, the lines of record i+R13 (each
// record's lines plus the one just past it, where a graph keeps the
// record's header). At 384 bytes that is 16 records ahead. Two ahead left
// HNSW searches waiting on memory: 100k × 384 clustered, ef 16–256, p50
// fell 35–40% with 16 (12 and 16 measured alike, 32 slower).
//
// Registers: DI query, SI record, R8 base, R9 stride, R10 ids, CX records
// left, DX out, R11 record to prefetch, R12 groups, R13 records ahead,
// R14 lines per record (ownLines), AX and BX scratch.

// gatherAhead sets R13 to 112/(lines+1) clamped to 2..16. Clobbers AX, BX
// and DX.
func gatherAhead(a *asm, lines string) {
	a.i("LEAQ 1(%s), BX", lines)
	a.i("MOVQ $112, AX")
	a.i("XORL DX, DX")
	a.i("DIVQ BX")
	a.i("MOVQ $2, BX")
	a.i("CMPQ AX, BX")
	a.i("CMOVQCS BX, AX")
	a.i("MOVQ $16, BX")
	a.i("CMPQ AX, BX")
	a.i("CMOVQHI BX, AX")
	a.i("MOVQ AX, R13")
}

// gatherFirst prefetches the first min(CX, R13) records, lines lines each
// and the line past them. Clobbers AX, BX, DI, SI and R11; CX >= 1.
func gatherFirst(a *asm, lines string) {
	a.i("MOVQ CX, BX")
	a.i("CMPQ BX, R13")
	a.i("JBE  some")
	a.i("MOVQ R13, BX")
	a.label("some")
	a.i("MOVQ R10, DI")
	a.label("first")
	a.i("MOVL (DI), AX")
	a.i("IMULQ R9, AX")
	a.i("LEAQ (R8)(AX*1), R11")
	a.i("MOVQ %s, SI", lines)
	a.label("firstLine")
	a.i("PREFETCHT0 (R11)")
	a.i("ADDQ $64, R11")
	a.i("DECQ SI")
	a.i("JNZ  firstLine")
	a.i("PREFETCHT0 (R11)")
	a.i("ADDQ $4, DI")
	a.i("DECQ BX")
	a.i("JNZ  first")
}

// gatherNext sets SI to the current record and R11 to the one R13 ids
// ahead, or to the current one near the end (prefetching it again costs
// nothing).
func gatherNext(a *asm) {
	a.i("MOVL (R10), AX")
	a.i("IMULQ R9, AX")
	a.i("LEAQ (R8)(AX*1), SI")
	a.i("MOVQ SI, R11")
	a.i("CMPQ CX, R13")
	a.i("JBE  ahead")
	a.i("MOVL (R10)(R13*4), AX")
	a.i("IMULQ R9, AX")
	a.i("LEAQ (R8)(AX*1), R11")
	a.label("ahead")
}

// gatherArgs loads the gather arguments after groups (off: groups' size).
func gatherArgs(a *asm, off int) {
	a.i("MOVQ base+%d(FP), R8", 8+off)
	a.i("MOVQ stride+%d(FP), R9", 16+off)
	a.i("MOVQ ids+%d(FP), R10", 24+off)
	a.i("MOVQ n+%d(FP), CX", 32+off)
	a.i("MOVQ out+%d(FP), DX", 40+off)
}

// gatherEnd scores the record and steps to the next id.
func (k kernel) gatherEnd(a *asm, fixed bool, loop string) {
	k.score(a, fixed)
	a.i("ADDQ $4, DX")
	a.i("ADDQ $4, R10")
	a.i("DECQ CX")
	a.i("JNZ  %s", loop)
	a.done("done")
}

// gather384 is the fixed-384 gather: six lines a record, 16 ahead.
func (k kernel) gather384(f *file, doc ...string) {
	a := f.text(k.name("gather384")+"(qp *float32, base *byte, stride int, ids *uint32, n int, out *float32)", "$0-48", doc...)
	k.prologue(a)
	gatherArgs(a, 0)
	k.setup(a, "", "")
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	a.i("MOVQ $16, R13 // gatherAhead of 6 lines")
	a.i("MOVQ $6, R12")
	gatherFirst(a, "R12")
	a.i("MOVQ qp+0(FP), DI")
	a.label("loop")
	gatherNext(a)
	k.zero(a)
	for g := 0; g < 6; g++ {
		a.i("PREFETCHT0 %s", m(64*g, "R11"))
		k.group(a, 64*g, k.qbytes*g)
	}
	a.i("PREFETCHT0 384(R11)")
	k.gatherEnd(a, true, "loop")
}

// gather is the generic gather: groups >= 1 groups a record.
func (k kernel) gather(f *file, doc ...string) { k.gatherForm(f, "gather", false, doc...) }

// gatherShort is the generic gather finishing each sum in int32, which
// holds it for records of up to 512 components (kernel/_gen/int8.go):
// short records spend much of their time in that finish.
func (k kernel) gatherShort(f *file, doc ...string) { k.gatherForm(f, "gatherShort", true, doc...) }

func (k kernel) gatherForm(f *file, form string, fixed bool, doc ...string) {
	a := f.text(k.name(form)+"(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)", "$0-56", doc...)
	k.prologue(a)
	lines, lpg := "R12", k.gbytes/64
	a.i("MOVQ groups+8(FP), R12")
	if k.ownLines {
		lines = "R14"
		a.i("MOVQ R12, R14")
		a.i("IMULQ $%d, R14", lpg)
	}
	gatherAhead(a, lines)
	gatherArgs(a, 8)
	k.setup(a, "", "R12")
	a.i("TESTQ CX, CX")
	a.i("JZ   done")
	gatherFirst(a, lines)
	a.label("record")
	gatherNext(a)
	k.zero(a)
	a.i("MOVQ qp+0(FP), DI")
	a.i("MOVQ R12, BX")
	a.label("group")
	for l := 0; l < lpg; l++ {
		a.i("PREFETCHT0 %s", m(64*l, "R11"))
	}
	if k.ownLines {
		a.i("ADDQ $%d, R11", k.gbytes)
	}
	k.group(a, 0, 0)
	a.i("ADDQ $%d, SI", k.gbytes)
	if !k.ownLines {
		a.i("ADDQ $64, R11")
	}
	a.i("ADDQ $%d, DI", k.qbytes)
	a.i("DECQ BX")
	a.i("JNZ  group")
	a.i("PREFETCHT0 (R11)")
	k.gatherEnd(a, fixed, "record")
}

func (k kernel) prologue(a *asm) {
	if k.first != nil {
		k.first(a)
	}
}
