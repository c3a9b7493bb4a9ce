package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/astral-engine/astral/internal/fpenv"
)

// BenchmarkQueryFromC is one query per export call, made from C, flat,
// 384 dimensions, E5M2, serial (threads=0, so every instruction runs on
// the calling thread): what the FP guard adds to a host's query. It also
// reports the thread's CPU time per query (thread-cpu-ns/op), which a
// loaded machine's descheduling does not inflate. host=ftz-daz leaves
// FTZ|DAZ on the calling thread, so the guard writes MXCSR twice per call.
// Compare against a build without the guard, interleaved (docs/BENCHMARKS.md).
func BenchmarkQueryFromC(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		for _, host := range []struct {
			name string
			bits uint32
		}{{"default", 0}, {"ftz-daz", fpenv.FTZ | fpenv.DAZ}} {
			b.Run(fmt.Sprintf("n=%d/host=%s", n, host.name), func(b *testing.B) {
				const dim, nq, k = 384, 64, 10
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				if st := initRuntime(0); st != stOK {
					b.Fatal(lastError())
				}
				defer shutdown()
				h, st := createIndex(options{dim: dim})
				if st != stOK {
					b.Fatal(lastError())
				}
				defer destroyIndex(h)
				if st := addVectors(h, ids(0, n), randomRows(rand.New(rand.NewPCG(42, 1024)), n, dim)); st != stOK {
					b.Fatal(lastError())
				}
				qs, res := cFloatsOf(randomRows(rand.New(rand.NewPCG(7, 1024)), nq, dim)), newResults(k)
				defer qs.free()
				defer res.free()
				saved := fpenv.GetMXCSR()
				fpenv.SetMXCSR(saved | host.bits)
				defer fpenv.SetMXCSR(saved)
				queryLoopC(h, qs, dim, k, res, 2*nq) // warm
				var before, after unix.Timespec
				_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &before)
				b.ResetTimer()
				st = queryLoopC(h, qs, dim, k, res, b.N)
				b.StopTimer()
				_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &after)
				if st != stOK {
					b.Fatal(lastError())
				}
				b.ReportMetric(float64(after.Nano()-before.Nano())/float64(b.N), "thread-cpu-ns/op")
			})
		}
	}
}
