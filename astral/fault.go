package astral

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
)

// A file mapped by OpenFile can fault under the index: truncated by another
// process, or on storage that fails. Where the mapping is read on a
// goroutine the library runs (a query on the caller and on the runtime's
// workers, the background check, the copy before the first write, a save),
// the fault becomes a panic (debug.SetPanicOnFault), is recovered, and the
// index reports ErrIO from then on, for queries, writes and saves alike,
// as it does ErrCorrupt after a failed background check.

// faultLatch tracks an index's mapping and the fault that ended its use.
type faultLatch struct {
	mapped atomic.Bool // reads a mapping: guard against faults
	err    atomic.Pointer[error]
}

// failed is the error of the fault that ended the index's use, if any.
func (f *faultLatch) failed() error {
	if p := f.err.Load(); p != nil {
		return *p
	}
	return nil
}

// memoryFault is the panic value a fault raises under SetPanicOnFault.
type memoryFault interface {
	error
	Addr() uintptr
}

// latch records v, a recovered panic, as the index's fault and returns
// its error; any other panic goes on. A SIGBUS that arrives without its
// address (qemu-user reports one so for a truncated mapping) reaches Go as
// a nil dereference with no Addr: inside a guarded read of the mapping it
// is the same fault.
func (f *faultLatch) latch(v any) error {
	var err error
	switch mf := v.(type) {
	case memoryFault:
		err = errorf(ErrIO, "reading the mapped index file faulted at %#x (truncated or modified in place, or its storage failed): the index is unusable", mf.Addr())
	case runtime.Error:
		if !strings.Contains(mf.Error(), "invalid memory address") {
			panic(v)
		}
		err = errorf(ErrIO, "reading the mapped index file faulted (truncated or modified in place, or its storage failed): the index is unusable")
	default:
		panic(v)
	}
	f.err.CompareAndSwap(nil, &err)
	return f.failed()
}

// latchFault latches v if it is a fault of the mapping (latch), and
// drops any other panic: for a worker whose caller has gone.
func (f *faultLatch) latchFault(v any) {
	switch mf := v.(type) {
	case memoryFault:
	case runtime.Error:
		if !strings.Contains(mf.Error(), "invalid memory address") {
			return
		}
	default:
		return
	}
	f.latch(v)
}

// endGuard ends a guarded call that holds no lock of x when it faults:
// defer x.endGuard(debug.SetPanicOnFault(true), &err).
func (x *Index) endGuard(prev bool, err *error) {
	debug.SetPanicOnFault(prev)
	if v := recover(); v != nil {
		*err = x.faults.latch(v)
	}
}

// endQueryGuard ends a guarded query: every read of the mapping in a query
// happens with mu held shared, so a fault leaves it held.
func (x *Index) endQueryGuard(prev bool, res *[]Result, err *error) {
	debug.SetPanicOnFault(prev)
	if v := recover(); v != nil {
		*err = x.faults.latch(v)
		x.mu.RUnlock()
		*res = nil
	}
}

// Query finds the k nearest stored vectors to q and returns them best first
// in dst[:n] (n = min(k, Len())), reusing dst's memory: with cap(dst) >= k it
// allocates nothing. Flat indexes are exact; HNSW searches EfSearch (at
// least k) candidates.
func (x *Index) Query(dst []Result, q []float32, k int) (res []Result, err error) {
	res, _, err = x.QueryWith(dst, q, QueryOptions{K: k})
	return res, err
}

// QueryWith is Query with a filter and a beam of its own: only records
// that pass o.Filter are ranked, exactly as an index holding just them
// would rank them (HNSW: as its graph finds them). It reports the plan
// that answered. An owner, tag or id that matches nothing gives no
// results, not an error.
func (x *Index) QueryWith(dst []Result, q []float32, o QueryOptions) (res []Result, plan Plan, err error) {
	if x.faults.mapped.Load() {
		defer x.endQueryGuard(debug.SetPanicOnFault(true), &res, &err)
	}
	return x.query(dst, q, &o)
}

// QueryBatch runs len(queries)/Dim queries, MaxBatch per pass over the
// records. Query i's results are dst[i*k : i*k+counts[i]], best first; counts
// must hold one entry per query. The results equal Query's, bit for bit.
func (x *Index) QueryBatch(dst []Result, counts []int, queries []float32, k int) (res []Result, err error) {
	res, _, err = x.QueryBatchWith(dst, counts, queries, QueryOptions{K: k})
	return res, err
}

// QueryBatchWith is QueryBatch with QueryWith's options, the same for
// every query; the results equal QueryWith's, bit for bit.
func (x *Index) QueryBatchWith(dst []Result, counts []int, queries []float32, o QueryOptions) (res []Result, plan Plan, err error) {
	if x.faults.mapped.Load() {
		defer x.endQueryGuard(debug.SetPanicOnFault(true), &res, &err)
	}
	return x.queryBatch(dst, counts, queries, &o)
}

// detach copies a mapped index's sections into the heap; hold writeMu.
func (x *Index) detach() (err error) {
	defer x.endGuard(debug.SetPanicOnFault(true), &err)
	s := x.live
	if s.sharedWrites() {
		// Searches pick the copy up as they start; the lock waits out
		// those still reading the mapping.
		s.Detach()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !s.sharedWrites() {
		s.Detach()
	}
	if x.rerank != nil {
		x.rerank.Detach()
	}
	x.mapped = nil
	x.faults.mapped.Store(false)
	return nil
}

// guarded runs fn, which holds no lock of x, turning a fault into ErrIO.
func (x *Index) guarded(fn func() error) (err error) {
	defer x.endGuard(debug.SetPanicOnFault(true), &err)
	return fn()
}
