//go:build !noasm

#include "textflag.h"

// NEON kernels of the E4M3, F16 and F32 kinds, in the canonical order of
// the E5M2 kernels (dot_arm64.s): V0-V15 are the 8 accumulators of 8 lanes
// (lanes 0-3 of accumulator k in V(2k), 4-7 in V(2k+1)), V31 is zero, V30
// holds the E4M3 mask, V16-V29 are temporaries. dim is a multiple of 64
// (groups = dim/64) and records are zero-padded, so there is no tail.
//
// Go's assembler lacks FCVTL, FCVTL2, vector FADD and FADDP: they are WORDs
// checked by TestNEONWordsDecode.

// PF is how far ahead (bytes) the scans prefetch: the amd64 distance.
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

// REDUCE folds the accumulators into S0 in the canonical tree (doc.go);
// the same sequence as dot_arm64.s.
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

// E4MASK sets V30 to 0x7f00 in every 16-bit lane.
#define E4MASK \
	MOVD $0x7f007f007f007f00, R10; \
	VDUP R10, V30.D2

// E4WIDEN decodes the 16 E4M3 bytes in rv to float32: TRN1/TRN2 against
// zero put the even (V24) and odd (V25) bytes b in the high half of each
// 16-bit lane (b<<8); SRI by 1 of b<<8 & 0x7f00 into it keeps the sign bit
// and writes the 7 code bits to 13..7, the binary16 (b&0x80)<<8 |
// (b&0x7f)<<7 (e4m3ToF16). FCVTL/FCVTL2 widen: evens 0-3 in V26, 4-7 in
// V27, odds 0-3 in V28, 4-7 in V29.
#define E4WIDEN(rv) \
	VTRN1 rv.B16, V31.B16, V24.B16; \
	VTRN2 rv.B16, V31.B16, V25.B16; \
	VAND  V30.B16, V24.B16, V26.B16; \
	VAND  V30.B16, V25.B16, V27.B16; \
	VSRI  $1, V26.H8, V24.H8; \
	VSRI  $1, V27.H8, V25.H8; \
	WORD $0x0e217b1a /* FCVTL V26.4S, V24.4H */; \
	WORD $0x4e217b1b /* FCVTL2 V27.4S, V24.8H */; \
	WORD $0x0e217b3c /* FCVTL V28.4S, V25.4H */; \
	WORD $0x4e217b3d /* FCVTL2 V29.4S, V25.8H */

// E4BLOCK scores the E4M3 block in rv against the laid-out query at qe(R1)
// (evens) and qo(R1) (odds).
#define E4BLOCK(rv, qe, qo, ael, aeh, aol, aoh) \
	FLDPQ qe(R1), (F20, F21); \
	FLDPQ qo(R1), (F22, F23); \
	E4WIDEN(rv); \
	VFMLA V20.S4, V26.S4, ael.S4; \
	VFMLA V21.S4, V27.S4, aeh.S4; \
	VFMLA V22.S4, V28.S4, aol.S4; \
	VFMLA V23.S4, V29.S4, aoh.S4

// E4GROUP scores 64 E4M3 bytes at R0 (advanced) against 64 query values at
// R1 (not advanced).
#define E4GROUP \
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	E4BLOCK(V16, 0, 64, V0, V1, V2, V3); \
	E4BLOCK(V17, 32, 96, V4, V5, V6, V7); \
	E4BLOCK(V18, 128, 192, V8, V9, V10, V11); \
	E4BLOCK(V19, 160, 224, V12, V13, V14, V15); \
	ADD $256, R1

// H16A and H16B widen the f16 position groups in V16, V17 (H16A) or V18,
// V19 (H16B) and multiply them by the next 16 query values at R1 (advanced)
// into (a, b) for the first group and (c, d) for the second.
#define H16A(a, b, c, d) \
	VLD1.P 64(R1), [V20.S4, V21.S4, V22.S4, V23.S4]; \
	WORD $0x0e217a18 /* FCVTL V24.4S, V16.4H */; \
	WORD $0x4e217a19 /* FCVTL2 V25.4S, V16.8H */; \
	WORD $0x0e217a3a /* FCVTL V26.4S, V17.4H */; \
	WORD $0x4e217a3b /* FCVTL2 V27.4S, V17.8H */; \
	VFMLA V20.S4, V24.S4, a.S4; \
	VFMLA V21.S4, V25.S4, b.S4; \
	VFMLA V22.S4, V26.S4, c.S4; \
	VFMLA V23.S4, V27.S4, d.S4

#define H16B(a, b, c, d) \
	VLD1.P 64(R1), [V20.S4, V21.S4, V22.S4, V23.S4]; \
	WORD $0x0e217a58 /* FCVTL V24.4S, V18.4H */; \
	WORD $0x4e217a59 /* FCVTL2 V25.4S, V18.8H */; \
	WORD $0x0e217a7a /* FCVTL V26.4S, V19.4H */; \
	WORD $0x4e217a7b /* FCVTL2 V27.4S, V19.8H */; \
	VFMLA V20.S4, V24.S4, a.S4; \
	VFMLA V21.S4, V25.S4, b.S4; \
	VFMLA V22.S4, V26.S4, c.S4; \
	VFMLA V23.S4, V27.S4, d.S4

// F16GROUP scores 64 f16 components (128 bytes) at R0 against the query at
// R1, both advanced. Position groups 0-7 go to accumulators 0, 2, 1, 3, 4,
// 6, 5, 7 (accOf).
#define F16GROUP \
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	H16A(V0, V1, V4, V5); \
	H16B(V2, V3, V6, V7); \
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	H16A(V8, V9, V12, V13); \
	H16B(V10, V11, V14, V15)

// D16 is two position groups of f32 at rp times the query at R1, both
// advanced, into (a, b) and (c, d).
#define D16(rp, a, b, c, d) \
	VLD1.P 64(rp), [V16.S4, V17.S4, V18.S4, V19.S4]; \
	VLD1.P 64(R1), [V20.S4, V21.S4, V22.S4, V23.S4]; \
	VFMLA  V20.S4, V16.S4, a.S4; \
	VFMLA  V21.S4, V17.S4, b.S4; \
	VFMLA  V22.S4, V18.S4, c.S4; \
	VFMLA  V23.S4, V19.S4, d.S4

// F32GROUP scores 64 laid-out f32 values at rp against the query at R1.
#define F32GROUP(rp) \
	D16(rp, V0, V1, V4, V5); \
	D16(rp, V2, V3, V6, V7); \
	D16(rp, V8, V9, V12, V13); \
	D16(rp, V10, V11, V14, V15)

#define PF1 PRFM PF(R0), PLDL1KEEP
#define PF2 PRFM PF(R0), PLDL1KEEP; PRFM (PF+64)(R0), PLDL1KEEP
#define PF4 PRFM PF(R0), PLDL1KEEP; PRFM (PF+64)(R0), PLDL1KEEP; PRFM (PF+128)(R0), PLDL1KEEP; PRFM (PF+192)(R0), PLDL1KEEP

// SCANBODY is the record loop of the scans: pfg prefetches and grp scores
// one group at R0 against R1.
#define SCANBODY(pfg, grp) \
	MOVD groups+8(FP), R5; \
	MOVD recs+16(FP), R7; \
	MOVD stride+24(FP), R8; \
	MOVD n+32(FP), R4; \
	MOVD out+40(FP), R3; \
	VEOR V31.B16, V31.B16, V31.B16; \
	CBZ  R4, done; \
record: \
	ZERO; \
	MOVD R7, R0; \
	MOVD qp+0(FP), R1; \
	MOVD R5, R2; \
group: \
	pfg; \
	grp; \
	SUBS $1, R2; \
	BNE  group; \
	REDUCE; \
	FMOVS.P F0, 4(R3); \
	ADD  R8, R7; \
	SUBS $1, R4; \
	BNE  record; \
done: \
	RET

// E4DECODE writes the E4M3 block in rv to R5 laid out: evens at qe, odds
// at qo.
#define E4DECODE(rv, qe, qo) \
	E4WIDEN(rv); \
	FSTPQ (F26, F27), qe(R5); \
	FSTPQ (F28, F29), qo(R5)

// E4DECGROUP decodes 64 E4M3 bytes at R0 to 64 laid-out values at R5,
// both advanced.
#define E4DECGROUP \
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	E4DECODE(V16, 0, 64); \
	E4DECODE(V17, 32, 96); \
	E4DECODE(V18, 128, 192); \
	E4DECODE(V19, 160, 224); \
	ADD $256, R5

// F16DEC32 widens 32 f16 values at R0 to R5, both advanced.
#define F16DEC32 \
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	WORD $0x0e217a18 /* FCVTL V24.4S, V16.4H */; \
	WORD $0x4e217a19 /* FCVTL2 V25.4S, V16.8H */; \
	WORD $0x0e217a3a /* FCVTL V26.4S, V17.4H */; \
	WORD $0x4e217a3b /* FCVTL2 V27.4S, V17.8H */; \
	VST1.P [V24.S4, V25.S4, V26.S4, V27.S4], 64(R5); \
	WORD $0x0e217a58 /* FCVTL V24.4S, V18.4H */; \
	WORD $0x4e217a59 /* FCVTL2 V25.4S, V18.8H */; \
	WORD $0x0e217a7a /* FCVTL V26.4S, V19.4H */; \
	WORD $0x4e217a7b /* FCVTL2 V27.4S, V19.8H */; \
	VST1.P [V24.S4, V25.S4, V26.S4, V27.S4], 64(R5)

#define F16DECGROUP F16DEC32; F16DEC32

// BATCHQUERIES runs every query over the laid-out f32 record at the
// address in rec, writing query q's score at R3 + q*n*4.
#define BATCHQUERIES(rec) \
	MOVD qps+0(FP), R1; \
	MOVD nq+8(FP), R6; \
	MOVD R3, R10; \
query: \
	ZERO; \
	MOVD rec, R5; \
	MOVD groups+16(FP), R2; \
dot: \
	F32GROUP(R5); \
	SUBS $1, R2; \
	BNE  dot; \
	REDUCE; \
	FMOVS F0, (R10); \
	ADD   R9, R10; \
	SUBS  $1, R6; \
	BNE   query

// BATCHSTART loads R7 record, R8 stride, R4 records left, R9 bytes between
// two queries' scores, R3 out.
#define BATCHSTART \
	MOVD recs+24(FP), R7; \
	MOVD stride+32(FP), R8; \
	MOVD n+40(FP), R4; \
	LSL  $2, R4, R9; \
	MOVD out+56(FP), R3; \
	VEOR V31.B16, V31.B16, V31.B16; \
	CBZ  R4, done

#define BATCHNEXT \
	ADD  $4, R3; \
	ADD  R8, R7; \
	SUBS $1, R4; \
	BNE  record; \
done: \
	RET

// DECODELOOP decodes the record at R7 into scratch with grp.
#define DECODELOOP(grp) \
	MOVD R7, R0; \
	MOVD scratch+48(FP), R5; \
	MOVD groups+16(FP), R2; \
decode: \
	grp; \
	SUBS $1, R2; \
	BNE  decode

// func scanE4M3NEON(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: groups >= 1; qp holds groups*64 laid-out values; record i
// starts at recs+i*stride and has groups*64 readable bytes.
TEXT ·scanE4M3NEON(SB), NOSPLIT, $0-48
	E4MASK
	SCANBODY(PF1, E4GROUP)

// func scanF16NEON(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: as scanE4M3NEON, records of groups*128 bytes.
TEXT ·scanF16NEON(SB), NOSPLIT, $0-48
	SCANBODY(PF2, F16GROUP)

// func scanF32NEON(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: as scanE4M3NEON, records of groups*256 bytes.
TEXT ·scanF32NEON(SB), NOSPLIT, $0-48
	SCANBODY(PF4, F32GROUP(R0))

// func batchE4M3NEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: nq >= 1; groups >= 1; query q laid out at qps+q*groups*64;
// records of groups*64 bytes, stride apart; scratch holds groups*64 values;
// out holds n*nq values, query-major (out[q*n+r]). Each record is decoded
// once into scratch, then every query runs the canonical order over it.
TEXT ·batchE4M3NEON(SB), NOSPLIT, $0-64
	E4MASK
	BATCHSTART

record:
	DECODELOOP(E4DECGROUP)
	BATCHQUERIES(scratch+48(FP))
	BATCHNEXT

// func batchF16NEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: as batchE4M3NEON, records of groups*128 bytes.
TEXT ·batchF16NEON(SB), NOSPLIT, $0-64
	BATCHSTART

record:
	DECODELOOP(F16DECGROUP)
	BATCHQUERIES(scratch+48(FP))
	BATCHNEXT

// func batchF32NEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: as batchE4M3NEON, records of groups*256 bytes, already laid-out
// f32: the queries read them in place and scratch is unused.
TEXT ·batchF32NEON(SB), NOSPLIT, $0-64
	BATCHSTART

record:
	BATCHQUERIES(R7)
	BATCHNEXT
