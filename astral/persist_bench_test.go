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

// BenchmarkOpen100k measures the ways to get the reference HNSW index
// (100,000 × 384 random, M 16, efConstruction 200) ready to query:
// rebuilding it from the vectors, loading its file through a reader
// (Load on an *os.File), mapping the file (OpenFile: map_ms), and mapping
// it with VerifyInBackground (bg_ms to return, bg_verified_ms until its
// check ends). The file is in the page cache for the loads (a game's
// second open); each way is timed 7 times in a row and the median
// reported (reader_min_ms too: the reader's best), with the results
// checked equal.
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
	var mapT, readT, bgT, bgDoneT []time.Duration
	var faults, readFaults []int64
	for b.Loop() {
		mapT, readT, bgT, bgDoneT, faults, readFaults = mapT[:0], readT[:0], bgT[:0], bgDoneT[:0], faults[:0], readFaults[:0]
		// Each way 7 times in a row. Each load starts from a collected
		// heap, and waits for the last one's background work (the graph's
		// id map, a background check) first.
		for range 7 {
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
		}
		for range 7 {
			runtime.GC()
			start := time.Now()
			z, err := OpenFile(rt, path, VerifyInBackground())
			bgT = append(bgT, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			if err := z.Verify(); err != nil {
				b.Fatal(err)
			}
			bgDoneT = append(bgDoneT, time.Since(start))
			if !slices.Equal(want, benchQueries(b, z, set)) {
				b.Fatal("answers differ after a background check")
			}
			z.Close()
		}
		// The reader's time depends on whether the heap reuses the memory
		// the last load freed or faults fresh pages in (reader_faults):
		// back to back, it mostly reuses (its best case).
		for range 7 {
			runtime.GC()
			f0 := minorFaults()
			start := time.Now()
			y := readFile(b, rt, path)
			readT = append(readT, time.Since(start))
			readFaults = append(readFaults, minorFaults()-f0)
			y.Len()
			if !slices.Equal(want, benchQueries(b, y, set)) {
				b.Fatal("loaded index answers differ")
			}
			y.Close()
		}
	}
	for _, t := range [][]time.Duration{mapT, readT, bgT, bgDoneT} {
		slices.Sort(t)
	}
	slices.Sort(faults)
	slices.Sort(readFaults)
	m, r, bg, bgDone := mapT[len(mapT)/2], readT[len(readT)/2], bgT[len(bgT)/2], bgDoneT[len(bgDoneT)/2]
	b.ReportMetric(float64(fi.Size())/(1<<20), "file_MiB")
	b.ReportMetric(m.Seconds()*1e3, "map_ms")
	b.ReportMetric(r.Seconds()*1e3, "reader_ms")
	b.ReportMetric(r.Seconds()/m.Seconds(), "reader/map")
	b.ReportMetric(bg.Seconds()*1e3, "bg_ms")
	b.ReportMetric(bgDone.Seconds()*1e3, "bg_verified_ms")
	b.ReportMetric(r.Seconds()/bg.Seconds(), "reader/bg")
	b.ReportMetric(readT[0].Seconds()*1e3, "reader_min_ms")
	b.ReportMetric(readT[0].Seconds()/bg.Seconds(), "reader_min/bg")
	b.ReportMetric(readT[0].Seconds()/m.Seconds(), "reader_min/map")
	if faults[0] >= 0 {
		// Where the file is cached in 2 MiB folios (SaveFile, and
		// OpenFile's huge-page advice), about one per 2 MiB.
		b.ReportMetric(float64(faults[len(faults)/2]), "map_faults")
		b.ReportMetric(float64(readFaults[len(readFaults)/2]), "reader_faults")
	}
	if rebuild > 0 {
		b.ReportMetric(rebuild.Seconds(), "rebuild_s")
		b.ReportMetric(rebuild.Seconds()/m.Seconds(), "rebuild/map")
	}
	b.Logf("map %v (min %v), reader %v (min %v), background %v (min %v; checked %v), rebuild %v; %d workers + caller",
		m, mapT[0], r, readT[0], bg, bgT[0], bgDone, rebuild, rt.Threads())
}

// readFile loads path through a reader.
func readFile(b *testing.B, rt *Runtime, path string) *Index {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	x, err := Load(rt, f)
	if err != nil {
		b.Fatal(err)
	}
	return x
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

// BenchmarkSaveLoad saves and loads small indexes each way (flat: 20,000
// × 128; HNSW with a rerank copy: 4,000 × 128; one worker): the
// container's cost beside the structures', for comparing builds
// interleaved (benchstat) rather than for absolute figures.
//
//	go test -run '^$' -bench SaveLoad -count 6 ./astral/
func BenchmarkSaveLoad(b *testing.B) {
	rt, err := NewRuntime(WithThreads(1))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	for _, c := range []struct {
		name string
		x    *Index
	}{
		{"flat", testIndex(b, rt, KindFlat, L2, 20000, 128)},
		{"hnsw", testIndex(b, rt, KindHNSW, Cosine, 4000, 128, WithRerank(F16, 2))},
	} {
		file := saved(b, c.x)
		path := filepath.Join(b.TempDir(), c.name+".idx")
		if err := os.WriteFile(path, file, 0o644); err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, len(file))
		b.Run(c.name+"/SaveBuffer", func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			for b.Loop() {
				if _, err := c.x.SaveBuffer(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/LoadBytes", func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			for b.Loop() {
				y, err := LoadBytes(rt, file)
				if err != nil {
					b.Fatal(err)
				}
				y.Wait()
				y.Len() // waits for the graph's id map
			}
		})
		b.Run(c.name+"/Load", func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			for b.Loop() {
				y, err := Load(rt, bytes.NewReader(file))
				if err != nil {
					b.Fatal(err)
				}
				y.Len()
			}
		})
		b.Run(c.name+"/OpenFile", func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			for b.Loop() {
				y, err := OpenFile(rt, path)
				if err != nil {
					b.Fatal(err)
				}
				y.Len()
				y.Close()
			}
		})
	}
}
