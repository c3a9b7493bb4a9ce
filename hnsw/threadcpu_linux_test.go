//go:build linux

package hnsw

import "golang.org/x/sys/unix"

// threadCPU is the calling thread's CPU time in nanoseconds: on a shared
// machine it leaves out the time other processes hold the core.
func threadCPU() (int64, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return ts.Nano(), true
}
