//go:build noasm || !amd64

package kernel

import "unsafe"

// countAboveAVX512 and shiftBelowAVX512 exist only in the amd64 assembly;
// countAboveVector is never set here, so nothing calls these.
func countAboveAVX512(s *uint64, n int, w uint64) int { return countAboveGo(unsafe.Slice(s, n), w) }

func shiftBelowAVX512(s *uint64, n int, w uint64) int { return shiftBelowGo(unsafe.Slice(s, n+1), w) }
