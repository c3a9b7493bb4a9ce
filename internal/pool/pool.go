// Package pool runs the parts of one parallel job on N worker goroutines
// plus the calling goroutine, which always runs the last part itself
// instead of waiting idle.
//
// Dispatch is built for frame-rate queries: each worker has its own
// cache-line-padded slot, spins briefly for its next job and then parks,
// so an idle pool burns no CPU. Run allocates nothing.
package pool

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/astral-engine/astral/internal/fpenv"
)

// Task is one parallel job; RunPart(i) is called exactly once for each i in [0, parts).
//
// Parts must be independent of each other (each writes only its own output),
// so a job gives identical results whether its parts run in parallel or
// serially on the caller. RunPart must not call runtime.Goexit (for example
// testing.T.FailNow): that would end the worker it runs on.
type Task interface{ RunPart(i int) }

// Options configures a Pool.
type Options struct {
	Workers int           // runtime workers, NOT counting the caller; 0 = serial (no goroutines)
	Pin     bool          // lock each worker to an OS thread pinned to one CPU
	CPUs    []int         // optional CPU list for pinning (worker i -> CPUs[i % len]); empty = the usable CPUs from the affinity mask, in order
	Spin    time.Duration // how long an idle worker (or a waiting caller) spins before parking; 0 means default 20µs
}

// DefaultSpin is the spin time used when Options.Spin is 0.
const DefaultSpin = 20 * time.Microsecond

// Wait states of workers and of the caller.
const (
	spinning int32 = iota
	yielding       // caller only: it has let others use its P
	parked
)

// spinCheck is how many spin iterations pass between clock reads.
const spinCheck = 256

// The states of a worker's part (slotState.claim).
const (
	claimReady int32 = iota
	claimRunning
	claimDone
	claimAbandoned
	claimLeaving // RunBy's caller is asking a Leaver to let the part run on
	claimLeft    // the caller returned without the part; the worker tells the Leaver when it ends
)

// A Leaver is a Task whose begun parts RunBy's caller may leave running
// past the deadline instead of waiting for them.
type Leaver interface {
	Task
	// Leave is called on RunBy's caller at the deadline for part i, begun
	// on a worker and not yet done. True: the caller returns without the
	// part, whose output is then not the caller's to read; false: the
	// caller waits for it.
	Leave(i int) bool
	// Left is called on the worker when part i, left behind, returns, with
	// the value of its panic (nil if none): nothing else will see it.
	Left(i int, panicked any)
}

// A Backer is a Task whose caller, its own part done, may run a late
// worker's part again itself (a backup), so that one thread the OS has
// taken away does not cost the answer that part holds.
type Backer interface {
	Task
	// Backup runs part i again on RunBy's caller, in its own output, until
	// the part is whole (true) or w.Stop says to stop (false); it reads
	// the clock as the part does, and stops by the deadline as the part
	// would (false). The task picks, for each part, the worker's output
	// if that part ran to its end and was not left behind, else the
	// backup's.
	Backup(i int, w Watch) bool
}

// Watch tells a Backup when to stop: once the worker it stands in for
// has ended its part. The zero Watch never stops.
type Watch struct{ s *slotState }

// Stop reports whether the worker's own part has ended.
func (w Watch) Stop() bool { return w.s != nil && w.s.claim.Load() == claimDone }

// lateAfter is how long after its own part the caller of a Backer waits
// for the workers before it backs their parts up: a part is late once the
// wait is a quarter of the caller's own part, and at least backupMin.
func lateAfter(own time.Duration) time.Duration { return max(own/4, backupMin) }

// backupMin is the shortest wait before a backup: waking a parked worker
// takes tens of microseconds on a loaded machine, which is no stall.
const backupMin = 50 * time.Microsecond

// slotState is what the caller and one worker share.
type slotState struct {
	seq   atomic.Uint64 // bumped by the caller to hand over a job
	state atomic.Int32  // spinning or parked
	part  int
	task  Task // nil with a new seq means stop
	// claim is the part's state: the caller sets claimReady with each
	// job; the worker takes it (claimRunning, then claimDone), or RunBy's
	// caller abandons it at its deadline (claimAbandoned) or, for a
	// Leaver, leaves it running (claimLeaving, then claimLeft).
	claim atomic.Int32
	pval  any // value of a panic recovered on the worker
	wake  chan struct{}
}

// slot is padded so that the hot fields of neighbouring slots are never on
// the same (or adjacent-prefetched) cache line.
type slot struct {
	slotState
	_ [128 - unsafe.Sizeof(slotState{})%128]byte
}

// Pool is a set of workers shared by many indexes and goroutines.
type Pool struct {
	mu     sync.Mutex // held by the one parallel Run; TryLock failure means run serially
	closed bool       // guarded by mu
	slots  []slot
	spin   time.Duration
	wg     sync.WaitGroup

	_       [64]byte
	pending atomic.Int64 // worker parts of the current Run not yet done (RunBy: plus the caller)
	// detached: the current job is RunBy's, whose caller may leave before
	// every worker has looked at its part; the one that drops pending to 0
	// unlocks mu. Written under mu before the job is handed out.
	detached bool
	waiter   atomic.Int32 // caller's wait state
	done     chan struct{}
	_        [64]byte
}

// New starts o.Workers workers. With o.Pin each worker's thread is bound to
// one CPU; if that fails, New stops every worker it started and returns the error.
func New(o Options) (*Pool, error) {
	if o.Workers < 0 {
		return nil, fmt.Errorf("pool: negative worker count %d", o.Workers)
	}
	if o.Spin <= 0 {
		o.Spin = DefaultSpin
	}
	p := &Pool{slots: make([]slot, o.Workers), spin: o.Spin, done: make(chan struct{}, 1)}
	var cpus []int
	if o.Pin && o.Workers > 0 {
		var err error
		if cpus, err = pinList(o.CPUs); err != nil {
			return nil, err
		}
	}
	ready := make(chan error, o.Workers)
	for i := range p.slots {
		s := &p.slots[i]
		s.wake = make(chan struct{}, 1)
		cpu := -1
		if cpus != nil {
			cpu = cpus[i%len(cpus)]
		}
		p.wg.Add(1)
		go p.worker(s, cpu, ready)
	}
	var errs []error
	for range p.slots {
		if err := <-ready; err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		p.Close()
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// Workers returns the number of runtime workers, not counting the caller.
func (p *Pool) Workers() int { return len(p.slots) }

// Run executes t's parts 0..parts-1 and returns when all are done: parts
// 0..parts-2 on workers 0..parts-2, part parts-1 on the caller. parts must be
// in [1, Workers()+1].
//
// If another Run is in progress on this pool, or the pool is closed, Run does
// not wait: it runs every part on the caller, serially in order. Callers get
// identical results either way because parts are independent.
//
// A panic in any part is re-raised on the caller's goroutine, with the same
// value, once every part has finished.
//
// Every part runs in the default floating-point mode (fpenv.Enter), on the
// caller too, whatever mode the host left on the thread it runs on.
func (p *Pool) Run(t Task, parts int) {
	if parts < 1 || parts > len(p.slots)+1 {
		panic(fmt.Sprintf("pool: Run with %d parts, want 1..%d", parts, len(p.slots)+1))
	}
	defer fpenv.Leave(fpenv.Enter())
	if parts == 1 || !p.mu.TryLock() {
		serial(t, parts)
		return
	}
	if p.closed {
		p.mu.Unlock()
		serial(t, parts)
		return
	}
	n := parts - 1
	p.detached = false
	p.pending.Store(int64(n))
	p.handOut(t, n)
	// If the caller's own part panics, the workers may still be using t:
	// wait for them before the panic leaves Run.
	ok := false
	defer func() {
		if !ok {
			p.wait()
			p.collect(n)
			p.mu.Unlock()
		}
	}()
	t.RunPart(n)
	ok = true
	p.wait()
	v := p.collect(n)
	p.mu.Unlock()
	if v != nil {
		panic(v)
	}
}

// handOut gives parts 0..n-1 of t to workers 0..n-1; hold mu.
func (p *Pool) handOut(t Task, n int) {
	for i := range n {
		s := &p.slots[i]
		s.task, s.part = t, i
		s.claim.Store(claimReady)
		s.seq.Add(1)
		if s.state.Load() == parked {
			select {
			case s.wake <- struct{}{}:
			default: // a token is already there
			}
		}
	}
}

// RunBy is Run for a task whose parts stop by themselves once budget has
// passed since start (each checks the clock between blocks of its work):
// the caller runs part parts-1, then waits for the workers only until
// that deadline. A part that no worker has begun by then is never run (a
// worker woken late skips it); one begun is waited for, which its next
// check bounds, unless t is a Leaver that lets the caller leave it
// running (Leaver.Leave). A Backer's caller backs up the parts still
// running a while after its own (Backer.Backup) and stops waiting once
// each has ended or been backed up whole. The task records which of its
// parts ran. RunBy
// returns false without running anything when the pool is busy or
// closed: the caller then does the work itself, as one part. The pool
// stays busy until every part left behind has ended.
//
// A panic in a part that ran is re-raised on the caller, as by Run, and
// a panic in the caller's own part makes it wait for every begun part.
func (p *Pool) RunBy(t Task, parts int, start time.Time, budget time.Duration) bool {
	if parts < 1 || parts > len(p.slots)+1 {
		panic(fmt.Sprintf("pool: RunBy with %d parts, want 1..%d", parts, len(p.slots)+1))
	}
	if parts == 1 || !p.mu.TryLock() {
		return false
	}
	if p.closed {
		p.mu.Unlock()
		return false
	}
	defer fpenv.Leave(fpenv.Enter())
	n := parts - 1
	// The caller holds one count of pending, so a worker that looks at its
	// part after the caller has left finds the count above 0 until the
	// last of them, which then unlocks mu.
	p.detached = true
	p.pending.Store(int64(n) + 1)
	p.handOut(t, n)
	ok := false
	defer func() {
		if !ok {
			p.awaitBy(n, start, budget, nil, nil, 0)
			p.release()
		}
	}()
	ownStart := time.Now()
	t.RunPart(n)
	l, _ := t.(Leaver)
	b, _ := t.(Backer)
	v := p.awaitBy(n, start, budget, l, b, time.Since(ownStart))
	ok = true // a panic in a backup, like one in the caller's part, waits for every begun part
	p.release()
	if v != nil {
		panic(v)
	}
	return true
}

// awaitBy waits for RunBy's n worker parts until the deadline, abandons
// those not begun by then, leaves those begun to run on where l (if not
// nil) lets it and waits for the others, and returns the first panic
// value of the parts it waited for. With b, parts still running
// lateAfter(own) into the wait are backed up on the caller, and once each
// part has ended or been backed up whole the caller stops waiting.
func (p *Pool) awaitBy(n int, start time.Time, budget time.Duration, l Leaver, b Backer, own time.Duration) any {
	waitStart := time.Now()
	for i := 1; p.pending.Load() > 1; i++ {
		if i%spinCheck != 0 {
			continue
		}
		if time.Since(start) >= budget {
			break
		}
		if b != nil && time.Since(waitStart) > lateAfter(own) {
			if p.backUp(b, n) {
				break
			}
			// A backup stopped short of its deadline, or by a part's end:
			// wait as before, so a part in its last block ends in time.
			b = nil
		}
		// Past the spin time, let a worker that lacks a P have ours.
		if time.Since(waitStart) > p.spin {
			p.waiter.Store(yielding)
			runtime.Gosched()
		}
	}
	var v any
	for i := range n {
		s := &p.slots[i]
		if s.claim.CompareAndSwap(claimReady, claimAbandoned) {
			continue
		}
		// Leaving holds off the worker's end until Leave has answered,
		// so the Leaver hears of a part left behind before it can end.
		if l != nil && s.claim.CompareAndSwap(claimRunning, claimLeaving) {
			if l.Leave(i) {
				s.claim.Store(claimLeft)
				continue
			}
			s.claim.Store(claimRunning)
		}
		for s.claim.Load() == claimRunning {
			runtime.Gosched()
		}
		if v == nil {
			v = s.pval
		}
		s.pval = nil
	}
	p.waiter.Store(spinning)
	return v
}

// backUp runs a backup of each of the n worker parts not yet ended, one
// after another, until each is whole, its worker ends it, or the deadline
// stops it (the backup's own clock checks). It reports whether every part
// it backed up is whole.
func (p *Pool) backUp(b Backer, n int) bool {
	whole := true
	for i := range n {
		s := &p.slots[i]
		if s.claim.Load() != claimDone && !b.Backup(i, Watch{s: &s.slotState}) {
			whole = false
		}
	}
	return whole
}

// release drops one count of a RunBy job's pending; the last unlocks mu.
func (p *Pool) release() {
	if p.pending.Add(-1) == 0 {
		p.mu.Unlock()
	}
}

func serial(t Task, parts int) {
	for i := range parts {
		t.RunPart(i)
	}
}

// collect returns the first worker panic value of the last Run and clears them all.
func (p *Pool) collect(n int) any {
	var v any
	for i := range n {
		s := &p.slots[i]
		if v == nil {
			v = s.pval
		}
		s.pval = nil
	}
	return v
}

// wait returns when every worker part is done. It spins briefly, then
// yields its P (a worker may be runnable but lack one), then parks after
// p.spin so that a descheduled worker does not make the caller burn a core.
func (p *Pool) wait() {
	start := time.Now()
	for i := 1; p.pending.Load() != 0; i++ {
		if i%spinCheck != 0 {
			continue
		}
		if time.Since(start) > p.spin {
			break
		}
		p.waiter.Store(yielding)
		runtime.Gosched()
	}
	for p.pending.Load() != 0 {
		// Swap, not Store: a store-release then a load-acquire is a full
		// barrier on arm64 hardware but not under qemu's x86 translation,
		// where the load could pass the store and both sides sleep. A
		// read-modify-write orders them everywhere.
		p.waiter.Swap(parked)
		if p.pending.Load() != 0 {
			<-p.done // may be a stale token: loop and re-check
		}
	}
	p.waiter.Store(spinning)
}

// Close stops the workers and waits for them to exit. It waits for a Run in
// progress, so it must not be called from inside a Task. Close is
// idempotent; Run after Close runs serially on the caller.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for i := range p.slots {
		s := &p.slots[i]
		s.task = nil
		s.seq.Add(1)
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	p.wg.Wait()
}

// worker runs jobs handed to slot s until told to stop.
//
// Only a pinned worker locks its OS thread: waking a parked locked goroutine
// costs two thread hand-offs (about 5x the latency of an unlocked one), and
// when workers outnumber Ps every switch becomes a thread switch. A pinned
// worker stays locked until exit, so its thread dies with it instead of
// returning to the runtime with a narrowed affinity.
func (p *Pool) worker(s *slot, cpu int, ready chan<- error) {
	defer p.wg.Done()
	// A part that reads a mapped file which has shrunk panics instead of
	// killing the process; runPart hands the panic to the caller, which
	// turns it into an error.
	debug.SetPanicOnFault(true)
	if cpu >= 0 {
		runtime.LockOSThread()
		if err := pinThread(cpu); err != nil {
			ready <- fmt.Errorf("pool: pin worker to CPU %d: %w", cpu, err)
			return
		}
	}
	ready <- nil
	var seen uint64
	budgeted := false
	for {
		if budgeted {
			// A budgeted search's part ends near its deadline, while
			// the caller still has its merge to do: a spin here would
			// take the core the caller may be queued for (docs/BUDGETS.md).
			seen = p.park(s, seen)
		} else {
			seen = p.await(s, seen)
		}
		if s.task == nil {
			return
		}
		budgeted = p.runPart(s)
	}
}

// await returns the slot's sequence number once it differs from seen:
// spinning for up to p.spin, then parked on the wake channel.
//
// While the caller is off its P (it yielded or parked), the spin yields too:
// the caller may be queued behind this worker, because runtime.Gosched does
// not wake an idle P.
func (p *Pool) await(s *slot, seen uint64) uint64 {
	start, spin := time.Now(), !p.oversubscribed()
	for i := 1; spin; i++ {
		if q := s.seq.Load(); q != seen {
			return q
		}
		if i%spinCheck == 0 {
			if time.Since(start) > p.spin {
				break
			}
			if p.waiter.Load() != spinning {
				runtime.Gosched()
			}
		}
	}
	return p.park(s, seen)
}

// park is await without the spin: it sleeps on the wake channel until the
// slot's sequence number differs from seen.
func (p *Pool) park(s *slot, seen uint64) uint64 {
	for {
		// Publish parked before re-checking seq; the caller bumps seq before
		// reading state, so one of the two always sees the other. Swap for
		// the reason given in wait.
		s.state.Swap(parked)
		if q := s.seq.Load(); q != seen {
			s.state.Store(spinning)
			return q
		}
		<-s.wake // may be stale or spurious: loop and re-check
		s.state.Store(spinning)
	}
}

// oversubscribed reports whether the participants outnumber GOMAXPROCS. Then
// a spinning worker would hold a P that another participant needs, so
// workers park at once instead.
func (p *Pool) oversubscribed() bool {
	return len(p.slots) >= runtime.GOMAXPROCS(0)
}

// runPart runs the slot's part in the default floating-point mode,
// recovering a panic for the caller to re-raise. The worker's thread may
// have been created under a host's FTZ/DAZ. It reports whether the part
// was a RunBy's.
func (p *Pool) runPart(s *slot) (budgeted bool) {
	if testBeforePart != nil {
		testBeforePart(s.part)
	}
	detached := p.detached
	budgeted = detached
	if !s.claim.CompareAndSwap(claimReady, claimRunning) {
		// RunBy's caller passed its deadline and went on without this part.
		s.task = nil
		p.release()
		return true
	}
	fp := fpenv.Enter()
	defer func() {
		fpenv.Leave(fp)
		v := recover() // never nil after a panic since Go 1.21, even panic(nil)
		t := s.task
		s.task = nil // don't keep the job alive until the next Run
		s.pval = v
		if !s.claim.CompareAndSwap(claimRunning, claimDone) {
			// RunBy's caller is leaving this part behind, or has.
			for s.claim.Load() == claimLeaving {
				runtime.Gosched()
			}
			if s.claim.Load() == claimLeft {
				s.pval = nil // the caller has gone: its Leaver takes the panic
				t.(Leaver).Left(s.part, v)
				p.release()
				return
			}
			s.claim.Store(claimDone)
		}
		if detached {
			p.release()
			return
		}
		if p.pending.Add(-1) == 0 && p.waiter.Load() == parked {
			select {
			case p.done <- struct{}{}:
			default:
			}
		}
	}()
	s.task.RunPart(s.part)
	return budgeted
}

// testBeforePart, when set by a test, runs on a worker before it takes
// its part: a test holds it there to play a worker woken late.
var testBeforePart func(part int)

// parkedWorkers reports how many workers are parked (for tests).
func (p *Pool) parkedWorkers() int {
	n := 0
	for i := range p.slots {
		if p.slots[i].state.Load() == parked {
			n++
		}
	}
	return n
}

// DefaultWorkers returns UsableCPUs()-1: the caller is the last participant.
func DefaultWorkers() int { return UsableCPUs() - 1 }
