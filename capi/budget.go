package main

/*
#include "capi.h"
*/
import "C"

import (
	"math"
	"time"
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

// minBudgetReportSize is AstralBudgetReport's first released layout.
const minBudgetReportSize = unsafe.Sizeof(C.AstralBudgetReport{})

//export astral_index_query_within
func astral_index_query_within(index C.AstralIndex, query *C.float, dimension C.size_t, options *C.AstralQueryOptions, budgetUS C.uint64_t,
	results *C.AstralResult, capacity C.size_t, outCount *C.uint32_t, outReport *C.AstralBudgetReport) (st C.AstralStatus) {
	start := time.Now()
	const fn = "astral_index_query_within"
	defer recoverStatus(fn, &st, enterFP())
	if outCount != nil {
		*outCount = 0
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	var o astral.QueryOptions
	if st := queryOptions(fn, options, &o); st != statusOK {
		return st
	}
	if st := checkQueryArgs(fn, e, query, 1, dimension, C.uint32_t(o.K), results, capacity, outCount); st != statusOK {
		return st
	}
	if budgetUS == 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "budget_us is 0: want a budget of at least 1 microsecond")
	}
	// Validated before the work, so a bad struct_size costs nothing.
	if outReport != nil {
		if _, st := structSize(fn, unsafe.Pointer(outReport), unsafe.Sizeof(*outReport), minBudgetReportSize); st != statusOK {
			return st
		}
	}
	// A budget past what a Duration holds (292 years) is no budget at all.
	budget := time.Duration(math.MaxInt64)
	if budgetUS < math.MaxInt64/1000 {
		budget = time.Duration(budgetUS) * time.Microsecond
	}
	dst := unsafe.Slice((*astral.Result)(unsafe.Pointer(results)), o.K)
	res, cov, err := e.x.QueryWithin(dst[:0], unsafe.Slice((*float32)(unsafe.Pointer(query)), dimension), o, budget)
	if err != nil {
		return failErr(fn, err)
	}
	*outCount = C.uint32_t(len(res))
	if outReport == nil {
		return statusOK
	}
	out := C.AstralBudgetReport{covered: C.double(cov.Covered), plan: C.uint32_t(cov.Plan)}
	if cov.Complete {
		out.complete = 1
	}
	out.elapsed_ns = C.uint64_t(time.Since(start))
	return writeStruct(fn, unsafe.Pointer(outReport), unsafe.Pointer(&out), unsafe.Sizeof(out), minBudgetReportSize)
}
