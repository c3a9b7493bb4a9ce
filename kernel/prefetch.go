package kernel

// Prefetch asks the CPU to start bringing b's cache lines into the cache
// and returns without waiting for them: a graph walk names the next node's
// links while it scores the current one. It reads nothing and cannot
// fault. Where there is no prefetch instruction (and under noasm) it does
// nothing.
func Prefetch(b []byte) {
	if len(b) > 0 {
		prefetchLines(&b[0], len(b))
	}
}
