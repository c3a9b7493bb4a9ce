package fpenv

// Supported reports whether this architecture has MXCSR.
const Supported = true

// GetMXCSR returns the calling thread's MXCSR.
func GetMXCSR() uint32

// SetMXCSR writes the calling thread's MXCSR; lock the goroutine to its
// thread (runtime.LockOSThread) around its use.
func SetMXCSR(v uint32)
