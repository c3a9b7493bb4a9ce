//go:build !unix

package flat

// cpuTime is unknown here: loopCPU reports wall time only.
func cpuTime() int64 { return -1 }
