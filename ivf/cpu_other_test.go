//go:build !unix

package ivf

import "time"

// cpuTime is unknown here: the cpu-s/op metric reads 0.
func cpuTime() time.Duration { return 0 }
