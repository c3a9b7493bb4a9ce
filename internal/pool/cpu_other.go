//go:build !linux

package pool

import (
	"errors"
	"runtime"
)

var errNoPin = errors.New("pool: CPU pinning is only supported on linux")

func pinList([]int) ([]int, error) { return nil, errNoPin }

func pinThread(int) error { return errNoPin }

// UsableCPUs returns the CPUs this process may use; off linux that is runtime.NumCPU().
func UsableCPUs() int { return max(runtime.NumCPU(), 1) }
