// Package fpenv reads and writes the x86 SSE control register (MXCSR) of the
// calling thread, so tests can run kernels the way a game engine may call
// them: with flush-to-zero and denormals-are-zero set.
package fpenv

// MXCSR bits.
const (
	DAZ uint32 = 1 << 6  // denormal inputs read as zero
	FTZ uint32 = 1 << 15 // denormal results flushed to zero
)
