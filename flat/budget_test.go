package flat

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBudgetStopsBeforeABlockThatWouldNotFit: a participant starts a block
// only if its estimate of one block still fits in the budget left, so
// with less left than the estimate nothing is scanned; a budget that
// cannot run out scans everything, exactly.
func TestBudgetStopsBeforeABlockThatWouldNotFit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x, _ := newTestIndex(t, r, 3000, 64, 0)
	q := randomQuery(r, 64)
	want := search(x, NewSearcher(1), nil, 10, q)[0]
	for workers := 0; workers <= 1; workers++ {
		p := newPool(t, workers)
		s := NewSearcher(workers + 1)
		x.blockCost[planAll].Store(int64(200 * time.Millisecond))
		s.SetBudget(time.Now().Add(-900*time.Millisecond), time.Second)
		require.Empty(t, search(x, s, p, 10, q)[0], "workers %d: a block of 200 ms does not fit in the 100 ms left", workers)
		done, work := s.Coverage()
		require.Zero(t, done)
		require.Equal(t, x.Len(), work)
		s.SetBudget(time.Now(), time.Hour)
		require.Equal(t, want, search(x, s, p, 10, q)[0], "workers %d", workers)
		done, _ = s.Coverage()
		require.Equal(t, x.Len(), done)
	}
}

// TestBudgetGuessTooHighIsMeasuredAgain: a block time carried over from
// earlier searches that exceeds the whole budget (left by blocks the OS
// interrupted) still lets a participant run its first block, whose time
// then replaces it.
func TestBudgetGuessTooHighIsMeasuredAgain(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x, _ := newTestIndex(t, r, 3000, 64, 0)
	q := randomQuery(r, 64)
	s := NewSearcher(1)
	x.blockCost[planAll].Store(int64(10 * time.Second))
	s.SetBudget(time.Now(), time.Second)
	require.NotEmpty(t, search(x, s, nil, 10, q)[0])
	done, _ := s.Coverage()
	require.Positive(t, done)
	require.Less(t, x.blockCost[planAll].Load(), int64(time.Second), "the measured block time replaces the guess")
}

// TestBlockEstimates: the first block's time replaces the guess (at most
// twice it); then each block weighs a quarter, one slower than twice the
// estimate as twice it.
func TestBlockEstimates(t *testing.T) {
	us := time.Microsecond
	require.Equal(t, 8*us, firstBlockEstimate(0, 8*us))
	require.Equal(t, 8*us, firstBlockEstimate(time.Second, 8*us), "a wrong guess is dropped at once")
	require.Equal(t, 20*us, firstBlockEstimate(10*us, 5*time.Millisecond), "a preempted first block counts as twice the guess")
	require.Equal(t, 9*us, nextBlockEstimate(8*us, 12*us))
	require.Equal(t, 10*us, nextBlockEstimate(8*us, 5*time.Millisecond), "a preempted block counts as twice the estimate")
	require.Equal(t, 7*us, nextBlockEstimate(8*us, 4*us))
}
