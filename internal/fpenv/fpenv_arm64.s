#include "textflag.h"

// func GetFPCR() uint64
TEXT ·GetFPCR(SB), NOSPLIT, $0-8
	MRS FPCR, R0
	MOVD R0, ret+0(FP)
	RET

// func SetFPCR(v uint64)
TEXT ·SetFPCR(SB), NOSPLIT, $0-8
	MOVD v+0(FP), R0
	MSR R0, FPCR
	RET
