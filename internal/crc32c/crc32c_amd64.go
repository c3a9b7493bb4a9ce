//go:build !noasm

package crc32c

import "github.com/klauspost/cpuid/v2"

// Implementations selectable through impl (tests force each one).
const (
	implGeneric = iota // hash/crc32 (SSE4.2 CRC32 instructions when present)
	implPCLMUL         // 4 x 128-bit PCLMULQDQ folding + CRC32 instructions
	implAVX512         // 4 x 512-bit VPCLMULQDQ folding + CRC32 instructions
)

// Length ranges for the folding kernels, measured on AMD Zen 5 (the kernels
// themselves need at least 64 (PCLMUL) and 256 (AVX-512) bytes):
//   - AVX-512 VPCLMULQDQ beats hash/crc32 from 256 bytes on (39 vs 14 GB/s at
//     256 bytes, 64 vs 30 GB/s from 4 KiB on).
//   - 128-bit PCLMULQDQ beats hash/crc32 from 64 bytes (11 vs 7 GB/s) up to
//     its three-way CRC32 loop, which starts at ~512 bytes and then wins
//     (30 vs 16 GB/s), so it is used for [minLenPCLMUL, maxLenPCLMUL) only.
var (
	minLenPCLMUL = 64
	maxLenPCLMUL = 512
	minLenAVX512 = 256
)

var (
	hasPCLMUL = cpuid.CPU.Supports(cpuid.SSE42, cpuid.CLMUL)
	hasAVX512 = hasPCLMUL && cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.AVX512F, cpuid.VPCLMULQDQ)
)

// impl is the implementation used by Update.
var impl = bestImpl()

func bestImpl() int {
	switch {
	case hasAVX512:
		return implAVX512
	case hasPCLMUL:
		return implPCLMUL
	}
	return implGeneric
}

// foldTable holds the folding multipliers read by the assembly (see
// foldConstants for their derivation):
//
//	[0:2]   fold by 2048 bits (256 bytes; 4 x 512-bit lanes per iteration)
//	[2:4]   fold by 512 bits (64 bytes)
//	[4:12]  per-lane fold of a 512-bit register onto its last 128-bit lane:
//	        lanes 0, 1, 2 fold by 384, 256, 128 bits; lane 3 zero
//	[12:14] fold by 128 bits (16 bytes)
var foldTable [16]uint64

func init() {
	for i, d := range [...]int{2048, 512, 384, 256, 128} {
		foldTable[2*i], foldTable[2*i+1] = foldConstants(d)
	}
	// entries 10, 11 (lane 3) stay zero.
	foldTable[12], foldTable[13] = foldConstants(128)
}

// updateAVX512 returns the CRC register (not inverted) after feeding p to
// register crc. len(p) >= 256.
//
//go:noescape
func updateAVX512(crc uint32, p []byte) uint32

// updatePCLMUL is updateAVX512 using 128-bit PCLMULQDQ. len(p) >= 64.
//
//go:noescape
func updatePCLMUL(crc uint32, p []byte) uint32

func update(crc uint32, p []byte) uint32 {
	n := len(p)
	switch {
	case impl == implAVX512 && n >= minLenAVX512:
		return ^updateAVX512(^crc, p)
	case impl >= implPCLMUL && n >= minLenPCLMUL && n < maxLenPCLMUL:
		return ^updatePCLMUL(^crc, p)
	}
	return updateGeneric(crc, p)
}
