//go:build !noasm

#include "textflag.h"

// Int8 kernels (kinds.go, dotInt8Go): a record is pdim signed bytes, the
// prepared query pdim int16 values followed by its float32 power-of-two
// scale at byte 2*pdim. VPMOVSXBW widens 16 codes to int16, VPMADDWD
// multiplies them by 16 query values and adds adjacent products into 8
// int32 lanes, VPADDD accumulates. Integer sums are exact, so any lane
// order gives the reference's integer; it is converted to float32 once
// (rounding to nearest, as Go's float32(int64) does) and scaled exactly.
//
// Overflow: a pair sum is at most 2*32767*127 = 8322818 in magnitude. The
// pdim/2 pair sums of a record are spread evenly over 4 accumulators of 8
// lanes (Y0-Y3), so after adding the 4 accumulators lane by lane each lane
// holds pdim/16 <= 256 of them: at most 2130641408 < 2^31. Adding lanes
// together can exceed int32, so the generic forms finish in int64. The
// whole sum of a record of pdim <= 512 is at most 512*32767*127 =
// 2130641408, so the 384 forms finish in int32.
//
// Registers: Y0-Y3 accumulators, Y8-Y11 temporaries, X14 the scale.

// PF is how far ahead (bytes) the scans prefetch (dot_amd64.s).
#define PF 4096

#define ZERO4I VPXOR Y0, Y0, Y0; VPXOR Y1, Y1, Y1; VPXOR Y2, Y2, Y2; VPXOR Y3, Y3, Y3

// I8BLOCK scores the 16 codes at roff(SI) against the 16 int16 query
// values at qoff(DI) into acc.
#define I8BLOCK(roff, qoff, t, acc) \
	VPMOVSXBW roff(SI), t; \
	VPMADDWD qoff(DI), t, t; \
	VPADDD t, acc, acc

// I8GROUP scores 64 codes (one cache line).
#define I8GROUP(roff, qoff) \
	I8BLOCK(roff, qoff, Y8, Y0); \
	I8BLOCK(roff+16, qoff+32, Y9, Y1); \
	I8BLOCK(roff+32, qoff+64, Y10, Y2); \
	I8BLOCK(roff+48, qoff+96, Y11, Y3)

// SUM4 adds the accumulators into Y0 (exact, see above).
#define SUM4 VPADDD Y1, Y0, Y0; VPADDD Y3, Y2, Y2; VPADDD Y2, Y0, Y0

// SCORE64 sums Y0's 8 int32 lanes in int64 and writes the scaled float32
// score to (DX).
#define SCORE64 \
	SUM4; \
	VEXTRACTI128 $1, Y0, X1; \
	VPMOVSXDQ X0, Y0; \
	VPMOVSXDQ X1, Y1; \
	VPADDQ Y1, Y0, Y0; \
	VEXTRACTI128 $1, Y0, X1; \
	VPADDQ X1, X0, X0; \
	VPSHUFD $0x4e, X0, X1; \
	VPADDQ X1, X0, X0; \
	VMOVQ X0, AX; \
	VCVTSI2SSQ AX, X0, X0; \
	VMULSS X14, X0, X0; \
	VMOVSS X0, (DX)

// SCORE32 is SCORE64 for pdim <= 512, where the whole sum fits int32.
#define SCORE32 \
	SUM4; \
	VEXTRACTI128 $1, Y0, X1; \
	VPADDD X1, X0, X0; \
	VPSHUFD $0x4e, X0, X1; \
	VPADDD X1, X0, X0; \
	VPSHUFD $0xb1, X0, X1; \
	VPADDD X1, X0, X0; \
	VCVTDQ2PS X0, X0; \
	VMULSS X14, X0, X0; \
	VMOVSS X0, (DX)

// func scan384Int8AVX2(qp *float32, recs *byte, n int, out *float32)
// Requires: qp holds a prepared Int8 query of pdim 384; recs holds n
// records 384 bytes apart.
TEXT ·scan384Int8AVX2(SB), NOSPLIT, $0-32
	MOVQ qp+0(FP), DI
	MOVQ recs+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DX
	VMOVSS 768(DI), X14
	TESTQ CX, CX
	JZ   done

loop:
	ZERO4I
	PREFETCHT0 (PF+0)(SI)
	I8GROUP(0, 0)
	PREFETCHT0 (PF+64)(SI)
	I8GROUP(64, 128)
	PREFETCHT0 (PF+128)(SI)
	I8GROUP(128, 256)
	PREFETCHT0 (PF+192)(SI)
	I8GROUP(192, 384)
	PREFETCHT0 (PF+256)(SI)
	I8GROUP(256, 512)
	PREFETCHT0 (PF+320)(SI)
	I8GROUP(320, 640)
	SCORE32
	ADDQ $4, DX
	ADDQ $384, SI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func scanInt8AVX2(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: groups >= 1 (pdim = 64*groups); qp holds a prepared Int8 query
// of that pdim; record i starts at recs+i*stride and has pdim readable bytes.
TEXT ·scanInt8AVX2(SB), NOSPLIT, $0-48
	MOVQ qp+0(FP), R8
	MOVQ groups+8(FP), R9
	MOVQ recs+16(FP), R11
	MOVQ stride+24(FP), R12
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	MOVQ R9, AX
	SHLQ $7, AX
	VMOVSS (R8)(AX*1), X14
	TESTQ CX, CX
	JZ   done

record:
	ZERO4I
	MOVQ R11, SI
	MOVQ R8, DI
	MOVQ R9, BX

group:
	PREFETCHT0 PF(SI)
	I8GROUP(0, 0)
	ADDQ $64, SI
	ADDQ $128, DI
	DECQ BX
	JNZ  group
	SCORE64
	ADDQ $4, DX
	ADDQ R12, R11
	DECQ CX
	JNZ  record

done:
	VZEROUPPER
	RET

// func batchInt8AVX2(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: nq >= 1; groups >= 1; query q prepared at qps+q*(32*groups+16)
// words; records of 64*groups bytes, stride apart; scratch holds 32*groups
// words; out holds n*nq values, query-major (out[q*n+r]). Each record is
// widened to int16 in scratch once, then every query's dot reads it.
TEXT ·batchInt8AVX2(SB), NOSPLIT, $0-64
	MOVQ groups+16(FP), R9
	MOVQ R9, R12
	SHLQ $7, R12 // bytes of int16 query values; the scale is there
	LEAQ 64(R12), R14 // bytes between two queries
	MOVQ recs+24(FP), R11
	MOVQ n+40(FP), CX
	MOVQ CX, R15
	SHLQ $2, R15 // bytes between two queries' scores
	MOVQ out+56(FP), R13 // this record's first score
	TESTQ CX, CX
	JZ   done

record:
	MOVQ R11, SI
	MOVQ scratch+48(FP), DI
	MOVQ R9, BX

widen:
	VPMOVSXBW 0(SI), Y8
	VPMOVSXBW 16(SI), Y9
	VPMOVSXBW 32(SI), Y10
	VPMOVSXBW 48(SI), Y11
	VMOVDQU Y8, 0(DI)
	VMOVDQU Y9, 32(DI)
	VMOVDQU Y10, 64(DI)
	VMOVDQU Y11, 96(DI)
	ADDQ $64, SI
	ADDQ $128, DI
	DECQ BX
	JNZ  widen

	MOVQ qps+0(FP), R8
	MOVQ nq+8(FP), R10
	MOVQ R13, DX

query:
	ZERO4I
	MOVQ scratch+48(FP), SI
	MOVQ R8, DI
	MOVQ R9, BX

dot:
	VMOVDQU 0(SI), Y8
	VMOVDQU 32(SI), Y9
	VMOVDQU 64(SI), Y10
	VMOVDQU 96(SI), Y11
	VPMADDWD 0(DI), Y8, Y8
	VPMADDWD 32(DI), Y9, Y9
	VPMADDWD 64(DI), Y10, Y10
	VPMADDWD 96(DI), Y11, Y11
	VPADDD Y8, Y0, Y0
	VPADDD Y9, Y1, Y1
	VPADDD Y10, Y2, Y2
	VPADDD Y11, Y3, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ BX
	JNZ  dot
	VMOVSS (R8)(R12*1), X14
	SCORE64
	ADDQ R15, DX
	ADDQ R14, R8
	DECQ R10
	JNZ  query

	ADDQ $4, R13
	ADDQ stride+32(FP), R11
	DECQ CX
	JNZ  record

done:
	VZEROUPPER
	RET

// The gather forms follow gather_amd64.s: record i is at base+ids[i]*stride
// (any stride: loads need no alignment), prefetched as gather_amd64.h says.
//
// Registers: DI query, SI record, R8 base, R9 stride, R10 ids, CX records
// left, DX out, R11 record to prefetch, R12 groups (lines per record), R13
// records ahead, AX and BX scratch.

#include "gather_amd64.h"

// func gather384Int8AVX2(qp *float32, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: qp holds a prepared Int8 query of pdim 384; n >= 0; each record
// base+ids[i]*stride has 384 readable bytes.
TEXT ·gather384Int8AVX2(SB), NOSPLIT, $0-48
	MOVQ qp+0(FP), DI
	MOVQ base+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ ids+24(FP), R10
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	VMOVSS 768(DI), X14
	MOVQ $6, R12
	TESTQ CX, CX
	JZ   done
	MOVQ $16, R13 // GATHER_AHEAD of 6 lines
	GATHER_FIRST(first, firstLine, some, R12)
	MOVQ qp+0(FP), DI

loop:
	GATHER_NEXT(ahead)
	ZERO4I
	PREFETCHT0 0(R11)
	I8GROUP(0, 0)
	PREFETCHT0 64(R11)
	I8GROUP(64, 128)
	PREFETCHT0 128(R11)
	I8GROUP(128, 256)
	PREFETCHT0 192(R11)
	I8GROUP(192, 384)
	PREFETCHT0 256(R11)
	I8GROUP(256, 512)
	PREFETCHT0 320(R11)
	I8GROUP(320, 640)
	PREFETCHT0 384(R11)
	SCORE32
	ADDQ $4, DX
	ADDQ $4, R10
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func gatherInt8AVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: groups >= 1; qp holds a prepared Int8 query of pdim 64*groups;
// n >= 0; each record base+ids[i]*stride has 64*groups readable bytes.
TEXT ·gatherInt8AVX2(SB), NOSPLIT, $0-56
	MOVQ groups+8(FP), R12
	GATHER_AHEAD(R12)
	MOVQ base+16(FP), R8
	MOVQ stride+24(FP), R9
	MOVQ ids+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX
	MOVQ qp+0(FP), DI
	MOVQ R12, AX
	SHLQ $7, AX
	VMOVSS (DI)(AX*1), X14
	TESTQ CX, CX
	JZ   done
	GATHER_FIRST(first, firstLine, some, R12)

record:
	GATHER_NEXT(ahead)
	ZERO4I
	MOVQ qp+0(FP), DI
	MOVQ R12, BX

group:
	PREFETCHT0 (R11)
	I8GROUP(0, 0)
	ADDQ $64, SI
	ADDQ $64, R11
	ADDQ $128, DI
	DECQ BX
	JNZ  group
	PREFETCHT0 (R11)
	SCORE64
	ADDQ $4, DX
	ADDQ $4, R10
	DECQ CX
	JNZ  record

done:
	VZEROUPPER
	RET

// AVX-512 forms: VPMOVSXBW widens 32 codes at once; VPMADDWD and VPADDD,
// or one VPDPWSSD where the CPU has AVX512_VNNI (the form is chosen in
// init, int8_amd64.go), accumulate into Z0 (codes 0-31 of each 64) and Z1
// (32-63). A lane of Z0+Z1 then holds pdim/64 pair sums, and after folding
// the upper 256 bits onto the lower pdim/32 <= 128 of them: the AVX2 bound
// holds and SCORE64/SCORE32 finish as there.

// FOLD512 leaves Z0+Z1, its halves added, in Y0 and clears Y1-Y3.
#define FOLD512 \
	VPADDD Z1, Z0, Z0; \
	VEXTRACTI64X4 $1, Z0, Y1; \
	VPADDD Y1, Y0, Y0; \
	VPXOR Y1, Y1, Y1; VPXOR Y2, Y2, Y2; VPXOR Y3, Y3, Y3

#define I8PAIR_AVX512(roff, qoff, t, acc) VPMOVSXBW roff(SI), t; VPMADDWD qoff(DI), t, t; VPADDD t, acc, acc

#define I8GROUP_AVX512(roff, qoff) \
	I8PAIR_AVX512(roff, qoff, Z8, Z0); \
	I8PAIR_AVX512(roff+32, qoff+64, Z9, Z1)

// func scan384Int8AVX512(qp *float32, recs *byte, n int, out *float32)
// Requires: as scan384Int8AVX2.
TEXT ·scan384Int8AVX512(SB), NOSPLIT, $0-32
	MOVQ qp+0(FP), DI
	MOVQ recs+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DX
	VMOVSS 768(DI), X14
	TESTQ CX, CX
	JZ   done

loop:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	PREFETCHT0 (PF+0)(SI)
	I8GROUP_AVX512(0, 0)
	PREFETCHT0 (PF+64)(SI)
	I8GROUP_AVX512(64, 128)
	PREFETCHT0 (PF+128)(SI)
	I8GROUP_AVX512(128, 256)
	PREFETCHT0 (PF+192)(SI)
	I8GROUP_AVX512(192, 384)
	PREFETCHT0 (PF+256)(SI)
	I8GROUP_AVX512(256, 512)
	PREFETCHT0 (PF+320)(SI)
	I8GROUP_AVX512(320, 640)
	FOLD512
	SCORE32
	ADDQ $4, DX
	ADDQ $384, SI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func scanInt8AVX512(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: as scanInt8AVX2.
TEXT ·scanInt8AVX512(SB), NOSPLIT, $0-48
	MOVQ qp+0(FP), R8
	MOVQ groups+8(FP), R9
	MOVQ recs+16(FP), R11
	MOVQ stride+24(FP), R12
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	MOVQ R9, AX
	SHLQ $7, AX
	VMOVSS (R8)(AX*1), X14
	TESTQ CX, CX
	JZ   done

record:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ R11, SI
	MOVQ R8, DI
	MOVQ R9, BX

group:
	PREFETCHT0 PF(SI)
	I8GROUP_AVX512(0, 0)
	ADDQ $64, SI
	ADDQ $128, DI
	DECQ BX
	JNZ  group
	FOLD512
	SCORE64
	ADDQ $4, DX
	ADDQ R12, R11
	DECQ CX
	JNZ  record

done:
	VZEROUPPER
	RET

// func gatherInt8AVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: as gatherInt8AVX2.
TEXT ·gatherInt8AVX512(SB), NOSPLIT, $0-56
	MOVQ groups+8(FP), R12
	GATHER_AHEAD(R12)
	MOVQ base+16(FP), R8
	MOVQ stride+24(FP), R9
	MOVQ ids+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX
	MOVQ qp+0(FP), DI
	MOVQ R12, AX
	SHLQ $7, AX
	VMOVSS (DI)(AX*1), X14
	TESTQ CX, CX
	JZ   done
	GATHER_FIRST(first, firstLine, some, R12)

record:
	GATHER_NEXT(ahead)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ qp+0(FP), DI
	MOVQ R12, BX

group:
	PREFETCHT0 (R11)
	I8GROUP_AVX512(0, 0)
	ADDQ $64, SI
	ADDQ $64, R11
	ADDQ $128, DI
	DECQ BX
	JNZ  group
	PREFETCHT0 (R11)
	FOLD512
	SCORE64
	ADDQ $4, DX
	ADDQ $4, R10
	DECQ CX
	JNZ  record

done:
	VZEROUPPER
	RET

#define I8PAIR_VNNI(roff, qoff, t, acc) VPMOVSXBW roff(SI), t; VPDPWSSD qoff(DI), t, acc

#define I8GROUP_VNNI(roff, qoff) \
	I8PAIR_VNNI(roff, qoff, Z8, Z0); \
	I8PAIR_VNNI(roff+32, qoff+64, Z9, Z1)

// func scan384Int8VNNI(qp *float32, recs *byte, n int, out *float32)
// Requires: as scan384Int8AVX2.
TEXT ·scan384Int8VNNI(SB), NOSPLIT, $0-32
	MOVQ qp+0(FP), DI
	MOVQ recs+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DX
	VMOVSS 768(DI), X14
	TESTQ CX, CX
	JZ   done

loop:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	PREFETCHT0 (PF+0)(SI)
	I8GROUP_VNNI(0, 0)
	PREFETCHT0 (PF+64)(SI)
	I8GROUP_VNNI(64, 128)
	PREFETCHT0 (PF+128)(SI)
	I8GROUP_VNNI(128, 256)
	PREFETCHT0 (PF+192)(SI)
	I8GROUP_VNNI(192, 384)
	PREFETCHT0 (PF+256)(SI)
	I8GROUP_VNNI(256, 512)
	PREFETCHT0 (PF+320)(SI)
	I8GROUP_VNNI(320, 640)
	FOLD512
	SCORE32
	ADDQ $4, DX
	ADDQ $384, SI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func scanInt8VNNI(qp *float32, groups int, recs *byte, stride int, n int, out *float32)
// Requires: as scanInt8AVX2.
TEXT ·scanInt8VNNI(SB), NOSPLIT, $0-48
	MOVQ qp+0(FP), R8
	MOVQ groups+8(FP), R9
	MOVQ recs+16(FP), R11
	MOVQ stride+24(FP), R12
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	MOVQ R9, AX
	SHLQ $7, AX
	VMOVSS (R8)(AX*1), X14
	TESTQ CX, CX
	JZ   done

record:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ R11, SI
	MOVQ R8, DI
	MOVQ R9, BX

group:
	PREFETCHT0 PF(SI)
	I8GROUP_VNNI(0, 0)
	ADDQ $64, SI
	ADDQ $128, DI
	DECQ BX
	JNZ  group
	FOLD512
	SCORE64
	ADDQ $4, DX
	ADDQ R12, R11
	DECQ CX
	JNZ  record

done:
	VZEROUPPER
	RET

// func gatherInt8VNNI(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: as gatherInt8AVX2.
TEXT ·gatherInt8VNNI(SB), NOSPLIT, $0-56
	MOVQ groups+8(FP), R12
	GATHER_AHEAD(R12)
	MOVQ base+16(FP), R8
	MOVQ stride+24(FP), R9
	MOVQ ids+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX
	MOVQ qp+0(FP), DI
	MOVQ R12, AX
	SHLQ $7, AX
	VMOVSS (DI)(AX*1), X14
	TESTQ CX, CX
	JZ   done
	GATHER_FIRST(first, firstLine, some, R12)

record:
	GATHER_NEXT(ahead)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ qp+0(FP), DI
	MOVQ R12, BX

group:
	PREFETCHT0 (R11)
	I8GROUP_VNNI(0, 0)
	ADDQ $64, SI
	ADDQ $64, R11
	ADDQ $128, DI
	DECQ BX
	JNZ  group
	PREFETCHT0 (R11)
	FOLD512
	SCORE64
	ADDQ $4, DX
	ADDQ $4, R10
	DECQ CX
	JNZ  record

done:
	VZEROUPPER
	RET
