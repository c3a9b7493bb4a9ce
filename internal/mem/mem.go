// Package mem allocates the large, long-lived arrays the index structures
// scan and gather from: aligned to a cache line, and big ones aligned to
// and advised onto 2 MiB pages, where the OS offers them. A query that
// gathers scattered records (a filter, an allowlist, a graph's neighbours)
// then misses the TLB once per 2 MiB instead of once per 4 KiB record page.
package mem

import "unsafe"

const (
	// Line is the alignment of every allocation: records and blocks never
	// straddle more cache lines than their size needs.
	Line = 64
	// HugePage is the large page size that Advise asks for.
	HugePage = 2 << 20
	// HugeMin is the smallest allocation aligned to and advised onto huge
	// pages. The alignment pads by up to a page, but padding nothing
	// touches stays virtual.
	HugeMin = HugePage
)

// Bytes returns n zero bytes starting on a Line boundary, and on a
// HugePage boundary with huge pages advised when n is at least HugeMin.
func Bytes(n int) []byte {
	align := Line
	if n >= HugeMin {
		align = HugePage
	}
	b := make([]byte, n+align)
	off := (align - int(uintptr(unsafe.Pointer(unsafe.SliceData(b))))&(align-1)) & (align - 1)
	b = b[off : off+n : off+n]
	if n >= HugeMin {
		AdviseHuge(b)
	}
	return b
}

// Words returns n zero values of T laid out as Bytes lays out bytes.
func Words[T uint32 | uint64 | float32 | int32](n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	b := Bytes(n * size)
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
