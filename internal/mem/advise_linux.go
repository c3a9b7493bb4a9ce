package mem

import "golang.org/x/sys/unix"

// AdviseHuge asks for 2 MiB pages under b, before its first touch if it
// is to take effect at once (later, the kernel's khugepaged may still
// collapse it). Without transparent huge pages, or on memory the advice
// does not apply to, it fails and changes nothing, so the error is
// ignored.
func AdviseHuge(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	}
}
