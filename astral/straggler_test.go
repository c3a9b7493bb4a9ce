package astral

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/astral-engine/astral/flat"
	"github.com/stretchr/testify/require"
)

// straggler holds flat participant 0 (a worker's share with one worker)
// before its first block of one budgeted search, as if the OS had
// descheduled its thread mid-share, until release is closed. The caller
// (participant 1) and its backup of that share (participant 2) wait
// before their blocks until the worker is held: on a loaded machine a
// worker can claim its share, or not even claim it, until after the
// caller's share and backup are done or the deadline has passed, and the
// tests mean a worker held inside its share. If holdBackup is set, it
// also runs once before the backup's first block.
type straggler struct {
	armed, backupArmed atomic.Bool
	began              chan struct{}
	release            chan struct{}
	once               sync.Once
}

func holdWorker(t *testing.T, holdBackup func(*straggler)) *straggler {
	s := &straggler{began: make(chan struct{}), release: make(chan struct{})}
	s.armed.Store(true)
	s.backupArmed.Store(holdBackup != nil)
	flat.TestBlockHook = func(participant int) {
		if participant == 0 && s.armed.CompareAndSwap(true, false) {
			close(s.began)
			<-s.release
		}
		if participant == 1 || participant == 2 {
			s.awaitBegan()
		}
		if participant == 2 && s.backupArmed.CompareAndSwap(true, false) {
			holdBackup(s)
		}
	}
	// A failing test must not leave the worker held: Close would wait.
	t.Cleanup(func() { s.free(); flat.TestBlockHook = nil })
	return s
}

func (s *straggler) free() { s.once.Do(func() { close(s.release) }) }

// awaitBegan waits until the worker is held, or 10 s: past that the
// test's own check reports a worker that never began.
func (s *straggler) awaitBegan() {
	select {
	case <-s.began:
		return
	default:
	}
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-s.began:
	case <-timer.C:
	}
}

// queryHeld runs one budgeted query whose worker h holds, and returns its
// answer, coverage and time.
func queryHeld(t *testing.T, x *Index, q []float32, budget time.Duration, h *straggler) ([]Result, Coverage, time.Duration) {
	t.Helper()
	start := time.Now()
	got, cov, err := x.QueryWithin(nil, q, QueryOptions{K: 10}, budget)
	took := time.Since(start)
	require.NoError(t, err)
	select {
	case <-h.began:
	default:
		t.Fatal("the worker never began its share")
	}
	return got, cov, took
}

// requireAddWaitsForStraggler: an Add waits while h's straggler reads x,
// and goes ahead once it is freed.
func requireAddWaitsForStraggler(t *testing.T, x *Index, s *scoped, h *straggler) {
	t.Helper()
	added := make(chan error, 1)
	go func() { added <- x.Add([]uint64{1}, s.vecs[:s.dim]) }()
	select {
	case err := <-added:
		t.Fatalf("Add finished while the straggler read the index: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	h.free()
	require.NoError(t, <-added)
}

// freeContexts is how many query contexts x's free list holds.
func (x *Index) freeContexts() int {
	x.ctxMu.Lock()
	defer x.ctxMu.Unlock()
	return len(x.ctxs)
}

// TestQueryWithinBacksUpStraggler: with a worker held mid-share and time
// to spare, the caller scans that share again itself and returns the
// exact answer, complete, long before the deadline; the worker, left
// running, ends once freed and a writer then goes ahead.
func TestQueryWithinBacksUpStraggler(t *testing.T) {
	s := budgetData(KindFlat, 14)
	x := s.index(t, newRuntime(t, 1))
	q := randomVectors(rand.New(rand.NewPCG(14, 9)), 1, s.dim)
	want, _, err := x.QueryWith(nil, q, QueryOptions{K: 10})
	require.NoError(t, err)

	h := holdWorker(t, nil)
	budget := 20 * time.Second
	got, cov, took := queryHeld(t, x, q, budget, h)
	require.Less(t, took, budget/2, "returned without waiting for the held worker")
	require.True(t, cov.Complete)
	require.Equal(t, 1.0, cov.Covered)
	require.Equal(t, want, got, "the backup's answer is the exact one, to the bit")

	requireAddWaitsForStraggler(t, x, s, h)
	require.NoError(t, x.Close())
}

// TestQueryWithinLeavesStragglerBehind: a worker held mid-share past the
// deadline, with the caller's backup of its share held there too, does not
// hold the caller: QueryWithin returns by the deadline with a valid answer
// from the caller's share and the one block its backup scanned (covered
// counts only those). The straggler keeps the index readable (a writer
// waits for it) and its query context out of use until it ends;
// meanwhile queries and a save run, and then Add, Remove, Save and Close
// work.
func TestQueryWithinLeavesStragglerBehind(t *testing.T) {
	s := budgetData(KindFlat, 12)
	x := s.index(t, newRuntime(t, 1))
	q := randomVectors(rand.New(rand.NewPCG(12, 9)), 1, s.dim)
	all, _, err := x.QueryWith(nil, q, QueryOptions{K: MaxK})
	require.NoError(t, err)
	want, _, err := x.QueryWith(nil, q, QueryOptions{K: 10})
	require.NoError(t, err)
	free := x.freeContexts()

	budget := 30 * time.Millisecond
	h := holdWorker(t, func(*straggler) { time.Sleep(budget) })
	got, cov, took := queryHeld(t, x, q, budget, h)
	require.Less(t, took, budget+time.Second, "returned without waiting for the held worker")
	requireValidSubset(t, all, got, []any{"straggler"})
	require.False(t, cov.Complete)
	n := x.Len()
	const block = 256 // flat's chunk
	require.LessOrEqual(t, cov.Covered, float64(n-n/2+block)/float64(n), "only the caller's share and a block of the backup count")
	require.Equal(t, free-1, x.freeContexts(), "the straggler's context is not reused")

	// While it is held: queries run (on the caller alone, the pool busy).
	again, cov, err := x.QueryWithin(nil, q, QueryOptions{K: 10}, time.Hour)
	require.NoError(t, err)
	require.Equal(t, want, again)
	require.True(t, cov.Complete)
	held := x.freeContexts()

	// A save reads beside it.
	var saved bytes.Buffer
	require.NoError(t, x.Save(&saved))
	y, err := LoadBytes(nil, saved.Bytes())
	require.NoError(t, err)
	got, _, err = y.QueryWith(nil, q, QueryOptions{K: 10})
	require.NoError(t, err)
	require.Equal(t, want, got)

	// A writer waits for the straggler's read lock.
	requireAddWaitsForStraggler(t, x, s, h)
	require.Eventually(t, func() bool { return x.freeContexts() == held+1 }, 10*time.Second, time.Millisecond,
		"the straggler returns its context")
	require.NoError(t, x.Remove(1))
	got, _, err = x.QueryWith(nil, q, QueryOptions{K: 10})
	require.NoError(t, err)
	require.Equal(t, want, got)
	var buf bytes.Buffer
	require.NoError(t, x.Save(&buf))
	require.NoError(t, x.Close())
}

// TestQueryWithinWaitsForStragglerBeforeWriter: when a writer is already
// waiting at the deadline, a straggler cannot take a read lock of its own
// (it would deadlock behind the writer), so the caller waits for it as
// before and merges what it did.
func TestQueryWithinWaitsForStragglerBeforeWriter(t *testing.T) {
	s := budgetData(KindFlat, 13)
	x := s.index(t, newRuntime(t, 1))
	q := randomVectors(rand.New(rand.NewPCG(13, 9)), 1, s.dim)
	all, _, err := x.QueryWith(nil, q, QueryOptions{K: MaxK})
	require.NoError(t, err)

	h := holdWorker(t, func(s *straggler) { <-s.release })
	budget := 300 * time.Millisecond // for the writer to be waiting by then
	added := make(chan error, 1)
	var freedAt atomic.Int64
	go func() {
		<-h.began
		go func() { added <- x.Add([]uint64{1}, s.vecs[:s.dim]) }()
		// Until the writer waits, a read lock can still be had.
		for x.mu.TryRLock() {
			x.mu.RUnlock()
			time.Sleep(time.Millisecond)
		}
		time.Sleep(budget + 20*time.Millisecond)
		freedAt.Store(time.Now().UnixNano())
		h.free()
	}()
	start := time.Now()
	got, cov, err := x.QueryWithin(nil, q, QueryOptions{K: 10}, budget)
	end := time.Now().UnixNano()
	require.NoError(t, err)
	require.Greater(t, time.Since(start), budget)
	require.NotZero(t, freedAt.Load())
	require.GreaterOrEqual(t, end, freedAt.Load(), "waited for the straggler")
	requireValidSubset(t, all, got, []any{"waited"})
	require.Greater(t, cov.Covered, 0.0)
	require.NoError(t, <-added)
	require.NoError(t, x.Close())
}
