//go:build !noasm

#include "textflag.h"

// Gather forms of the scans: record i is at base + ids[i]*stride. The
// scoring macros are those of dot_amd64.s and dot_avx512_amd64.s, so the
// canonical order, and the score bits, are the same. Neighbours of a graph
// node lie at random places, so instead of a fixed distance ahead the
// kernels prefetch every line of the record two ids ahead (records 0 and 1
// before the loop), plus the line just past it, where a graph keeps the
// record's header.
//
// Registers: DI query, SI record, R8 base, R9 stride, R10 ids, CX records
// left, DX out, R11 record to prefetch, AX scratch.

#define MASK VPCMPEQB Y15, Y15, Y15; VPSLLW $8, Y15, Y15

#define ZERO VXORPS Y0, Y0, Y0; VXORPS Y1, Y1, Y1; VXORPS Y2, Y2, Y2; VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; VXORPS Y5, Y5, Y5; VXORPS Y6, Y6, Y6; VXORPS Y7, Y7, Y7

#define BLOCK(roff, qe, qo, accE, accO) \
	VMOVDQU roff(SI), X8; \
	VPSLLW $8, X8, X9; \
	VPAND X15, X8, X10; \
	VCVTPH2PS X9, Y9; \
	VCVTPH2PS X10, Y10; \
	VFMADD231PS qe(DI), Y9, accE; \
	VFMADD231PS qo(DI), Y10, accO

#define GROUP \
	BLOCK(0, 0, 64, Y0, Y1); \
	BLOCK(16, 32, 96, Y2, Y3); \
	BLOCK(32, 128, 192, Y4, Y5); \
	BLOCK(48, 160, 224, Y6, Y7)

#define REDUCE \
	VADDPS Y1, Y0, Y0; VADDPS Y3, Y2, Y2; VADDPS Y5, Y4, Y4; VADDPS Y7, Y6, Y6; \
	VADDPS Y2, Y0, Y0; VADDPS Y6, Y4, Y4; VADDPS Y4, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; VADDPS X1, X0, X0; \
	VMOVHLPS X0, X0, X1; VADDPS X1, X0, X0; \
	VMOVSHDUP X0, X1; VADDSS X1, X0, X0

#define ZERO4 VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3

#define PAIR(roff, qoff, accE, accO) \
	VMOVDQU roff(SI), Y8; \
	VPSLLW $8, Y8, Y9; \
	VPAND Y15, Y8, Y10; \
	VCVTPH2PS Y9, Z9; \
	VCVTPH2PS Y10, Z10; \
	VFMADD231PS qoff(DI), Z9, accE; \
	VFMADD231PS (qoff+64)(DI), Z10, accO

#define GROUP512 \
	PAIR(0, 0, Z0, Z1); \
	PAIR(32, 128, Z2, Z3)

#define REDUCE512 \
	VADDPS Z1, Z0, Z0; \
	VADDPS Z3, Z2, Z2; \
	VEXTRACTF64X4 $1, Z0, Y1; \
	VADDPS Y1, Y0, Y0; \
	VEXTRACTF64X4 $1, Z2, Y3; \
	VADDPS Y3, Y2, Y2; \
	VADDPS Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; VADDPS X1, X0, X0; \
	VMOVHLPS X0, X0, X1; VADDPS X1, X0, X0; \
	VMOVSHDUP X0, X1; VADDSS X1, X0, X0

// ADDR sets reg to the record of the id at idoff(R10).
#define ADDR(idoff, reg) \
	MOVL idoff(R10), AX; \
	IMULQ R9, AX; \
	LEAQ (R8)(AX*1), reg

// PF384 prefetches a 384-byte record at R11 and the line past it.
#define PF384 \
	PREFETCHT0 0(R11); PREFETCHT0 64(R11); PREFETCHT0 128(R11); PREFETCHT0 192(R11); \
	PREFETCHT0 256(R11); PREFETCHT0 320(R11); PREFETCHT0 384(R11)

// AHEAD sets SI to the current record and R11 to the one two ids ahead, or
// to the current one near the end (prefetching it again costs nothing).
#define AHEAD(skip) \
	ADDR(0, SI); \
	MOVQ SI, R11; \
	CMPQ CX, $3; \
	JB   skip; \
	ADDR(8, R11); \
skip:

// func gather384AVX2(qp *float32, base *byte, stride int, ids *uint32, n int, out *float32)
// Requires: qp holds 384 laid-out values; n >= 0; each record base+ids[i]*stride
// has 384 readable bytes.
TEXT ·gather384AVX2(SB), NOSPLIT, $0-48
	MOVQ qp+0(FP), DI
	MOVQ base+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ ids+24(FP), R10
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	MASK
	TESTQ CX, CX
	JZ   done
	ADDR(0, R11)
	PF384
	CMPQ CX, $1
	JEQ  loop
	ADDR(4, R11)
	PF384

loop:
	AHEAD(ahead)
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
	MOVQ qp+0(FP), DI
	MOVQ base+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ ids+24(FP), R10
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	MASK
	TESTQ CX, CX
	JZ   done
	ADDR(0, R11)
	PF384
	CMPQ CX, $1
	JEQ  loop
	ADDR(4, R11)
	PF384

loop:
	AHEAD(ahead)
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
	MOVQ base+16(FP), R8
	MOVQ stride+24(FP), R9
	MOVQ ids+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX
	MASK
	TESTQ CX, CX
	JZ   done
	ADDR(0, R11)
	MOVQ R12, BX

pf0:
	PREFETCHT0 (R11)
	ADDQ $64, R11
	DECQ BX
	JNZ  pf0
	PREFETCHT0 (R11)
	CMPQ CX, $1
	JEQ  record
	ADDR(4, R11)
	MOVQ R12, BX

pf1:
	PREFETCHT0 (R11)
	ADDQ $64, R11
	DECQ BX
	JNZ  pf1
	PREFETCHT0 (R11)

record:
	AHEAD(ahead)
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
	MOVQ base+16(FP), R8
	MOVQ stride+24(FP), R9
	MOVQ ids+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX
	MASK
	TESTQ CX, CX
	JZ   done
	ADDR(0, R11)
	MOVQ R12, BX

pf0:
	PREFETCHT0 (R11)
	ADDQ $64, R11
	DECQ BX
	JNZ  pf0
	PREFETCHT0 (R11)
	CMPQ CX, $1
	JEQ  record
	ADDR(4, R11)
	MOVQ R12, BX

pf1:
	PREFETCHT0 (R11)
	ADDQ $64, R11
	DECQ BX
	JNZ  pf1
	PREFETCHT0 (R11)

record:
	AHEAD(ahead)
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
