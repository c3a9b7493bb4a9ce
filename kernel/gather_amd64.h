// Prefetching for the gather kernels (gather_amd64.s, int8_amd64.s,
// kinds_amd64.s). Neighbours of a graph node lie at random places, in DRAM
// more often than not, so a gather keeps about 112 lines in flight: it
// prefetches every line of the first R13 records before its loop, then,
// while scoring record i, the lines of record i+R13 (each record's lines
// plus the one just past it, where a graph keeps the record's header). At
// 384 bytes that is 16 records ahead. Two ahead, as before, left HNSW
// searches waiting on memory: 100k × 384 clustered, ef 16–256, p50 fell
// 35–40% with 16 (12 and 16 measured alike, 32 slower).
//
// Registers: R8 base, R9 stride, R10 ids, CX records left, SI record,
// R11 record to prefetch, R13 records ahead, AX scratch.

// GATHER_AHEAD sets R13 to 112/(lines+1) clamped to 2..16, for records of
// lines 64-byte lines (a register other than AX, BX, DX). Clobbers AX, BX
// and DX.
#define GATHER_AHEAD(lines) \
	LEAQ 1(lines), BX; \
	MOVQ $112, AX; \
	XORL DX, DX; \
	DIVQ BX; \
	MOVQ $2, BX; \
	CMPQ AX, BX; \
	CMOVQCS BX, AX; \
	MOVQ $16, BX; \
	CMPQ AX, BX; \
	CMOVQHI BX, AX; \
	MOVQ AX, R13

// GATHER_FIRST prefetches the first min(CX, R13) records, lines lines each
// and the line past them (lines: a register other than AX, BX, DI, SI,
// R11). Clobbers AX, BX, DI, SI and R11; CX >= 1.
#define GATHER_FIRST(rec, line, some, lines) \
	MOVQ CX, BX; \
	CMPQ BX, R13; \
	JBE  some; \
	MOVQ R13, BX; \
some: \
	MOVQ R10, DI; \
rec: \
	MOVL (DI), AX; \
	IMULQ R9, AX; \
	LEAQ (R8)(AX*1), R11; \
	MOVQ lines, SI; \
line: \
	PREFETCHT0 (R11); \
	ADDQ $64, R11; \
	DECQ SI; \
	JNZ  line; \
	PREFETCHT0 (R11); \
	ADDQ $4, DI; \
	DECQ BX; \
	JNZ  rec

// GATHER_NEXT sets SI to the current record and R11 to the one R13 ids
// ahead, or to the current one near the end (prefetching it again costs
// nothing).
#define GATHER_NEXT(skip) \
	MOVL (R10), AX; \
	IMULQ R9, AX; \
	LEAQ (R8)(AX*1), SI; \
	MOVQ SI, R11; \
	CMPQ CX, R13; \
	JBE  skip; \
	MOVL (R10)(R13*4), AX; \
	IMULQ R9, AX; \
	LEAQ (R8)(AX*1), R11; \
skip:
