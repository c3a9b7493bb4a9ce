//go:build !unix

package main

import "time"

// threadCPU and cpuTime are not measured here: the CPU columns read 0.
func threadCPU() time.Duration { return 0 }

func cpuTime() time.Duration { return 0 }
