package pool

import (
	"strconv"
	"strings"
)

// cgroupV2CPUs parses cgroup v2 cpu.max ("QUOTA PERIOD" or "max PERIOD").
// It returns ceil(QUOTA/PERIOD) and true, or false if unlimited or unparsable.
func cgroupV2CPUs(cpuMax string) (int, bool) {
	f := strings.Fields(cpuMax)
	if len(f) == 0 || len(f) > 2 || f[0] == "max" {
		return 0, false
	}
	period := "100000" // the kernel default when the period is omitted
	if len(f) == 2 {
		period = f[1]
	}
	return quotaCPUs(f[0], period)
}

// cgroupV1CPUs parses cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us
// (quota -1 = unlimited), with the same results as cgroupV2CPUs.
func cgroupV1CPUs(quota, period string) (int, bool) {
	return quotaCPUs(strings.TrimSpace(quota), strings.TrimSpace(period))
}

func quotaCPUs(quota, period string) (int, bool) {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, false
	}
	return int((q + p - 1) / p), true
}
