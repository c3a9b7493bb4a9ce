// Command capi is libastral, the C ABI of Astral declared in
// include/astral.h. Build it with -buildmode=c-shared or -buildmode=c-archive
// (scripts/build-lib.sh); cgo's generated header is never shipped.
//
// Every export is a few lines: validate, resolve the handle, call the
// astral package, record the error. A deferred recover turns any panic into
// ASTRAL_E_INTERNAL, so the host never dies. No Go pointer reaches C:
// results are written into the caller's arrays and nothing crosses the
// boundary that the host must free.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -DASTRAL_TYPES_ONLY
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

func main() {}

// The C result array is handed to the Go API as a []astral.Result, so the
// two layouts must match: these constants fail to compile if they differ.
const (
	_ = unsafe.Sizeof(C.AstralResult{}) - unsafe.Sizeof(astral.Result{})
	_ = unsafe.Sizeof(astral.Result{}) - unsafe.Sizeof(C.AstralResult{})
	_ = unsafe.Offsetof(C.AstralResult{}.score) - unsafe.Offsetof(astral.Result{}.Score)
	_ = unsafe.Offsetof(astral.Result{}.Score) - unsafe.Offsetof(C.AstralResult{}.score)
	_ = unsafe.Offsetof(C.AstralResult{}.id) - unsafe.Offsetof(astral.Result{}.ID)
	_ = unsafe.Alignof(C.AstralResult{}) - unsafe.Alignof(astral.Result{})
	_ = unsafe.Alignof(astral.Result{}) - unsafe.Alignof(C.AstralResult{})
)

// ...and so must the field types: these conversions compile only when
// id is a uint64 and score a float32 on both sides.
var (
	_ = func(r *C.AstralResult) *uint64 { return (*uint64)(&r.id) }
	_ = func(r *C.AstralResult) *float32 { return (*float32)(&r.score) }
	_ = func(r *astral.Result) (*uint64, *float32) { return &r.ID, &r.Score }
)

// The header's limits must be the Go package's.
const (
	_ = uint(C.ASTRAL_MAX_DIMENSION - astral.MaxDim)
	_ = uint(astral.MaxDim - C.ASTRAL_MAX_DIMENSION)
	_ = uint(C.ASTRAL_MAX_K - astral.MaxK)
	_ = uint(astral.MaxK - C.ASTRAL_MAX_K)
	_ = uint(C.ASTRAL_MAX_BATCH - astral.MaxBatch)
	_ = uint(astral.MaxBatch - C.ASTRAL_MAX_BATCH)
	_ = uint(C.ASTRAL_MAX_THREADS - astral.MaxThreads)
	_ = uint(astral.MaxThreads - C.ASTRAL_MAX_THREADS)
	_ = uint(C.ASTRAL_THREADS_AUTO - astral.ThreadsAuto)
	_ = uint(astral.ThreadsAuto - C.ASTRAL_THREADS_AUTO)
	_ = uint(C.ASTRAL_DEFAULT_FLAT_LIMIT_BYTES - astral.DefaultFlatLimitBytes)
	_ = uint(astral.DefaultFlatLimitBytes - C.ASTRAL_DEFAULT_FLAT_LIMIT_BYTES)
	_ = uint(C.ASTRAL_METRIC_COSINE - uint(astral.Cosine))
	_ = uint(uint(astral.Cosine) - C.ASTRAL_METRIC_COSINE)
	_ = uint(C.ASTRAL_METRIC_DOT - uint(astral.Dot))
	_ = uint(uint(astral.Dot) - C.ASTRAL_METRIC_DOT)
	_ = uint(C.ASTRAL_METRIC_L2 - uint(astral.L2))
	_ = uint(uint(astral.L2) - C.ASTRAL_METRIC_L2)
	_ = uint(C.ASTRAL_KIND_AUTO - uint(astral.KindAuto))
	_ = uint(uint(astral.KindAuto) - C.ASTRAL_KIND_AUTO)
	_ = uint(C.ASTRAL_KIND_FLAT - uint(astral.KindFlat))
	_ = uint(uint(astral.KindFlat) - C.ASTRAL_KIND_FLAT)
	_ = uint(C.ASTRAL_STORAGE_E5M2 - uint(astral.E5M2))
	_ = uint(uint(astral.E5M2) - C.ASTRAL_STORAGE_E5M2)
)

// Go's int holds every uint32 the host passes (dimension, hnsw_m, ...): the
// library is built for 64-bit targets only.
const _ = uint(math.MaxInt - math.MaxUint32)

// headerVersion is the version include/astral.h declares; a test checks it
// against astral.Version.
var headerVersion = fmt.Sprintf("%d.%d.%d", C.ASTRAL_VERSION_MAJOR, C.ASTRAL_VERSION_MINOR, C.ASTRAL_VERSION_PATCH)

//export astral_version_number
func astral_version_number() C.uint32_t {
	return C.ASTRAL_VERSION_NUMBER
}

//export astral_status_string
func astral_status_string(status C.AstralStatus) *C.char {
	// A static C string: no Go pointer reaches the host.
	return C.capi_status_string(status)
}

//export astral_last_error
func astral_last_error(buf *C.char, capacity C.size_t) C.size_t {
	return C.capi_copy_error(buf, capacity)
}
