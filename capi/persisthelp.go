package main

// Go-typed wrappers over the persistence exports, for the Go tests (which
// cannot use cgo): buffers and paths in C memory, as a host passes them.

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import "unsafe"

func saveFile(h uint64, path string) status {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	return astral_index_save(C.AstralIndex(h), p)
}

// saveBuffer saves into a C buffer of capacity bytes; it returns the bytes
// and the size the call reported.
func saveBuffer(h uint64, capacity int) ([]byte, int, status) {
	buf := newCArray[byte](capacity)
	defer buf.free()
	var size C.size_t
	p := unsafe.Pointer(buf.p)
	if capacity == 0 {
		p = nil
	}
	st := astral_index_save_to_buffer(C.AstralIndex(h), p, C.size_t(capacity), &size)
	out := append([]byte(nil), buf.slice()[:min(int(size), capacity)]...)
	return out, int(size), st
}

// lastSave is astral_index_last_save's answer; nilArgs passes NULL
// pointers.
func lastSave(h uint64, nilArgs bool) (uint64, bool, status) {
	var bytes C.uint64_t
	var appended C.int = 7
	if nilArgs {
		return 0, false, astral_index_last_save(C.AstralIndex(h), nil, &appended)
	}
	st := astral_index_last_save(C.AstralIndex(h), &bytes, &appended)
	return uint64(bytes), appended == 1, st
}

func loadFile(path string) (uint64, status) {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	var h C.AstralIndex = 77
	st := astral_index_load(p, &h)
	return uint64(h), st
}

// loadMemory loads from a C copy of b, freed as soon as the call returns.
func loadMemory(b []byte) (uint64, status) {
	c := cCopy(b)
	var h C.AstralIndex = 77
	st := astral_index_load_from_memory(unsafe.Pointer(c.p), C.size_t(len(b)), &h)
	clear(c.slice())
	c.free()
	return uint64(h), st
}
