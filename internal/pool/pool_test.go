package pool

import (
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goid returns the current goroutine's id (test-only; it allocates).
func goid() uint64 {
	var buf [64]byte
	s := strings.TrimPrefix(string(buf[:runtime.Stack(buf[:], false)]), "goroutine ")
	id, err := strconv.ParseUint(s[:strings.IndexByte(s, ' ')], 10, 64)
	if err != nil {
		panic(err)
	}
	return id
}

// recorder counts how often each part ran and on which goroutine.
type recorder struct {
	count [8]atomic.Int32
	gid   [8]atomic.Uint64
	order []int // parts in the order they ran (meaningful when all ran on one goroutine)
	mu    sync.Mutex
}

func (r *recorder) RunPart(i int) {
	r.count[i].Add(1)
	r.gid[i].Store(goid())
	r.mu.Lock()
	r.order = append(r.order, i)
	r.mu.Unlock()
}

func (r *recorder) reset() {
	for i := range r.count {
		r.count[i].Store(0)
		r.gid[i].Store(0)
	}
	r.order = r.order[:0]
}

// checkParallel asserts every part ran once, the last on the caller and the
// others on distinct worker goroutines.
func checkParallel(t *testing.T, r *recorder, parts int, caller uint64) {
	t.Helper()
	seen := map[uint64]bool{}
	for i := range parts {
		require.EqualValues(t, 1, r.count[i].Load(), "part %d of %d", i, parts)
		g := r.gid[i].Load()
		if i == parts-1 {
			require.Equal(t, caller, g, "last part must run on the caller")
		} else {
			require.NotEqual(t, caller, g, "part %d ran on the caller", i)
			require.False(t, seen[g], "two parts on one worker")
			seen[g] = true
		}
	}
	for i := parts; i < len(r.count); i++ {
		require.Zero(t, r.count[i].Load())
	}
}

// waitGoroutines waits until no more than base goroutines remain.
// (require.Eventually would count its own goroutine.)
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	for start := time.Now(); runtime.NumGoroutine() > base; time.Sleep(time.Millisecond) {
		if time.Since(start) > 2*time.Second {
			t.Fatalf("%d goroutines, want at most %d", runtime.NumGoroutine(), base)
		}
	}
}

func newPool(t *testing.T, o Options) *Pool {
	t.Helper()
	p, err := New(o)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

func TestEveryPartOnceCallerRunsLast(t *testing.T) {
	for _, w := range []int{1, 2, 3} {
		p := newPool(t, Options{Workers: w})
		require.Equal(t, w, p.Workers())
		caller := goid()
		var r recorder
		for parts := 1; parts <= w+1; parts++ {
			for range 200 {
				r.reset()
				p.Run(&r, parts)
				checkParallel(t, &r, parts, caller)
			}
		}
	}
}

func TestRunRejectsBadParts(t *testing.T) {
	p := newPool(t, Options{Workers: 2})
	var r recorder
	assert.Panics(t, func() { p.Run(&r, 0) })
	assert.Panics(t, func() { p.Run(&r, 4) })
}

func TestSerialWhenNoWorkers(t *testing.T) {
	p := newPool(t, Options{})
	require.Zero(t, p.Workers())
	var r recorder
	p.Run(&r, 1)
	require.EqualValues(t, 1, r.count[0].Load())
	assert.Panics(t, func() { p.Run(&r, 2) })
}

// Run from 8 goroutines at once: each Run either gets the workers or runs
// serially, and every part runs exactly once either way.
func TestConcurrentRun(t *testing.T) {
	p := newPool(t, Options{Workers: 3})
	var wg sync.WaitGroup
	var serialRuns, parallelRuns atomic.Int32
	for range 8 {
		wg.Go(func() {
			caller := goid()
			var r recorder
			for n := range 300 {
				parts := n%4 + 1
				r.reset()
				p.Run(&r, parts)
				onCaller := 0
				for i := range parts {
					if !assert.EqualValues(t, 1, r.count[i].Load()) {
						return
					}
					if r.gid[i].Load() == caller {
						onCaller++
					}
				}
				assert.Equal(t, caller, r.gid[parts-1].Load())
				switch {
				case parts == 1:
				case onCaller == 1:
					parallelRuns.Add(1)
				case onCaller == parts:
					serialRuns.Add(1)
					assert.Equal(t, []int{0, 1, 2, 3}[:parts], r.order, "serial runs go in order")
				default:
					t.Errorf("%d of %d parts on the caller", onCaller, parts)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("parallel runs %d, serial runs %d", parallelRuns.Load(), serialRuns.Load())
}

// nested runs an inner Run from a worker while the outer Run holds the pool.
type nested struct {
	p     *Pool
	inner recorder
	gid   uint64
}

func (n *nested) RunPart(i int) {
	if i == 0 {
		n.gid = goid()
		n.p.Run(&n.inner, 3)
	}
}

func TestBusyPoolRunsSerially(t *testing.T) {
	p := newPool(t, Options{Workers: 2})
	n := &nested{p: p}
	p.Run(n, 3)
	require.Equal(t, []int{0, 1, 2}, n.inner.order)
	for i := range 3 {
		require.Equal(t, n.gid, n.inner.gid[i].Load(), "inner part %d left its caller", i)
	}
}

func TestWorkersParkAndWake(t *testing.T) {
	p := newPool(t, Options{Workers: 3, Spin: 50 * time.Microsecond})
	caller := goid()
	var r recorder
	for range 3 {
		p.Run(&r, 4)
		time.Sleep(20 * time.Millisecond)
		// Normally already true; Eventually only absorbs a loaded machine.
		require.Eventually(t, func() bool { return p.parkedWorkers() == 3 }, 2*time.Second, time.Millisecond)
		r.reset()
		p.Run(&r, 4)
		checkParallel(t, &r, 4, caller)
	}
}

// With a 1ns spin every wait parks at once, stressing the park/wake
// protocol and its stale tokens.
func TestParkEveryTime(t *testing.T) {
	p := newPool(t, Options{Workers: 3, Spin: time.Nanosecond})
	caller := goid()
	var r recorder
	for n := range 2000 {
		parts := n%4 + 1
		r.reset()
		p.Run(&r, parts)
		checkParallel(t, &r, parts, caller)
	}
}

// slow holds part 0 until the caller has parked waiting for it.
type slow struct {
	p        *Pool
	sawPark  bool
	deadline time.Time
}

func (s *slow) RunPart(i int) {
	if i != 0 {
		return
	}
	for time.Now().Before(s.deadline) {
		if s.p.waiter.Load() == parked {
			s.sawPark = true
			return
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func TestCallerParksOnSlowWorker(t *testing.T) {
	p := newPool(t, Options{Workers: 1, Spin: 50 * time.Microsecond})
	task := &slow{p: p, deadline: time.Now().Add(2 * time.Second)}
	p.Run(task, 2)
	require.True(t, task.sawPark, "caller never parked")
	require.Equal(t, spinning, p.waiter.Load())
}

func TestCloseIdempotentThenSerial(t *testing.T) {
	base := runtime.NumGoroutine()
	p, err := New(Options{Workers: 3})
	require.NoError(t, err)
	p.Close()
	p.Close()
	waitGoroutines(t, base)
	caller := goid()
	var r recorder
	p.Run(&r, 4)
	require.Equal(t, []int{0, 1, 2, 3}, r.order)
	for i := range 4 {
		require.Equal(t, caller, r.gid[i].Load())
	}
}

type panicker struct {
	at   map[int]any // part -> panic value
	runs [4]atomic.Int32
}

func (p *panicker) RunPart(i int) {
	p.runs[i].Add(1)
	if v, ok := p.at[i]; ok {
		panic(v)
	}
}

func TestPanicPropagates(t *testing.T) {
	p := newPool(t, Options{Workers: 3})
	errWorker, errCaller := errors.New("worker"), errors.New("caller")
	cases := []struct {
		name string
		at   map[int]any
		want any
	}{
		{"worker", map[int]any{1: errWorker}, errWorker},
		{"caller", map[int]any{3: errCaller}, errCaller},
		{"both", map[int]any{0: errWorker, 3: errCaller}, errCaller},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 20 {
				task := &panicker{at: c.at}
				require.PanicsWithValue(t, c.want, func() { p.Run(task, 4) })
				for i := range 4 {
					require.EqualValues(t, 1, task.runs[i].Load(), "part %d", i)
				}
				// The pool is still usable and holds no stale panic.
				var r recorder
				p.Run(&r, 4)
				checkParallel(t, &r, 4, goid())
			}
		})
	}
	t.Run("nil", func(t *testing.T) {
		task := &panicker{at: map[int]any{0: nil}}
		defer func() {
			var pe *runtime.PanicNilError
			require.ErrorAs(t, recover().(error), &pe)
		}()
		p.Run(task, 2)
	})
}

type nop struct{}

func (*nop) RunPart(int) {}

func TestRunAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := newPool(t, Options{Workers: 3})
	task := &nop{}
	for parts := 1; parts <= 4; parts++ {
		require.Zero(t, testing.AllocsPerRun(200, func() { p.Run(task, parts) }), "parts %d", parts)
	}
}

func TestCgroupParsing(t *testing.T) {
	v2 := []struct {
		in   string
		want int
		ok   bool
	}{
		{"max 100000\n", 0, false},
		{"max", 0, false},
		{"200000 100000\n", 2, true},
		{"150000 100000", 2, true},
		{"50000 100000", 1, true},
		{"100000 100000", 1, true},
		{"400000", 4, true}, // period omitted: kernel default 100000
		{"", 0, false},
		{"garbage", 0, false},
		{"0 100000", 0, false},
		{"100000 0", 0, false},
		{"1 2 3", 0, false},
	}
	for _, c := range v2 {
		n, ok := cgroupV2CPUs(c.in)
		assert.Equal(t, c.ok, ok, "%q", c.in)
		assert.Equal(t, c.want, n, "%q", c.in)
	}
	v1 := []struct {
		quota, period string
		want          int
		ok            bool
	}{
		{"-1\n", "100000\n", 0, false},
		{"300000\n", "100000\n", 3, true},
		{"250000", "100000", 3, true},
		{"10000", "100000", 1, true},
		{"", "100000", 0, false},
		{"100000", "x", 0, false},
	}
	for _, c := range v1 {
		n, ok := cgroupV1CPUs(c.quota, c.period)
		assert.Equal(t, c.ok, ok, "%q %q", c.quota, c.period)
		assert.Equal(t, c.want, n, "%q %q", c.quota, c.period)
	}
}

func TestUsableCPUs(t *testing.T) {
	n := UsableCPUs()
	assert.GreaterOrEqual(t, n, 1)
	assert.LessOrEqual(t, n, runtime.NumCPU())
	assert.Equal(t, n-1, DefaultWorkers())
}

// BenchmarkRunDispatch measures an empty Run with hot (spinning) workers.
func BenchmarkRunDispatch(b *testing.B) {
	for _, w := range []int{1, 3} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			p, err := New(Options{Workers: w})
			require.NoError(b, err)
			defer p.Close()
			task := &nop{}
			b.ReportAllocs()
			for b.Loop() {
				p.Run(task, w+1)
			}
		})
	}
}

// BenchmarkRunDispatchParked measures an empty Run that must wake parked
// workers: the cost of the first query after an idle gap (e.g. once a
// frame). Read ns/run; ns/op includes waiting for the workers to park.
// (b.StopTimer would not do: it stops the world on every call.)
func BenchmarkRunDispatchParked(b *testing.B) {
	for _, w := range []int{1, 3} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			p, err := New(Options{Workers: w})
			require.NoError(b, err)
			defer p.Close()
			task := &nop{}
			var total time.Duration
			for b.Loop() {
				for p.parkedWorkers() < w {
					time.Sleep(10 * time.Microsecond)
				}
				start := time.Now()
				p.Run(task, w+1)
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/run")
		})
	}
}

// busy spins for a fixed amount of work per part.
type busy struct{ sink [4]uint64 }

func (b *busy) RunPart(i int) {
	x := uint64(i)
	for j := range 20000 {
		x = x*6364136223846793005 + uint64(j)
	}
	b.sink[i] = x
}

// BenchmarkRunWork measures Runs whose parts do ~10-20µs of work each, in
// parallel and serially: parallel should take about one part's time.
func BenchmarkRunWork(b *testing.B) {
	for _, c := range []struct {
		name    string
		workers int
		serial  bool
	}{{"serial2", 1, true}, {"workers=1", 1, false}} {
		b.Run(c.name, func(b *testing.B) {
			p, err := New(Options{Workers: c.workers})
			require.NoError(b, err)
			defer p.Close()
			task := &busy{}
			for b.Loop() {
				if c.serial {
					serial(task, 2)
				} else {
					p.Run(task, 2)
				}
			}
		})
	}
}

// counter counts the parts run; it does nothing else, so Runs are as short
// as they can be and the park/wake handshake is hit as often as possible.
type counter struct{ n [8]atomic.Int64 }

func (c *counter) RunPart(i int) { c.n[i].Add(1) }

// Many very short Runs with every wait parking at once: a lost wake-up in
// either direction (caller to worker, worker to caller) shows up as a hang,
// which the watchdog turns into a failure with every goroutine's stack.
func TestParkWakeStress(t *testing.T) {
	runs := 100_000
	if testing.Short() {
		runs = 20_000
	}
	if testsize.Long() {
		runs = 400_000
	}
	for _, workers := range []int{1, 3} {
		// Not newPool: after a hang, Close would wait for the stuck Run.
		p, err := New(Options{Workers: workers, Spin: time.Nanosecond})
		require.NoError(t, err)
		var c counter
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range runs {
				p.Run(&c, workers+1)
			}
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			buf := make([]byte, 1<<20)
			t.Fatalf("%d workers: no progress after %d runs\n%s", workers, c.n[workers].Load(),
				buf[:runtime.Stack(buf, true)])
		}
		p.Close()
		for i := range workers + 1 {
			require.EqualValues(t, runs, c.n[i].Load(), "%d workers, part %d", workers, i)
		}
	}
}
