package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

// The tag constants of include/astral.h are the Go package's.
const (
	_ = uint(C.ASTRAL_TAG_BITS - astral.TagBits)
	_ = uint(astral.TagBits - C.ASTRAL_TAG_BITS)
	_ = uint(C.ASTRAL_MAX_TAG_NAME - astral.MaxTagName)
	_ = uint(astral.MaxTagName - C.ASTRAL_MAX_TAG_NAME)
)

//export astral_index_contains
func astral_index_contains(index C.AstralIndex, id C.uint64_t, outContains *C.int) (st C.AstralStatus) {
	const fn = "astral_index_contains"
	defer recoverStatus(fn, &st, enterFP())
	if outContains != nil {
		*outContains = 0
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if outContains == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_contains is NULL")
	}
	if e.x.Contains(uint64(id)) {
		*outContains = 1
	}
	return statusOK
}

//export astral_index_clear
func astral_index_clear(index C.AstralIndex) (st C.AstralStatus) {
	const fn = "astral_index_clear"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if err := e.x.Clear(); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

//export astral_index_get_vector
func astral_index_get_vector(index C.AstralIndex, id C.uint64_t, outVector *C.float, valueCount C.size_t) (st C.AstralStatus) {
	const fn = "astral_index_get_vector"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if outVector == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_vector is NULL")
	}
	if valueCount != C.size_t(e.dim) {
		return fail(fn, C.ASTRAL_E_DIMENSION, "value_count %d, index dimension is %d", valueCount, e.dim)
	}
	// Decoded straight into the host's array: it holds the dimension, so
	// Vector writes there and allocates nothing.
	dst := unsafe.Slice((*float32)(unsafe.Pointer(outVector)), e.dim)
	if _, err := e.x.Vector(uint64(id), dst[:0]); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

// tagBit checks a tag bit from the host.
func tagBit(fn string, bit C.uint32_t) C.AstralStatus {
	if bit >= astral.TagBits {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "bit %d: want 0 to %d", bit, astral.TagBits-1)
	}
	return statusOK
}

// tagNameArg reads the host's NUL-terminated name, at most one byte past
// the longest name: a longer one is refused (false) without walking a
// string that may lack its NUL.
func tagNameArg(name *C.char) (string, bool) {
	n := 0
	for n <= astral.MaxTagName && *(*byte)(unsafe.Add(unsafe.Pointer(name), n)) != 0 {
		n++
	}
	if n > astral.MaxTagName {
		return "", false
	}
	return C.GoStringN(name, C.int(n)), true
}

//export astral_index_set_tag_name
func astral_index_set_tag_name(index C.AstralIndex, bit C.uint32_t, name *C.char) (st C.AstralStatus) {
	const fn = "astral_index_set_tag_name"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if st := tagBit(fn, bit); st != statusOK {
		return st
	}
	s, ok := "", true
	if name != nil {
		s, ok = tagNameArg(name)
	}
	if !ok {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "name longer than %d bytes", astral.MaxTagName)
	}
	if err := e.x.SetTagName(int(bit), s); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

//export astral_index_get_tag_name
func astral_index_get_tag_name(index C.AstralIndex, bit C.uint32_t, buffer *C.char, capacity C.size_t, outSize *C.size_t) (st C.AstralStatus) {
	const fn = "astral_index_get_tag_name"
	defer recoverStatus(fn, &st, enterFP())
	e, st := bufferArgs(fn, index, "buffer", unsafe.Pointer(buffer), capacity, outSize)
	if st != statusOK {
		return st
	}
	if st := tagBit(fn, bit); st != statusOK {
		return st
	}
	name := e.x.TagName(int(bit))
	*outSize = C.size_t(len(name))
	if uint64(capacity) < uint64(len(name))+1 {
		return fail(fn, C.ASTRAL_E_BUFFER_TOO_SMALL, "capacity %d, the name of bit %d takes %d bytes and its NUL", capacity, bit, len(name))
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(buffer)), len(name)+1)
	dst[copy(dst, name)] = 0
	return statusOK
}

//export astral_index_find_tag
func astral_index_find_tag(index C.AstralIndex, name *C.char, outBit *C.uint32_t) (st C.AstralStatus) {
	const fn = "astral_index_find_tag"
	defer recoverStatus(fn, &st, enterFP())
	if outBit != nil {
		*outBit = 0
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if name == nil || outBit == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "name or out_bit is NULL")
	}
	s, ok := tagNameArg(name)
	if !ok {
		return fail(fn, C.ASTRAL_E_NOT_FOUND, "no tag name is longer than %d bytes", astral.MaxTagName)
	}
	bit, ok := e.x.TagBit(s)
	if !ok {
		return fail(fn, C.ASTRAL_E_NOT_FOUND, "no tag bit is named %q", s)
	}
	*outBit = C.uint32_t(bit)
	return statusOK
}
