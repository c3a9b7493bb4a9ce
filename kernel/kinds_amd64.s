//go:build !noasm

#include "textflag.h"

#include "e5m2_amd64.h"

// AVX2 and AVX-512 kernels of the E4M3, F16 and F32 kinds. They share the
// E5M2 kernels' canonical accumulators and reduction (ZERO, REDUCE, ZERO4,
// REDUCE512 in e5m2_amd64.h), so the score bits are those of the pure-Go
// references (kinds.go, goFuncs). dim is always padded to a multiple of 64
// (groups = dim/64) and records are zero-padded, so there is no tail.
//
// Registers: DI query, SI record, Y0-Y7 accumulators (Z0-Z3 for AVX-512),
// Y8-Y11 temporaries, Y15 the E4M3 mask. F16 and F32 records are stored in
// the laid-out order: position group g (8 values) goes to accumulator
// accOf(g&7), i.e. groups 0-7 of 64 positions to Y0, Y2, Y1, Y3, Y4, Y6,
// Y5, Y7. E4M3 records are in component order, split into evens and odds
// like E5M2.

// PF is how far ahead (bytes) the AVX2 scans prefetch (the E5M2 distance).
#define PF 4096

// PF512 is the AVX-512 scans' distance (the E5M2 AVX-512 one).
#define PF512 8192

// E4MASK sets Y15 to 0xbf80 in every 16-bit word: the sign and the 7 code
// bits of an E4M3 byte once shifted into binary16 position.
#define E4MASK MOVL $0xbf80bf80, AX; VMOVD AX, X15; VPBROADCASTD X15, Y15

// E4HALVES decodes the 16 E4M3 bytes in reg (X8 or Y8 for 32) into binary16
// evens (e) and odds (o): code b becomes (b&0x80)<<8 | (b&0x7f)<<7
// (e4m3ToF16). An arithmetic shift right by 1 of a byte in the high half of
// a word puts its 7 low bits at 13..7 and copies the sign into bits 15 and
// 14; the mask clears bit 14 and the other byte's bits.
#define E4HALVES(reg, e, o) \
	VPSLLW $8, reg, e; \
	VPSRAW $1, e, e; \
	VPSRAW $1, reg, o; \
	VPAND  X15, e, e; \
	VPAND  X15, o, o

#define E4HALVES256(reg, e, o) \
	VPSLLW $8, reg, e; \
	VPSRAW $1, e, e; \
	VPSRAW $1, reg, o; \
	VPAND  Y15, e, e; \
	VPAND  Y15, o, o

// E4BLOCK scores the 16 E4M3 bytes at roff(SI) against the laid-out query:
// evens at qe(DI), odds at qo(DI).
#define E4BLOCK(roff, qe, qo, accE, accO) \
	VMOVDQU roff(SI), X8; \
	E4HALVES(X8, X9, X10); \
	VCVTPH2PS X9, Y9; \
	VCVTPH2PS X10, Y10; \
	VFMADD231PS qe(DI), Y9, accE; \
	VFMADD231PS qo(DI), Y10, accO

// E4GROUP is 64 E4M3 components at r(SI), query at q(DI).
#define E4GROUP(r, q) \
	E4BLOCK((r+0), (q+0), (q+64), Y0, Y1); \
	E4BLOCK((r+16), (q+32), (q+96), Y2, Y3); \
	E4BLOCK((r+32), (q+128), (q+192), Y4, Y5); \
	E4BLOCK((r+48), (q+160), (q+224), Y6, Y7)

// H8 is one position group of f16: 8 values at roff(SI) widened by the
// load, times the query at qoff(DI), into acc.
#define H8(roff, qoff, acc) \
	VCVTPH2PS roff(SI), Y8; \
	VFMADD231PS qoff(DI), Y8, acc

// F16GROUP is 64 f16 components (128 bytes) at r(SI), query at q(DI).
#define F16GROUP(r, q) \
	H8((r+0), (q+0), Y0); \
	H8((r+16), (q+32), Y2); \
	H8((r+32), (q+64), Y1); \
	H8((r+48), (q+96), Y3); \
	H8((r+64), (q+128), Y4); \
	H8((r+80), (q+160), Y6); \
	H8((r+96), (q+192), Y5); \
	H8((r+112), (q+224), Y7)

// S8 is one position group of f32.
#define S8(roff, qoff, acc) \
	VMOVUPS roff(SI), Y8; \
	VFMADD231PS qoff(DI), Y8, acc

// F32GROUP is 64 f32 components (256 bytes) at r(SI), query at q(DI).
#define F32GROUP(r, q) \
	S8((r+0), (q+0), Y0); \
	S8((r+32), (q+32), Y2); \
	S8((r+64), (q+64), Y1); \
	S8((r+96), (q+96), Y3); \
	S8((r+128), (q+128), Y4); \
	S8((r+160), (q+160), Y6); \
	S8((r+192), (q+192), Y5); \
	S8((r+224), (q+224), Y7)

// PREFETCH1/2/4 prefetch the 1, 2 or 4 lines of a group of each kind,
// PF bytes ahead of r(SI).
#define PREFETCH1(r) PREFETCHT0 (PF+r)(SI)
#define PREFETCH2(r) PREFETCHT0 (PF+r)(SI); PREFETCHT0 (PF+r+64)(SI)
#define PREFETCH4(r) PREFETCHT0 (PF+r)(SI); PREFETCHT0 (PF+r+64)(SI); PREFETCHT0 (PF+r+128)(SI); PREFETCHT0 (PF+r+192)(SI)

// SCANBODY is the record loop of the generic scans: gbytes record bytes
// per group of 64 components, pfg prefetching them and grp scoring them.
#define SCANBODY(gbytes, pfg, grp, zero, reduce) \
	MOVQ recs+16(FP), R11; \
	MOVQ n+32(FP), CX; \
	MOVQ out+40(FP), DX; \
	TESTQ CX, CX; \
	JZ   done; \
record: \
	zero; \
	MOVQ R11, SI; \
	MOVQ qp+0(FP), DI; \
	MOVQ groups+8(FP), BX; \
group: \
	pfg(0); \
	grp(0, 0); \
	ADDQ $gbytes, SI; \
	ADDQ $256, DI; \
	DECQ BX; \
	JNZ  group; \
	reduce; \
	VMOVSS X0, (DX); \
	ADDQ $4, DX; \
	ADDQ stride+24(FP), R11; \
	DECQ CX; \
	JNZ  record; \
done: \
	VZEROUPPER; \
	RET

// SCAN384 is the record loop of the fixed-384 scans: six groups unrolled,
// records gbytes*6 apart.
#define SCAN384(gbytes, pfg, grp, zero, reduce) \
	MOVQ qp+0(FP), DI; \
	MOVQ recs+8(FP), SI; \
	MOVQ n+16(FP), CX; \
	MOVQ out+24(FP), DX; \
	TESTQ CX, CX; \
	JZ   done; \
loop: \
	zero; \
	pfg(0); \
	grp(0, 0); \
	pfg(gbytes); \
	grp(gbytes, 256); \
	pfg(2*gbytes); \
	grp(2*gbytes, 512); \
	pfg(3*gbytes); \
	grp(3*gbytes, 768); \
	pfg(4*gbytes); \
	grp(4*gbytes, 1024); \
	pfg(5*gbytes); \
	grp(5*gbytes, 1280); \
	reduce; \
	VMOVSS X0, (DX); \
	ADDQ $4, DX; \
	ADDQ $(6*gbytes), SI; \
	DECQ CX; \
	JNZ  loop; \
done: \
	VZEROUPPER; \
	RET

// E4DECODE writes the 16 E4M3 components at roff(SI) to R13 laid out: evens
// at qe, odds at qo.
#define E4DECODE(roff, qe, qo) \
	VMOVDQU roff(SI), X8; \
	E4HALVES(X8, X9, X10); \
	VCVTPH2PS X9, Y9; \
	VCVTPH2PS X10, Y10; \
	VMOVUPS Y9, qe(R13); \
	VMOVUPS Y10, qo(R13)

#define E4DECGROUP \
	E4DECODE(0, 0, 64); \
	E4DECODE(16, 32, 96); \
	E4DECODE(32, 128, 192); \
	E4DECODE(48, 160, 224)

// H8DECODE widens 8 f16 values at off/2(SI) to off(R13).
#define H8DECODE(roff, off) \
	VCVTPH2PS roff(SI), Y8; \
	VMOVUPS Y8, off(R13)

#define F16DECGROUP \
	H8DECODE(0, 0); H8DECODE(16, 32); H8DECODE(32, 64); H8DECODE(48, 96); \
	H8DECODE(64, 128); H8DECODE(80, 160); H8DECODE(96, 192); H8DECODE(112, 224)

// KDOT8 is one position group of the canonical dot of the laid-out f32
// record at R13 and the query at DI.
#define KDOT8(off, acc) \
	VMOVUPS off(R13), Y8; \
	VFMADD231PS off(DI), Y8, acc

// BATCHQUERIES runs every query over the laid-out f32 record at the
// address in rec, writing its score at DX + q*n*4.
#define BATCHQUERIES(rec) \
	MOVQ qps+0(FP), DI; \
	MOVQ nq+8(FP), R8; \
	MOVQ DX, R10; \
query: \
	ZERO; \
	MOVQ rec, R13; \
	MOVQ groups+16(FP), BX; \
dot: \
	KDOT8(0, Y0); \
	KDOT8(32, Y2); \
	KDOT8(64, Y1); \
	KDOT8(96, Y3); \
	KDOT8(128, Y4); \
	KDOT8(160, Y6); \
	KDOT8(192, Y5); \
	KDOT8(224, Y7); \
	ADDQ $256, R13; \
	ADDQ $256, DI; \
	DECQ BX; \
	JNZ  dot; \
	REDUCE; \
	VMOVSS X0, (R10); \
	ADDQ R9, R10; \
	DECQ R8; \
	JNZ  query

// BATCHSTART loads the record loop's registers: R11 record, CX records
// left, R9 bytes between two queries' scores, DX out.
#define BATCHSTART \
	MOVQ recs+24(FP), R11; \
	MOVQ n+40(FP), CX; \
	MOVQ CX, R9; \
	SHLQ $2, R9; \
	MOVQ out+56(FP), DX; \
	TESTQ CX, CX; \
	JZ   done

#define BATCHNEXT \
	ADDQ $4, DX; \
	ADDQ stride+32(FP), R11; \
	DECQ CX; \
	JNZ  record; \
done: \
	VZEROUPPER; \
	RET

// Gathers: record i is at base + ids[i]*stride (stride arbitrary: graph
// blocks are only 4-byte aligned), prefetched as gather_amd64.h says.
//
// Registers: DI query, SI record, R8 base, R9 stride, R10 ids, CX records
// left, DX out, R11 record to prefetch, R12 groups, R13 records ahead, R14
// lines per record, AX and BX scratch.

#include "gather_amd64.h"

// GPF1/2/4 prefetch one group's lines of the record at R11 and advance it.
#define GPF1 PREFETCHT0 (R11); ADDQ $64, R11
#define GPF2 PREFETCHT0 (R11); PREFETCHT0 64(R11); ADDQ $128, R11
#define GPF4 PREFETCHT0 (R11); PREFETCHT0 64(R11); PREFETCHT0 128(R11); PREFETCHT0 192(R11); ADDQ $256, R11

// GATHERBODY is the gather loop: lpg lines (gbytes bytes) per group, gpf
// prefetching them, grp scoring them, zero clearing the accumulators and
// reduce folding them into X0.
#define GATHERBODY(lpg, gbytes, gpf, grp, zero, reduce) \
	MOVQ groups+8(FP), R12; \
	MOVQ R12, R14; \
	IMULQ $lpg, R14; \
	GATHER_AHEAD(R14); \
	MOVQ base+16(FP), R8; \
	MOVQ stride+24(FP), R9; \
	MOVQ ids+32(FP), R10; \
	MOVQ n+40(FP), CX; \
	MOVQ out+48(FP), DX; \
	TESTQ CX, CX; \
	JZ   done; \
	GATHER_FIRST(first, firstLine, some, R14); \
record: \
	GATHER_NEXT(ahead); \
	zero; \
	MOVQ qp+0(FP), DI; \
	MOVQ R12, BX; \
group: \
	gpf; \
	grp(0, 0); \
	ADDQ $gbytes, SI; \
	ADDQ $256, DI; \
	DECQ BX; \
	JNZ  group; \
	PREFETCHT0 (R11); \
	reduce; \
	VMOVSS X0, (DX); \
	ADDQ $4, DX; \
	ADDQ $4, R10; \
	DECQ CX; \
	JNZ  record; \
done: \
	VZEROUPPER; \
	RET

// AVX-512: each of Z0-Z3 holds two canonical accumulators, (acc0|acc2),
// (acc1|acc3), (acc4|acc6), (acc5|acc7) (e5m2_amd64.h), so 16 laid-out
// positions 16k..16k+15 of a group go to Z(k): exactly the AVX2 lanes.

// E4PAIR scores the 32 E4M3 bytes (two blocks) at roff(SI): 16 evens
// against qoff(DI), 16 odds against qoff+64(DI).
#define E4PAIR(roff, qoff, accE, accO) \
	VMOVDQU roff(SI), Y8; \
	E4HALVES256(Y8, Y9, Y10); \
	VCVTPH2PS Y9, Z9; \
	VCVTPH2PS Y10, Z10; \
	VFMADD231PS qoff(DI), Z9, accE; \
	VFMADD231PS (qoff+64)(DI), Z10, accO

#define E4GROUP512(r, q) \
	E4PAIR((r+0), (q+0), Z0, Z1); \
	E4PAIR((r+32), (q+128), Z2, Z3)

// H16 is 16 laid-out f16 values at roff(SI) times the query at qoff(DI).
#define H16(roff, qoff, acc) \
	VCVTPH2PS roff(SI), Z8; \
	VFMADD231PS qoff(DI), Z8, acc

#define F16GROUP512(r, q) \
	H16((r+0), (q+0), Z0); \
	H16((r+32), (q+64), Z1); \
	H16((r+64), (q+128), Z2); \
	H16((r+96), (q+192), Z3)

// S16 is 16 laid-out f32 values at roff(SI) times the query at qoff(DI).
#define S16(roff, qoff, acc) \
	VMOVUPS roff(SI), Z8; \
	VFMADD231PS qoff(DI), Z8, acc

#define F32GROUP512(r, q) \
	S16((r+0), (q+0), Z0); \
	S16((r+64), (q+64), Z1); \
	S16((r+128), (q+128), Z2); \
	S16((r+192), (q+192), Z3)

#define PFZ1(r) PREFETCHT0 (PF512+r)(SI)
#define PFZ2(r) PREFETCHT0 (PF512+r)(SI); PREFETCHT0 (PF512+r+64)(SI)
#define PFZ4(r) PREFETCHT0 (PF512+r)(SI); PREFETCHT0 (PF512+r+64)(SI); PREFETCHT0 (PF512+r+128)(SI); PREFETCHT0 (PF512+r+192)(SI)

// E4DECODE512 writes 32 E4M3 components at roff(SI) to qoff(R13) laid out.
#define E4DECODE512(roff, qoff) \
	VMOVDQU roff(SI), Y8; \
	E4HALVES256(Y8, Y9, Y10); \
	VCVTPH2PS Y9, Z9; \
	VCVTPH2PS Y10, Z10; \
	VMOVUPS Z9, qoff(R13); \
	VMOVUPS Z10, (qoff+64)(R13)

#define E4DECGROUP512 E4DECODE512(0, 0); E4DECODE512(32, 128)

// H16DECODE widens 16 f16 values at roff(SI) to off(R13).
#define H16DECODE(roff, off) \
	VCVTPH2PS roff(SI), Z8; \
	VMOVUPS Z8, off(R13)

#define F16DECGROUP512 H16DECODE(0, 0); H16DECODE(32, 64); H16DECODE(64, 128); H16DECODE(96, 192)

// KDOT2 is 16 laid-out values of two queries (DI and R14) against the
// record at R13: one load serves both.
#define KDOT2(off, accA, accB) \
	VMOVUPS off(R13), Z8; \
	VFMADD231PS off(DI), Z8, accA; \
	VFMADD231PS off(R14), Z8, accB

#define KDOT1(off, acc) \
	VMOVUPS off(R13), Z8; \
	VFMADD231PS off(DI), Z8, acc

// BATCHQUERIES512 runs every query over the laid-out f32 record at the
// address in rec, two queries at a time (Z0-Z3 and Z4-Z7), as batchAVX512.
#define BATCHQUERIES512(rec) \
	MOVQ qps+0(FP), DI; \
	MOVQ nq+8(FP), R8; \
	MOVQ DX, R10; \
pair: \
	CMPQ R8, $2; \
	JB   single; \
	LEAQ (DI)(R12*1), R14; \
	ZERO4; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	MOVQ rec, R13; \
	MOVQ groups+16(FP), BX; \
dot2: \
	KDOT2(0, Z0, Z4); \
	KDOT2(64, Z1, Z5); \
	KDOT2(128, Z2, Z6); \
	KDOT2(192, Z3, Z7); \
	ADDQ $256, R13; \
	ADDQ $256, DI; \
	ADDQ $256, R14; \
	DECQ BX; \
	JNZ  dot2; \
	VMOVAPS Z4, Z16; \
	VMOVAPS Z5, Z17; \
	VMOVAPS Z6, Z18; \
	VMOVAPS Z7, Z19; \
	REDUCE512; \
	VMOVSS X0, (R10); \
	ADDQ R9, R10; \
	VMOVAPS Z16, Z0; \
	VMOVAPS Z17, Z1; \
	VMOVAPS Z18, Z2; \
	VMOVAPS Z19, Z3; \
	REDUCE512; \
	VMOVSS X0, (R10); \
	ADDQ R9, R10; \
	MOVQ R14, DI; \
	SUBQ $2, R8; \
	JMP  pair; \
single: \
	TESTQ R8, R8; \
	JZ   next; \
	ZERO4; \
	MOVQ rec, R13; \
	MOVQ groups+16(FP), BX; \
dot1: \
	KDOT1(0, Z0); \
	KDOT1(64, Z1); \
	KDOT1(128, Z2); \
	KDOT1(192, Z3); \
	ADDQ $256, R13; \
	ADDQ $256, DI; \
	DECQ BX; \
	JNZ  dot1; \
	REDUCE512; \
	VMOVSS X0, (R10); \
next:

// func scanE4M3AVX2(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: groups >= 1; qp holds groups*64 laid-out values; record i
// starts at recs+i*stride and has groups*64 readable bytes.
TEXT ·scanE4M3AVX2(SB), NOSPLIT, $0-48
	E4MASK
	SCANBODY(64, PREFETCH1, E4GROUP, ZERO, REDUCE)

// func scanF16AVX2(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: as scanE4M3AVX2, records of groups*128 bytes.
TEXT ·scanF16AVX2(SB), NOSPLIT, $0-48
	SCANBODY(128, PREFETCH2, F16GROUP, ZERO, REDUCE)

// func scanF32AVX2(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: as scanE4M3AVX2, records of groups*256 bytes.
TEXT ·scanF32AVX2(SB), NOSPLIT, $0-48
	SCANBODY(256, PREFETCH4, F32GROUP, ZERO, REDUCE)

// func scan384E4M3AVX2(qp *float32, recs *byte, n int, out *float32)
// Requires: qp holds 384 laid-out values; recs holds n records 384 bytes apart.
TEXT ·scan384E4M3AVX2(SB), NOSPLIT, $0-32
	E4MASK
	SCAN384(64, PREFETCH1, E4GROUP, ZERO, REDUCE)

// func scan384F16AVX2(qp *float32, recs *byte, n int, out *float32)
// Requires: qp holds 384 laid-out values; recs holds n records 768 bytes apart.
TEXT ·scan384F16AVX2(SB), NOSPLIT, $0-32
	SCAN384(128, PREFETCH2, F16GROUP, ZERO, REDUCE)

// func scan384F32AVX2(qp *float32, recs *byte, n int, out *float32)
// Requires: qp holds 384 laid-out values; recs holds n records 1536 bytes apart.
TEXT ·scan384F32AVX2(SB), NOSPLIT, $0-32
	SCAN384(256, PREFETCH4, F32GROUP, ZERO, REDUCE)

// func batchE4M3AVX2(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: nq >= 1; groups >= 1; query q laid out at qps+q*groups*64;
// records of groups*64 bytes, stride apart; scratch holds groups*64 values;
// out holds n*nq values, query-major (out[q*n+r]). Each record is decoded
// once into scratch, then every query runs the canonical order over it.
TEXT ·batchE4M3AVX2(SB), NOSPLIT, $0-64
	E4MASK
	BATCHSTART

record:
	MOVQ R11, SI
	MOVQ scratch+48(FP), R13
	MOVQ groups+16(FP), BX

decode:
	E4DECGROUP
	ADDQ $64, SI
	ADDQ $256, R13
	DECQ BX
	JNZ  decode
	BATCHQUERIES(scratch+48(FP))
	BATCHNEXT

// func batchF16AVX2(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: as batchE4M3AVX2, records of groups*128 bytes.
TEXT ·batchF16AVX2(SB), NOSPLIT, $0-64
	BATCHSTART

record:
	MOVQ R11, SI
	MOVQ scratch+48(FP), R13
	MOVQ groups+16(FP), BX

decode:
	F16DECGROUP
	ADDQ $128, SI
	ADDQ $256, R13
	DECQ BX
	JNZ  decode
	BATCHQUERIES(scratch+48(FP))
	BATCHNEXT

// func batchF32AVX2(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: as batchE4M3AVX2, records of groups*256 bytes. The record is
// already laid-out f32: the queries read it in place and scratch is unused.
TEXT ·batchF32AVX2(SB), NOSPLIT, $0-64
	BATCHSTART

record:
	BATCHQUERIES(R11)
	BATCHNEXT

// func gatherE4M3AVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: groups >= 1; qp holds groups*64 laid-out values; n >= 0; each
// record base+ids[i]*stride has groups*64 readable bytes.
TEXT ·gatherE4M3AVX2(SB), NOSPLIT, $0-56
	E4MASK
	GATHERBODY(1, 64, GPF1, E4GROUP, ZERO, REDUCE)

// func gatherF16AVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: as gatherE4M3AVX2, records of groups*128 bytes.
TEXT ·gatherF16AVX2(SB), NOSPLIT, $0-56
	GATHERBODY(2, 128, GPF2, F16GROUP, ZERO, REDUCE)

// func gatherF32AVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: as gatherE4M3AVX2, records of groups*256 bytes.
TEXT ·gatherF32AVX2(SB), NOSPLIT, $0-56
	GATHERBODY(4, 256, GPF4, F32GROUP, ZERO, REDUCE)

// func scanE4M3AVX512(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: as scanE4M3AVX2.
TEXT ·scanE4M3AVX512(SB), NOSPLIT, $0-48
	E4MASK
	SCANBODY(64, PFZ1, E4GROUP512, ZERO4, REDUCE512)

// func scanF16AVX512(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: as scanF16AVX2.
TEXT ·scanF16AVX512(SB), NOSPLIT, $0-48
	SCANBODY(128, PFZ2, F16GROUP512, ZERO4, REDUCE512)

// func scanF32AVX512(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: as scanF32AVX2.
TEXT ·scanF32AVX512(SB), NOSPLIT, $0-48
	SCANBODY(256, PFZ4, F32GROUP512, ZERO4, REDUCE512)

// func scan384E4M3AVX512(qp *float32, recs *byte, n int, out *float32)
// Requires: as scan384E4M3AVX2.
TEXT ·scan384E4M3AVX512(SB), NOSPLIT, $0-32
	E4MASK
	SCAN384(64, PFZ1, E4GROUP512, ZERO4, REDUCE512)

// func scan384F16AVX512(qp *float32, recs *byte, n int, out *float32)
// Requires: as scan384F16AVX2.
TEXT ·scan384F16AVX512(SB), NOSPLIT, $0-32
	SCAN384(128, PFZ2, F16GROUP512, ZERO4, REDUCE512)

// func scan384F32AVX512(qp *float32, recs *byte, n int, out *float32)
// Requires: as scan384F32AVX2.
TEXT ·scan384F32AVX512(SB), NOSPLIT, $0-32
	SCAN384(256, PFZ4, F32GROUP512, ZERO4, REDUCE512)

// func batchE4M3AVX512(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: as batchE4M3AVX2.
TEXT ·batchE4M3AVX512(SB), NOSPLIT, $0-64
	E4MASK
	MOVQ groups+16(FP), R12
	SHLQ $8, R12 // bytes per laid-out query
	BATCHSTART

record:
	MOVQ R11, SI
	MOVQ scratch+48(FP), R13
	MOVQ groups+16(FP), BX

decode:
	E4DECGROUP512
	ADDQ $64, SI
	ADDQ $256, R13
	DECQ BX
	JNZ  decode
	BATCHQUERIES512(scratch+48(FP))
	BATCHNEXT

// func batchF16AVX512(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: as batchF16AVX2.
TEXT ·batchF16AVX512(SB), NOSPLIT, $0-64
	MOVQ groups+16(FP), R12
	SHLQ $8, R12
	BATCHSTART

record:
	MOVQ R11, SI
	MOVQ scratch+48(FP), R13
	MOVQ groups+16(FP), BX

decode:
	F16DECGROUP512
	ADDQ $128, SI
	ADDQ $256, R13
	DECQ BX
	JNZ  decode
	BATCHQUERIES512(scratch+48(FP))
	BATCHNEXT

// func batchF32AVX512(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: as batchF32AVX2; scratch is unused.
TEXT ·batchF32AVX512(SB), NOSPLIT, $0-64
	MOVQ groups+16(FP), R12
	SHLQ $8, R12
	BATCHSTART

record:
	BATCHQUERIES512(R11)
	BATCHNEXT

// func gatherE4M3AVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: as gatherE4M3AVX2.
TEXT ·gatherE4M3AVX512(SB), NOSPLIT, $0-56
	E4MASK
	GATHERBODY(1, 64, GPF1, E4GROUP512, ZERO4, REDUCE512)

// func gatherF16AVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: as gatherF16AVX2.
TEXT ·gatherF16AVX512(SB), NOSPLIT, $0-56
	GATHERBODY(2, 128, GPF2, F16GROUP512, ZERO4, REDUCE512)

// func gatherF32AVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: as gatherF32AVX2.
TEXT ·gatherF32AVX512(SB), NOSPLIT, $0-56
	GATHERBODY(4, 256, GPF4, F32GROUP512, ZERO4, REDUCE512)
