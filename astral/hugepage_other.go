//go:build unix && !linux

package astral

// adviseHugePages has no portable equivalent outside Linux.
func adviseHugePages([]byte) {}
