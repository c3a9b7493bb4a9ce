//go:build !noasm

#include "textflag.h"

// Int8 kernels (kinds.go, dotInt8Go; the amd64 forms are int8_amd64.s): a
// record is pdim signed bytes, the prepared query pdim int16 values then
// its float32 power-of-two scale at byte 2*pdim. SXTL/SXTL2 widen 16 codes
// to int16, SMLAL/SMLAL2 multiply them by the query values and accumulate
// the products in int32 lanes. Integer sums are exact, so any lane order
// gives the reference's integer; SCVTF rounds it to float32 once (to
// nearest, as Go's float32(int64) does) and the scale multiplies exactly.
//
// Overflow: a product is at most 32767*127 = 4161409 in magnitude. Each of
// the 8 accumulators V0-V7 (4 lanes) takes 2 products per lane per 64
// codes; V0-V3 and V4-V7 are added lane by lane, pdim/8 <= 512 products
// (at most 2130641408 < 2^31), and SADDLV then sums each in int64.
//
// Registers: V0-V7 accumulators, V16-V19 codes, V20-V27 query values, V8-V11
// and V28-V31 temporaries, F12 the scale. Go's assembler lacks SXTL, SMLAL
// and SADDLV: they are WORDs with the instruction in a comment, checked by
// TestNEONWordsDecode (objdump_test.go).

// PF is how far ahead (bytes) the scan prefetches (dot_arm64.s).
#define PF 4096

#define ZERO8 \
	VEOR V0.B16, V0.B16, V0.B16; VEOR V1.B16, V1.B16, V1.B16; \
	VEOR V2.B16, V2.B16, V2.B16; VEOR V3.B16, V3.B16, V3.B16; \
	VEOR V4.B16, V4.B16, V4.B16; VEOR V5.B16, V5.B16, V5.B16; \
	VEOR V6.B16, V6.B16, V6.B16; VEOR V7.B16, V7.B16, V7.B16

// I8GROUP scores the 64 codes in V16-V19 against the 64 query values in
// V20-V27: block b widens into two temporaries, its low 8 codes go to
// accumulator 2b, its high 8 to 2b+1.
#define I8GROUP \
	WORD $0x0f08a61c /* SXTL V28.8H, V16.8B */; \
	WORD $0x4f08a61d /* SXTL2 V29.8H, V16.16B */; \
	WORD $0x0f08a63e /* SXTL V30.8H, V17.8B */; \
	WORD $0x4f08a63f /* SXTL2 V31.8H, V17.16B */; \
	WORD $0x0f08a648 /* SXTL V8.8H, V18.8B */; \
	WORD $0x4f08a649 /* SXTL2 V9.8H, V18.16B */; \
	WORD $0x0f08a66a /* SXTL V10.8H, V19.8B */; \
	WORD $0x4f08a66b /* SXTL2 V11.8H, V19.16B */; \
	WORD $0x0e748380 /* SMLAL V0.4S, V28.4H, V20.4H */; \
	WORD $0x4e748380 /* SMLAL2 V0.4S, V28.8H, V20.8H */; \
	WORD $0x0e7583a1 /* SMLAL V1.4S, V29.4H, V21.4H */; \
	WORD $0x4e7583a1 /* SMLAL2 V1.4S, V29.8H, V21.8H */; \
	WORD $0x0e7683c2 /* SMLAL V2.4S, V30.4H, V22.4H */; \
	WORD $0x4e7683c2 /* SMLAL2 V2.4S, V30.8H, V22.8H */; \
	WORD $0x0e7783e3 /* SMLAL V3.4S, V31.4H, V23.4H */; \
	WORD $0x4e7783e3 /* SMLAL2 V3.4S, V31.8H, V23.8H */; \
	WORD $0x0e788104 /* SMLAL V4.4S, V8.4H, V24.4H */; \
	WORD $0x4e788104 /* SMLAL2 V4.4S, V8.8H, V24.8H */; \
	WORD $0x0e798125 /* SMLAL V5.4S, V9.4H, V25.4H */; \
	WORD $0x4e798125 /* SMLAL2 V5.4S, V9.8H, V25.8H */; \
	WORD $0x0e7a8146 /* SMLAL V6.4S, V10.4H, V26.4H */; \
	WORD $0x4e7a8146 /* SMLAL2 V6.4S, V10.8H, V26.8H */; \
	WORD $0x0e7b8167 /* SMLAL V7.4S, V11.4H, V27.4H */; \
	WORD $0x4e7b8167 /* SMLAL2 V7.4S, V11.8H, V27.8H */

// I8DOT scores 64 int16 values widened before (V16-V19, V28-V31) against
// 64 query values (V20-V27): 8 values j to accumulator j.
#define I8DOT \
	WORD $0x0e748200 /* SMLAL V0.4S, V16.4H, V20.4H */; \
	WORD $0x4e748200 /* SMLAL2 V0.4S, V16.8H, V20.8H */; \
	WORD $0x0e758221 /* SMLAL V1.4S, V17.4H, V21.4H */; \
	WORD $0x4e758221 /* SMLAL2 V1.4S, V17.8H, V21.8H */; \
	WORD $0x0e768242 /* SMLAL V2.4S, V18.4H, V22.4H */; \
	WORD $0x4e768242 /* SMLAL2 V2.4S, V18.8H, V22.8H */; \
	WORD $0x0e778263 /* SMLAL V3.4S, V19.4H, V23.4H */; \
	WORD $0x4e778263 /* SMLAL2 V3.4S, V19.8H, V23.8H */; \
	WORD $0x0e788384 /* SMLAL V4.4S, V28.4H, V24.4H */; \
	WORD $0x4e788384 /* SMLAL2 V4.4S, V28.8H, V24.8H */; \
	WORD $0x0e7983a5 /* SMLAL V5.4S, V29.4H, V25.4H */; \
	WORD $0x4e7983a5 /* SMLAL2 V5.4S, V29.8H, V25.8H */; \
	WORD $0x0e7a83c6 /* SMLAL V6.4S, V30.4H, V26.4H */; \
	WORD $0x4e7a83c6 /* SMLAL2 V6.4S, V30.8H, V26.8H */; \
	WORD $0x0e7b83e7 /* SMLAL V7.4S, V31.4H, V27.4H */; \
	WORD $0x4e7b83e7 /* SMLAL2 V7.4S, V31.8H, V27.8H */

// I8WIDEN widens the 64 codes in V16-V19 to int16 in V20-V27.
#define I8WIDEN \
	WORD $0x0f08a614 /* SXTL V20.8H, V16.8B */; \
	WORD $0x4f08a615 /* SXTL2 V21.8H, V16.16B */; \
	WORD $0x0f08a636 /* SXTL V22.8H, V17.8B */; \
	WORD $0x4f08a637 /* SXTL2 V23.8H, V17.16B */; \
	WORD $0x0f08a658 /* SXTL V24.8H, V18.8B */; \
	WORD $0x4f08a659 /* SXTL2 V25.8H, V18.16B */; \
	WORD $0x0f08a67a /* SXTL V26.8H, V19.8B */; \
	WORD $0x4f08a67b /* SXTL2 V27.8H, V19.16B */

// I8SCORE sums the accumulators (int32 lane by lane, then int64) and
// leaves the scaled float32 score in F0.
#define I8SCORE \
	VADD V1.S4, V0.S4, V0.S4; \
	VADD V3.S4, V2.S4, V2.S4; \
	VADD V2.S4, V0.S4, V0.S4; \
	VADD V5.S4, V4.S4, V4.S4; \
	VADD V7.S4, V6.S4, V6.S4; \
	VADD V6.S4, V4.S4, V4.S4; \
	WORD $0x4eb0380d /* SADDLV D13, V0.4S */; \
	WORD $0x4eb0388e /* SADDLV D14, V4.4S */; \
	FMOVD F13, R10; \
	FMOVD F14, R11; \
	ADD R11, R10; \
	SCVTFS R10, F0; \
	FMULS F12, F0, F0

// LOADQ loads the next 64 query values at R1 into V20-V27.
#define LOADQ \
	VLD1.P 64(R1), [V20.H8, V21.H8, V22.H8, V23.H8]; \
	VLD1.P 64(R1), [V24.H8, V25.H8, V26.H8, V27.H8]

// func scanInt8NEON(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: groups >= 1 (pdim = 64*groups); qp holds a prepared Int8 query
// of that pdim; record i starts at recs+i*stride and has pdim readable bytes.
TEXT ·scanInt8NEON(SB), NOSPLIT, $0-48
	MOVD qp+0(FP), R9
	MOVD groups+8(FP), R5
	MOVD recs+16(FP), R7
	MOVD stride+24(FP), R8
	MOVD n+32(FP), R4
	MOVD out+40(FP), R3
	ADD  R5<<7, R9, R10
	FMOVS (R10), F12
	CBZ  R4, done

record:
	ZERO8
	MOVD R7, R0
	MOVD R9, R1
	MOVD R5, R2

group:
	PRFM   PF(R0), PLDL1KEEP
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]
	LOADQ
	I8GROUP
	SUBS   $1, R2
	BNE    group
	I8SCORE
	FMOVS.P F0, 4(R3)
	ADD     R8, R7
	SUBS    $1, R4
	BNE     record

done:
	RET

// func batchInt8NEON(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: nq >= 1; groups >= 1; query q prepared at qps+q*(32*groups+16)
// words; records of 64*groups bytes, stride apart; scratch holds 32*groups
// words; out holds n*nq values, query-major (out[q*n+r]). Each record is
// widened to int16 in scratch once, then every query's dot reads it.
TEXT ·batchInt8NEON(SB), NOSPLIT, $0-64
	MOVD groups+16(FP), R5
	LSL  $7, R5, R12 // bytes of int16 query values; the scale is there
	ADD  $64, R12, R13 // bytes between two queries
	MOVD recs+24(FP), R7
	MOVD stride+32(FP), R8
	MOVD n+40(FP), R4
	LSL  $2, R4, R9 // bytes between two queries' scores
	MOVD out+56(FP), R3
	MOVD scratch+48(FP), R14
	CBZ  R4, done

record:
	MOVD R7, R0
	MOVD R14, R6
	MOVD R5, R2

widen:
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]
	I8WIDEN
	VST1.P [V20.H8, V21.H8, V22.H8, V23.H8], 64(R6)
	VST1.P [V24.H8, V25.H8, V26.H8, V27.H8], 64(R6)
	SUBS   $1, R2
	BNE    widen

	MOVD qps+0(FP), R19
	MOVD nq+8(FP), R20
	MOVD R3, R21

query:
	ZERO8
	MOVD R14, R6
	MOVD R19, R1
	MOVD R5, R2

dot:
	VLD1.P 64(R6), [V16.H8, V17.H8, V18.H8, V19.H8]
	VLD1.P 64(R6), [V28.H8, V29.H8, V30.H8, V31.H8]
	LOADQ
	I8DOT
	SUBS $1, R2
	BNE  dot
	FMOVS (R19)(R12), F12
	I8SCORE
	FMOVS F0, (R21)
	ADD   R9, R21
	ADD   R13, R19
	SUBS  $1, R20
	BNE   query

	ADD  $4, R3
	ADD  R8, R7
	SUBS $1, R4
	BNE  record

done:
	RET

// func gatherInt8NEON(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: groups >= 1; qp holds a prepared Int8 query of pdim 64*groups;
// n >= 0; each record base+ids[i]*stride has 64*groups readable bytes.
// The record two ids ahead is prefetched, every line of it and the line
// past it: amd64 now keeps about 112 lines in flight (gather_amd64.h),
// which no arm64 machine here could measure.
TEXT ·gatherInt8NEON(SB), NOSPLIT, $0-56
	MOVD qp+0(FP), R9
	MOVD groups+8(FP), R5
	MOVD base+16(FP), R7
	MOVD stride+24(FP), R8
	MOVD ids+32(FP), R6
	MOVD n+40(FP), R4
	MOVD out+48(FP), R3
	ADD  R5<<7, R9, R10
	FMOVS (R10), F12
	CBZ  R4, done
	// Records 0 and 1 first: the loop prefetches from two ids ahead.
	MOVWU (R6), R10
	MADD  R8, R7, R10, R11
	MOVD  R5, R2

pf0:
	PRFM (R11), PLDL1KEEP
	ADD  $64, R11
	SUBS $1, R2
	BNE  pf0
	PRFM (R11), PLDL1KEEP
	CMP  $1, R4
	BEQ  record
	MOVWU 4(R6), R10
	MADD  R8, R7, R10, R11
	MOVD  R5, R2

pf1:
	PRFM (R11), PLDL1KEEP
	ADD  $64, R11
	SUBS $1, R2
	BNE  pf1
	PRFM (R11), PLDL1KEEP

record:
	MOVWU (R6), R10
	MADD  R8, R7, R10, R0
	MOVD  R0, R11
	CMP   $3, R4
	BLO   ahead
	MOVWU 8(R6), R10
	MADD  R8, R7, R10, R11

ahead:
	ZERO8
	MOVD R9, R1
	MOVD R5, R2

group:
	PRFM   (R11), PLDL1KEEP
	VLD1.P 64(R0), [V16.B16, V17.B16, V18.B16, V19.B16]
	LOADQ
	I8GROUP
	ADD    $64, R11
	SUBS   $1, R2
	BNE    group
	PRFM   (R11), PLDL1KEEP
	I8SCORE
	FMOVS.P F0, 4(R3)
	ADD     $4, R6
	SUBS    $1, R4
	BNE     record

done:
	RET
