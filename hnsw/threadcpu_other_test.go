//go:build !linux

package hnsw

func threadCPU() (int64, bool) { return 0, false }
