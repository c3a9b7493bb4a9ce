package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/astral-engine/astral/astral"
)

// The scoped-search constants of include/astral.h are the Go package's.
const (
	_ = uint(C.ASTRAL_MAX_PAYLOAD - astral.MaxPayload)
	_ = uint(astral.MaxPayload - C.ASTRAL_MAX_PAYLOAD)
	_ = uint(C.ASTRAL_PLAN_SCAN - uint(astral.PlanScan))
	_ = uint(uint(astral.PlanScan) - C.ASTRAL_PLAN_SCAN)
	_ = uint(C.ASTRAL_PLAN_DIRECT - uint(astral.PlanDirect))
	_ = uint(uint(astral.PlanDirect) - C.ASTRAL_PLAN_DIRECT)
	_ = uint(C.ASTRAL_PLAN_GRAPH - uint(astral.PlanGraph))
	_ = uint(uint(astral.PlanGraph) - C.ASTRAL_PLAN_GRAPH)
)

// maxFilterIDs bounds an allowlist or denylist (ASTRAL_MAX_FILTER_IDS): a
// larger count is a host bug, and its sorted copy could not be allocated.
const maxFilterIDs = C.ASTRAL_MAX_FILTER_IDS

//export astral_index_add_ex
func astral_index_add_ex(index C.AstralIndex, ids *C.uint64_t, count C.size_t, vectors *C.float, valueCount C.size_t,
	tags, owners *C.uint64_t, payloads *unsafe.Pointer, payloadSizes *C.uint32_t) (st C.AstralStatus) {
	const fn = "astral_index_add_ex"
	defer recoverStatus(fn, &st, enterFP())
	e, idv, vecs, attrs, st := addExArgs(fn, index, ids, count, vectors, valueCount, tags, owners, payloads, payloadSizes, nil, nil)
	if st != statusOK {
		return st
	}
	if err := e.x.AddWith(idv, vecs, attrs); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

//export astral_index_add_memories
func astral_index_add_memories(index C.AstralIndex, ids *C.uint64_t, count C.size_t, vectors *C.float, valueCount C.size_t,
	tags, owners *C.uint64_t, payloads *unsafe.Pointer, payloadSizes *C.uint32_t, times *C.int64_t, importances *C.float) (st C.AstralStatus) {
	const fn = "astral_index_add_memories"
	defer recoverStatus(fn, &st, enterFP())
	e, idv, vecs, attrs, st := addExArgs(fn, index, ids, count, vectors, valueCount, tags, owners, payloads, payloadSizes, times, importances)
	if st != statusOK {
		return st
	}
	if err := e.x.AddWith(idv, vecs, attrs); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

//export astral_index_upsert
func astral_index_upsert(index C.AstralIndex, ids *C.uint64_t, count C.size_t, vectors *C.float, valueCount C.size_t,
	tags, owners *C.uint64_t, payloads *unsafe.Pointer, payloadSizes *C.uint32_t) (st C.AstralStatus) {
	const fn = "astral_index_upsert"
	defer recoverStatus(fn, &st, enterFP())
	e, idv, vecs, attrs, st := addExArgs(fn, index, ids, count, vectors, valueCount, tags, owners, payloads, payloadSizes, nil, nil)
	if st != statusOK {
		return st
	}
	if err := e.x.Upsert(idv, vecs, attrs); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

//export astral_index_upsert_memories
func astral_index_upsert_memories(index C.AstralIndex, ids *C.uint64_t, count C.size_t, vectors *C.float, valueCount C.size_t,
	tags, owners *C.uint64_t, payloads *unsafe.Pointer, payloadSizes *C.uint32_t, times *C.int64_t, importances *C.float) (st C.AstralStatus) {
	const fn = "astral_index_upsert_memories"
	defer recoverStatus(fn, &st, enterFP())
	e, idv, vecs, attrs, st := addExArgs(fn, index, ids, count, vectors, valueCount, tags, owners, payloads, payloadSizes, times, importances)
	if st != statusOK {
		return st
	}
	// One Upsert carries the times and importances with the rest, so no
	// query sees the new vector with the old time and importance.
	if err := e.x.Upsert(idv, vecs, attrs); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

// addExArgs checks what astral_index_add_ex, _add_memories, _upsert and
// _upsert_memories share (addArgs's checks, then the attributes') and
// reads the attributes: nil when tags, owners, payloads, times and
// importances are all NULL. Payloads are slices of the host's memory:
// AddWith and Upsert copy them before they return.
func addExArgs(fn string, index C.AstralIndex, ids *C.uint64_t, count C.size_t, vectors *C.float, valueCount C.size_t,
	tags, owners *C.uint64_t, payloads *unsafe.Pointer, payloadSizes *C.uint32_t,
	times *C.int64_t, importances *C.float) (*entry, []uint64, []float32, []astral.Attributes, C.AstralStatus) {
	e, idv, vecs, st := addArgs(fn, index, ids, count, vectors, valueCount)
	if st != statusOK {
		return nil, nil, nil, nil, st
	}
	if payloads != nil && payloadSizes == nil {
		return nil, nil, nil, nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "payloads given without payload_sizes")
	}
	if payloads == nil && payloadSizes != nil {
		return nil, nil, nil, nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "payload_sizes given without payloads")
	}
	// Checked before the attributes are laid out, so a count that does not
	// match the vectors allocates nothing.
	if valueCount != count*C.size_t(e.dim) {
		return nil, nil, nil, nil, fail(fn, C.ASTRAL_E_DIMENSION, "%d values for %d ids of dimension %d", valueCount, count, e.dim)
	}
	n := int(count)
	if tags == nil && owners == nil && payloads == nil && times == nil && importances == nil {
		return e, idv, vecs, nil, statusOK
	}
	attrs := make([]astral.Attributes, n)
	if tags != nil {
		for i, t := range unsafe.Slice((*uint64)(unsafe.Pointer(tags)), n) {
			attrs[i].Tags = t
		}
	}
	if owners != nil {
		for i, o := range unsafe.Slice((*uint64)(unsafe.Pointer(owners)), n) {
			attrs[i].Owner = o
		}
	}
	if times != nil {
		for i, t := range unsafe.Slice((*int64)(unsafe.Pointer(times)), n) {
			attrs[i].Time = t
		}
	}
	if importances != nil {
		for i, v := range unsafe.Slice((*float32)(unsafe.Pointer(importances)), n) {
			attrs[i].Importance = v // AddWith refuses one not finite
		}
	}
	if payloads != nil {
		ps, sizes := unsafe.Slice(payloads, n), unsafe.Slice((*uint32)(unsafe.Pointer(payloadSizes)), n)
		for i, size := range sizes {
			if size > astral.MaxPayload {
				return nil, nil, nil, nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "payload_sizes[%d] = %d (id %d): at most %d", i, size, idv[i], astral.MaxPayload)
			}
			if ps[i] == nil && size > 0 {
				return nil, nil, nil, nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "payloads[%d] is NULL with payload_sizes[%d] = %d (id %d)", i, i, size, idv[i])
			}
			if size > 0 {
				attrs[i].Payload = unsafe.Slice((*byte)(ps[i]), size)
			}
		}
	}
	return e, idv, vecs, attrs, statusOK
}

//export astral_index_set_tags
func astral_index_set_tags(index C.AstralIndex, ids, tags *C.uint64_t, count C.size_t) (st C.AstralStatus) {
	const fn = "astral_index_set_tags"
	defer recoverStatus(fn, &st, enterFP())
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if ids == nil && count > 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "ids is NULL with count %d", count)
	}
	if tags == nil && count > 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "tags is NULL with count %d", count)
	}
	if count > maxValues {
		return fail(fn, C.ASTRAL_E_OUT_OF_MEMORY, "count %d: too large", count)
	}
	err := e.x.SetTags(unsafe.Slice((*uint64)(unsafe.Pointer(ids)), count), unsafe.Slice((*uint64)(unsafe.Pointer(tags)), count))
	if err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

// idsArg is the ids of a call that changes count stored records, or a
// failed status.
func idsArg(fn string, ids *C.uint64_t, count C.size_t) ([]uint64, C.AstralStatus) {
	if ids == nil && count > 0 {
		return nil, fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "ids is NULL with count %d", count)
	}
	if count > maxValues {
		return nil, fail(fn, C.ASTRAL_E_OUT_OF_MEMORY, "count %d: too large", count)
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(ids)), count), statusOK
}

// onIDs is the body of the entries that change one value of many
// records: look the index up, read the ids, run set on them.
func onIDs(fn string, index C.AstralIndex, ids *C.uint64_t, count C.size_t, set func(x *astral.Index, ids []uint64) error) C.AstralStatus {
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	idv, st := idsArg(fn, ids, count)
	if st != statusOK {
		return st
	}
	if err := set(e.x, idv); err != nil {
		return failErr(fn, err)
	}
	return statusOK
}

//export astral_index_touch
func astral_index_touch(index C.AstralIndex, ids *C.uint64_t, count C.size_t, time C.int64_t) (st C.AstralStatus) {
	const fn = "astral_index_touch"
	defer recoverStatus(fn, &st, enterFP())
	return onIDs(fn, index, ids, count, func(x *astral.Index, idv []uint64) error {
		return x.Touch(idv, int64(time))
	})
}

//export astral_index_set_importance
func astral_index_set_importance(index C.AstralIndex, ids *C.uint64_t, count C.size_t, importance C.float) (st C.AstralStatus) {
	const fn = "astral_index_set_importance"
	defer recoverStatus(fn, &st, enterFP())
	return onIDs(fn, index, ids, count, func(x *astral.Index, idv []uint64) error {
		return x.SetImportance(idv, float32(importance))
	})
}

//export astral_index_get_memory
func astral_index_get_memory(index C.AstralIndex, id C.uint64_t, outTime *C.int64_t, outImportance *C.float) (st C.AstralStatus) {
	const fn = "astral_index_get_memory"
	defer recoverStatus(fn, &st, enterFP())
	if outTime != nil {
		*outTime = 0
	}
	if outImportance != nil {
		*outImportance = 0
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if outTime == nil || outImportance == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_time or out_importance is NULL")
	}
	t, imp, err := e.x.Memory(uint64(id))
	if err != nil {
		return failErr(fn, err)
	}
	*outTime, *outImportance = C.int64_t(t), C.float(imp)
	return statusOK
}

//export astral_index_get_payload
func astral_index_get_payload(index C.AstralIndex, id C.uint64_t, buffer unsafe.Pointer, capacity C.size_t, outSize *C.size_t) (st C.AstralStatus) {
	const fn = "astral_index_get_payload"
	defer recoverStatus(fn, &st, enterFP())
	e, st := bufferArgs(fn, index, "buffer", buffer, capacity, outSize)
	if st != statusOK {
		return st
	}
	capped := min(uint64(capacity), astral.MaxPayload) // no payload is longer
	if capped < astral.MaxPayload {
		// Asking for the size (or a short buffer) copies nothing.
		n, err := e.x.PayloadLen(uint64(id))
		if err != nil {
			return failErr(fn, err)
		}
		if uint64(n) > capped {
			*outSize = C.size_t(n)
			return fail(fn, C.ASTRAL_E_BUFFER_TOO_SMALL, "capacity %d, the payload of id %d holds %d bytes", capacity, uint64(id), n)
		}
	}
	var dst []byte
	if buffer != nil {
		dst = unsafe.Slice((*byte)(buffer), capped)
	}
	// Payload appends into dst in place while it fits, as it must here
	// unless the record was removed and re-added meanwhile with a longer
	// one: then it is in Go memory, not the host's buffer.
	p, err := e.x.Payload(uint64(id), dst[:0])
	if err != nil {
		return failErr(fn, err)
	}
	*outSize = C.size_t(len(p))
	if uint64(len(p)) > capped {
		return fail(fn, C.ASTRAL_E_BUFFER_TOO_SMALL, "capacity %d, the payload of id %d holds %d bytes", capacity, uint64(id), len(p))
	}
	return statusOK
}

//export astral_index_get_attributes
func astral_index_get_attributes(index C.AstralIndex, id C.uint64_t, outTags, outOwner *C.uint64_t) (st C.AstralStatus) {
	const fn = "astral_index_get_attributes"
	defer recoverStatus(fn, &st, enterFP())
	if outTags != nil {
		*outTags = 0
	}
	if outOwner != nil {
		*outOwner = 0
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	if outTags == nil || outOwner == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "out_tags or out_owner is NULL")
	}
	a, err := e.x.Attributes(uint64(id))
	if err != nil {
		return failErr(fn, err)
	}
	*outTags, *outOwner = C.uint64_t(a.Tags), C.uint64_t(a.Owner)
	return statusOK
}

// queryOptions reads the host's AstralQueryOptions into o, the filter's id
// lists as slices of the host's arrays (read during the call only: the
// engine sorts them into its own scratch). It allocates nothing.
func queryOptions(fn string, options *C.AstralQueryOptions, o *astral.QueryOptions) C.AstralStatus {
	if options == nil {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "options is NULL")
	}
	var c C.AstralQueryOptions
	if st := readStruct(fn, unsafe.Pointer(&c), unsafe.Sizeof(c), unsafe.Pointer(options), minQueryOptionsSize); st != statusOK {
		return st
	}
	if c.reserved != 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "reserved is %d: must be 0", c.reserved)
	}
	if c.reserved2 != 0 || c.reserved3 != 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "reserved2 is %d, reserved3 %d: must be 0", c.reserved2, c.reserved3)
	}
	if c.allow_ids == nil && c.allow_count > 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "allow_ids is NULL with allow_count %d", c.allow_count)
	}
	if c.deny_ids == nil && c.deny_count > 0 {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "deny_ids is NULL with deny_count %d", c.deny_count)
	}
	if c.allow_count > maxFilterIDs || c.deny_count > maxFilterIDs {
		return fail(fn, C.ASTRAL_E_INVALID_ARGUMENT, "allow_count %d, deny_count %d: at most %d ids each", c.allow_count, c.deny_count, maxFilterIDs)
	}
	*o = astral.QueryOptions{K: int(c.k), Ef: int(c.ef), NProbe: int(c.nprobe), Filter: astral.Filter{
		Owner: uint64(c.owner), AllTags: uint64(c.all_tags), AnyTags: uint64(c.any_tags), NoTags: uint64(c.no_tags),
	}, Rank: astral.Rank{Relevance: float32(c.rank_relevance), Recency: float32(c.rank_recency), Importance: float32(c.rank_importance),
		Decay: float64(c.rank_decay), Now: int64(c.rank_now)}}
	// A non-NULL allowlist of 0 ids is an empty (non-nil) slice: it
	// matches nothing, where NULL is no allowlist.
	if c.allow_ids != nil {
		o.Filter.Allow = unsafe.Slice((*uint64)(unsafe.Pointer(c.allow_ids)), c.allow_count)
	}
	if c.deny_count > 0 {
		o.Filter.Deny = unsafe.Slice((*uint64)(unsafe.Pointer(c.deny_ids)), c.deny_count)
	}
	return statusOK
}

//export astral_index_query_ex
func astral_index_query_ex(index C.AstralIndex, query *C.float, dimension C.size_t, options *C.AstralQueryOptions,
	results *C.AstralResult, capacity C.size_t, outCount, outPlan *C.uint32_t) (st C.AstralStatus) {
	const fn = "astral_index_query_ex"
	defer recoverStatus(fn, &st, enterFP())
	if outCount != nil {
		*outCount = 0
	}
	if outPlan != nil {
		*outPlan = 0
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
	dst := unsafe.Slice((*astral.Result)(unsafe.Pointer(results)), o.K)
	res, plan, err := e.x.QueryWith(dst[:0], unsafe.Slice((*float32)(unsafe.Pointer(query)), dimension), o)
	if err != nil {
		return failErr(fn, err)
	}
	*outCount = C.uint32_t(len(res))
	if outPlan != nil {
		*outPlan = C.uint32_t(plan)
	}
	return statusOK
}

//export astral_index_query_batch_ex
func astral_index_query_batch_ex(index C.AstralIndex, queries *C.float, queryCount, dimension C.size_t, options *C.AstralQueryOptions,
	results *C.AstralResult, capacity C.size_t, outCounts, outPlan *C.uint32_t) (st C.AstralStatus) {
	const fn = "astral_index_query_batch_ex"
	defer recoverStatus(fn, &st, enterFP())
	if outCounts != nil && queryCount <= maxValues/astral.MaxK {
		clear(unsafe.Slice((*uint32)(unsafe.Pointer(outCounts)), queryCount))
	}
	if outPlan != nil {
		*outPlan = 0
	}
	e, st := lookup(fn, index)
	if st != statusOK {
		return st
	}
	var o astral.QueryOptions
	if st := queryOptions(fn, options, &o); st != statusOK {
		return st
	}
	if st := checkQueryArgs(fn, e, queries, queryCount, dimension, C.uint32_t(o.K), results, capacity, outCounts); st != statusOK {
		return st
	}
	nq, dim, k := int(queryCount), e.dim, o.K
	qs := unsafe.Slice((*float32)(unsafe.Pointer(queries)), nq*dim)
	dst := unsafe.Slice((*astral.Result)(unsafe.Pointer(results)), nq*k)
	outs := unsafe.Slice((*uint32)(unsafe.Pointer(outCounts)), nq)
	// As astral_index_query_batch: MaxBatch queries per call, their counts
	// in a stack array.
	var counts [astral.MaxBatch]int
	var plan astral.Plan
	for lo := 0; lo < nq; lo += astral.MaxBatch {
		m := min(astral.MaxBatch, nq-lo)
		var err error
		if _, plan, err = e.x.QueryBatchWith(dst[lo*k:(lo+m)*k], counts[:m], qs[lo*dim:(lo+m)*dim], o); err != nil {
			clear(outs)
			return failErr(fn, err)
		}
		for j, c := range counts[:m] {
			outs[lo+j] = uint32(c)
		}
	}
	if outPlan != nil {
		*outPlan = C.uint32_t(plan)
	}
	return statusOK
}
