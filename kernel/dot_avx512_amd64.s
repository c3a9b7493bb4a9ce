//go:build !noasm

#include "textflag.h"

#include "e5m2_amd64.h"

// AVX-512 forms of the kernels (register use: e5m2_amd64.h).

// PF is how far ahead (bytes) the fixed-384 scan prefetches: about 20
// records, enough to cover DRAM latency at this kernel's speed (measured:
// 1536 bytes reached 61 % of the read ceiling on a Zen 5 core, 8192 85 %).
#define PF 8192

// func scan384AVX512(qp *float32, recs *byte, n int, out *float32)
// Requires: qp holds 384 laid-out values; recs holds n records 384 bytes apart.
TEXT ·scan384AVX512(SB), NOSPLIT, $0-32
	MOVQ qp+0(FP), DI
	MOVQ recs+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DX
	MASK
	TESTQ CX, CX
	JZ   done384

loop384:
	ZERO4
	PREFETCHT0 (PF+0)(SI)
	PAIR(0, 0, Z0, Z1)
	PAIR(32, 128, Z2, Z3)
	PREFETCHT0 (PF+64)(SI)
	PAIR(64, 256, Z0, Z1)
	PAIR(96, 384, Z2, Z3)
	PREFETCHT0 (PF+128)(SI)
	PAIR(128, 512, Z0, Z1)
	PAIR(160, 640, Z2, Z3)
	PREFETCHT0 (PF+192)(SI)
	PAIR(192, 768, Z0, Z1)
	PAIR(224, 896, Z2, Z3)
	PREFETCHT0 (PF+256)(SI)
	PAIR(256, 1024, Z0, Z1)
	PAIR(288, 1152, Z2, Z3)
	PREFETCHT0 (PF+320)(SI)
	PAIR(320, 1280, Z0, Z1)
	PAIR(352, 1408, Z2, Z3)
	REDUCE512
	VMOVSS X0, (DX)
	ADDQ $4, DX
	ADDQ $384, SI
	DECQ CX
	JNZ  loop384

done384:
	VZEROUPPER
	RET

// func scanAVX512(qp *float32, dim int, recs *byte, stride int, n int, out *float32)
// Requires: as scanAVX2.
TEXT ·scanAVX512(SB), NOSPLIT, $64-48
	MOVQ dim+8(FP), R9
	MOVQ R9, R10
	SHRQ $6, R9
	ANDQ $63, R10
	MOVQ recs+16(FP), R11
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	MASK
	TESTQ CX, CX
	JZ   doneG

recordG:
	ZERO4
	MOVQ R11, SI
	MOVQ qp+0(FP), DI
	MOVQ R9, BX
	TESTQ BX, BX
	JZ   tailG

groupG:
	PREFETCHT0 PF(SI)
	GROUP512
	ADDQ $64, SI
	ADDQ $256, DI
	DECQ BX
	JNZ  groupG

tailG:
	TESTQ R10, R10
	JZ   reduceG
	VPXOR Y8, Y8, Y8
	VMOVDQU Y8, 0(SP)
	VMOVDQU Y8, 32(SP)
	XORQ AX, AX

copyG:
	MOVBLZX (SI)(AX*1), R12
	MOVB R12B, (SP)(AX*1)
	INCQ AX
	CMPQ AX, R10
	JB   copyG
	LEAQ 0(SP), SI
	GROUP512

reduceG:
	REDUCE512
	VMOVSS X0, (DX)
	ADDQ $4, DX
	ADDQ stride+24(FP), R11
	DECQ CX
	JNZ  recordG

doneG:
	VZEROUPPER
	RET

// DECODE512 writes the 32 components at roff(SI) to qoff(R13) laid out.
#define DECODE512(roff, qoff) \
	VMOVDQU roff(SI), Y8; \
	VPSLLW $8, Y8, Y9; \
	VPAND Y15, Y8, Y10; \
	VCVTPH2PS Y9, Z9; \
	VCVTPH2PS Y10, Z10; \
	VMOVUPS Z9, qoff(R13); \
	VMOVUPS Z10, (qoff+64)(R13)

// DOT2 is 16 laid-out values of two queries (DI and R14) against the
// decoded record at R13: one load serves both.
#define DOT2(off, accA, accB) \
	VMOVUPS off(R13), Z8; \
	VFMADD231PS off(DI), Z8, accA; \
	VFMADD231PS off(R14), Z8, accB

#define DOT1(off, acc) \
	VMOVUPS off(R13), Z8; \
	VFMADD231PS off(DI), Z8, acc

// func batchAVX512(qps *float32, nq int, groups int, recs *byte, stride int, n int, scratch *float32, out *float32)
// Requires: as batchAVX2. Queries go two at a time (Z0-Z3 and Z4-Z7).
TEXT ·batchAVX512(SB), NOSPLIT, $0-64
	MOVQ recs+24(FP), R11
	MOVQ n+40(FP), CX
	MOVQ out+56(FP), DX
	MOVQ CX, R9
	SHLQ $2, R9 // bytes between two queries' scores
	MOVQ groups+16(FP), R12
	SHLQ $8, R12 // bytes per laid-out query
	MASK
	TESTQ CX, CX
	JZ   doneB

recordB:
	MOVQ R11, SI
	MOVQ scratch+48(FP), R13
	MOVQ groups+16(FP), BX

decodeB:
	DECODE512(0, 0)
	DECODE512(32, 128)
	ADDQ $64, SI
	ADDQ $256, R13
	DECQ BX
	JNZ  decodeB

	MOVQ qps+0(FP), DI
	MOVQ nq+8(FP), R8
	MOVQ DX, R10

pairB:
	CMPQ R8, $2
	JB   singleB
	LEAQ (DI)(R12*1), R14
	ZERO4
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	MOVQ scratch+48(FP), R13
	MOVQ groups+16(FP), BX

dot2B:
	DOT2(0, Z0, Z4)
	DOT2(64, Z1, Z5)
	DOT2(128, Z2, Z6)
	DOT2(192, Z3, Z7)
	ADDQ $256, R13
	ADDQ $256, DI
	ADDQ $256, R14
	DECQ BX
	JNZ  dot2B
	// First query of the pair.
	VMOVAPS Z4, Z16
	VMOVAPS Z5, Z17
	VMOVAPS Z6, Z18
	VMOVAPS Z7, Z19
	REDUCE512
	VMOVSS X0, (R10)
	ADDQ R9, R10
	VMOVAPS Z16, Z0
	VMOVAPS Z17, Z1
	VMOVAPS Z18, Z2
	VMOVAPS Z19, Z3
	REDUCE512
	VMOVSS X0, (R10)
	ADDQ R9, R10
	MOVQ R14, DI
	SUBQ $2, R8
	JMP  pairB

singleB:
	TESTQ R8, R8
	JZ   nextB
	ZERO4
	MOVQ scratch+48(FP), R13
	MOVQ groups+16(FP), BX

dot1B:
	DOT1(0, Z0)
	DOT1(64, Z1)
	DOT1(128, Z2)
	DOT1(192, Z3)
	ADDQ $256, R13
	ADDQ $256, DI
	DECQ BX
	JNZ  dot1B
	REDUCE512
	VMOVSS X0, (R10)

nextB:
	ADDQ $4, DX
	ADDQ stride+32(FP), R11
	DECQ CX
	JNZ  recordB

doneB:
	VZEROUPPER
	RET
