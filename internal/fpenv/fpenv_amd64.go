package fpenv

// Supported reports whether this architecture has MXCSR.
const Supported = true

// MXCSR: the control bits (6-15) and their power-on value 0x1F80.
const (
	controlMask uint64 = 0xFFC0
	defaultMode uint64 = 0x1F80
)

// GetMXCSR returns the calling thread's MXCSR.
func GetMXCSR() uint32

// SetMXCSR writes the calling thread's MXCSR; lock the goroutine to its
// thread (runtime.LockOSThread) around its use.
func SetMXCSR(v uint32)

func control() uint64     { return uint64(GetMXCSR()) }
func setControl(v uint64) { SetMXCSR(uint32(v)) }
