package pool

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxCPU is the number of CPUs a unix.CPUSet can name.
const maxCPU = 8 * int(unsafe.Sizeof(unix.CPUSet{}))

// pinList returns the CPUs workers are pinned to, in order: cpus if given,
// otherwise the CPUs in this process's affinity mask.
func pinList(cpus []int) ([]int, error) {
	for _, c := range cpus {
		if c < 0 || c >= maxCPU {
			return nil, fmt.Errorf("pool: CPU %d out of range [0, %d)", c, maxCPU)
		}
	}
	if len(cpus) > 0 {
		return cpus, nil
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("pool: read affinity mask: %w", err)
	}
	for c := range maxCPU {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("pool: empty affinity mask")
	}
	return cpus, nil
}

// pinThread binds the calling (locked) OS thread to cpu.
func pinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	return unix.SchedSetaffinity(0, &set)
}

// UsableCPUs returns the CPUs this process may use: the smaller of the
// affinity mask count and the cgroup CPU quota (rounded up), at least 1.
func UsableCPUs() int {
	n := 0
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		n = set.Count()
	}
	if n <= 0 {
		n = runtime.NumCPU()
	}
	if q, ok := cgroupCPUs(); ok && q < n {
		n = q
	}
	return max(n, 1)
}

func cgroupCPUs() (int, bool) {
	if b, err := os.ReadFile("/sys/fs/cgroup/cpu.max"); err == nil {
		return cgroupV2CPUs(string(b))
	}
	q, err1 := os.ReadFile("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
	p, err2 := os.ReadFile("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return cgroupV1CPUs(string(q), string(p))
}
