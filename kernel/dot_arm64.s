//go:build !noasm

#include "textflag.h"

// Register use in the scoring kernels: V0-V15 are the 8 canonical
// accumulators of 8 lanes, lanes 0-3 of accumulator k in V(2k) and lanes 4-7
// in V(2k+1); V31 is zero while records are decoded; V16-V30 are temporaries.
//
// Go's assembler lacks FCVTL, FCVTL2, vector FADD and FADDP, so they are
// WORDs with the instruction in a comment; TestNEONWordsDecode disassembles
// the built kernels with aarch64-linux-gnu-objdump and checks each one.

// PF is how far ahead (bytes) the scan prefetches: the amd64 distance, not
// yet measured on an ARM core.
#define PF 4096

#define ZERO \
	VEOR V0.B16, V0.B16, V0.B16; VEOR V1.B16, V1.B16, V1.B16; \
	VEOR V2.B16, V2.B16, V2.B16; VEOR V3.B16, V3.B16, V3.B16; \
	VEOR V4.B16, V4.B16, V4.B16; VEOR V5.B16, V5.B16, V5.B16; \
	VEOR V6.B16, V6.B16, V6.B16; VEOR V7.B16, V7.B16, V7.B16; \
	VEOR V8.B16, V8.B16, V8.B16; VEOR V9.B16, V9.B16, V9.B16; \
	VEOR V10.B16, V10.B16, V10.B16; VEOR V11.B16, V11.B16, V11.B16; \
	VEOR V12.B16, V12.B16, V12.B16; VEOR V13.B16, V13.B16, V13.B16; \
	VEOR V14.B16, V14.B16, V14.B16; VEOR V15.B16, V15.B16, V15.B16

// WIDEN decodes the 16 E5M2 bytes in rv: TRN1/TRN2 against zero put the
// even bytes (V24) and the odd bytes (V25) in the high half of each 16-bit
// lane, which is their binary16 encoding (the amd64 shift and mask, in one
// instruction each). FCVTL/FCVTL2 widen them to float32: evens 0-3 in V26,
// 4-7 in V27, odds 0-3 in V28, 4-7 in V29.
#define WIDEN(rv) \
	VTRN1 rv.B16, V31.B16, V24.B16; \
	VTRN2 rv.B16, V31.B16, V25.B16; \
	WORD $0x0e217b1a /* FCVTL V26.4S, V24.4H */; \
	WORD $0x4e217b1b /* FCVTL2 V27.4S, V24.8H */; \
	WORD $0x0e217b3c /* FCVTL V28.4S, V25.4H */; \
	WORD $0x4e217b3d /* FCVTL2 V29.4S, V25.8H */

// BLOCK scores the block in rv against the laid-out query at qe(R1) (its 8
// evens) and qo(R1) (its 8 odds), into accumulators (ael, aeh) and (aol, aoh).
#define BLOCK(rv, qe, qo, ael, aeh, aol, aoh) \
	FLDPQ qe(R1), (F20, F21); \
	FLDPQ qo(R1), (F22, F23); \
	WIDEN(rv); \
	VFMLA V20.S4, V26.S4, ael.S4; \
	VFMLA V21.S4, V27.S4, aeh.S4; \
	VFMLA V22.S4, V28.S4, aol.S4; \
	VFMLA V23.S4, V29.S4, aoh.S4

// GROUP scores the 64 bytes in V16-V19 against 64 laid-out query values at
// R1: half-blocks 0-7, so accumulators 0-7 in order. A pair of blocks has
// its evens first, then its odds (doc.go).
#define GROUP \
	BLOCK(V16, 0, 64, V0, V1, V2, V3); \
	BLOCK(V17, 32, 96, V4, V5, V6, V7); \
	BLOCK(V18, 128, 192, V8, V9, V10, V11); \
	BLOCK(V19, 160, 224, V12, V13, V14, V15)

// REDUCE folds the accumulators into S0 in the canonical tree (doc.go):
// u = ((a0+a1)+(a2+a3)) + ((a4+a5)+(a6+a7)) on each half, v = u[0:4]+u[4:8],
// w = v[0:2]+v[2:4] (EXT rotates v by two lanes), score = w[0]+w[1]. FADDP
// only at that last step, where pairing adjacent lanes is the canonical sum.
#define REDUCE \
	WORD $0x4e22d400 /* FADD V0.4S, V0.4S, V2.4S */; \
	WORD $0x4e26d484 /* FADD V4.4S, V4.4S, V6.4S */; \
	WORD $0x4e2ad508 /* FADD V8.4S, V8.4S, V10.4S */; \
	WORD $0x4e2ed58c /* FADD V12.4S, V12.4S, V14.4S */; \
	WORD $0x4e24d400 /* FADD V0.4S, V0.4S, V4.4S */; \
	WORD $0x4e2cd508 /* FADD V8.4S, V8.4S, V12.4S */; \
	WORD $0x4e28d400 /* FADD V0.4S, V0.4S, V8.4S */; \
	WORD $0x4e23d421 /* FADD V1.4S, V1.4S, V3.4S */; \
	WORD $0x4e27d4a5 /* FADD V5.4S, V5.4S, V7.4S */; \
	WORD $0x4e2bd529 /* FADD V9.4S, V9.4S, V11.4S */; \
	WORD $0x4e2fd5ad /* FADD V13.4S, V13.4S, V15.4S */; \
	WORD $0x4e25d421 /* FADD V1.4S, V1.4S, V5.4S */; \
	WORD $0x4e2dd529 /* FADD V9.4S, V9.4S, V13.4S */; \
	WORD $0x4e29d421 /* FADD V1.4S, V1.4S, V9.4S */; \
	WORD $0x4e21d400 /* FADD V0.4S, V0.4S, V1.4S */; \
	VEXT $8, V0.B16, V0.B16, V1.B16; \
	WORD $0x4e21d400 /* FADD V0.4S, V0.4S, V1.4S */; \
	WORD $0x7e30d800 /* FADDP S0, V0.2S */

// func scanNEON(qp *float32, dim int, recs *byte, stride int, n int, out *float32)
// Requires: qp holds LayoutLen(dim) laid-out values; record i starts at
// recs+i*stride and has dim readable bytes (any dim >= 1: the last partial
// group is copied to a zeroed stack buffer, so nothing past dim is read).
TEXT ·scanNEON(SB), NOSPLIT, $64-48
	MOVD dim+8(FP), R5
	AND  $63, R5, R6 // bytes in the last partial group
	LSR  $6, R5, R5  // whole groups
	MOVD recs+16(FP), R7
	MOVD stride+24(FP), R8
	MOVD n+32(FP), R4
	MOVD out+40(FP), R3
	VEOR V31.B16, V31.B16, V31.B16

	// The tail is the same length in every record: zero the buffer once,
	// each record then overwrites the same first R6 bytes.
	MOVD  $buf-64(SP), R9
	FSTPQ (F31, F31), (R9)
	FSTPQ (F31, F31), 32(R9)
	CBZ   R4, doneS

recordS:
	ZERO
	MOVD R7, R0
	MOVD qp+0(FP), R1
	CBZ  R5, tailS
	MOVD R5, R2

groupS:
	PRFM   PF(R0), PLDL1KEEP
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]
	GROUP
	ADD    $256, R1
	SUBS   $1, R2
	BNE    groupS

tailS:
	CBZ  R6, reduceS
	MOVD ZR, R11

copyS:
	MOVBU (R0)(R11), R10
	MOVB  R10, (R9)(R11)
	ADD   $1, R11
	CMP   R6, R11
	BLO   copyS
	VLD1  (R9), [V16.B16, V17.B16, V18.B16, V19.B16]
	GROUP

reduceS:
	REDUCE
	FMOVS.P F0, 4(R3)
	ADD     R8, R7
	SUBS    $1, R4
	BNE     recordS

doneS:
	RET

// DECODE writes the block in rv to R5 in the canonical layout: its evens at
// qe, its odds at qo.
#define DECODE(rv, qe, qo) \
	WIDEN(rv); \
	FSTPQ (F26, F27), qe(R5); \
	FSTPQ (F28, F29), qo(R5)

// DOT16 is two groups of the canonical dot of two laid-out f32 vectors:
// scratch values at R5 times query values at R1, into accumulators
// (a, b) for the first 8 and (c, d) for the next 8.
#define DOT16(a, b, c, d) \
	VLD1.P 64(R5), [V16.S4, V17.S4, V18.S4, V19.S4]; \
	VLD1.P 64(R1), [V20.S4, V21.S4, V22.S4, V23.S4]; \
	VFMLA  V20.S4, V16.S4, a.S4; \
	VFMLA  V21.S4, V17.S4, b.S4; \
	VFMLA  V22.S4, V18.S4, c.S4; \
	VFMLA  V23.S4, V19.S4, d.S4

// func batchNEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: nq >= 1; groups >= 1; query q laid out at qps+q*groups*64;
// records of groups*64 bytes, stride apart; scratch holds groups*64 values;
// out holds n*nq values, query-major (out[q*n+r]). Each record is decoded
// once into scratch, then every query runs the canonical order over it.
TEXT ·batchNEON(SB), NOSPLIT, $0-64
	MOVD recs+24(FP), R7
	MOVD stride+32(FP), R8
	MOVD n+40(FP), R4
	LSL  $2, R4, R9 // bytes between two queries' scores
	MOVD out+56(FP), R3
	VEOR V31.B16, V31.B16, V31.B16
	CBZ  R4, doneB

recordB:
	MOVD R7, R0
	MOVD scratch+48(FP), R5
	MOVD groups+16(FP), R2

decodeB:
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]
	DECODE(V16, 0, 64)
	DECODE(V17, 32, 96)
	DECODE(V18, 128, 192)
	DECODE(V19, 160, 224)
	ADD    $256, R5
	SUBS   $1, R2
	BNE    decodeB

	MOVD qps+0(FP), R1
	MOVD nq+8(FP), R6
	MOVD R3, R10

queryB:
	ZERO
	MOVD scratch+48(FP), R5
	MOVD groups+16(FP), R2

	// Laid-out groups g = 0..7 of 8 values go to accumulators 0, 2, 1,
	// 3, 4, 6, 5, 7 (accOf).
dotB:
	DOT16(V0, V1, V4, V5)
	DOT16(V2, V3, V6, V7)
	DOT16(V8, V9, V12, V13)
	DOT16(V10, V11, V14, V15)
	SUBS $1, R2
	BNE  dotB
	REDUCE
	FMOVS F0, (R10)
	ADD   R9, R10
	SUBS  $1, R6
	BNE   queryB

	ADD  $4, R3
	ADD  R8, R7
	SUBS $1, R4
	BNE  recordB

doneB:
	RET

// SUM256 adds the 256 bytes at R0 to V0-V3 as 64-bit words and advances R0.
#define SUM256 \
	VLD1.P 64(R0), [V4.D2, V5.D2, V6.D2, V7.D2]; \
	VLD1.P 64(R0), [V16.D2, V17.D2, V18.D2, V19.D2]; \
	VLD1.P 64(R0), [V20.D2, V21.D2, V22.D2, V23.D2]; \
	VLD1.P 64(R0), [V24.D2, V25.D2, V26.D2, V27.D2]; \
	VADD V4.D2, V0.D2, V0.D2; VADD V5.D2, V1.D2, V1.D2; \
	VADD V6.D2, V2.D2, V2.D2; VADD V7.D2, V3.D2, V3.D2; \
	VADD V16.D2, V0.D2, V0.D2; VADD V17.D2, V1.D2, V1.D2; \
	VADD V18.D2, V2.D2, V2.D2; VADD V19.D2, V3.D2, V3.D2; \
	VADD V20.D2, V0.D2, V0.D2; VADD V21.D2, V1.D2, V1.D2; \
	VADD V22.D2, V2.D2, V2.D2; VADD V23.D2, V3.D2, V3.D2; \
	VADD V24.D2, V0.D2, V0.D2; VADD V25.D2, V1.D2, V1.D2; \
	VADD V26.D2, V2.D2, V2.D2; VADD V27.D2, V3.D2, V3.D2

// SUMOUT folds V0-V3 into R0.
#define SUMOUT \
	VADD V1.D2, V0.D2, V0.D2; \
	VADD V3.D2, V2.D2, V2.D2; \
	VADD V2.D2, V0.D2, V0.D2; \
	VMOV V0.D[0], R0; \
	VMOV V0.D[1], R1; \
	ADD  R1, R0

// func readSumNEON(p *byte, n int) uint64
// Requires: n is a multiple of 256. The widest plain load-and-add loop: the
// memory-read ceiling a scan is measured against.
TEXT ·readSumNEON(SB), NOSPLIT, $0-24
	MOVD p+0(FP), R0
	MOVD n+8(FP), R2
	LSR  $8, R2
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	CBZ  R2, doneR

loopR:
	SUM256
	SUBS $1, R2
	BNE  loopR

doneR:
	SUMOUT
	MOVD R0, ret+16(FP)
	RET

// func readSumPrefetchNEON(p *byte, n int) uint64
// Requires: n is a multiple of 256. readSumNEON with the scan's software
// prefetch distance: on some machines it reads faster.
TEXT ·readSumPrefetchNEON(SB), NOSPLIT, $0-24
	MOVD p+0(FP), R0
	MOVD n+8(FP), R2
	LSR  $8, R2
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	CBZ  R2, doneP

loopP:
	PRFM PF(R0), PLDL1KEEP
	PRFM (PF+64)(R0), PLDL1KEEP
	PRFM (PF+128)(R0), PLDL1KEEP
	PRFM (PF+192)(R0), PLDL1KEEP
	SUM256
	SUBS $1, R2
	BNE  loopP

doneP:
	SUMOUT
	MOVD R0, ret+16(FP)
	RET

// func prefetchLines(p *byte, n int)
// Requires: n >= 1. Prefetches the lines of [p, p+n), reads nothing.
TEXT ·prefetchLines(SB), NOSPLIT, $0-16
	MOVD p+0(FP), R0
	MOVD n+8(FP), R1
	ADD  R0, R1, R1
	SUB  $1, R1, R1
	AND  $-64, R0, R0

line:
	PRFM (R0), PLDL1KEEP
	ADD  $64, R0, R0
	CMP  R1, R0
	BLS  line
	RET
