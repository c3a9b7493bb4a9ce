//go:build unix && !linux

package indexfile

// adviseHugePages has no portable equivalent outside Linux.
func adviseHugePages([]byte) {}
