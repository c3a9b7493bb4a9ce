package main

/*
#include "capi.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

// The storage kinds and rerank bounds of include/astral.h are the Go
// package's: a compile error otherwise (as in main.go).
var (
	_ = uint(C.ASTRAL_STORAGE_E4M3 - uint(astral.E4M3))
	_ = uint(uint(astral.E4M3) - C.ASTRAL_STORAGE_E4M3)
	_ = uint(C.ASTRAL_STORAGE_INT8 - uint(astral.Int8))
	_ = uint(uint(astral.Int8) - C.ASTRAL_STORAGE_INT8)
	_ = uint(C.ASTRAL_STORAGE_F16 - uint(astral.F16))
	_ = uint(uint(astral.F16) - C.ASTRAL_STORAGE_F16)
	_ = uint(C.ASTRAL_STORAGE_F32 - uint(astral.F32))
	_ = uint(uint(astral.F32) - C.ASTRAL_STORAGE_F32)
	_ = uint(C.ASTRAL_DEFAULT_RERANK_FACTOR - astral.DefaultRerankFactor)
	_ = uint(astral.DefaultRerankFactor - C.ASTRAL_DEFAULT_RERANK_FACTOR)
	_ = uint(C.ASTRAL_MAX_RERANK_FACTOR - astral.MaxRerankFactor)
	_ = uint(astral.MaxRerankFactor - C.ASTRAL_MAX_RERANK_FACTOR)
)

// maxValues bounds any count the host passes, so that products of counts
// and the slices laid over C arrays cannot overflow.
const maxValues = 1 << 40

//export astral_index_create
func astral_index_create(options *C.AstralIndexOptions, outIndex *C.AstralIndex) (st C.AstralStatus) {
	const fn = "astral_index_create"
	defer recoverStatus(fn, &st, enterFP())
	if outIndex != nil {
		*outIndex = 0
	}
	if options == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "options is NULL")
	}
	if outIndex == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_index is NULL")
	}
	var o C.AstralIndexOptions
	if st := readStruct(fn, unsafe.Pointer(&o), unsafe.Sizeof(o), unsafe.Pointer(options), minIndexOptionsSize); st != statusOK {
		return st
	}
	if o.flat_limit_bytes > math.MaxInt64 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "flat_limit_bytes %d is above INT64_MAX", uint64(o.flat_limit_bytes))
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.rt == nil {
		return fail(fn, C.ASTRAL_E_NOT_INITIALIZED, "astral_init has not been called (or astral_shutdown has)")
	}
	x, err := astral.NewIndex(reg.rt, indexOptions(&o)...)
	if err != nil {
		return failOptions(fn, &o, err)
	}
	h, ok := reg.insert(&entry{x: x, dim: int(o.dimension), rt: reg.rt})
	if !ok {
		return fail(fn, C.ASTRAL_E_OUT_OF_MEMORY, "%d indexes alive: destroy some first", reg.live)
	}
	*outIndex = h
	return statusOK
}

// indexOptions are astral's options for o, which astral validates. A zero
// field is that option's default: astral reads 0 so for the HNSW numbers
// and the rerank factor; the enums and the flat limit are left unset.
func indexOptions(o *C.AstralIndexOptions) []astral.Option {
	opts := []astral.Option{astral.WithDim(int(o.dimension)), astral.WithKind(astral.Kind(clampU8(o.kind))),
		astral.WithIVF(int(min(o.ivf_nlist, math.MaxInt32)), int(min(o.ivf_nprobe, math.MaxInt32))), astral.WithIVFSeed(uint64(o.ivf_seed)),
		astral.WithHNSW(int(o.hnsw_m), int(o.hnsw_ef_construction)), astral.WithEfSearch(int(o.hnsw_ef_search)),
		astral.WithRerank(astral.Storage(clampU8(o.rerank_storage)), int(o.rerank_factor))}
	if o.metric != C.ASTRAL_METRIC_DEFAULT {
		opts = append(opts, astral.WithMetric(astral.Metric(clampU8(o.metric))))
	}
	if o.storage != C.ASTRAL_STORAGE_DEFAULT {
		opts = append(opts, astral.WithStorage(astral.Storage(clampU8(o.storage))))
	}
	if o.flat_limit_bytes != 0 {
		opts = append(opts, astral.WithFlatLimitBytes(int64(o.flat_limit_bytes)))
	}
	return append(opts, astral.WithIVFLimitRecords(int64(o.ivf_limit_records)))
}

// clampU8 narrows an enum value to the Go package's uint8 enums, keeping an
// out-of-range one out of range (300 must not become 44, nor 256 the
// default 0); errors name the value as the host passed it.
func clampU8(v C.uint32_t) uint8 {
	return uint8(min(v, math.MaxUint8))
}

//export astral_index_destroy
func astral_index_destroy(index C.AstralIndex) (st C.AstralStatus) {
	const fn = "astral_index_destroy"
	defer recoverStatus(fn, &st, enterFP())
	if index == 0 {
		return statusOK
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	reg.mu.Lock()
	down, gone := reg.rt == nil, !reg.remove(index)
	reg.mu.Unlock()
	// Another thread may have destroyed it, or shut down, since the lookup.
	if down {
		return fail(fn, C.ASTRAL_E_NOT_INITIALIZED, "astral_shutdown ran while destroying")
	}
	if gone {
		return fail(fn, C.ASTRAL_E_STALE_HANDLE, "index handle %#x is stale: the index was destroyed", uint64(index))
	}
	if e.x.Mapped() {
		e.x.Close() // unmap its file now rather than when the collector finds it
	}
	return statusOK
}

//export astral_index_add
func astral_index_add(index C.AstralIndex, ids *C.uint64_t, count C.size_t, vectors *C.float, valueCount C.size_t) (st C.AstralStatus) {
	const fn = "astral_index_add"
	defer recoverStatus(fn, &st, enterFP())
	e, idv, vecs, st := addArgs(fn, index, ids, count, vectors, valueCount)
	if st != statusOK {
		return st
	}
	if err := e.x.Add(idv, vecs); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

// addArgs checks what the add entry points share (the handle, NULL
// pointers, counts past what memory could hold) and returns the index and
// views of the host's ids and vectors.
func addArgs(fn string, index C.AstralIndex, ids *C.uint64_t, count C.size_t, vectors *C.float, valueCount C.size_t) (*entry, []uint64, []float32, C.AstralStatus) {
	e, st := lookup(fn, index)
	if st != statusOK {
		return nil, nil, nil, st
	}
	if ids == nil && count > 0 {
		return nil, nil, nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "ids is NULL with count %d", count)
	}
	if vectors == nil && valueCount > 0 {
		return nil, nil, nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "vectors is NULL with value_count %d", valueCount)
	}
	if count > maxValues || valueCount > maxValues {
		return nil, nil, nil, fail(fn, C.ASTRAL_E_OUT_OF_MEMORY, "count %d, value_count %d: too large", count, valueCount)
	}
	return e, unsafe.Slice((*uint64)(unsafe.Pointer(ids)), count), unsafe.Slice((*float32)(unsafe.Pointer(vectors)), valueCount), statusOK
}

//export astral_index_remove
func astral_index_remove(index C.AstralIndex, ids *C.uint64_t, count C.size_t) (st C.AstralStatus) {
	const fn = "astral_index_remove"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if ids == nil && count > 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "ids is NULL with count %d", count)
	}
	if count > maxValues {
		return fail(fn, C.ASTRAL_E_OUT_OF_MEMORY, "count %d: too large", count)
	}
	if err := e.x.Remove(unsafe.Slice((*uint64)(unsafe.Pointer(ids)), count)...); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

// checkQueryArgs validates what astral_index_query and _query_batch share.
func checkQueryArgs(fn string, e *entry, queries *C.float, nq, dimension C.size_t, k C.uint32_t, results *C.AstralResult, capacity C.size_t, outCounts *C.uint32_t) C.AstralStatus {
	if nq > 0 && queries == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "query is NULL")
	}
	if nq > 0 && results == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "results is NULL")
	}
	if nq > 0 && outCounts == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out count is NULL")
	}
	if k < 1 || k > astral.MaxK {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "k = %d: want 1 to %d", k, astral.MaxK)
	}
	if nq > maxValues/astral.MaxK {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "query_count %d: too large", nq)
	}
	if capacity < nq*C.size_t(k) {
		if nq == 1 {
			return fail(fn, C.ASTRAL_E_BUFFER_TOO_SMALL, "results holds %d, k = %d needs %d", capacity, k, k)
		}
		return fail(fn, C.ASTRAL_E_BUFFER_TOO_SMALL, "results holds %d, %d queries x k = %d need %d", capacity, nq, k, nq*C.size_t(k))
	}
	if nq > 0 && dimension != C.size_t(e.dim) {
		return fail(fn, C.ASTRAL_E_DIMENSION, "query has %d values, index dimension is %d", dimension, e.dim)
	}
	return statusOK
}

//export astral_index_query
func astral_index_query(index C.AstralIndex, query *C.float, dimension C.size_t, k C.uint32_t, results *C.AstralResult, capacity C.size_t, outCount *C.uint32_t) (st C.AstralStatus) {
	const fn = "astral_index_query"
	defer recoverStatus(fn, &st, enterFP())
	if outCount != nil {
		*outCount = 0
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if st := checkQueryArgs(fn, e, query, 1, dimension, k, results, capacity, outCount); st != statusOK {
		return st
	}
	// The Go API writes straight into the caller's array and reads the
	// query in place: no copy, no allocation.
	dst := unsafe.Slice((*astral.Result)(unsafe.Pointer(results)), k)
	res, err := e.x.Query(dst[:0], unsafe.Slice((*float32)(unsafe.Pointer(query)), dimension), int(k))
	if err != nil {
		return failErr(fn, err)
	}
	*outCount = C.uint32_t(len(res))
	return statusOK
}

//export astral_index_query_batch
func astral_index_query_batch(index C.AstralIndex, queries *C.float, queryCount, dimension C.size_t, k C.uint32_t, results *C.AstralResult, capacity C.size_t, outCounts *C.uint32_t) (st C.AstralStatus) {
	const fn = "astral_index_query_batch"
	defer recoverStatus(fn, &st, enterFP())
	if outCounts != nil && queryCount <= maxValues/astral.MaxK {
		clear(unsafe.Slice((*uint32)(unsafe.Pointer(outCounts)), queryCount))
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if st := checkQueryArgs(fn, e, queries, queryCount, dimension, k, results, capacity, outCounts); st != statusOK {
		return st
	}
	nq, dim, kk := int(queryCount), e.dim, int(k)
	qs := unsafe.Slice((*float32)(unsafe.Pointer(queries)), nq*dim)
	dst := unsafe.Slice((*astral.Result)(unsafe.Pointer(results)), nq*kk)
	outs := unsafe.Slice((*uint32)(unsafe.Pointer(outCounts)), nq)
	// QueryBatch takes []int counts: feed it MaxBatch queries at a time
	// through a stack array instead of allocating one per call.
	var counts [astral.MaxBatch]int
	for lo := 0; lo < nq; lo += astral.MaxBatch {
		m := min(astral.MaxBatch, nq-lo)
		if _, err := e.x.QueryBatch(dst[lo*kk:(lo+m)*kk], counts[:m], qs[lo*dim:(lo+m)*dim], kk); err != nil {
			clear(outs)
			return failErr(fn, err)
		}
		for j, c := range counts[:m] {
			outs[lo+j] = uint32(c)
		}
	}
	return statusOK
}

//export astral_index_count
func astral_index_count(index C.AstralIndex, outCount *C.uint64_t) (st C.AstralStatus) {
	const fn = "astral_index_count"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if outCount == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_count is NULL")
	}
	*outCount = C.uint64_t(e.x.Len())
	return statusOK
}

//export astral_index_stats
func astral_index_stats(index C.AstralIndex, outStats *C.AstralStats) (st C.AstralStatus) {
	const fn = "astral_index_stats"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if outStats == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_stats is NULL")
	}
	// Validated before the work, so a bad struct_size costs nothing.
	if _, st := structSize(fn, unsafe.Pointer(outStats), unsafe.Sizeof(*outStats), minStatsSize); st != statusOK {
		return st
	}
	s, cfg := e.x.Stats(), e.x.Config()
	out := C.AstralStats{
		dimension:        C.uint32_t(s.Dim),
		count:            C.uint64_t(s.Len),
		metric:           C.uint32_t(s.Metric),
		kind:             C.uint32_t(s.Kind),
		storage:          C.uint32_t(s.Storage),
		thread_count:     C.uint32_t(e.rt.Threads()),
		bytes:            C.uint64_t(s.Bytes),
		bytes_per_vector: C.double(s.BytesPerVector),
	}
	out.payload_count, out.payload_bytes, out.owner_count = C.uint64_t(s.Payloads), C.uint64_t(s.PayloadBytes), C.uint64_t(s.Owners)
	plans := e.x.PlanCounts()
	out.scan_queries, out.direct_queries, out.graph_queries = C.uint64_t(plans.Scan), C.uint64_t(plans.Direct), C.uint64_t(plans.Graph)
	out.tag_name_count = C.uint64_t(s.TagNames)
	if ps, ok := e.x.IVFStats(); ok {
		out.ivf_partitions, out.ivf_dirty_partitions = C.uint32_t(ps.Partitions), C.uint32_t(ps.Dirty)
		out.ivf_largest_partition, out.ivf_largest_share = C.uint64_t(ps.Largest), C.double(ps.Share)
	}
	if cfg.Rerank != 0 {
		out.rerank_storage = C.uint32_t(cfg.Rerank)
		out.rerank_factor = C.uint32_t(cfg.RerankFactor)
	}
	name := unsafe.Slice((*byte)(unsafe.Pointer(&out.kernel[0])), len(out.kernel))
	name[copyMessage(name[:len(name)-1], s.Kernel)] = 0
	return writeStruct(fn, unsafe.Pointer(outStats), unsafe.Pointer(&out), unsafe.Sizeof(out), minStatsSize)
}
