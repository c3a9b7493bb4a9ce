// Macros shared by the amd64 kernels (dot_amd64.s, dot_avx512_amd64.s,
// gather_amd64.s): one definition of the decode, the canonical
// accumulator assignment and the reduction tree (doc.go), so every form
// computes the same score bits.
//
// AVX2 registers: Y0-Y7 are the 8 canonical accumulators (half-block h goes
// to Y(h mod 8)), Y15 holds 0xff00 in every 16-bit word, X8-X10 are
// temporaries. AVX-512: each of Z0-Z3 holds two canonical accumulators,
// (acc0|acc2), (acc1|acc3), (acc4|acc6), (acc5|acc7): a pair of blocks'
// evens (or odds) land in one register, exactly where AVX2 puts them.

// MASK sets Y15 to 0xff00 per word without a constant in memory.
#define MASK VPCMPEQB Y15, Y15, Y15; VPSLLW $8, Y15, Y15

#define ZERO VXORPS Y0, Y0, Y0; VXORPS Y1, Y1, Y1; VXORPS Y2, Y2, Y2; VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; VXORPS Y5, Y5, Y5; VXORPS Y6, Y6, Y6; VXORPS Y7, Y7, Y7

// BLOCK scores 16 E5M2 bytes at roff(SI) against the laid-out query at
// qoff(DI). Shifting each word left by 8 puts the even bytes in binary16
// position and masking keeps the odd ones, both without a shuffle uop.
#define BLOCK(roff, qe, qo, accE, accO) \
	VMOVDQU roff(SI), X8; \
	VPSLLW $8, X8, X9; \
	VPAND X15, X8, X10; \
	VCVTPH2PS X9, Y9; \
	VCVTPH2PS X10, Y10; \
	VFMADD231PS qe(DI), Y9, accE; \
	VFMADD231PS qo(DI), Y10, accO

// GROUP is 4 blocks: 64 bytes, one pass over all 8 accumulators. The query
// layout puts a pair of blocks' evens first, then their odds (doc.go).
#define GROUP \
	BLOCK(0, 0, 64, Y0, Y1); \
	BLOCK(16, 32, 96, Y2, Y3); \
	BLOCK(32, 128, 192, Y4, Y5); \
	BLOCK(48, 160, 224, Y6, Y7)

// REDUCE folds the accumulators into X0 in the canonical tree (doc.go).
#define REDUCE \
	VADDPS Y1, Y0, Y0; VADDPS Y3, Y2, Y2; VADDPS Y5, Y4, Y4; VADDPS Y7, Y6, Y6; \
	VADDPS Y2, Y0, Y0; VADDPS Y6, Y4, Y4; VADDPS Y4, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; VADDPS X1, X0, X0; \
	VMOVHLPS X0, X0, X1; VADDPS X1, X0, X0; \
	VMOVSHDUP X0, X1; VADDSS X1, X0, X0

// ZERO4 clears the AVX-512 accumulators.
#define ZERO4 VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3

// PAIR scores the 32 bytes (two blocks) at roff(SI) against the laid-out
// query at qoff(DI): 16 evens, then 16 odds.
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

// REDUCE512 folds Z0-Z3 into X0 in the canonical tree.
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
