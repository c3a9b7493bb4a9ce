//go:build unix

package main

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time of the calling OS thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// cpuTime is the user and system time the process has used: on a shared
// machine it says what a phase costs when wall time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
