package astral

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/fixture"
)

// BenchmarkOpen100k measures the three ways to get the reference HNSW
// index (100,000 × 384 random, M 16, efConstruction 200) ready to query:
// rebuilding it from the vectors, loading its file through a reader
// (Load on an *os.File), and mapping the file (OpenFile). The file is in
// the page cache for both loads (a game's second open); each load is
// timed 7 times and the median reported, with the results checked equal.
//
//	go test -run '^$' -bench Open100k -benchtime 1x -timeout 30m ./astral/
//
// ASTRAL_OPEN100K_FILE names an index file to reuse instead of building
// one (the rebuild is then not measured).
func BenchmarkOpen100k(b *testing.B) {
	ref := file100k(b)
	set, rt, path, rebuild := ref.set, ref.rt, ref.path, ref.rebuild
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	want := benchQueries(b, mustOpen(b, rt, path), set)
	if ref.built != nil && !slices.Equal(want, benchQueries(b, ref.built, set)) {
		b.Fatal("the mapped index answers differently from the built one")
	}
	var mapT, readT []time.Duration
	var faults []int64
	for b.Loop() {
		mapT, readT, faults = mapT[:0], readT[:0], faults[:0]
		for range 7 {
			// Each load starts from a collected heap, and waits for the
			// last one's background work (the graph's id map) first.
			runtime.GC()
			f0 := minorFaults()
			start := time.Now()
			x := mustOpen(b, rt, path)
			mapT = append(mapT, time.Since(start))
			faults = append(faults, minorFaults()-f0)
			x.Len()
			if !slices.Equal(want, benchQueries(b, x, set)) {
				b.Fatal("mapped index answers differ")
			}
			x.Close()

			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			start = time.Now()
			y, err := Load(rt, f)
			readT = append(readT, time.Since(start))
			y.Len()
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			if !slices.Equal(want, benchQueries(b, y, set)) {
				b.Fatal("loaded index answers differ")
			}
			y.Close()
		}
	}
	slices.Sort(mapT)
	slices.Sort(readT)
	slices.Sort(faults)
	m, r := mapT[len(mapT)/2], readT[len(readT)/2]
	b.ReportMetric(float64(fi.Size())/(1<<20), "file_MiB")
	b.ReportMetric(m.Seconds()*1e3, "map_ms")
	b.ReportMetric(r.Seconds()*1e3, "reader_ms")
	b.ReportMetric(r.Seconds()/m.Seconds(), "reader/map")
	if faults[0] >= 0 {
		// Where the file is cached in 2 MiB folios (SaveFile, and
		// OpenFile's huge-page advice), about one per 2 MiB.
		b.ReportMetric(float64(faults[len(faults)/2]), "map_faults")
	}
	if rebuild > 0 {
		b.ReportMetric(rebuild.Seconds(), "rebuild_s")
		b.ReportMetric(rebuild.Seconds()/m.Seconds(), "rebuild/map")
	}
	b.Logf("map %v (min %v), reader %v (min %v), rebuild %v; %d workers + caller", m, mapT[0], r, readT[0], rebuild, rt.Threads())
}

// ref100k is the reference index's set-up for the open benchmarks.
type ref100k struct {
	set     *fixture.Set
	rt      *Runtime // closed when the benchmark ends
	path    string   // the index file
	built   *Index   // nil when the file was reused
	rebuild time.Duration
}

// file100k generates the vectors and a runtime, and returns them with the
// reference index file: the one ASTRAL_OPEN100K_FILE names if it exists,
// else built (and written there when named), with the built index and
// its build time.
func file100k(b *testing.B) ref100k {
	set, err := fixture.Generate("random", 100000, 64, 384)
	if err != nil {
		b.Fatal(err)
	}
	rt, err := NewRuntime()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rt.Close)
	r := ref100k{set: set, rt: rt, path: os.Getenv("ASTRAL_OPEN100K_FILE")}
	if r.path != "" && fileExists(r.path) {
		return r
	}
	if r.path == "" {
		r.path = filepath.Join(b.TempDir(), "ref100k.idx")
	}
	if r.built, err = NewIndex(rt, WithDim(384), WithKind(KindHNSW)); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := r.built.Add(seqIDs(0, set.N()), set.Base); err != nil {
		b.Fatal(err)
	}
	r.rebuild = time.Since(start)
	if err := r.built.SaveFile(r.path); err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkOpenFile100k opens the reference index by mapping, b.N times,
// for a CPU profile of where an open's time goes:
//
//	ASTRAL_OPEN100K_FILE=/tmp/ref100k.idx go test -run '^$' -bench OpenFile100k \
//	    -benchtime 200x -cpuprofile cpu.prof ./astral/ && go tool pprof -top cpu.prof
func BenchmarkOpenFile100k(b *testing.B) {
	ref := file100k(b)
	for b.Loop() {
		x := mustOpen(b, ref.rt, ref.path)
		x.Len() // waits for the id map, built in the background
		x.Close()
	}
}

// minorFaults is the process's minor page faults so far (Linux), or -1.
func minorFaults() int64 {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return -1
	}
	// Field 10, minflt, is the 8th after the command name's ')'.
	fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	if len(fields) < 8 {
		return -1
	}
	n, err := strconv.ParseInt(string(fields[7]), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func mustOpen(b *testing.B, rt *Runtime, path string) *Index {
	x, err := OpenFile(rt, path)
	if err != nil {
		b.Fatal(err)
	}
	return x
}

// benchQueries is every query's top 10, flattened.
func benchQueries(b *testing.B, x *Index, set *fixture.Set) []Result {
	var out []Result
	for i := range set.NQ() {
		res, err := x.Query(nil, set.Query(i), 10)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, res...)
	}
	return out
}
