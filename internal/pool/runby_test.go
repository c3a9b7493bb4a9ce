package pool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRunByRunsEveryPartInTime: with a budget that cannot run out, RunBy
// runs every part once, the last on the caller, as Run does.
func TestRunByRunsEveryPartInTime(t *testing.T) {
	p, err := New(Options{Workers: 3})
	require.NoError(t, err)
	defer p.Close()
	var r recorder
	for parts := 2; parts <= 4; parts++ {
		r.reset()
		require.True(t, p.RunBy(&r, parts, time.Now(), time.Hour))
		checkParallel(t, &r, parts, goid())
	}
	require.False(t, p.RunBy(&r, 1, time.Now(), time.Hour), "one part is the caller's alone")
}

// TestRunByLeavesLateWorkersBehind: a worker that has not taken its part
// by the deadline never runs it, the caller returns without waiting for
// it, and the pool serves Run again once the late worker has looked.
func TestRunByLeavesLateWorkersBehind(t *testing.T) {
	hold := make(chan struct{})
	var held atomic.Int32
	var release sync.Once
	testBeforePart = func(part int) {
		if part == 1 && held.CompareAndSwap(0, 1) {
			<-hold // worker 1 is woken late, once
		}
	}
	p, err := New(Options{Workers: 2})
	require.NoError(t, err)
	// Deferred in this order so a failure cannot leave Close waiting on
	// the held worker.
	defer func() { testBeforePart = nil }()
	defer p.Close()
	defer release.Do(func() { close(hold) })
	var r recorder
	// The caller's part waits for worker 0 to begin and then outlasts the
	// budget, while worker 1 is held before taking its part.
	began := make(chan struct{})
	slow := partFunc(func(i int) {
		switch i {
		case 0:
			close(began)
		case 2:
			<-began
			time.Sleep(2 * time.Millisecond)
		}
		r.RunPart(i)
	})
	require.True(t, p.RunBy(slow, 3, time.Now(), time.Millisecond))
	require.EqualValues(t, 1, r.count[0].Load())
	require.EqualValues(t, 0, r.count[1].Load(), "abandoned at the deadline")
	require.EqualValues(t, 1, r.count[2].Load())
	// Busy until the late worker has looked: RunBy declines, Run goes serial.
	require.False(t, p.RunBy(&r, 3, time.Now(), time.Hour))
	release.Do(func() { close(hold) })
	require.Eventually(t, func() bool { return p.mu.TryLock() && func() bool { p.mu.Unlock(); return true }() },
		10*time.Second, time.Millisecond)
	require.EqualValues(t, 0, r.count[1].Load(), "a late worker skips its abandoned part")
	r.reset()
	p.Run(&r, 3)
	checkParallel(t, &r, 3, goid())
}

// TestRunByWaitsForBegunParts: a part begun before the deadline is waited
// for, however long it takes, and its panic reaches the caller.
func TestRunByWaitsForBegunParts(t *testing.T) {
	p, err := New(Options{Workers: 1})
	require.NoError(t, err)
	defer p.Close()
	var done atomic.Bool
	started := make(chan struct{})
	task := partFunc(func(i int) {
		if i == 0 {
			close(started)
			time.Sleep(5 * time.Millisecond)
			done.Store(true)
			return
		}
		<-started // the worker has begun before the caller's part ends
	})
	require.True(t, p.RunBy(task, 2, time.Now(), time.Microsecond))
	require.True(t, done.Load())
	boom := partFunc(func(i int) {
		if i == 0 {
			panic("boom")
		}
	})
	require.PanicsWithValue(t, "boom", func() { p.RunBy(boom, 2, time.Now(), time.Hour) })
	var r recorder
	p.Run(&r, 2)
	checkParallel(t, &r, 2, goid())
}

type partFunc func(i int)

func (f partFunc) RunPart(i int) { f(i) }

// leaver is a Leaver over parts run by run: it lets a begun part be left
// behind when leave is set, and records what Left reports.
type leaver struct {
	run    func(i int)
	leave  bool
	asked  atomic.Int32
	left   chan any // each Left's panic value
	leftOn atomic.Uint64
}

func (l *leaver) RunPart(i int) { l.run(i) }

func (l *leaver) Leave(int) bool {
	l.asked.Add(1)
	return l.leave
}

func (l *leaver) Left(_ int, panicked any) {
	l.leftOn.Store(goid())
	l.left <- panicked
}

// TestRunByLeavesBegunPartToLeaver: a Leaver's part begun on a worker and
// still running at the deadline is left behind: the caller returns by the
// deadline, the pool stays busy until the part ends, the part's end (and
// its panic) reaches Left on the worker and never a later caller.
func TestRunByLeavesBegunPartToLeaver(t *testing.T) {
	p, err := New(Options{Workers: 1})
	require.NoError(t, err)
	defer p.Close()
	for _, panics := range []bool{false, true} {
		hold := make(chan struct{})
		began := make(chan struct{})
		l := &leaver{leave: true, left: make(chan any, 1)}
		l.run = func(i int) {
			if i == 0 {
				close(began)
				<-hold // descheduled mid-part, past the deadline
				if panics {
					panic("late")
				}
				return
			}
			<-began
		}
		start := time.Now()
		budget := 20 * time.Millisecond
		require.True(t, p.RunBy(l, 2, start, budget))
		require.Less(t, time.Since(start), budget+time.Second, "the caller does not wait for the part left behind")
		require.EqualValues(t, 1, l.asked.Load())
		require.False(t, p.RunBy(&recorder{}, 2, time.Now(), time.Hour), "busy until the part left behind ends")
		select {
		case <-l.left:
			t.Fatal("Left before the part ended")
		default:
		}
		close(hold)
		v := <-l.left
		if panics {
			require.Equal(t, "late", v)
		} else {
			require.Nil(t, v)
		}
		require.NotEqual(t, goid(), l.leftOn.Load(), "Left runs on the worker")
		require.Eventually(t, func() bool { return p.mu.TryLock() && func() bool { p.mu.Unlock(); return true }() },
			10*time.Second, time.Millisecond)
		var r recorder
		p.Run(&r, 2) // no stale panic re-raised
		checkParallel(t, &r, 2, goid())
	}
}

// TestRunByWaitsWhenLeaverRefuses: a Leaver that will not let a begun part
// run on is waited for, as a plain Task's part is.
func TestRunByWaitsWhenLeaverRefuses(t *testing.T) {
	p, err := New(Options{Workers: 1})
	require.NoError(t, err)
	defer p.Close()
	var done atomic.Bool
	began := make(chan struct{})
	l := &leaver{left: make(chan any, 1)}
	l.run = func(i int) {
		if i == 0 {
			close(began)
			time.Sleep(5 * time.Millisecond)
			done.Store(true)
			return
		}
		<-began
	}
	require.True(t, p.RunBy(l, 2, time.Now(), time.Microsecond))
	require.True(t, done.Load())
	require.EqualValues(t, 1, l.asked.Load())
	require.Empty(t, l.left, "Left is only for parts left behind")
	var r recorder
	p.Run(&r, 2)
	checkParallel(t, &r, 2, goid())
}

// backer is a leaver that is also a Backer: backup runs for each Backup.
type backer struct {
	leaver
	backup  func(i int, w Watch) bool
	backups atomic.Int32
}

func (b *backer) Backup(i int, w Watch) bool {
	b.backups.Add(1)
	return b.backup(i, w)
}

// slowPartBacker is a backer whose part 0 takes 20 ms and then sets ended.
func slowPartBacker(ended *atomic.Bool) *backer {
	b := &backer{leaver: leaver{leave: true, left: make(chan any, 1)}}
	b.run = func(i int) {
		if i == 0 {
			time.Sleep(20 * time.Millisecond)
			ended.Store(true)
		}
	}
	return b
}

// TestRunByBacksUpHeldPart: a Backer's part held on its worker is backed
// up on the caller, which then leaves the part behind and returns long
// before the deadline; a part that ended in time is not backed up.
func TestRunByBacksUpHeldPart(t *testing.T) {
	p := newPool(t, Options{Workers: 2})
	hold := make(chan struct{})
	began := make(chan struct{})
	b := &backer{leaver: leaver{leave: true, left: make(chan any, 1)}}
	b.run = func(i int) {
		switch i {
		case 0:
			close(began)
			<-hold
		case 2: // the caller's: part 1 has ended before the wait begins
			<-began
			for p.slots[1].claim.Load() != claimDone {
				runtime.Gosched()
			}
		}
	}
	var backedUp []int
	b.backup = func(i int, w Watch) bool {
		backedUp = append(backedUp, i)
		require.False(t, w.Stop(), "the held part has not ended")
		return true
	}
	start := time.Now()
	budget := 20 * time.Second
	require.True(t, p.RunBy(b, 3, start, budget))
	require.Less(t, time.Since(start), budget/2, "the caller does not wait for the part it backed up")
	require.Equal(t, []int{0}, backedUp, "only the held part is backed up")
	require.EqualValues(t, 1, b.asked.Load(), "the held part is left behind")
	close(hold)
	require.Nil(t, <-b.left)
	require.Eventually(t, func() bool { return p.mu.TryLock() && func() bool { p.mu.Unlock(); return true }() },
		10*time.Second, time.Millisecond)
}

// TestRunByBackupStopsWhenPartEnds: a backup of a slow part stops once its
// worker ends the part (Watch.Stop), and RunBy then returns with nothing
// left behind.
func TestRunByBackupStopsWhenPartEnds(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	var ended atomic.Bool
	b := slowPartBacker(&ended)
	b.backup = func(i int, w Watch) bool {
		for !w.Stop() {
			runtime.Gosched()
		}
		require.True(t, ended.Load(), "Stop only once the part has ended")
		return false
	}
	require.True(t, p.RunBy(b, 2, time.Now(), 20*time.Second))
	require.EqualValues(t, 1, b.backups.Load())
	require.Zero(t, b.asked.Load(), "nothing left behind")
	require.Empty(t, b.left)
}

// TestRunByBackupPanicWaitsForParts: a panic in a backup reaches the
// caller, as one in its own part does, once every begun part has ended.
func TestRunByBackupPanicWaitsForParts(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	var ended atomic.Bool
	b := slowPartBacker(&ended)
	b.backup = func(int, Watch) bool { panic("backup") }
	require.PanicsWithValue(t, "backup", func() { p.RunBy(b, 2, time.Now(), 20*time.Second) })
	require.True(t, ended.Load(), "the begun part ended before the panic left RunBy")
	var r recorder
	p.Run(&r, 2)
	checkParallel(t, &r, 2, goid())
}

// TestRunByWaitsAfterShortBackup: a backup that stops short leaves the
// caller waiting for the part as without one, not leaving it behind.
func TestRunByWaitsAfterShortBackup(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	var ended atomic.Bool
	b := slowPartBacker(&ended)
	b.backup = func(int, Watch) bool { return false }
	require.True(t, p.RunBy(b, 2, time.Now(), 20*time.Second))
	require.True(t, ended.Load(), "waited for the part")
	require.EqualValues(t, 1, b.backups.Load())
	require.Zero(t, b.asked.Load(), "nothing left behind")
}
