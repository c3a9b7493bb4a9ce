package pool

import (
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/astral-engine/astral/internal/fpenv"
)

// fpProbe records, per part, the FTZ/DAZ bits it ran under and the result
// of a denormal division.
type fpProbe struct {
	tiny float32
	mode [8]uint32
	half [8]float32
}

func (f *fpProbe) RunPart(i int) {
	f.mode[i] = fpenv.GetMXCSR() & (fpenv.FTZ | fpenv.DAZ)
	f.half[i] = f.tiny / 2
}

// taintThreads leaves FTZ|DAZ on about n of the runtime's threads, as when
// a host loads the library under that mode: n goroutines hold a thread
// each at once, set it and let it go back to the scheduler.
func taintThreads(n int) {
	var set, release sync.WaitGroup
	set.Add(n)
	release.Add(1)
	var done sync.WaitGroup
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			fpenv.SetMXCSR(fpenv.GetMXCSR() | fpenv.FTZ | fpenv.DAZ)
			set.Done()
			release.Wait()
			runtime.UnlockOSThread()
		}()
	}
	set.Wait()
	release.Done()
	done.Wait()
}

// Every part, on the workers and on a caller whose own thread has FTZ|DAZ,
// runs in the default mode: the denormal survives.
func TestPartsRunInDefaultFPMode(t *testing.T) {
	if !fpenv.Supported {
		t.Skip("no MXCSR on this architecture")
	}
	const workers = 4
	p := newPool(t, Options{Workers: workers})
	f := &fpProbe{tiny: 1e-40}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Results are compared as bits: under DAZ, which this test puts on its
	// own thread, a denormal compares equal to zero.
	fp := fpenv.Enter()
	want := math.Float32bits(f.tiny / 2)
	fpenv.Leave(fp)
	require.NotZero(t, want)

	taintThreads(32)
	saved := fpenv.GetMXCSR() &^ (fpenv.FTZ | fpenv.DAZ)
	defer fpenv.SetMXCSR(saved)
	fpenv.SetMXCSR(saved | fpenv.FTZ | fpenv.DAZ)
	for round := range 200 {
		p.Run(f, workers+1)
		for i := range workers + 1 {
			require.Zero(t, f.mode[i], "round %d part %d: FTZ/DAZ set", round, i)
			require.Equal(t, want, math.Float32bits(f.half[i]), "round %d part %d", round, i)
		}
	}
	require.Equal(t, fpenv.FTZ|fpenv.DAZ, fpenv.GetMXCSR()&(fpenv.FTZ|fpenv.DAZ), "the caller's mode is restored after Run")
	serial(f, 1) // without the pool the caller's mode would apply
	require.Equal(t, fpenv.FTZ|fpenv.DAZ, f.mode[0])
	require.Zero(t, math.Float32bits(f.half[0]))
}
