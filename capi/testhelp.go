package main

// Helpers for the Go tests, which cannot use cgo themselves (no cgo in
// _test.go files): Go-typed wrappers over the exports, with arrays in C
// memory as a host passes them. The library never calls them, so the Go
// linker leaves them out of it.

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"runtime"
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

type status = C.AstralStatus

const (
	stOK             status = C.ASTRAL_OK
	stInvalid        status = C.ASTRAL_E_INVALID_ARGUMENT
	stDimension      status = C.ASTRAL_E_DIMENSION
	stNonFinite      status = C.ASTRAL_E_NON_FINITE
	stDuplicateID    status = C.ASTRAL_E_DUPLICATE_ID
	stNotFound       status = C.ASTRAL_E_NOT_FOUND
	stStale          status = C.ASTRAL_E_STALE_HANDLE
	stNotInit        status = C.ASTRAL_E_NOT_INITIALIZED
	stBufferTooSmall status = C.ASTRAL_E_BUFFER_TOO_SMALL
	stOutOfMemory    status = C.ASTRAL_E_OUT_OF_MEMORY
	stIO             status = C.ASTRAL_E_IO
	stCorrupt        status = C.ASTRAL_E_CORRUPT
	stInternal       status = C.ASTRAL_E_INTERNAL
	stVersion        status = C.ASTRAL_E_VERSION_MISMATCH
	stUnsupported    status = C.ASTRAL_E_UNSUPPORTED
)

const (
	kindAuto    = C.ASTRAL_KIND_AUTO
	kindFlat    = C.ASTRAL_KIND_FLAT
	kindHNSW    = C.ASTRAL_KIND_HNSW
	kindIVF     = C.ASTRAL_KIND_IVF
	metricL2    = C.ASTRAL_METRIC_L2
	pinFlag     = C.ASTRAL_INIT_PIN_THREADS
	storageE5M2 = C.ASTRAL_STORAGE_E5M2
	storageE4M3 = C.ASTRAL_STORAGE_E4M3
	storageInt8 = C.ASTRAL_STORAGE_INT8
	storageF16  = C.ASTRAL_STORAGE_F16
	storageF32  = C.ASTRAL_STORAGE_F32
)

// cArray is n elements of T in C memory.
type cArray[T any] struct {
	p *T
	n int
}

func newCArray[T any](n int) cArray[T] {
	var zero T
	p := (*T)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(zero))))
	return cArray[T]{p, n}
}

func cCopy[T any](v []T) cArray[T] {
	a := newCArray[T](len(v))
	copy(a.slice(), v)
	return a
}

func (a cArray[T]) slice() []T { return unsafe.Slice(a.p, a.n) }
func (a cArray[T]) free()      { C.free(unsafe.Pointer(a.p)) }

type (
	cFloats  = cArray[C.float]
	cResults = cArray[C.AstralResult]
)

func cFloatsOf(v []float32) cFloats {
	a := newCArray[C.float](len(v))
	copy(unsafe.Slice((*float32)(unsafe.Pointer(a.p)), a.n), v)
	return a
}

func newResults(n int) cResults { return newCArray[C.AstralResult](n) }

func setFloats(a cFloats, v []float32) {
	copy(unsafe.Slice((*float32)(unsafe.Pointer(a.p)), a.n), v)
}

func sizeofInit() uintptr { return unsafe.Sizeof(C.AstralInit{}) }

// results returns the first n of a as Go results.
func results(a cResults, n int) []astral.Result {
	return append([]astral.Result(nil), unsafe.Slice((*astral.Result)(unsafe.Pointer(a.p)), n)...)
}

func initRuntime(threads int) status {
	cfg := C.AstralInit{struct_size: C.uint32_t(unsafe.Sizeof(C.AstralInit{})), thread_count: C.int32_t(threads)}
	return astral_init(&cfg)
}

// initProcs starts the runtime with threads workers and max_procs.
func initProcs(threads int32, maxProcs uint32) status {
	a := newCArray[C.AstralInit](1)
	defer a.free()
	cfg := &a.slice()[0]
	*cfg = C.AstralInit{struct_size: C.uint32_t(unsafe.Sizeof(C.AstralInit{})), thread_count: C.int32_t(threads), max_procs: C.uint32_t(maxProcs)}
	return astral_init(cfg)
}

// initRaw passes an AstralInit as a host would, cpus in C memory.
func initRaw(size uint32, threads int32, flags uint32, cpus []int32, nilCPUs bool) status {
	a := newCArray[C.AstralInit](1)
	defer a.free()
	cfg := &a.slice()[0]
	*cfg = C.AstralInit{struct_size: C.uint32_t(size), thread_count: C.int32_t(threads), flags: C.uint32_t(flags), cpu_count: C.uint32_t(len(cpus))}
	if len(cpus) > 0 && !nilCPUs {
		c := newCArray[C.int32_t](len(cpus))
		defer c.free()
		for i, v := range cpus {
			c.slice()[i] = C.int32_t(v)
		}
		cfg.cpus = c.p
	}
	return astral_init(cfg)
}

func initNil() status { return astral_init(nil) }

func shutdown() status { return astral_shutdown() }

// options mirrors AstralIndexOptions; size 0 means sizeof.
type options struct {
	size, dim, metric, kind, storage, m, efc, efs uint32
	flatLimit                                     uint64
	rerank, rerankFactor                          uint32
	nlist, nprobe                                 uint32
	seed                                          uint64
	ivfLimit                                      int64
}

func sizeofOptions() uint32 { return uint32(unsafe.Sizeof(C.AstralIndexOptions{})) }

// sizeofOptionsV1 is the first released AstralIndexOptions, before the
// rerank fields.
func sizeofOptionsV1() uint32 {
	return uint32(unsafe.Offsetof(C.AstralIndexOptions{}.rerank_storage))
}

func createIndex(o options) (uint64, status) {
	if o.size == 0 {
		o.size = sizeofOptions()
	}
	// A struct_size larger than the struct: lay the options over a bigger
	// zeroed C buffer, as a newer header's struct would be.
	buf := newCArray[byte](int(max(o.size, sizeofOptions())))
	defer buf.free()
	co := (*C.AstralIndexOptions)(unsafe.Pointer(buf.p))
	*co = C.AstralIndexOptions{
		struct_size: C.uint32_t(o.size), dimension: C.uint32_t(o.dim), metric: C.uint32_t(o.metric),
		kind: C.uint32_t(o.kind), storage: C.uint32_t(o.storage), hnsw_m: C.uint32_t(o.m),
		flat_limit_bytes: C.uint64_t(o.flatLimit), hnsw_ef_construction: C.uint32_t(o.efc), hnsw_ef_search: C.uint32_t(o.efs),
		rerank_storage: C.uint32_t(o.rerank), rerank_factor: C.uint32_t(o.rerankFactor),
		ivf_nlist: C.uint32_t(o.nlist), ivf_nprobe: C.uint32_t(o.nprobe), ivf_seed: C.uint64_t(o.seed),
		ivf_limit_records: C.int64_t(o.ivfLimit),
	}
	if o.size > sizeofOptions() {
		buf.slice()[o.size-1] = 1 // an unknown field set
	}
	out := newCArray[C.AstralIndex](1)
	defer out.free()
	st := astral_index_create(co, out.p)
	return uint64(*out.p), st
}

func destroyIndex(h uint64) status { return astral_index_destroy(C.AstralIndex(h)) }

func addVectors(h uint64, ids []uint64, vecs []float32) status {
	ci, cv := cCopy(ids), cFloatsOf(vecs)
	defer ci.free()
	defer cv.free()
	return astral_index_add(C.AstralIndex(h), (*C.uint64_t)(unsafe.Pointer(ci.p)), C.size_t(len(ids)), cv.p, C.size_t(len(vecs)))
}

func removeIDs(h uint64, ids []uint64) status {
	ci := cCopy(ids)
	defer ci.free()
	return astral_index_remove(C.AstralIndex(h), (*C.uint64_t)(unsafe.Pointer(ci.p)), C.size_t(len(ids)))
}

// queryInto queries with arrays the caller prepared in C memory.
func queryInto(h uint64, q cFloats, k int, res cResults) (int, status) {
	var n C.uint32_t
	st := astral_index_query(C.AstralIndex(h), q.p, C.size_t(q.n), C.uint32_t(k), res.p, C.size_t(res.n), &n)
	return int(n), st
}

func query(h uint64, q []float32, k, capacity int) ([]astral.Result, status) {
	cq, res := cFloatsOf(q), newCArray[C.AstralResult](capacity)
	defer cq.free()
	defer res.free()
	n, st := queryInto(h, cq, k, res)
	return results(res, n), st
}

func queryBatch(h uint64, qs []float32, nq, dim, k, capacity int) ([][]astral.Result, status) {
	cq, res, counts := cFloatsOf(qs), newCArray[C.AstralResult](capacity), newCArray[C.uint32_t](nq)
	defer cq.free()
	defer res.free()
	defer counts.free()
	st := astral_index_query_batch(C.AstralIndex(h), cq.p, C.size_t(nq), C.size_t(dim), C.uint32_t(k), res.p, C.size_t(capacity), counts.p)
	all := results(res, capacity)
	out := make([][]astral.Result, nq)
	for i := range out {
		out[i] = all[i*k : i*k+int(counts.slice()[i])]
	}
	return out, st
}

func count(h uint64) (uint64, status) {
	var n C.uint64_t
	st := astral_index_count(C.AstralIndex(h), &n)
	return uint64(n), st
}

type stats struct {
	dim, metric, kind, storage, threads uint32
	count, bytes                        uint64
	bytesPerVector                      float64
	kernel                              string
	rerank, rerankFactor                uint32
	ivfPartitions, ivfDirty             uint32
	ivfLargest                          uint64
	ivfShare                            float64
}

func indexStats(h uint64) (stats, status) {
	var s C.AstralStats
	s.struct_size = C.uint32_t(unsafe.Sizeof(s))
	st := astral_index_stats(C.AstralIndex(h), &s)
	return stats{
		dim: uint32(s.dimension), metric: uint32(s.metric), kind: uint32(s.kind), storage: uint32(s.storage),
		threads: uint32(s.thread_count), count: uint64(s.count), bytes: uint64(s.bytes),
		bytesPerVector: float64(s.bytes_per_vector), kernel: C.GoString(&s.kernel[0]),
		rerank: uint32(s.rerank_storage), rerankFactor: uint32(s.rerank_factor),
		ivfPartitions: uint32(s.ivf_partitions), ivfDirty: uint32(s.ivf_dirty_partitions),
		ivfLargest: uint64(s.ivf_largest_partition), ivfShare: float64(s.ivf_largest_share),
	}, st
}

func sizeofStats() uint32 { return uint32(unsafe.Sizeof(C.AstralStats{})) }

// sizeofStatsV1 is the first released AstralStats, before the rerank fields.
func sizeofStatsV1() uint32 { return uint32(unsafe.Offsetof(C.AstralStats{}.rerank_storage)) }

// indexStatsRaw passes an AstralStats of struct_size size as an older or
// newer host would, in a C buffer of sizeof(AstralStats) + 16 bytes first
// filled with fill, and returns that whole buffer afterwards.
func indexStatsRaw(h uint64, size uint32, fill byte) ([]byte, status) {
	buf := newCArray[byte](int(sizeofStats()) + 16)
	defer buf.free()
	for i := range buf.slice() {
		buf.slice()[i] = fill
	}
	s := (*C.AstralStats)(unsafe.Pointer(buf.p))
	s.struct_size = C.uint32_t(size)
	st := astral_index_stats(C.AstralIndex(h), s)
	return append([]byte(nil), buf.slice()...), st
}

// errorBufferSize is the last-error buffer's size, NUL included.
const errorBufferSize = int(C.CAPI_ERROR_SIZE)

// lastError is the calling thread's message; lock the goroutine to its
// thread around the call that failed and this one.
func lastError() string {
	buf := newCArray[C.char](C.CAPI_ERROR_SIZE)
	defer buf.free()
	astral_last_error(buf.p, C.size_t(buf.n))
	return C.GoString(buf.p)
}

// lastErrorInto calls astral_last_error with a buffer of capacity bytes
// (NULL when capacity is 0) and returns the length and what it wrote.
func lastErrorInto(capacity int) (int, string) {
	if capacity == 0 {
		return int(astral_last_error(nil, 0)), ""
	}
	buf := newCArray[C.char](capacity)
	defer buf.free()
	for i := range buf.slice() {
		buf.slice()[i] = 'x'
	}
	n := astral_last_error(buf.p, C.size_t(capacity))
	return int(n), C.GoStringN(buf.p, C.int(capacity))
}

func statusString(st status) string { return C.GoString(astral_status_string(st)) }

func versionNumber() uint32 { return uint32(astral_version_number()) }

// queryLoopC runs iterations queries from C, cycling over qs (rows of
// dim floats).
func queryLoopC(h uint64, qs cFloats, dim, k int, res cResults, iterations int) status {
	return C.capi_test_query_loop(C.AstralIndex(h), qs.p, C.size_t(qs.n/dim), C.size_t(dim), C.uint32_t(k), res.p, C.size_t(res.n), C.size_t(iterations))
}

// goMallocs is the Go runtime's count of heap allocations so far.
func goMallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}

// filter mirrors AstralQueryOptions' filter: allow nil is no allowlist, a
// non-nil empty one is passed as a non-NULL pointer with count 0.
type filter struct {
	owner, allTags, anyTags, noTags uint64
	allow, deny                     []uint64
}

// cQueryOptions is an AstralQueryOptions in C memory, with its id lists.
type cQueryOptions struct {
	o           cArray[C.AstralQueryOptions]
	allow, deny cArray[uint64]
}

func newQueryOptions(k, ef int, f filter) cQueryOptions {
	c := cQueryOptions{o: newCArray[C.AstralQueryOptions](1)}
	o := c.o.p
	*o = C.AstralQueryOptions{struct_size: C.uint32_t(unsafe.Sizeof(*o)), k: C.uint32_t(k), ef: C.uint32_t(ef),
		owner: C.uint64_t(f.owner), all_tags: C.uint64_t(f.allTags), any_tags: C.uint64_t(f.anyTags), no_tags: C.uint64_t(f.noTags)}
	if f.allow != nil {
		c.allow = cCopy(f.allow) // never a NULL pointer, even for 0 ids
		o.allow_ids, o.allow_count = (*C.uint64_t)(unsafe.Pointer(c.allow.p)), C.uint64_t(len(f.allow))
	}
	if len(f.deny) > 0 {
		c.deny = cCopy(f.deny)
		o.deny_ids, o.deny_count = (*C.uint64_t)(unsafe.Pointer(c.deny.p)), C.uint64_t(len(f.deny))
	}
	return c
}

// free releases the C memory (free(NULL) for a list not given).
func (c cQueryOptions) free() {
	c.o.free()
	c.allow.free()
	c.deny.free()
}

// addEx adds with attributes through astral_index_add_ex; tags, owners and
// payloads nil pass NULL.
func addEx(h uint64, ids []uint64, vecs []float32, tags, owners []uint64, payloads [][]byte) status {
	return withAttrArgs(astral_index_add_ex, h, ids, vecs, tags, owners, payloads)
}

// upsert is addEx through astral_index_upsert.
func upsert(h uint64, ids []uint64, vecs []float32, tags, owners []uint64, payloads [][]byte) status {
	return withAttrArgs(astral_index_upsert, h, ids, vecs, tags, owners, payloads)
}

// attrCall is the signature astral_index_add_ex and _upsert share.
type attrCall func(C.AstralIndex, *C.uint64_t, C.size_t, *C.float, C.size_t, *C.uint64_t, *C.uint64_t, *unsafe.Pointer, *C.uint32_t) C.AstralStatus

// withAttrArgs lays addEx's arguments out in C memory and calls call.
func withAttrArgs(call attrCall, h uint64, ids []uint64, vecs []float32, tags, owners []uint64, payloads [][]byte) status {
	ci, cv := cCopy(ids), cFloatsOf(vecs)
	defer ci.free()
	defer cv.free()
	var ct, co *C.uint64_t
	if tags != nil {
		a := cCopy(tags)
		defer a.free()
		ct = (*C.uint64_t)(unsafe.Pointer(a.p))
	}
	if owners != nil {
		a := cCopy(owners)
		defer a.free()
		co = (*C.uint64_t)(unsafe.Pointer(a.p))
	}
	var ptrs *unsafe.Pointer
	var sizes *C.uint32_t
	if payloads != nil {
		p, s := newCArray[unsafe.Pointer](len(payloads)), newCArray[C.uint32_t](len(payloads))
		defer p.free()
		defer s.free()
		for i, b := range payloads {
			if len(b) > 0 {
				data := cCopy(b)
				defer data.free()
				p.slice()[i] = unsafe.Pointer(data.p)
			}
			s.slice()[i] = C.uint32_t(len(b))
		}
		ptrs, sizes = p.p, s.p
	}
	return call(C.AstralIndex(h), (*C.uint64_t)(unsafe.Pointer(ci.p)), C.size_t(len(ids)), cv.p, C.size_t(len(vecs)), ct, co, ptrs, sizes)
}

func contains(h, id uint64) (bool, status) {
	var c C.int = 7
	st := astral_index_contains(C.AstralIndex(h), C.uint64_t(id), &c)
	return c == 1, st
}

func containsNil(h, id uint64) status {
	return astral_index_contains(C.AstralIndex(h), C.uint64_t(id), nil)
}

func clearIndex(h uint64) status { return astral_index_clear(C.AstralIndex(h)) }

// getVector reads id's vector into a C array of n floats (NULL for n < 0).
func getVector(h, id uint64, n int) ([]float32, status) {
	if n < 0 {
		return nil, astral_index_get_vector(C.AstralIndex(h), C.uint64_t(id), nil, 0)
	}
	v := newCArray[C.float](max(n, 1))
	defer v.free()
	st := astral_index_get_vector(C.AstralIndex(h), C.uint64_t(id), v.p, C.size_t(n))
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(v.slice()[i])
	}
	return out, st
}

// setTagName names bit; a nil name passes NULL.
func setTagName(h uint64, bit uint32, name *string) status {
	if name == nil {
		return astral_index_set_tag_name(C.AstralIndex(h), C.uint32_t(bit), nil)
	}
	cs := C.CString(*name)
	defer C.free(unsafe.Pointer(cs))
	return astral_index_set_tag_name(C.AstralIndex(h), C.uint32_t(bit), cs)
}

// tagName reads bit's name through a C buffer of capacity bytes (NULL
// when 0), returning the text before its NUL and the reported size.
func tagName(h uint64, bit uint32, capacity int) (string, int, status) {
	buf := newCArray[C.char](max(capacity, 1))
	defer buf.free()
	p := buf.p
	if capacity == 0 {
		p = nil
	}
	size := C.size_t(99)
	st := astral_index_get_tag_name(C.AstralIndex(h), C.uint32_t(bit), p, C.size_t(capacity), &size)
	if st != statusOK {
		return "", int(size), st
	}
	return C.GoString(buf.p), int(size), st
}

func tagNameNilSize(h uint64) status {
	return astral_index_get_tag_name(C.AstralIndex(h), 0, nil, 0, nil)
}

// findTag looks name up; a nil name passes NULL.
func findTag(h uint64, name *string) (uint32, status) {
	bit := C.uint32_t(77)
	if name == nil {
		st := astral_index_find_tag(C.AstralIndex(h), nil, &bit)
		return uint32(bit), st
	}
	cs := C.CString(*name)
	defer C.free(unsafe.Pointer(cs))
	st := astral_index_find_tag(C.AstralIndex(h), cs, &bit)
	return uint32(bit), st
}

// rawTagName passes name's bytes with a NUL only at the end of the C
// copy: a name longer than the limit without any NUL in reach.
func rawTagName(h uint64, bit uint32, name []byte) status {
	c := cCopy(append(name, 0))
	defer c.free()
	return astral_index_set_tag_name(C.AstralIndex(h), C.uint32_t(bit), (*C.char)(unsafe.Pointer(c.p)))
}

func tagNameCount(h uint64) (uint64, status) {
	s := C.AstralStats{struct_size: C.uint32_t(unsafe.Sizeof(C.AstralStats{}))}
	st := astral_index_stats(C.AstralIndex(h), &s)
	return uint64(s.tag_name_count), st
}

func setTags(h uint64, ids, tags []uint64) status {
	ci, ct := cCopy(ids), cCopy(tags)
	defer ci.free()
	defer ct.free()
	return astral_index_set_tags(C.AstralIndex(h), (*C.uint64_t)(unsafe.Pointer(ci.p)), (*C.uint64_t)(unsafe.Pointer(ct.p)), C.size_t(len(ids)))
}

// payload reads id's payload through a C buffer of capacity bytes.
func payload(h, id uint64, capacity int) ([]byte, int, status) {
	buf := newCArray[byte](capacity)
	defer buf.free()
	var size C.size_t
	p := unsafe.Pointer(buf.p)
	if capacity == 0 {
		p = nil
	}
	st := astral_index_get_payload(C.AstralIndex(h), C.uint64_t(id), p, C.size_t(capacity), &size)
	return append([]byte(nil), buf.slice()[:min(int(size), capacity)]...), int(size), st
}

func attributes(h, id uint64) (tags, owner uint64, st status) {
	var t, o C.uint64_t
	st = astral_index_get_attributes(C.AstralIndex(h), C.uint64_t(id), &t, &o)
	return uint64(t), uint64(o), st
}

// queryEx runs astral_index_query_ex with k, ef and f.
func queryEx(h uint64, q []float32, k, ef int, f filter) ([]astral.Result, astral.Plan, status) {
	o, cq, res := newQueryOptions(k, ef, f), cFloatsOf(q), newResults(k)
	defer o.free()
	defer cq.free()
	defer res.free()
	var n, plan C.uint32_t
	st := astral_index_query_ex(C.AstralIndex(h), cq.p, C.size_t(len(q)), o.o.p, res.p, C.size_t(k), &n, &plan)
	return results(res, int(n)), astral.Plan(plan), st
}

// queryBatchEx runs astral_index_query_batch_ex over nq rows of qs.
func queryBatchEx(h uint64, qs []float32, nq, k, ef int, f filter) ([][]astral.Result, astral.Plan, status) {
	o, cq, res, counts := newQueryOptions(k, ef, f), cFloatsOf(qs), newResults(nq*k), newCArray[C.uint32_t](nq)
	defer o.free()
	defer cq.free()
	defer res.free()
	defer counts.free()
	var plan C.uint32_t
	st := astral_index_query_batch_ex(C.AstralIndex(h), cq.p, C.size_t(nq), C.size_t(len(qs)/max(nq, 1)), o.o.p, res.p, C.size_t(nq*k), counts.p, &plan)
	all := results(res, nq*k)
	out := make([][]astral.Result, nq)
	for i := range out {
		out[i] = all[i*k : i*k+int(counts.slice()[i])]
	}
	return out, astral.Plan(plan), st
}

// scopedStats are AstralStats' scoped-search fields.
type scopedStats struct {
	payloads, payloadBytes, owners, scan, direct, graph uint64
}

func indexScopedStats(h uint64) (scopedStats, status) {
	var s C.AstralStats
	s.struct_size = C.uint32_t(unsafe.Sizeof(s))
	st := astral_index_stats(C.AstralIndex(h), &s)
	return scopedStats{uint64(s.payload_count), uint64(s.payload_bytes), uint64(s.owner_count),
		uint64(s.scan_queries), uint64(s.direct_queries), uint64(s.graph_queries)}, st
}

// queryWithinLoopC runs iterations budgeted queries from C, cycling over qs.
func queryWithinLoopC(h uint64, qs cFloats, dim int, o cQueryOptions, budgetUS uint64, res cResults, iterations int) status {
	return C.capi_test_query_within_loop(C.AstralIndex(h), qs.p, C.size_t(qs.n/dim), C.size_t(dim), o.o.p, C.uint64_t(budgetUS), res.p, C.size_t(res.n), C.size_t(iterations))
}

// queryExLoopC runs iterations filtered queries from C, cycling over qs.
func queryExLoopC(h uint64, qs cFloats, dim int, o cQueryOptions, res cResults, iterations int) status {
	return C.capi_test_query_ex_loop(C.AstralIndex(h), qs.p, C.size_t(qs.n/dim), C.size_t(dim), o.o.p, res.p, C.size_t(res.n), C.size_t(iterations))
}

// addMemories adds through astral_index_add_memories: tags, times and
// importances (nil: NULL) beside the vectors; no owners or payloads.
func addMemories(h uint64, ids []uint64, vecs []float32, tags []uint64, times []int64, imps []float32) status {
	return withMemoryArgs(astral_index_add_memories, h, ids, vecs, tags, times, imps)
}

// upsertMemories is addMemories through astral_index_upsert_memories.
func upsertMemories(h uint64, ids []uint64, vecs []float32, tags []uint64, times []int64, imps []float32) status {
	return withMemoryArgs(astral_index_upsert_memories, h, ids, vecs, tags, times, imps)
}

// memoryCall is the signature astral_index_add_memories and
// _upsert_memories share.
type memoryCall func(C.AstralIndex, *C.uint64_t, C.size_t, *C.float, C.size_t, *C.uint64_t, *C.uint64_t, *unsafe.Pointer, *C.uint32_t, *C.int64_t, *C.float) C.AstralStatus

func withMemoryArgs(call memoryCall, h uint64, ids []uint64, vecs []float32, tags []uint64, times []int64, imps []float32) status {
	ci, cv := cCopy(ids), cFloatsOf(vecs)
	defer ci.free()
	defer cv.free()
	var ct *C.uint64_t
	var ctm *C.int64_t
	var cim *C.float
	if tags != nil {
		a := cCopy(tags)
		defer a.free()
		ct = (*C.uint64_t)(unsafe.Pointer(a.p))
	}
	if times != nil {
		a := cCopy(times)
		defer a.free()
		ctm = (*C.int64_t)(unsafe.Pointer(a.p))
	}
	if imps != nil {
		a := cCopy(imps)
		defer a.free()
		cim = (*C.float)(unsafe.Pointer(a.p))
	}
	return call(C.AstralIndex(h), (*C.uint64_t)(unsafe.Pointer(ci.p)), C.size_t(len(ids)), cv.p, C.size_t(len(vecs)),
		ct, nil, nil, nil, ctm, cim)
}

// touch and setImportance call astral_index_touch and
// astral_index_set_importance with ids in C memory (nil: NULL).
func touch(h uint64, ids []uint64, t int64) status {
	p, done := idsIn(ids)
	defer done()
	return astral_index_touch(C.AstralIndex(h), p, C.size_t(len(ids)), C.int64_t(t))
}

func setImportance(h uint64, ids []uint64, v float32) status {
	p, done := idsIn(ids)
	defer done()
	return astral_index_set_importance(C.AstralIndex(h), p, C.size_t(len(ids)), C.float(v))
}

func idsIn(ids []uint64) (*C.uint64_t, func()) {
	if ids == nil {
		return nil, func() {}
	}
	a := cCopy(ids)
	return (*C.uint64_t)(unsafe.Pointer(a.p)), a.free
}

// memory runs astral_index_get_memory.
func memory(h, id uint64) (int64, float32, status) {
	var t C.int64_t
	var v C.float
	st := astral_index_get_memory(C.AstralIndex(h), C.uint64_t(id), &t, &v)
	return int64(t), float32(v), st
}

// queryRanked runs astral_index_query_ex with k, a filter and a ranking;
// size is the struct_size the host claims (0: the whole struct).
func queryRanked(h uint64, q []float32, k int, f filter, r astral.Rank, reserved2 uint32, size uintptr) ([]astral.Result, status) {
	o, cq, res := newQueryOptions(k, 0, f), cFloatsOf(q), newResults(k)
	defer o.free()
	defer cq.free()
	defer res.free()
	p := o.o.p
	p.rank_relevance, p.rank_recency, p.rank_importance = C.float(r.Relevance), C.float(r.Recency), C.float(r.Importance)
	p.rank_decay, p.rank_now, p.reserved2 = C.double(r.Decay), C.int64_t(r.Now), C.uint32_t(reserved2)
	if size != 0 {
		p.struct_size = C.uint32_t(size)
	}
	var n C.uint32_t
	st := astral_index_query_ex(C.AstralIndex(h), cq.p, C.size_t(len(q)), p, res.p, C.size_t(k), &n, nil)
	return results(res, int(n)), st
}

// queryNProbe runs astral_index_query_ex with k, a ranking, nprobe and
// reserved3; size is the struct_size the host claims (0: the whole struct).
func queryNProbe(h uint64, q []float32, k int, r astral.Rank, nprobe, reserved3 uint32, size uintptr) ([]astral.Result, status) {
	o, cq, res := newQueryOptions(k, 0, filter{}), cFloatsOf(q), newResults(k)
	defer o.free()
	defer cq.free()
	defer res.free()
	p := o.o.p
	p.rank_relevance, p.rank_recency, p.rank_importance = C.float(r.Relevance), C.float(r.Recency), C.float(r.Importance)
	p.rank_decay, p.rank_now = C.double(r.Decay), C.int64_t(r.Now)
	p.nprobe, p.reserved3 = C.uint32_t(nprobe), C.uint32_t(reserved3)
	if size != 0 {
		p.struct_size = C.uint32_t(size)
	}
	var n C.uint32_t
	st := astral_index_query_ex(C.AstralIndex(h), cq.p, C.size_t(len(q)), p, res.p, C.size_t(k), &n, nil)
	return results(res, int(n)), st
}

// queryOptionsV2Size is the AstralQueryOptions layout before nprobe.
func queryOptionsV2Size() uintptr { return unsafe.Offsetof(C.AstralQueryOptions{}.nprobe) }

// queryOptionsV1Size is the first AstralQueryOptions layout's size.
func queryOptionsV1Size() uintptr { return unsafe.Offsetof(C.AstralQueryOptions{}.rank_relevance) }
