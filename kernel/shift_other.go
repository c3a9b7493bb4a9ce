//go:build noasm || !amd64

package kernel

import "unsafe"

// shiftBelowAVX512 exists only in the amd64 assembly; shiftBelowVector is
// never set here, so ShiftBelow does not call this.
func shiftBelowAVX512(s *uint64, n int, w uint64) int { return shiftBelowGo(unsafe.Slice(s, n+1), w) }
