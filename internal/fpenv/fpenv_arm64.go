package fpenv

// Supported reports whether this architecture has MXCSR.
const Supported = false

// FPCR: every bit is control (the flags are in FPSR), and Go runs with 0:
// round to nearest, no flush-to-zero (FZ, FZ16), no default NaN, no traps.
const (
	controlMask uint64 = ^uint64(0)
	defaultMode uint64 = 0
)

// FZ is FPCR's flush-to-zero bit.
const FZ uint64 = 1 << 24

// GetMXCSR returns 0 where there is no MXCSR.
func GetMXCSR() uint32 { return 0 }

// SetMXCSR does nothing where there is no MXCSR.
func SetMXCSR(uint32) {}

// GetFPCR returns the calling thread's FPCR.
func GetFPCR() uint64

// SetFPCR writes the calling thread's FPCR; lock the goroutine to its
// thread around its use.
func SetFPCR(v uint64)

func control() uint64     { return GetFPCR() }
func setControl(v uint64) { SetFPCR(v) }
