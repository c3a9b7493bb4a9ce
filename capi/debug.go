//go:build astral_debug

package main

// Experimental exports (ASTRAL_EXPERIMENTAL in astral.h): measuring aids,
// outside the ABI rules. Only the test build of the library has them (built
// with -tags astral_debug); the shipping one links no fixture generator.

/*
#include "capi.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
)

// The Go memory astral_debug_go_query_pass reuses; one caller at a time.
var (
	debugMu      sync.Mutex
	debugQueries []float32
	debugResults []astral.Result
)

//export astral_debug_go_query_pass
func astral_debug_go_query_pass(index C.AstralIndex, queries *C.float, queryCount, dimension C.size_t, k C.uint32_t, results *C.AstralResult, capacity C.size_t, outCounts *C.uint32_t, outNs *C.uint64_t) (st C.AstralStatus) {
	const fn = "astral_debug_go_query_pass"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if st := checkQueryArgs(fn, e, queries, queryCount, dimension, k, results, capacity, outCounts); st != statusOK {
		return st
	}
	if outNs == nil && queryCount > 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_ns is NULL")
	}
	nq, dim, kk := int(queryCount), e.dim, int(k)
	// Exactly what a Go program does: queries and results in Go memory,
	// one Query call per query, timed by Go's monotonic clock. The Go
	// memory is reused across calls: allocating here would start GC cycles
	// that disturb the C path's timings too.
	debugMu.Lock()
	defer debugMu.Unlock()
	if cap(debugQueries) < nq*dim {
		debugQueries = make([]float32, nq*dim)
	}
	if cap(debugResults) < kk {
		debugResults = make([]astral.Result, kk)
	}
	qs, dst := debugQueries[:nq*dim], debugResults[:kk]
	copy(qs, unsafe.Slice((*float32)(unsafe.Pointer(queries)), nq*dim))
	out := unsafe.Slice((*astral.Result)(unsafe.Pointer(results)), nq*kk)
	counts := unsafe.Slice((*uint32)(unsafe.Pointer(outCounts)), nq)
	ns := unsafe.Slice((*uint64)(unsafe.Pointer(outNs)), nq)
	for i := range nq {
		t0 := time.Now()
		res, err := e.x.Query(dst[:0], qs[i*dim:(i+1)*dim], kk)
		ns[i] = uint64(time.Since(t0))
		if err != nil {
			return failErr(fn, err)
		}
		counts[i] = uint32(copy(out[i*kk:(i+1)*kk], res))
	}
	return statusOK
}

//export astral_debug_go_mallocs
func astral_debug_go_mallocs() C.uint64_t {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return C.uint64_t(ms.Mallocs)
}

//export astral_debug_go_max_procs
func astral_debug_go_max_procs() C.uint32_t {
	return C.uint32_t(runtime.GOMAXPROCS(0))
}

//export astral_debug_fixture
func astral_debug_fixture(name *C.char, n, queryCount, dimension C.size_t, base, queries *C.float) (st C.AstralStatus) {
	const fn = "astral_debug_fixture"
	defer recoverStatus(fn, &st, enterFP())
	if name == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "name is NULL")
	}
	if (base == nil && n > 0) || (queries == nil && queryCount > 0) {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "base or queries is NULL")
	}
	if dimension < 1 || dimension > fixture.MaxDim || n > maxValues/dimension || queryCount > maxValues/dimension {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "n %d, query_count %d, dimension %d: out of range", n, queryCount, dimension)
	}
	set, err := fixture.Generate(C.GoString(name), int(n), int(queryCount), int(dimension))
	if err != nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "%v", err)
	}
	copy(unsafe.Slice((*float32)(unsafe.Pointer(base)), len(set.Base)), set.Base)
	copy(unsafe.Slice((*float32)(unsafe.Pointer(queries)), len(set.Queries)), set.Queries)
	return statusOK
}
