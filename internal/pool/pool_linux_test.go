package pool

import (
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// affinity records each part's thread affinity mask.
type affinity struct{ sets [4]unix.CPUSet }

func (a *affinity) RunPart(i int) {
	if err := unix.SchedGetaffinity(0, &a.sets[i]); err != nil {
		panic(err)
	}
}

func TestPinToCPU0(t *testing.T) {
	p, err := New(Options{Workers: 2, Pin: true, CPUs: []int{0}})
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EINVAL) {
		t.Skip("SchedSetaffinity not permitted:", err)
	}
	require.NoError(t, err)
	defer p.Close()
	var a affinity
	p.Run(&a, 3)
	for i := range 2 {
		require.Equal(t, 1, a.sets[i].Count(), "worker %d", i)
		require.True(t, a.sets[i].IsSet(0), "worker %d", i)
	}
}

func TestPinDefaultCPUs(t *testing.T) {
	p, err := New(Options{Workers: 2, Pin: true})
	if errors.Is(err, unix.EPERM) {
		t.Skip("SchedSetaffinity not permitted:", err)
	}
	require.NoError(t, err)
	defer p.Close()
	cpus, err := pinList(nil)
	require.NoError(t, err)
	var a affinity
	p.Run(&a, 3)
	for i := range 2 {
		require.Equal(t, 1, a.sets[i].Count(), "worker %d", i)
		require.True(t, a.sets[i].IsSet(cpus[i%len(cpus)]), "worker %d", i)
	}
}

func TestPinFailureLeaksNothing(t *testing.T) {
	base := runtime.NumGoroutine()
	_, err := New(Options{Workers: 2, Pin: true, CPUs: []int{-1}})
	require.Error(t, err)
	// CPU 1023 is in range for the set but not online: the kernel refuses it.
	_, err = New(Options{Workers: 3, Pin: true, CPUs: []int{0, maxCPU - 1}})
	require.Error(t, err)
	waitGoroutines(t, base)
}
