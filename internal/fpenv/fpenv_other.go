//go:build !amd64 && !arm64

package fpenv

// Supported reports whether this architecture has MXCSR.
const Supported = false

// GetMXCSR returns 0 where there is no MXCSR.
func GetMXCSR() uint32 { return 0 }

// SetMXCSR does nothing where there is no MXCSR.
func SetMXCSR(uint32) {}

// Elsewhere the mode is not managed: Enter and Leave only lock the thread.
const (
	controlMask uint64 = 0
	defaultMode uint64 = 0
)

func control() uint64   { return 0 }
func setControl(uint64) {}
