package main

/*
#include "capi.h"
*/
import "C"

import (
	"os"
	"runtime"
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

// Structs grow only at the end. A host built against an older header
// passes a smaller struct_size: the input fields it lacks read as zero,
// which is every field's default, and an output struct gets only the
// bytes it has. A host built against a newer header passes a larger one:
// its extra input fields are ignored and the tail of its output struct is
// left untouched. Either way the library never reads or writes past the
// size it knows itself, whatever struct_size claims: the host's memory
// beyond it may not be the struct at all.
//
// minInitSize, minIndexOptionsSize, minStatsSize and minQueryOptionsSize
// are the sizes of the first released layouts; keep them when appending
// fields (for a struct that has grown: the offset of its first appended
// field).
const (
	minInitSize         = unsafe.Offsetof(C.AstralInit{}.max_procs)
	minIndexOptionsSize = unsafe.Offsetof(C.AstralIndexOptions{}.rerank_storage)
	minStatsSize        = unsafe.Offsetof(C.AstralStats{}.rerank_storage)
	minQueryOptionsSize = unsafe.Offsetof(C.AstralQueryOptions{}.rank_relevance)
	// maxStructSize bounds struct_size: a larger one is garbage, not a
	// struct from any header.
	maxStructSize = 4096
)

// structSize validates the struct_size at the start of the host's struct
// p (which every struct has) for a struct this library knows as size
// bytes, and returns how many bytes to read or write: at most size.
func structSize(fn string, p unsafe.Pointer, size, minSize uintptr) (uintptr, C.AstralStatus) {
	given := uintptr(*(*C.uint32_t)(p))
	if given < minSize || given > maxStructSize {
		return 0, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "struct_size %d: want sizeof the struct (%d with this library's header; at least %d)", given, size, minSize)
	}
	return min(given, size), statusOK
}

// readStruct copies the host's input struct at src into dst, the
// library's own layout of size bytes: the bytes the host has, the rest
// zero.
func readStruct(fn string, dst unsafe.Pointer, size uintptr, src unsafe.Pointer, minSize uintptr) C.AstralStatus {
	n, st := structSize(fn, src, size, minSize)
	if st != statusOK {
		return st
	}
	d := unsafe.Slice((*byte)(dst), size)
	clear(d[copy(d, unsafe.Slice((*byte)(src), n)):])
	return statusOK
}

// writeStruct copies src, the library's own layout of size bytes, into
// the host's output struct at dst, as far as both reach: dst's struct_size
// is kept, and any tail past size is left as the host had it.
func writeStruct(fn string, dst unsafe.Pointer, src unsafe.Pointer, size uintptr, minSize uintptr) C.AstralStatus {
	n, st := structSize(fn, dst, size, minSize)
	if st != statusOK {
		return st
	}
	given := *(*C.uint32_t)(dst)
	copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(src), n))
	*(*C.uint32_t)(dst) = given
	return statusOK
}

//export astral_init
func astral_init(init *C.AstralInit) (st C.AstralStatus) {
	const fn = "astral_init"
	defer recoverStatus(fn, &st, enterFP())
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
	if limit := int(cfg.max_procs); limit > 0 && limit < rt.Threads()+1 {
		rt.Close()
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "max_procs %d: want at least the %d workers + 1 (the caller), or 0", limit, rt.Threads())
	}
	procs.apply(int(cfg.max_procs))
	reg.rt = rt
	return statusOK
}

// procs is the library's GOMAXPROCS setting; reg.mu guards it.
var procs procsSetting

// procsSetting caps GOMAXPROCS (AstralInit.max_procs) and undoes the cap.
type procsSetting struct {
	loaded  int  // GOMAXPROCS before the first cap; 0 until then
	fromEnv bool // the process gave GOMAXPROCS in its environment
	capped  bool
}

// apply sets GOMAXPROCS to limit, never above the setting the library
// loaded with; 0 restores that setting: the environment's value, else the
// runtime's default, which then follows CPU and cgroup changes again.
func (p *procsSetting) apply(limit int) {
	if p.loaded == 0 {
		p.loaded = runtime.GOMAXPROCS(0)
		_, p.fromEnv = os.LookupEnv("GOMAXPROCS")
	}
	switch {
	case limit > 0:
		runtime.GOMAXPROCS(min(limit, p.loaded))
		p.capped = true
	case p.capped && p.fromEnv:
		runtime.GOMAXPROCS(p.loaded)
		p.capped = false
	case p.capped:
		runtime.SetDefaultGOMAXPROCS()
		p.capped = false
	}
}

//export astral_shutdown
func astral_shutdown() (st C.AstralStatus) {
	const fn = "astral_shutdown"
	defer recoverStatus(fn, &st, enterFP())
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.rt == nil {
		return fail(fn, C.ASTRAL_E_NOT_INITIALIZED, "not initialized")
	}
	for _, e := range reg.clear() {
		// Release what the library owns now: a mapped file stays mapped
		// otherwise until the collector runs, which a host cannot see.
		if e.x.Mapped() {
			e.x.Close()
		}
	}
	reg.rt.Close()
	reg.rt = nil
	return statusOK
}
