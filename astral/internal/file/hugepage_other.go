//go:build unix && !linux

package file

// adviseHugePages has no portable equivalent outside Linux.
func adviseHugePages([]byte) {}
