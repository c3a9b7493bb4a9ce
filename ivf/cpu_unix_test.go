//go:build unix

package ivf

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system time: on a shared machine the
// cost of a phase that wall time hides.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
