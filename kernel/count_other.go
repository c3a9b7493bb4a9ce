//go:build noasm || !amd64

package kernel

import "unsafe"

// countAboveAVX512 exists only in the amd64 assembly; countAboveVector is
// never set here, so CountAbove does not call this.
func countAboveAVX512(s *uint64, n int, w uint64) int { return countAboveGo(unsafe.Slice(s, n), w) }
