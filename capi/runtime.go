package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

// Option structs grow only at the end. A host built against an older header
// passes a smaller struct_size: the fields it lacks read as zero, which is
// every field's default. A newer host passes a larger one: accepted only if
// the fields this library does not know are zero.
//
// minInitSize, minIndexOptionsSize and minStatsSize are the sizes of the
// first released layouts; keep them when appending fields (for a struct
// that has grown: the offset of its first appended field).
const (
	minInitSize         = unsafe.Sizeof(C.AstralInit{})
	minIndexOptionsSize = unsafe.Offsetof(C.AstralIndexOptions{}.rerank_storage)
	minStatsSize        = unsafe.Offsetof(C.AstralStats{}.rerank_storage)
	// maxStructSize bounds what struct_size can make us read.
	maxStructSize = 4096
)

// readStruct copies the caller's struct_size bytes at src into dst (size
// bytes, zeroed beyond what the caller gave).
func readStruct(fn string, dst unsafe.Pointer, size uintptr, src unsafe.Pointer, minSize uintptr) C.AstralStatus {
	given := uintptr(*(*C.uint32_t)(src))
	if given < minSize || given > maxStructSize {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "struct_size %d: want sizeof the struct (%d with this library's header)", given, size)
	}
	n := min(given, size)
	copy(unsafe.Slice((*byte)(dst), size), unsafe.Slice((*byte)(src), n))
	for _, b := range unsafe.Slice((*byte)(unsafe.Add(src, n)), given-n) {
		if b != 0 {
			return fail(fn, C.ASTRAL_E_VERSION_MISMATCH,
				"struct_size %d sets fields this library (version %s, struct size %d) does not know; upgrade the library",
				given, astral.Version, size)
		}
	}
	return statusOK
}

//export astral_init
func astral_init(init *C.AstralInit) (st C.AstralStatus) {
	const fn = "astral_init"
	defer recoverStatus(fn, &st)
	cfg := C.AstralInit{thread_count: C.ASTRAL_THREADS_AUTO}
	if init != nil {
		if st := readStruct(fn, unsafe.Pointer(&cfg), unsafe.Sizeof(cfg), unsafe.Pointer(init), minInitSize); st != statusOK {
			return st
		}
	}
	opts := []astral.RuntimeOption{astral.WithThreads(int(cfg.thread_count))}
	if cfg.flags&^C.ASTRAL_INIT_PIN_THREADS != 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "unknown flags %#x", uint32(cfg.flags&^C.ASTRAL_INIT_PIN_THREADS))
	}
	if cfg.cpu_count > 0 && cfg.cpus == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "cpus is NULL with cpu_count %d", cfg.cpu_count)
	}
	if cfg.cpu_count > 0 && cfg.flags&C.ASTRAL_INIT_PIN_THREADS == 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "cpus given without ASTRAL_INIT_PIN_THREADS")
	}
	if cfg.cpu_count > maxStructSize {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "cpu_count %d: want at most %d", cfg.cpu_count, maxStructSize)
	}
	if cfg.flags&C.ASTRAL_INIT_PIN_THREADS != 0 {
		cpus := make([]int, cfg.cpu_count)
		for i, c := range unsafe.Slice((*int32)(unsafe.Pointer(cfg.cpus)), cfg.cpu_count) {
			cpus[i] = int(c)
		}
		opts = append(opts, astral.WithPinning(cpus...))
	}

	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.rt != nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "already initialized: call astral_shutdown first")
	}
	rt, err := astral.NewRuntime(opts...)
	if err != nil {
		return failErr(fn, err)
	}
	reg.rt = rt
	return statusOK
}

//export astral_shutdown
func astral_shutdown() (st C.AstralStatus) {
	const fn = "astral_shutdown"
	defer recoverStatus(fn, &st)
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.rt == nil {
		return fail(fn, C.ASTRAL_E_NOT_INITIALIZED, "not initialized")
	}
	reg.clear()
	reg.rt.Close()
	reg.rt = nil
	return statusOK
}
