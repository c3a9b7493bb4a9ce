//go:build !amd64

package fpenv

// Supported reports whether this architecture has MXCSR.
const Supported = false

// GetMXCSR returns 0 where there is no MXCSR.
func GetMXCSR() uint32 { return 0 }

// SetMXCSR does nothing where there is no MXCSR.
func SetMXCSR(uint32) {}
