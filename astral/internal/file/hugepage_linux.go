package file

import "golang.org/x/sys/unix"

// adviseHugePages asks for 2 MiB pages under a file mapping, before its
// first touch: where the file system caches in large folios, reading an
// uncached file then fills 2 MiB folios, which map with one fault each and
// cost queries fewer TLB misses. Without transparent huge pages the advice
// fails and changes nothing, so its error is ignored.
func adviseHugePages(data []byte) { _ = unix.Madvise(data, unix.MADV_HUGEPAGE) }
