package main

import (
	"runtime"
	"sync"
	"time"

	"github.com/astral-engine/astral/kernel"
)

// readCeiling is the fastest plain sequential read of buf split over p
// threads, in GB/s: the best of several passes, with and without software
// prefetch. A flat scan cannot beat it; how close it gets is its efficiency.
func readCeiling(buf []byte, p int) float64 {
	best := 0.0
	for _, prefetch := range []bool{false, true} {
		for rep := 0; rep < 7; rep++ {
			var wg sync.WaitGroup
			start := time.Now()
			for i := 0; i < p; i++ {
				lo, hi := len(buf)*i/p, len(buf)*(i+1)/p
				wg.Add(1)
				go func() {
					defer wg.Done()
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					kernel.ReadSum(buf[lo:hi], prefetch)
				}()
			}
			wg.Wait()
			if gbps := float64(len(buf)) / float64(time.Since(start).Nanoseconds()); gbps > best {
				best = gbps
			}
		}
	}
	return best
}
