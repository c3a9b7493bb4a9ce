package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/testsize"
)

// TestMain checks, after every test, that the tests left no index alive
// and the runtime shut down: the handle table's leak check.
func TestMain(m *testing.M) {
	code := m.Run()
	if n := liveIndexes(); n != 0 {
		fmt.Fprintf(os.Stderr, "leak: %d indexes still in the handle table\n", n)
		code = 1
	}
	if reg.rt != nil {
		fmt.Fprintln(os.Stderr, "leak: runtime still initialized")
		code = 1
	}
	os.Exit(code)
}

// withRuntime initializes the library for one test and, at its end, checks
// the test destroyed its indexes before shutting down.
func withRuntime(t *testing.T, threads int) {
	t.Helper()
	require.Equal(t, stOK, initRuntime(threads), lastErrorLocked)
	t.Cleanup(func() {
		assert.Zero(t, liveIndexes(), "indexes leaked by the test")
		require.Equal(t, stOK, shutdown())
	})
}

// lastErrorLocked reads the last error; the tests lock their goroutine to
// its OS thread (lockThread) so that it is the failing call's thread.
var lastErrorLocked = func() string { return lastError() }

func lockThread(t *testing.T) {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}

func newIndex(t *testing.T, dim int) uint64 {
	t.Helper()
	h, st := createIndex(options{dim: uint32(dim)})
	require.Equal(t, stOK, st, lastError())
	require.NotZero(t, h)
	return h
}

func randomRows(r *rand.Rand, n, dim int) []float32 {
	v := make([]float32, n*dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func ids(lo, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(lo + i)
	}
	return out
}

// requireFails checks a failure's status and that its message names the
// export and says why.
func requireFails(t *testing.T, want, got status, fn, why string) {
	t.Helper()
	require.Equal(t, want, got, "status %d (%s), want %d (%s)", got, statusString(got), want, statusString(want))
	msg := lastError()
	require.True(t, strings.HasPrefix(msg, fn+": "), "message %q does not name %s", msg, fn)
	require.Contains(t, msg, why)
}

func TestVersionMatchesHeader(t *testing.T) {
	require.Equal(t, astral.Version, headerVersion, "include/astral.h version macros differ from astral.Version")
	var major, minor, patch uint32
	_, err := fmt.Sscanf(astral.Version, "%d.%d.%d", &major, &minor, &patch)
	require.NoError(t, err)
	require.Equal(t, major*1000000+minor*1000+patch, versionNumber())
}

func TestStatusStrings(t *testing.T) {
	all := []status{stOK, stInvalid, stDimension, stNonFinite, stDuplicateID, stNotFound, stStale, stNotInit,
		stBufferTooSmall, stOutOfMemory, stIO, stCorrupt, stInternal, stVersion, stUnsupported}
	seen := map[string]bool{}
	for i, st := range all {
		require.Equal(t, status(i), st, "codes are numbered densely from 0, once")
		s := statusString(st)
		require.NotEqual(t, "unknown status", s, "status %d has no string", st)
		require.False(t, seen[s], "%q used twice", s)
		seen[s] = true
	}
	require.Equal(t, "unknown status", statusString(status(len(all))))
	require.Equal(t, "unknown status", statusString(-1))
}

func TestCallsBeforeInitAndAfterShutdown(t *testing.T) {
	lockThread(t)
	check := func(when string) {
		_, st := createIndex(options{dim: 8})
		requireFails(t, stNotInit, st, "astral_index_create", "astral_init")
		_, st = query(1<<32|1, make([]float32, 8), 1, 1)
		requireFails(t, stNotInit, st, "astral_index_query", "astral_init")
		requireFails(t, stNotInit, shutdown(), "astral_shutdown", "not initialized")
		requireFails(t, stNotInit, destroyIndex(1<<32|1), "astral_index_destroy", "astral_init")
		require.Equal(t, stOK, destroyIndex(0), "destroying ASTRAL_INDEX_NONE is a no-op, %s", when)
	}
	check("before init")
	require.Equal(t, stOK, initRuntime(0))
	h := newIndex(t, 8)
	require.Equal(t, stOK, shutdown())
	check("after shutdown")
	// A handle from before a shutdown stays stale in the next session.
	require.Equal(t, stOK, initRuntime(0))
	_, st := count(h)
	requireFails(t, stStale, st, "astral_index_count", "stale")
	require.Equal(t, stOK, shutdown())
}

func TestInitValidates(t *testing.T) {
	lockThread(t)
	size := uint32(sizeofInit())
	requireFails(t, stInvalid, initRaw(uint32(minInitSize)-1, 0, 0, nil, false), "astral_init", "struct_size")
	requireFails(t, stInvalid, initRaw(0, 0, 0, nil, false), "astral_init", "struct_size")
	requireFails(t, stInvalid, initRaw(size, -2, 0, nil, false), "astral_init", "thread count -2")
	requireFails(t, stInvalid, initRaw(size, astral.MaxThreads+1, 0, nil, false), "astral_init", "thread count")
	requireFails(t, stInvalid, initRaw(size, 0, 0x80, nil, false), "astral_init", "unknown flags")
	requireFails(t, stInvalid, initRaw(size, 1, 0, []int32{0}, false), "astral_init", "without ASTRAL_INIT_PIN_THREADS")
	requireFails(t, stInvalid, initRaw(size, 1, pinFlag, []int32{0}, true), "astral_init", "cpus is NULL")
	require.Nil(t, reg.rt, "failed inits leave the library uninitialized")

	require.Equal(t, stOK, initNil(), lastError())
	requireFails(t, stInvalid, initRuntime(0), "astral_init", "already initialized")
	require.Equal(t, stOK, shutdown())

	if runtime.GOOS == "linux" {
		require.Equal(t, stOK, initRaw(size, 1, pinFlag, []int32{0}, false), lastError())
		require.Equal(t, stOK, shutdown())
		requireFails(t, stInvalid, initRaw(size, 1, pinFlag, []int32{1 << 20}, false), "astral_init", "CPU")
	}
}

func TestInitCapsGOMAXPROCS(t *testing.T) {
	lockThread(t)
	loaded := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(loaded) })

	require.Equal(t, stOK, initProcs(0, 1), lastError())
	require.Equal(t, 1, runtime.GOMAXPROCS(0), "serial: the caller alone")
	require.Equal(t, stOK, shutdown())
	require.Equal(t, 1, runtime.GOMAXPROCS(0), "kept until the next astral_init")

	require.Equal(t, stOK, initProcs(1, uint32(loaded)+4), lastError())
	require.Equal(t, loaded, runtime.GOMAXPROCS(0), "a cap never raises it")
	require.Equal(t, stOK, shutdown())

	requireFails(t, stInvalid, initProcs(2, 2), "astral_init", "max_procs 2: want at least the 2 workers + 1")
	require.Nil(t, reg.rt, "a refused cap leaves the library uninitialized")

	require.Equal(t, stOK, initProcs(0, 1), lastError())
	require.Equal(t, stOK, shutdown())
	require.Equal(t, stOK, initProcs(0, 0), lastError())
	require.Equal(t, loaded, runtime.GOMAXPROCS(0), "0 restores the setting as loaded")
	require.Equal(t, stOK, shutdown())
}

func TestHandleTable(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	a, b, c := newIndex(t, 4), newIndex(t, 4), newIndex(t, 4)
	require.Len(t, map[uint64]bool{a: true, b: true, c: true}, 3)
	require.Equal(t, 3, liveIndexes())

	require.Equal(t, stOK, destroyIndex(b))
	requireFails(t, stStale, destroyIndex(b), "astral_index_destroy", "destroyed")
	_, st := count(b)
	requireFails(t, stStale, st, "astral_index_count", "stale")

	// The slot is reused with a new generation: the old handle stays stale.
	d := newIndex(t, 4)
	require.Equal(t, b&0xffffffff, d&0xffffffff, "slot reused")
	require.NotEqual(t, b, d)
	_, st = count(b)
	requireFails(t, stStale, st, "astral_index_count", "stale")
	_, st = count(d)
	require.Equal(t, stOK, st)

	for _, forged := range []uint64{1 << 31, a + 1<<32, a + 2<<32, a ^ 0xffffffff00000000, uint64(1000)<<32 | 1, math.MaxUint64} {
		_, st = count(forged)
		requireFails(t, stStale, st, "astral_index_count", "never issued")
	}
	_, st = count(0)
	requireFails(t, stInvalid, st, "astral_index_count", "ASTRAL_INDEX_NONE")

	for _, h := range []uint64{a, c, d} {
		require.Equal(t, stOK, destroyIndex(h))
	}
	require.Zero(t, liveIndexes())
}

func TestShutdownDestroysIndexes(t *testing.T) {
	require.Equal(t, stOK, initRuntime(1))
	newIndex(t, 4)
	newIndex(t, 4)
	require.Equal(t, 2, liveIndexes())
	require.Equal(t, stOK, shutdown())
	require.Zero(t, liveIndexes())
}

func TestCreateValidates(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	const fn = "astral_index_create"
	for _, c := range []struct {
		o    options
		want status
		why  string
	}{
		{options{dim: 0}, stInvalid, "dimension 0"},
		{options{dim: 4097}, stInvalid, "dimension 4097"},
		{options{dim: 8, metric: 4}, stInvalid, "metric"},
		{options{dim: 8, metric: 260}, stInvalid, "metric"},
		{options{dim: 8, storage: 6}, stInvalid, "unknown storage 6"},
		{options{dim: 8, storage: 255}, stInvalid, "unknown storage 255"},
		{options{dim: 8, storage: 300}, stInvalid, "unknown storage 300"}, // never wrapped to 44
		{options{dim: 8, storage: 256}, stInvalid, "unknown storage 256"}, // nor to 0, the default
		{options{dim: 8, metric: 257}, stInvalid, "unknown metric 257"},
		{options{dim: 8, kind: math.MaxUint32}, stInvalid, "unknown index kind 4294967295"},
		{options{dim: 8, rerank: storageE5M2}, stInvalid, "rerank_storage 1: want 0 (none), f16 (4) or f32 (5)"},
		{options{dim: 8, rerank: storageE4M3}, stInvalid, "rerank_storage 2"},
		{options{dim: 8, rerank: storageInt8, rerankFactor: 4}, stInvalid, "rerank_storage 3"},
		{options{dim: 8, rerank: 6}, stInvalid, "rerank_storage 6"},
		{options{dim: 8, rerank: math.MaxUint32}, stInvalid, "rerank_storage 4294967295"},
		{options{dim: 8, rerank: storageF16, rerankFactor: 65}, stInvalid, "rerank_factor 65: want 1 to 64 (0 for 4)"},
		{options{dim: 8, rerank: storageF32, rerankFactor: math.MaxUint32}, stInvalid, "rerank_factor 4294967295"},
		{options{dim: 8, rerankFactor: 4}, stInvalid, "rerank_factor 4 without a rerank_storage"},
		{options{dim: 8, storage: storageInt8, rerankFactor: 1}, stInvalid, "without a rerank_storage"},
		{options{dim: 8, kind: 4}, stInvalid, "unknown index kind 4"},
		{options{dim: 8, kind: kindIVF, nlist: 16, nprobe: 17}, stInvalid, "ivf_nprobe 17: want 1 to nlist (16)"},
		{options{dim: 8, kind: kindIVF, nlist: 1<<20 + 1}, stInvalid, "ivf_nlist 1048577"},
		{options{dim: 8, kind: kindIVF, nlist: math.MaxUint32}, stInvalid, "ivf_nlist 4294967295"},
		{options{dim: 8, kind: kindHNSW, m: 1}, stInvalid, "hnsw_m 1"},
		{options{dim: 8, m: 129}, stInvalid, "hnsw_m 129"},
		{options{dim: 8, m: 32, efc: 16}, stInvalid, "hnsw_ef_construction 16"},
		{options{dim: 8, efc: 5000}, stInvalid, "hnsw_ef_construction 5000"},
		{options{dim: 8, efs: 5000}, stInvalid, "hnsw_ef_search 5000"},
		{options{dim: 8, flatLimit: math.MaxUint64}, stInvalid, "flat_limit_bytes"},
		{options{dim: 8, size: 8}, stInvalid, "struct_size 8"},
		{options{dim: 8, size: maxStructSize + 1}, stInvalid, "struct_size 4097"},
	} {
		h, st := createIndex(c.o)
		requireFails(t, c.want, st, fn, c.why)
		require.Zero(t, h, "out_index is ASTRAL_INDEX_NONE on failure")
	}
	for _, o := range []options{
		{dim: 1}, {dim: 4096, metric: metricL2}, {dim: 8, kind: kindFlat, m: 2, efc: 2, efs: 1},
		{dim: 8, kind: kindAuto, m: 128, efc: 4096, efs: 4096, flatLimit: 1 << 40},
		{dim: 8, storage: storageE5M2}, {dim: 8, storage: storageE4M3}, {dim: 8, storage: storageInt8},
		{dim: 8, storage: storageF16}, {dim: 8, storage: storageF32},
		{dim: 8, storage: storageInt8, rerank: storageF16}, {dim: 8, rerank: storageF32, rerankFactor: 1},
		{dim: 8, storage: storageE4M3, rerank: storageF16, rerankFactor: 4},
		{dim: 8, kind: kindHNSW, storage: storageInt8, rerank: storageF32, rerankFactor: 64},
		{dim: 8, storage: storageF32, rerank: storageF32},
		// A host built with the first layout: the rerank fields are past its
		// struct_size and never read, whatever the memory there holds.
		{dim: 8, size: sizeofOptionsV1(), storage: storageInt8, rerank: 99, rerankFactor: 1000},
		// A host built with a newer header: the fields this library lacks
		// are ignored, even set.
		{dim: 8, size: sizeofOptions() + 8}, {dim: 8, size: maxStructSize},
	} {
		h, st := createIndex(o)
		require.Equal(t, stOK, st, "%+v: %s", o, lastError())
		require.Equal(t, stOK, destroyIndex(h))
	}
}

func TestStats(t *testing.T) {
	withRuntime(t, 1)
	h := newIndex(t, 384)
	defer destroyIndex(h)
	require.Equal(t, stOK, addVectors(h, ids(0, 10), randomRows(rand.New(rand.NewPCG(1, 2)), 10, 384)))
	s, st := indexStats(h)
	require.Equal(t, stOK, st)
	require.Equal(t, stats{dim: 384, metric: 1, kind: kindFlat, storage: 1, threads: 1, count: 10, bytes: s.bytes,
		bytesPerVector: s.bytesPerVector, kernel: s.kernel}, s)
	require.NotEmpty(t, s.kernel)
	require.Positive(t, s.bytes)
	require.Positive(t, s.bytesPerVector)
}

// TestMatchesGoAPI: the C path returns the Go API's results, bit for bit.
func TestMatchesGoAPI(t *testing.T) {
	withRuntime(t, 1)
	const dim, n, nq, k = 96, 3000, 20, 10
	r := rand.New(rand.NewPCG(3, 4))
	base, qs := randomRows(r, n, dim), randomRows(r, nq, dim)
	for _, metric := range []uint32{0, 2, metricL2} {
		h, st := createIndex(options{dim: dim, metric: metric})
		require.Equal(t, stOK, st)
		opts := []astral.Option{astral.WithDim(dim)}
		if metric != 0 {
			opts = append(opts, astral.WithMetric(astral.Metric(metric)))
		}
		x, err := astral.NewIndex(nil, opts...)
		require.NoError(t, err)
		require.Equal(t, stOK, addVectors(h, ids(100, n), base))
		require.NoError(t, x.Add(ids(100, n), base))
		require.Equal(t, stOK, removeIDs(h, ids(100, 50)))
		require.NoError(t, x.Remove(ids(100, 50)...))

		batch, st := queryBatch(h, qs, nq, dim, k, nq*k)
		require.Equal(t, stOK, st)
		for i := range nq {
			want, err := x.Query(nil, qs[i*dim:(i+1)*dim], k)
			require.NoError(t, err)
			got, st := query(h, qs[i*dim:(i+1)*dim], k, k)
			require.Equal(t, stOK, st)
			require.Equal(t, want, got)
			require.Equal(t, want, batch[i])
		}
		require.Equal(t, stOK, destroyIndex(h))
	}
}

// TestHNSWThroughC: an HNSW index made with its parameters through the ABI
// returns what the Go API's does, built the same way (the deterministic
// build gives both the same graph).
func TestHNSWThroughC(t *testing.T) {
	testsize.SkipUnderRace(t, "C's answers against Go's: the plain run compares them; TestConcurrentQueryAddRemove and TestPersistConcurrent run the C layer under -race")
	withRuntime(t, 1)
	const dim, n, nq, k = 32, 2000, 10, 10
	r := rand.New(rand.NewPCG(8, 9))
	base, qs := randomRows(r, n, dim), randomRows(r, nq, dim)
	h, st := createIndex(options{dim: dim, kind: kindHNSW, m: 8, efc: 64, efs: 40})
	require.Equal(t, stOK, st, lastError())
	defer destroyIndex(h)
	x, err := astral.NewIndex(nil, astral.WithDim(dim), astral.WithKind(astral.KindHNSW),
		astral.WithHNSW(8, 64), astral.WithEfSearch(40))
	require.NoError(t, err)
	require.Equal(t, stOK, addVectors(h, ids(0, n), base))
	require.NoError(t, x.Add(ids(0, n), base))
	for i := range nq {
		want, err := x.Query(nil, qs[i*dim:(i+1)*dim], k)
		require.NoError(t, err)
		got, st := query(h, qs[i*dim:(i+1)*dim], k, k)
		require.Equal(t, stOK, st)
		require.Equal(t, want, got)
	}
}

func TestErrorsMapped(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	const dim = 8
	h := newIndex(t, dim)
	defer destroyIndex(h)
	r := rand.New(rand.NewPCG(5, 6))
	require.Equal(t, stOK, addVectors(h, ids(0, 5), randomRows(r, 5, dim)))

	requireFails(t, stDimension, addVectors(h, ids(10, 2), randomRows(r, 3, dim)), "astral_index_add", "dimension mismatch")
	bad := randomRows(r, 2, dim)
	bad[3] = float32(math.NaN())
	requireFails(t, stNonFinite, addVectors(h, ids(10, 2), bad), "astral_index_add", "NaN")
	requireFails(t, stDuplicateID, addVectors(h, []uint64{3}, randomRows(r, 1, dim)), "astral_index_add", "already stored")
	requireFails(t, stDuplicateID, addVectors(h, []uint64{7, 7}, randomRows(r, 2, dim)), "astral_index_add", "repeated")
	requireFails(t, stNotFound, removeIDs(h, []uint64{1, 99}), "astral_index_remove", "99")
	requireFails(t, stDuplicateID, removeIDs(h, []uint64{1, 1}), "astral_index_remove", "repeated")
	n, _ := count(h)
	require.EqualValues(t, 5, n, "failed calls change nothing")

	q := randomRows(r, 1, dim)
	_, st := query(h, q, 0, 10)
	requireFails(t, stInvalid, st, "astral_index_query", "k = 0")
	_, st = query(h, q, astral.MaxK+1, astral.MaxK+1)
	requireFails(t, stInvalid, st, "astral_index_query", "k = 1025")
	_, st = query(h, q, 10, 9)
	requireFails(t, stBufferTooSmall, st, "astral_index_query", "results holds 9")
	_, st = query(h, q[:dim-1], 3, 3)
	requireFails(t, stDimension, st, "astral_index_query", "7 values")
	q[0] = float32(math.Inf(1))
	_, st = query(h, q, 3, 3)
	requireFails(t, stNonFinite, st, "astral_index_query", "NaN or Inf")

	// k above the index size returns what there is.
	q[0] = 1
	res, st := query(h, q, 100, 100)
	require.Equal(t, stOK, st)
	require.Len(t, res, 5)
}

func TestLastErrorPerThread(t *testing.T) {
	withRuntime(t, 0)
	h := newIndex(t, 4)
	defer destroyIndex(h)
	var wg sync.WaitGroup
	msgs := make([]string, 2)
	for i := range 2 {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if i == 0 {
				query(h, make([]float32, 4), 0, 1) // k = 0
			} else {
				query(h, make([]float32, 3), 1, 1) // dimension
			}
			msgs[i] = lastError()
		})
	}
	wg.Wait()
	require.Contains(t, msgs[0], "k = 0")
	require.Contains(t, msgs[1], "3 values")

	// Truncation: like snprintf, the full length, and always NUL-terminated.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	query(h, make([]float32, 4), 0, 1)
	full := lastError()
	n, _ := lastErrorInto(0)
	require.Equal(t, len(full), n)
	n, got := lastErrorInto(6)
	require.Equal(t, len(full), n)
	require.Equal(t, full[:5]+"\x00", got)
	n, got = lastErrorInto(len(full) + 1)
	require.Equal(t, len(full), n)
	require.Equal(t, full+"\x00", got)
	_, st := count(h)
	require.Equal(t, stOK, st)
	require.Equal(t, full, lastError(), "a success leaves the last error alone")
}

// TestLastErrorLongMessage: a message longer than the buffer (a long path)
// loses its middle, not its end: the length astral_last_error returns is
// the whole message's, and a buffer of that length + 1 gets all of it.
func TestLastErrorLongMessage(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	path := "/" + strings.Repeat("d/", 1500) + "x.idx"
	_, st := loadFile(path)
	require.Equal(t, stIO, st)
	n, _ := lastErrorInto(0)
	require.LessOrEqual(t, n, errorBufferSize-1)
	got, whole := lastErrorInto(n + 1)
	require.Equal(t, n, got)
	msg := whole[:n]
	require.Equal(t, byte(0), whole[n])
	require.True(t, strings.HasPrefix(msg, "astral_index_load: astral: i/o error: "), msg)
	require.True(t, strings.HasSuffix(msg, "d/x.idx: no such file or directory"), msg)
	require.Contains(t, msg, elision)
}

// TestShortened: within max bytes, valid UTF-8 kept valid, both ends kept.
func TestShortened(t *testing.T) {
	msg := "fn: " + strings.Repeat("ä€😀", 200) + " the reason"
	require.Equal(t, "short", shortened("short", 5))
	for max := 40; max < len(msg)+2; max += 7 {
		got := shortened(msg, max)
		require.LessOrEqual(t, len(got), max)
		require.True(t, utf8.ValidString(got), "max %d: %q", max, got)
		require.True(t, strings.HasPrefix(got, "fn: "), "max %d: %q", max, got)
		require.True(t, strings.HasSuffix(got, "reason"), "max %d: %q", max, got)
		require.Greater(t, len(got), max-8, "max %d: cut only to a rune boundary", max)
	}
}

func TestPanicBecomesInternal(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	h := newIndex(t, 4)
	defer destroyIndex(h)
	testHook = func(fn string) {
		if fn == "astral_index_query" {
			panic("boom")
		}
	}
	defer func() { testHook = nil }()
	_, st := query(h, make([]float32, 4), 1, 1)
	requireFails(t, stInternal, st, "astral_index_query", "internal error (panic): boom")

	// A runtime error inside the Go library is caught the same way.
	testHook = func(fn string) {
		if fn == "astral_index_count" {
			var m map[string]int
			m["x"] = 1
		}
	}
	_, st = count(h)
	requireFails(t, stInternal, st, "astral_index_count", "nil map")
	testHook = nil
	_, st = count(h)
	require.Equal(t, stOK, st, "the library still works after a recovered panic")
}

// TestConcurrentQueryAddRemove: 8 goroutines query one index through the
// exports while another adds and removes; every result must be well formed.
// Run with -race.
func TestConcurrentQueryAddRemove(t *testing.T) {
	withRuntime(t, 2)
	const dim, n, k = 32, 2000, 10
	h := newIndex(t, dim)
	defer destroyIndex(h)
	r := rand.New(rand.NewPCG(7, 8))
	require.Equal(t, stOK, addVectors(h, ids(0, n), randomRows(r, n, dim)))

	// Long enough for many add/remove rounds to interleave with the
	// queries, whatever the kernel (-tags noasm is slower) or -race.
	deadline := time.Now().Add(500 * time.Millisecond)
	var stop atomic.Bool
	var rounds atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	wg.Go(func() { // the mutator: ids from 1,000,000 up, added and removed in turn
		mr := rand.New(rand.NewPCG(9, 10))
		for round := 0; !stop.Load(); round++ {
			batch := ids(1_000_000+round*16, 16)
			if st := addVectors(h, batch, randomRows(mr, 16, dim)); st != stOK {
				errs <- fmt.Errorf("add: %s", statusString(st))
				return
			}
			if st := removeIDs(h, batch[:8]); st != stOK {
				errs <- fmt.Errorf("remove: %s", statusString(st))
				return
			}
			rounds.Add(1)
		}
	})
	var queriers sync.WaitGroup
	for g := range 8 {
		queriers.Go(func() {
			qr := rand.New(rand.NewPCG(uint64(g), 11))
			cq, cres := cFloatsOf(randomRows(qr, 1, dim)), newResults(k)
			defer cq.free()
			defer cres.free()
			for i := 0; i < 50 || time.Now().Before(deadline); i++ {
				setFloats(cq, randomRows(qr, 1, dim))
				got, st := queryInto(h, cq, k, cres)
				if st != stOK {
					errs <- fmt.Errorf("query: %s", statusString(st))
					return
				}
				if err := wellFormed(results(cres, got), k); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	queriers.Wait()
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.Positive(t, rounds.Load(), "the mutator ran during the queries")
	stored, st := count(h)
	require.Equal(t, stOK, st)
	require.EqualValues(t, n+8*rounds.Load(), stored)
}

func wellFormed(res []astral.Result, k int) error {
	if len(res) != k {
		return fmt.Errorf("%d results, want %d", len(res), k)
	}
	seen := map[uint64]bool{}
	for i, x := range res {
		if x.ID >= 2000 && x.ID < 1_000_000 {
			return fmt.Errorf("result %d: id %d was never added", i, x.ID)
		}
		if seen[x.ID] {
			return fmt.Errorf("result %d: id %d repeated", i, x.ID)
		}
		seen[x.ID] = true
		if math.IsNaN(float64(x.Score)) || x.Score < -1.01 || x.Score > 1.01 {
			return fmt.Errorf("result %d: cosine score %v", i, x.Score)
		}
		if i > 0 && (x.Score > res[i-1].Score || x.Score == res[i-1].Score && x.ID < res[i-1].ID) {
			return fmt.Errorf("results %d and %d out of order", i-1, i)
		}
	}
	return nil
}

// TestQueryThroughCAllocatesNothing: queries made from C through the export
// allocate nothing on the Go heap: serially, exactly zero over the loop in
// at least one of a few trials. The counter is process-wide: a GC cycle
// that starts during a trial counts the runtime's own allocations (the
// first one starts its mark-worker goroutines: 7 objects), while an
// allocating query path shows in every trial. With a worker,
// internal/pool parks the caller and the worker on channels, and the Go
// runtime allocates a sudog when the parking goroutine's P has none
// cached: that is the pool's, the Go API pays it too, and it is logged
// and loosely bounded here rather than asserted away. Filtered queries
// (astral_index_query_ex: a tag filter with a denylist, an allowlist, an
// owner) are held to the same bound as plain ones.
func TestQueryThroughCAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's bookkeeping is not what this measures")
	}
	for _, threads := range []int{0, 1} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			withRuntime(t, threads)
			const dim, n, nq, k = 384, 2000, 16, 10
			// Short (-race skips, noasm's pure-Go scans are slow): an
			// allocation per query still shows as 200 or more.
			iters := testsize.Sized(1000, 200)
			h := newIndex(t, dim)
			defer destroyIndex(h)
			r := rand.New(rand.NewPCG(12, 13))
			tags, owners := make([]uint64, n), make([]uint64, n)
			for i := range tags {
				tags[i], owners[i] = 1<<(i%8), uint64(i%40)
			}
			require.Equal(t, stOK, addEx(h, ids(0, n), randomRows(r, n, dim), tags, owners, nil), lastError())
			qs, res := cFloatsOf(randomRows(r, nq, dim)), newResults(k)
			defer qs.free()
			defer res.free()
			allow := make([]uint64, 0, 300)
			for i := 300; i > 0; i-- { // unsorted, as a host may pass it
				allow = append(allow, uint64(i*6))
			}
			type loop struct {
				name string
				run  func(iterations int) status
			}
			loops := []loop{{"query", func(it int) status { return queryLoopC(h, qs, dim, k, res, it) }}}
			for _, c := range []struct {
				name string
				f    filter
			}{
				{"tags+deny", filter{anyTags: 1<<2 | 1<<5, noTags: 1 << 5, deny: []uint64{2, 10, 18}}},
				{"allowlist", filter{allow: allow, allTags: 1 << 0}},
				{"owner", filter{owner: 7}},
			} {
				o := newQueryOptions(k, 0, c.f)
				defer o.free()
				loops = append(loops, loop{"query_ex " + c.name, func(it int) status { return queryExLoopC(h, qs, dim, o, res, it) }})
				// Budgets that run out mid-scan and that never do.
				for _, us := range []uint64{20, 1_000_000} {
					loops = append(loops, loop{fmt.Sprintf("query_within %d us %s", us, c.name), func(it int) status { return queryWithinLoopC(h, qs, dim, o, us, res, it) }})
				}
			}
			for _, l := range loops {
				require.Equal(t, stOK, l.run(100), "%s: %s", l.name, lastError()) // warm: per-query scratch
				fewest := uint64(math.MaxUint64)
				for trial := 0; trial < 5 && fewest > 0; trial++ {
					before := goMallocs()
					st := l.run(iters)
					allocs := goMallocs() - before
					require.Equal(t, stOK, st)
					t.Logf("%s trial %d: %d Go heap allocations over %d queries through C", l.name, trial, allocs, iters)
					fewest = min(fewest, allocs)
				}
				if threads == 0 {
					require.Zero(t, fewest, l.name)
				} else {
					require.Less(t, fewest, uint64(iters/4), l.name)
				}
			}
		})
	}
}

// goOptions are the Go API's options for what o asks through the ABI.
func goOptions(o options) []astral.Option {
	opts := []astral.Option{astral.WithDim(int(o.dim)), astral.WithKind(astral.Kind(o.kind))}
	if o.metric != 0 {
		opts = append(opts, astral.WithMetric(astral.Metric(o.metric)))
	}
	if o.storage != 0 {
		opts = append(opts, astral.WithStorage(astral.Storage(o.storage)))
	}
	if o.rerank != 0 {
		opts = append(opts, astral.WithRerank(astral.Storage(o.rerank), int(o.rerankFactor)))
	}
	if o.m != 0 {
		opts = append(opts, astral.WithHNSW(int(o.m), int(o.efc)))
	}
	return opts
}

// TestStorageAndRerankThroughC: every storage kind, with and without a
// rerank copy, flat and HNSW, answers through the ABI exactly as the Go API
// configured the same way; the stats report what was asked.
func TestStorageAndRerankThroughC(t *testing.T) {
	testsize.SkipUnderRace(t, "C's answers against Go's: the plain run compares them; TestConcurrentQueryAddRemove and TestPersistConcurrent run the C layer under -race")
	withRuntime(t, 1)
	const dim, n, nq, k = 48, 800, 8, 10
	r := rand.New(rand.NewPCG(21, 22))
	base, qs := randomRows(r, n, dim), randomRows(r, nq, dim)
	var all []options
	for storage := uint32(0); storage <= storageF32; storage++ {
		for _, rerank := range [][2]uint32{{0, 0}, {storageF16, 0}, {storageF32, 1}, {storageF32, 4}, {storageF16, 64}} {
			all = append(all, options{dim: dim, kind: kindFlat, storage: storage, rerank: rerank[0], rerankFactor: rerank[1]})
		}
	}
	// HNSW builds cost more (and far more under -race): a few, on a small graph.
	for _, o := range []options{{storage: storageInt8}, {storage: storageInt8, rerank: storageF16},
		{storage: storageE4M3, rerank: storageF32, rerankFactor: 4}, {storage: storageF16}} {
		o.dim, o.kind, o.m, o.efc = dim, kindHNSW, 8, 32
		all = append(all, o)
	}
	for _, o := range all {
		t.Run(fmt.Sprintf("kind=%d/storage=%d/rerank=%d×%d", o.kind, o.storage, o.rerank, o.rerankFactor), func(t *testing.T) {
			h, st := createIndex(o)
			require.Equal(t, stOK, st, lastError())
			defer destroyIndex(h)
			x, err := astral.NewIndex(nil, goOptions(o)...)
			require.NoError(t, err)
			require.Equal(t, stOK, addVectors(h, ids(0, n), base))
			require.NoError(t, x.Add(ids(0, n), base))

			s, st := indexStats(h)
			require.Equal(t, stOK, st)
			require.Equal(t, max(o.storage, storageE5M2), s.storage, "0 is E5M2")
			require.Equal(t, o.rerank, s.rerank)
			wantFactor := o.rerankFactor
			if o.rerank != 0 && wantFactor == 0 {
				wantFactor = astral.DefaultRerankFactor
			}
			require.Equal(t, wantFactor, s.rerankFactor)
			require.Equal(t, x.Stats().BytesPerVector, s.bytesPerVector)

			batch, st := queryBatch(h, qs, nq, dim, k, nq*k)
			require.Equal(t, stOK, st)
			for i := range nq {
				want, err := x.Query(nil, qs[i*dim:(i+1)*dim], k)
				require.NoError(t, err)
				got, st := query(h, qs[i*dim:(i+1)*dim], k, k)
				require.Equal(t, stOK, st)
				require.Equal(t, want, got)
				require.Equal(t, want, batch[i])
			}
		})
	}
}

// exactCosine is the cosine similarity of a and b in float64.
func exactCosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestRerankScores: an int8 index with an f32 rerank copy returns the exact
// cosine scores (a stored vector finds itself at 1.0) and, with enough
// candidates, exactly an f32 index's ranking; without the copy the int8
// scores are approximations. An f16 copy is within f16 rounding.
func TestRerankScores(t *testing.T) {
	withRuntime(t, 1)
	const dim, n, k = 64, 2000, 10
	r := rand.New(rand.NewPCG(31, 32))
	base := randomRows(r, n, dim)
	build := func(o options) uint64 {
		o.dim = dim
		h, st := createIndex(o)
		require.Equal(t, stOK, st, lastError())
		require.Equal(t, stOK, addVectors(h, ids(0, n), base))
		return h
	}
	plain := build(options{kind: kindFlat, storage: storageInt8})
	f32 := build(options{kind: kindFlat, storage: storageInt8, rerank: storageF32})
	f32wide := build(options{kind: kindFlat, storage: storageInt8, rerank: storageF32, rerankFactor: 64})
	f16 := build(options{kind: kindFlat, storage: storageInt8, rerank: storageF16})
	exact := build(options{kind: kindFlat, storage: storageF32})
	for _, h := range []uint64{plain, f32, f32wide, f16, exact} {
		defer destroyIndex(h)
	}

	approximate := 0
	for _, id := range []int{0, 17, 999, 1999} {
		q := base[id*dim : (id+1)*dim]
		for _, c := range []struct {
			name string
			h    uint64
			tol  float64
		}{{"int8+f32", f32, 1e-6}, {"int8+f32x64", f32wide, 1e-6}, {"int8+f16", f16, 2e-3}} {
			res, st := query(c.h, q, k, k)
			require.Equal(t, stOK, st)
			require.Len(t, res, k)
			require.Equal(t, uint64(id), res[0].ID, "%s: a stored vector's nearest is itself", c.name)
			require.InDelta(t, 1.0, res[0].Score, c.tol, c.name)
			for _, x := range res {
				require.InDelta(t, exactCosine(q, base[x.ID*dim:(x.ID+1)*dim]), x.Score, c.tol,
					"%s: id %d scored against the rerank copy", c.name, x.ID)
			}
		}
		// 64 candidates per result: the f32 index's ranking, scores to f32 rounding.
		wide, _ := query(f32wide, q, k, k)
		want, _ := query(exact, q, k, k)
		for i := range want {
			require.Equal(t, want[i].ID, wide[i].ID, "rank %d", i)
			require.InDelta(t, want[i].Score, wide[i].Score, 1e-6)
		}
		// Without the copy: int8 scores, close but not the exact ones.
		res, _ := query(plain, q, k, k)
		require.Equal(t, uint64(id), res[0].ID)
		require.InDelta(t, 1.0, res[0].Score, 0.02)
		for _, x := range res {
			d := math.Abs(exactCosine(q, base[x.ID*dim:(x.ID+1)*dim]) - float64(x.Score))
			require.Less(t, d, 0.02)
			if d > 1e-6 {
				approximate++
			}
		}
	}
	require.Positive(t, approximate, "int8 scores without a rerank copy are approximations")

	// The copy costs its bytes: dim·2 for f16, dim·4 for f32, at least.
	sp, _ := indexStats(plain)
	s16, _ := indexStats(f16)
	s32, _ := indexStats(f32)
	require.GreaterOrEqual(t, s16.bytesPerVector-sp.bytesPerVector, float64(2*dim))
	require.GreaterOrEqual(t, s32.bytesPerVector-sp.bytesPerVector, float64(4*dim))
	require.Greater(t, s32.bytes, sp.bytes)
}

// TestRerankPersists: the storage kind and the rerank copy survive a save
// to a buffer and a load from memory, with the same answers bit for bit.
func TestRerankPersists(t *testing.T) {
	lockThread(t)
	withRuntime(t, 1)
	const dim, n, nq, k = 24, 600, 6, 8
	r := rand.New(rand.NewPCG(41, 42))
	base, qs := randomRows(r, n, dim), randomRows(r, nq, dim)
	for _, o := range []options{
		{dim: dim, kind: kindFlat, storage: storageInt8, rerank: storageF16},
		{dim: dim, kind: kindHNSW, storage: storageE4M3, rerank: storageF32, rerankFactor: 2, metric: metricL2},
	} {
		h, st := createIndex(o)
		require.Equal(t, stOK, st, lastError())
		require.Equal(t, stOK, addVectors(h, ids(0, n), base))
		_, need, _ := saveBuffer(h, 0)
		file, _, st := saveBuffer(h, need)
		require.Equal(t, stOK, st, lastError())
		mem, st := loadMemory(file)
		require.Equal(t, stOK, st, lastError())

		a, _ := indexStats(h)
		b, _ := indexStats(mem)
		require.Equal(t, o.storage, b.storage)
		require.Equal(t, o.rerank, b.rerank)
		require.Equal(t, a.rerankFactor, b.rerankFactor)
		want, st := queryBatch(h, qs, nq, dim, k, nq*k)
		require.Equal(t, stOK, st)
		got, st := queryBatch(mem, qs, nq, dim, k, nq*k)
		require.Equal(t, stOK, st)
		require.Equal(t, want, got)
		require.Equal(t, stOK, destroyIndex(mem))
		require.Equal(t, stOK, destroyIndex(h))
	}
}

// TestStructSizes: hosts built with the first layouts of AstralIndexOptions
// (no rerank fields) and AstralStats (no rerank fields) keep working: the
// options read as no rerank, and the stats write only the bytes such a
// host has; a newer host's larger AstralStats gets its unknown tail left
// as it was.
func TestStructSizes(t *testing.T) {
	lockThread(t)
	withRuntime(t, 0)
	require.EqualValues(t, 40, sizeofOptionsV1(), "the first released AstralIndexOptions")
	require.EqualValues(t, 72, sizeofOptions(), "48 + ivf_nlist, ivf_nprobe, ivf_seed and ivf_limit_records")
	require.EqualValues(t, 80, sizeofStatsV1(), "the first released AstralStats")
	require.EqualValues(t, 168, sizeofStats(), "88 + the six scoped-search counters + the tag-name count + the IVF partitions")

	old, st := createIndex(options{size: sizeofOptionsV1(), dim: 8, storage: storageInt8, rerank: storageF32, rerankFactor: 8})
	require.Equal(t, stOK, st, lastError())
	defer destroyIndex(old)
	s, st := indexStats(old)
	require.Equal(t, stOK, st)
	require.EqualValues(t, storageInt8, s.storage)
	require.Zero(t, s.rerank, "past struct_size: not read")
	require.Zero(t, s.rerankFactor)

	h, st := createIndex(options{dim: 8, storage: storageInt8, rerank: storageF32, rerankFactor: 8})
	require.Equal(t, stOK, st, lastError())
	defer destroyIndex(h)
	_, st = createIndex(options{size: sizeofOptionsV1() - 1, dim: 8})
	requireFails(t, stInvalid, st, "astral_index_create", "struct_size 39")

	v1 := sizeofStatsV1()
	raw, st := indexStatsRaw(h, v1, 0xAA)
	require.Equal(t, stOK, st, lastError())
	require.Equal(t, v1, uint32(raw[0])|uint32(raw[1])<<8|uint32(raw[2])<<16|uint32(raw[3])<<24)
	for i, b := range raw[v1:] {
		require.Equal(t, byte(0xAA), b, "byte %d past the old struct_size was written", int(v1)+i)
	}
	raw, st = indexStatsRaw(h, sizeofStats(), 0xAA)
	require.Equal(t, stOK, st)
	get32 := func(off uint32) uint32 {
		return uint32(raw[off]) | uint32(raw[off+1])<<8 | uint32(raw[off+2])<<16 | uint32(raw[off+3])<<24
	}
	require.EqualValues(t, storageF32, get32(v1))
	require.EqualValues(t, 8, get32(v1+4))
	for _, b := range raw[sizeofStats():] {
		require.Equal(t, byte(0xAA), b)
	}
	// The second layout (88 bytes, before the scoped-search counters).
	raw, st = indexStatsRaw(h, 88, 0xAA)
	require.Equal(t, stOK, st)
	require.EqualValues(t, 8, get32(v1+4))
	require.Equal(t, bytes.Repeat([]byte{0xAA}, len(raw)-88), raw[88:], "past the second layout: not written")
	// The third layout (136 bytes, before the tag-name count).
	raw, st = indexStatsRaw(h, 136, 0xAA)
	require.Equal(t, stOK, st)
	require.Equal(t, bytes.Repeat([]byte{0xAA}, len(raw)-136), raw[136:], "past the third layout: not written")
	raw, st = indexStatsRaw(h, sizeofStats()+16, 0xAA)
	require.Equal(t, stOK, st)
	require.Equal(t, sizeofStats()+16, get32(0), "struct_size kept")
	require.Equal(t, bytes.Repeat([]byte{0xAA}, 16), raw[sizeofStats():], "a newer host's unknown tail is left alone")
	_, st = indexStatsRaw(h, v1-8, 0)
	requireFails(t, stInvalid, st, "astral_index_stats", "struct_size 72")
}
