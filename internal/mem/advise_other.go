//go:build !linux

package mem

// AdviseHuge has no portable equivalent outside Linux.
func AdviseHuge([]byte) {}
