//go:build !noasm

#include "textflag.h"

// Gather forms of the scans: record i is at base + ids[i]*stride. The
// scoring macros are shared (e5m2_amd64.h), so the canonical order, and
// the score bits, are the same; the prefetching is gather_amd64.h's.
//
// Registers: DI query, SI record, R8 base, R9 stride, R10 ids, CX records
// left, DX out, R11 record to prefetch, R12 groups (lines per record),
// R13 records ahead, AX and BX scratch.

#include "e5m2_amd64.h"
#include "gather_amd64.h"

// func gather384AVX2(qp *float32, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: qp holds 384 laid-out values; n >= 0; each record base+ids[i]*stride
// has 384 readable bytes.
TEXT ·gather384AVX2(SB), NOSPLIT, $0-48
	MOVQ base+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ ids+24(FP), R10
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	MASK
	TESTQ CX, CX
	JZ   done
	MOVQ $16, R13 // GATHER_AHEAD of 6 lines
	MOVQ $6, R12
	GATHER_FIRST(first, firstLine, some, R12)
	MOVQ qp+0(FP), DI

loop:
	GATHER_NEXT(ahead)
	ZERO
	PREFETCHT0 0(R11)
	BLOCK(0, 0, 64, Y0, Y1)
	BLOCK(16, 32, 96, Y2, Y3)
	BLOCK(32, 128, 192, Y4, Y5)
	BLOCK(48, 160, 224, Y6, Y7)
	PREFETCHT0 64(R11)
	BLOCK(64, 256, 320, Y0, Y1)
	BLOCK(80, 288, 352, Y2, Y3)
	BLOCK(96, 384, 448, Y4, Y5)
	BLOCK(112, 416, 480, Y6, Y7)
	PREFETCHT0 128(R11)
	BLOCK(128, 512, 576, Y0, Y1)
	BLOCK(144, 544, 608, Y2, Y3)
	BLOCK(160, 640, 704, Y4, Y5)
	BLOCK(176, 672, 736, Y6, Y7)
	PREFETCHT0 192(R11)
	BLOCK(192, 768, 832, Y0, Y1)
	BLOCK(208, 800, 864, Y2, Y3)
	BLOCK(224, 896, 960, Y4, Y5)
	BLOCK(240, 928, 992, Y6, Y7)
	PREFETCHT0 256(R11)
	BLOCK(256, 1024, 1088, Y0, Y1)
	BLOCK(272, 1056, 1120, Y2, Y3)
	BLOCK(288, 1152, 1216, Y4, Y5)
	BLOCK(304, 1184, 1248, Y6, Y7)
	PREFETCHT0 320(R11)
	BLOCK(320, 1280, 1344, Y0, Y1)
	BLOCK(336, 1312, 1376, Y2, Y3)
	BLOCK(352, 1408, 1472, Y4, Y5)
	BLOCK(368, 1440, 1504, Y6, Y7)
	PREFETCHT0 384(R11)
	REDUCE
	VMOVSS X0, (DX)
	ADDQ $4, DX
	ADDQ $4, R10
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func gather384AVX512(qp *float32, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: qp holds 384 laid-out values; n >= 0; each record base+ids[i]*stride
// has 384 readable bytes.
TEXT ·gather384AVX512(SB), NOSPLIT, $0-48
	MOVQ base+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ ids+24(FP), R10
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	MASK
	TESTQ CX, CX
	JZ   done
	MOVQ $16, R13 // GATHER_AHEAD of 6 lines
	MOVQ $6, R12
	GATHER_FIRST(first, firstLine, some, R12)
	MOVQ qp+0(FP), DI

loop:
	GATHER_NEXT(ahead)
	ZERO4
	PREFETCHT0 0(R11)
	PAIR(0, 0, Z0, Z1)
	PAIR(32, 128, Z2, Z3)
	PREFETCHT0 64(R11)
	PAIR(64, 256, Z0, Z1)
	PAIR(96, 384, Z2, Z3)
	PREFETCHT0 128(R11)
	PAIR(128, 512, Z0, Z1)
	PAIR(160, 640, Z2, Z3)
	PREFETCHT0 192(R11)
	PAIR(192, 768, Z0, Z1)
	PAIR(224, 896, Z2, Z3)
	PREFETCHT0 256(R11)
	PAIR(256, 1024, Z0, Z1)
	PAIR(288, 1152, Z2, Z3)
	PREFETCHT0 320(R11)
	PAIR(320, 1280, Z0, Z1)
	PAIR(352, 1408, Z2, Z3)
	PREFETCHT0 384(R11)
	REDUCE512
	VMOVSS X0, (DX)
	ADDQ $4, DX
	ADDQ $4, R10
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func gatherAVX2(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: groups >= 1; qp holds groups*64 laid-out values; n >= 0; each
// record base+ids[i]*stride has groups*64 readable bytes.
TEXT ·gatherAVX2(SB), NOSPLIT, $0-56
	MOVQ groups+8(FP), R12
	GATHER_AHEAD(R12)
	MOVQ base+16(FP), R8
	MOVQ stride+24(FP), R9
	MOVQ ids+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX
	MASK
	TESTQ CX, CX
	JZ   done
	GATHER_FIRST(first, firstLine, some, R12)

record:
	GATHER_NEXT(ahead)
	ZERO
	MOVQ qp+0(FP), DI
	MOVQ R12, BX

group:
	PREFETCHT0 (R11)
	GROUP
	ADDQ $64, SI
	ADDQ $64, R11
	ADDQ $256, DI
	DECQ BX
	JNZ  group
	PREFETCHT0 (R11)
	REDUCE
	VMOVSS X0, (DX)
	ADDQ $4, DX
	ADDQ $4, R10
	DECQ CX
	JNZ  record

done:
	VZEROUPPER
	RET

// func gatherAVX512(qp *float32, groups int, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: groups >= 1; qp holds groups*64 laid-out values; n >= 0; each
// record base+ids[i]*stride has groups*64 readable bytes.
TEXT ·gatherAVX512(SB), NOSPLIT, $0-56
	MOVQ groups+8(FP), R12
	GATHER_AHEAD(R12)
	MOVQ base+16(FP), R8
	MOVQ stride+24(FP), R9
	MOVQ ids+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX
	MASK
	TESTQ CX, CX
	JZ   done
	GATHER_FIRST(first, firstLine, some, R12)

record:
	GATHER_NEXT(ahead)
	ZERO4
	MOVQ qp+0(FP), DI
	MOVQ R12, BX

group:
	PREFETCHT0 (R11)
	GROUP512
	ADDQ $64, SI
	ADDQ $64, R11
	ADDQ $256, DI
	DECQ BX
	JNZ  group
	PREFETCHT0 (R11)
	REDUCE512
	VMOVSS X0, (DX)
	ADDQ $4, DX
	ADDQ $4, R10
	DECQ CX
	JNZ  record

done:
	VZEROUPPER
	RET
