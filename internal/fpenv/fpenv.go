// Package fpenv gives library code a known floating-point mode whatever
// mode the host left on its threads (x86 MXCSR, arm64 FPCR), and lets tests
// read and write that mode the way a game engine may set it: with
// flush-to-zero and denormals-are-zero.
//
// Go's float arithmetic obeys the thread's control register. A host's
// FTZ/DAZ would reach the library on its own threads (exports) and on the
// runtime's threads too, which inherit the register of the thread that
// created them (so a host that loads the library under FTZ|DAZ taints
// every runtime thread). Enter and Leave bracket library work instead.
package fpenv

import "runtime"

// MXCSR bits.
const (
	DAZ uint32 = 1 << 6  // denormal inputs read as zero
	FTZ uint32 = 1 << 15 // denormal results flushed to zero
)

// Saved is a thread's mode as Enter found it, for Leave.
type Saved uint64

// Enter locks the calling goroutine to its OS thread, so that the mode
// cannot be lost when the scheduler moves it (async preemption does not
// carry the control register across threads), and gives the thread the
// default mode: all exceptions masked, round to nearest, no FTZ/DAZ (FZ on
// arm64). It writes the register only when the mode differs. Pair every
// Enter with Leave on the same goroutine.
func Enter() Saved {
	runtime.LockOSThread()
	old := control()
	if old&controlMask != defaultMode {
		setControl(defaultMode | old&^controlMask)
	}
	return Saved(old)
}

// Leave restores the mode Enter found, if Enter changed it, and unlocks
// the goroutine. The status flags the library raised meanwhile are then
// dropped with it.
func Leave(s Saved) {
	if old := uint64(s); old&controlMask != defaultMode {
		setControl(old)
	}
	runtime.UnlockOSThread()
}
