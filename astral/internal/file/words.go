package file

import (
	"unsafe"

	"github.com/astral-engine/astral/internal/mem"
)

// Sections are the in-memory words of a little-endian host, used in
// place: these views turn words into bytes and back without a copy.

// LittleEndianHost reports whether this machine stores words
// little-endian, as index files do; their sections are used in place, so
// big-endian hosts cannot read or write them.
func LittleEndianHost() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// BytesOf views a slice of words as its bytes (in host order: callers
// check the host is little-endian).
func BytesOf[T uint32 | uint64 | int64 | float32](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// WordsOf views b (its length a multiple of T's size) as a slice of T,
// copying it to aligned memory if it is not aligned. Empty b gives an
// empty, non-nil slice.
func WordsOf[T uint32 | uint64 | int64 | float32](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b) == 0 {
		return []T{}
	}
	if uintptr(unsafe.Pointer(&b[0]))%uintptr(size) != 0 {
		b = append(alignedBytes(0, len(b)), b...)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size)
}

// alignedBytes returns a slice of length n and capacity c starting on an
// Align boundary (mem.Line), on huge pages when large.
func alignedBytes(n, c int) []byte { return mem.Bytes(c)[:n] }
