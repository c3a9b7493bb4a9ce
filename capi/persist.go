package main

/*
#include "capi.h"
*/
import "C"

import (
	"errors"
	"math"
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

//export astral_index_save
func astral_index_save(index C.AstralIndex, path *C.char) (st C.AstralStatus) {
	const fn = "astral_index_save"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if path == nil || *path == 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "path is NULL or empty")
	}
	if err := e.x.SaveFile(C.GoString(path)); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

//export astral_index_last_save
func astral_index_last_save(index C.AstralIndex, outBytes *C.uint64_t, outAppended *C.int) (st C.AstralStatus) {
	const fn = "astral_index_last_save"
	defer recoverStatus(fn, &st, enterFP())
	if outBytes != nil {
		*outBytes = 0
	}
	if outAppended != nil {
		*outAppended = 0
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if outBytes == nil || outAppended == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_bytes or out_appended is NULL")
	}
	s := e.x.SaveStats()
	*outBytes = C.uint64_t(s.Bytes)
	if s.Appended {
		*outAppended = 1
	}
	return statusOK
}

// bufferArgs checks what the entry points that fill a host's buffer share:
// *outSize is 0 until they succeed, the handle, out_size, and a buffer
// (named name) given whenever capacity is.
func bufferArgs(fn string, index C.AstralIndex, name string, buf unsafe.Pointer, capacity C.size_t, outSize *C.size_t) (*entry, C.AstralStatus) {
	if outSize != nil {
		*outSize = 0
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return nil, st
	}
	if outSize == nil {
		return nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_size is NULL")
	}
	if buf == nil && capacity > 0 {
		return nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "%s is NULL with capacity %d", name, capacity)
	}
	return e, statusOK
}

//export astral_index_save_to_buffer
func astral_index_save_to_buffer(index C.AstralIndex, buf unsafe.Pointer, capacity C.size_t, outSize *C.size_t) (st C.AstralStatus) {
	const fn = "astral_index_save_to_buffer"
	defer recoverStatus(fn, &st, enterFP())
	e, st := bufferArgs(fn, index, "buf", buf, capacity, outSize)
	if st != statusOK {
		return st
	}
	var dst []byte
	if buf != nil {
		// No index file is near this long; the bound keeps int(capacity) exact.
		dst = unsafe.Slice((*byte)(buf), min(uint64(capacity), maxValues))
	}
	n, err := e.x.SaveBuffer(dst)
	*outSize = C.size_t(n)
	if err != nil {
		if errors.Is(err, astral.ErrBufferTooSmall) {
			return fail(fn, C.ASTRAL_E_BUFFER_TOO_SMALL, "capacity %d, the index needs %d bytes", capacity, n)
		}
		*outSize = 0
		return failErr(fn, err)
	}
	return statusOK
}

// insertLoaded registers an index loaded with runtime rt; if the library
// was shut down (or restarted) meanwhile, the index is dropped.
func insertLoaded(fn string, x *astral.Index, rt *astral.Runtime, outIndex *C.AstralIndex) C.AstralStatus {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.rt == nil || reg.rt != rt {
		x.Close()
		return fail(fn, C.ASTRAL_E_NOT_INITIALIZED, "astral_shutdown ran while loading")
	}
	h, ok := reg.insert(&entry{x: x, dim: x.Config().Dim, rt: rt})
	if !ok {
		x.Close()
		return fail(fn, C.ASTRAL_E_OUT_OF_MEMORY, "%d indexes alive: destroy some first", reg.live)
	}
	*outIndex = h
	return statusOK
}

// runtimeFor returns the library's runtime, or fails fn.
func runtimeFor(fn string) (*astral.Runtime, C.AstralStatus) {
	reg.mu.RLock()
	rt := reg.rt
	reg.mu.RUnlock()
	if rt == nil {
		return nil, fail(fn, C.ASTRAL_E_NOT_INITIALIZED, "astral_init has not been called (or astral_shutdown has)")
	}
	return rt, statusOK
}

//export astral_index_load
func astral_index_load(path *C.char, outIndex *C.AstralIndex) (st C.AstralStatus) {
	const fn = "astral_index_load"
	defer recoverStatus(fn, &st, enterFP())
	return loadPath(fn, path, 0, outIndex)
}

//export astral_index_load_ex
func astral_index_load_ex(path *C.char, flags C.uint32_t, outIndex *C.AstralIndex) (st C.AstralStatus) {
	const fn = "astral_index_load_ex"
	defer recoverStatus(fn, &st, enterFP())
	return loadPath(fn, path, flags, outIndex)
}

// loadPath is astral_index_load with its flags.
func loadPath(fn string, path *C.char, flags C.uint32_t, outIndex *C.AstralIndex) C.AstralStatus {
	if outIndex != nil {
		*outIndex = 0
	}
	if path == nil || *path == 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "path is NULL or empty")
	}
	if outIndex == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_index is NULL")
	}
	if flags&^C.ASTRAL_LOAD_VERIFY_IN_BACKGROUND != 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "unknown flags %#x", flags&^C.ASTRAL_LOAD_VERIFY_IN_BACKGROUND)
	}
	rt, st := runtimeFor(fn)
	if st != statusOK {
		return st
	}
	var opts []astral.OpenOption
	if flags&C.ASTRAL_LOAD_VERIFY_IN_BACKGROUND != 0 {
		opts = append(opts, astral.VerifyInBackground())
	}
	x, err := astral.OpenFile(rt, C.GoString(path), opts...)
	if err != nil {
		return failErr(fn, err)
	}
	return insertLoaded(fn, x, rt, outIndex)
}

//export astral_index_verify
func astral_index_verify(index C.AstralIndex) (st C.AstralStatus) {
	const fn = "astral_index_verify"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if err := e.x.Verify(); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

//export astral_index_load_from_memory
func astral_index_load_from_memory(data unsafe.Pointer, size C.size_t, outIndex *C.AstralIndex) (st C.AstralStatus) {
	const fn = "astral_index_load_from_memory"
	defer recoverStatus(fn, &st, enterFP())
	if outIndex != nil {
		*outIndex = 0
	}
	if data == nil && size > 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "data is NULL with size %d", size)
	}
	if outIndex == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_index is NULL")
	}
	if uint64(size) > math.MaxInt64 {
		return fail(fn, C.ASTRAL_E_CORRUPT, "size %d is larger than any index file", size)
	}
	rt, st := runtimeFor(fn)
	if st != statusOK {
		return st
	}
	var b []byte
	if data != nil {
		b = unsafe.Slice((*byte)(data), int(size))
	}
	// LoadBytes copies what it keeps: the host may free data on return.
	x, err := astral.LoadBytes(rt, b)
	if err != nil {
		return failErr(fn, err)
	}
	return insertLoaded(fn, x, rt, outIndex)
}
