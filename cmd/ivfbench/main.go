// Command ivfbench measures the ivf package before the engine serves it:
// a fixture streamed into E5M2 records (cosine), the exact answer from a
// flat scan on every participant, then IVF training, assignment and fill
// timed apart, and one query at a time at each nprobe beside the flat scan,
// interleaved in one process so the p50s compare as ratios.
//
//	go run ./cmd/ivfbench --n 100000 --nlist 256 --nprobe 4,8,16,32,64
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/astral-engine/astral/flat"
	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/ivf"
	"github.com/astral-engine/astral/kernel"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ivfbench:", err)
		os.Exit(1)
	}
}

func run() error {
	data := flag.String("data", "spectral", "fixture: random, spectral or clustered")
	n := flag.Int("n", 100000, "stored vectors")
	nq := flag.Int("nq", 1000, "queries for recall")
	nqTime := flag.Int("nq-time", 200, "of those, queries timed per pass")
	dim := flag.Int("dim", 384, "dimension")
	k := flag.Int("k", 10, "results per query")
	nlist := flag.Int("nlist", 1024, "partitions")
	nprobes := flag.String("nprobe", "4,8,16,32,64", "comma list")
	threads := flag.String("threads", "1", "runtime workers (not counting the caller), comma list")
	runs := flag.Int("runs", 5, "timed passes; the run with the median p50 is reported")
	truthOut := flag.String("truth-out", "", "write the exact quantized top-k (row numbers) to this .ivecs file")
	flag.Parse()
	probes, err := ints(*nprobes)
	if err != nil {
		return err
	}
	workers, err := ints(*threads)
	if err != nil {
		return err
	}
	maxWorkers := slices.Max(workers)
	bigPool, err := pool.New(pool.Options{Workers: max(maxWorkers, runtime.GOMAXPROCS(0)-1)})
	if err != nil {
		return err
	}
	defer bigPool.Close()

	kern, err := kernel.New(nil, *dim, kernel.E5M2)
	if err != nil {
		return err
	}
	st := kern.Stride()
	t0 := time.Now()
	recs := make([]byte, 0, *n*st)
	bias := make([]float32, 0, *n)
	units := make([]float32, *dim)
	rec := make([]byte, st)
	err = fixture.Stream(*data, *n, *dim, false, 1<<14, func(rows []float32) error {
		for off := 0; off < len(rows); off += *dim {
			kernel.Encode(kernel.E5M2, rec, rows[off:off+*dim])
			recs = append(recs, rec...)
			kernel.DecodeUnits(kernel.E5M2, units, rec)
			var ss float64
			for _, u := range units {
				ss += float64(u) * float64(u)
			}
			bias = append(bias, float32(1/math.Sqrt(ss)))
		}
		return nil
	})
	if err != nil {
		return err
	}
	var queries []float32
	if err := fixture.Stream(*data, *nq, *dim, true, *nq, func(rows []float32) error {
		queries = append(queries, rows...)
		return nil
	}); err != nil {
		return err
	}
	ids := make([]uint64, *n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	fmt.Printf("fixture %s %d × %d, %d queries: generated and encoded in %.1f s\n", *data, *n, *dim, *nq, time.Since(t0).Seconds())

	fx, err := flat.FromParts(kern, score.AdjustScale, flat.Parts{Records: recs, IDs: ids, Adjust: bias})
	if err != nil {
		return err
	}
	t0 = time.Now()
	truth := exactTruth(fx, bigPool, queries, *dim, *k)
	fmt.Printf("exact quantized truth (flat, %d participants, batches of %d): %.1f s\n", bigPool.Workers()+1, flat.MaxBatch, time.Since(t0).Seconds())
	if *truthOut != "" {
		if err := writeTruth(*truthOut, truth); err != nil {
			return err
		}
	}

	x, err := ivf.New(kern, score.AdjustScale, ivf.Config{Dim: *dim, NList: *nlist, Seed: 1})
	if err != nil {
		return err
	}
	buildPool, err := pool.New(pool.Options{Workers: maxWorkers})
	if err != nil {
		return err
	}
	t0, c0 := time.Now(), cpuTime()
	if err := x.Train(recs, nil, buildPool); err != nil {
		return err
	}
	train, trainCPU := time.Since(t0), cpuTime()-c0
	t0, c0 = time.Now(), cpuTime()
	assign := x.Assign(recs, nil, buildPool)
	assignT, assignCPU := time.Since(t0), cpuTime()-c0
	t0 = time.Now()
	if err := x.Fill(recs, ids, bias, nil, nil, nil, assign); err != nil {
		return err
	}
	fill := time.Since(t0)
	buildPool.Close()
	s := x.Stats()
	fmt.Printf("ivf nlist %d, %d workers + caller: train %.2f s wall, %.2f s CPU (sample %d, %d rounds); assign %.2f s wall, %.2f s CPU; fill %.2f s\n",
		*nlist, maxWorkers, train.Seconds(), trainCPU.Seconds(), ivf.DefaultSample(*n, *nlist), ivf.DefaultRounds, assignT.Seconds(), assignCPU.Seconds(), fill.Seconds())
	fmt.Printf("partitions %d, largest %d (%.4f of the records, mean %.0f), %.1f bytes per vector\n",
		s.Partitions, s.Largest, s.Share, float64(*n)/float64(s.Partitions), x.BytesPerVector())

	for _, w := range workers {
		p, err := pool.New(pool.Options{Workers: w})
		if err != nil {
			return err
		}
		measure(fx, x, p, w, queries, *dim, *k, min(*nqTime, *nq), *runs, probes, truth)
		p.Close()
	}
	return nil
}

// writeTruth writes each query's ids (the fixture's row numbers) as .ivecs.
func writeTruth(path string, truth [][]uint64) error {
	lists := make([][]int32, len(truth))
	for q, ids := range truth {
		for _, id := range ids {
			lists[q] = append(lists[q], int32(id))
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fixture.WriteIvecs(f, lists); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// exactTruth is each query's top k ids by a flat scan, batched.
func exactTruth(fx *flat.Index, p *pool.Pool, queries []float32, dim, k int) [][]uint64 {
	nq := len(queries) / dim
	s := flat.NewSearcher(p.Workers() + 1)
	dst := make([]score.Result, flat.MaxBatch*k)
	counts := make([]int, flat.MaxBatch)
	ql := fx.Kernel().QueryLen()
	out := make([][]uint64, nq)
	for lo := 0; lo < nq; lo += flat.MaxBatch {
		b := min(flat.MaxBatch, nq-lo)
		buf := s.QueryBuffer(fx, b)
		for q := 0; q < b; q++ {
			fx.Kernel().PrepareQuery(buf[q*ql:(q+1)*ql], queries[(lo+q)*dim:(lo+q+1)*dim])
		}
		fx.Search(s, p, b, k, dst, counts)
		for q := 0; q < b; q++ {
			for _, r := range dst[q*k : q*k+counts[q]] {
				out[lo+q] = append(out[lo+q], r.ID)
			}
		}
	}
	return out
}

// measure prints, for the flat scan and each nprobe, the recall against
// the exact answer and the p50 of one query at a time, the configurations
// interleaved within every pass.
func measure(fx *flat.Index, x *ivf.Index, p *pool.Pool, workers int, queries []float32, dim, k, nqTime, runs int, probes []int, truth [][]uint64) {
	nq := len(queries) / dim
	fs := flat.NewSearcher(p.Workers() + 1)
	is := ivf.NewSearcher(p.Workers() + 1)
	dst := make([]score.Result, k)
	counts := make([]int, 1)
	ql := fx.Kernel().QueryLen()
	flatQuery := func(q int) []score.Result {
		fx.Kernel().PrepareQuery(fs.QueryBuffer(fx, 1)[:ql], queries[q*dim:(q+1)*dim])
		fx.Search(fs, p, 1, k, dst, counts)
		return dst[:counts[0]]
	}
	ivfQuery := func(q, nprobe int) []score.Result {
		copy(is.QueryBuffer(x, 1), queries[q*dim:(q+1)*dim])
		x.Search(is, p, 1, k, nprobe, dst, counts)
		return dst[:counts[0]]
	}
	configs := len(probes) + 1
	call := func(c, q int) []score.Result {
		if c == 0 {
			return flatQuery(q)
		}
		return ivfQuery(q, probes[c-1])
	}
	// The share of the records each query's probed partitions hold: an
	// IVF query's cost follows it, and partitions near the queries can be
	// larger than the mean.
	recall, scanned := make([]float64, configs), make([]float64, configs)
	for c := 0; c < configs; c++ {
		hit, slots := 0, 0
		for q := 0; q < nq; q++ {
			for _, r := range call(c, q) {
				if slices.Contains(truth[q], r.ID) {
					hit++
				}
			}
			if c > 0 {
				_, work := is.Coverage()
				slots += work
			}
		}
		recall[c] = float64(hit) / float64(nq*k)
		scanned[c] = 1
		if c > 0 {
			scanned[c] = float64(slots) / float64(nq) / float64(x.Len())
		}
	}
	// p50s[c][run]; each run times every configuration over the same
	// queries, one configuration after the other.
	// The caller's thread CPU time per query is kept too: with threads 0
	// it is the query's whole cost, which a busy machine's wall clock
	// hides.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p50s := make([][]time.Duration, configs)
	cpu50s := make([][]time.Duration, configs)
	lat := make([]time.Duration, nqTime)
	cpu := make([]time.Duration, nqTime)
	for r := 0; r < runs; r++ {
		for c := 0; c < configs; c++ {
			for q := 0; q < nqTime; q++ {
				t, tc := time.Now(), threadCPU()
				call(c, q)
				lat[q], cpu[q] = time.Since(t), threadCPU()-tc
			}
			slices.Sort(lat)
			slices.Sort(cpu)
			p50s[c] = append(p50s[c], lat[nqTime/2])
			cpu50s[c] = append(cpu50s[c], cpu[nqTime/2])
		}
	}
	// The run whose flat p50 is the median, and every configuration's p50
	// in that same run.
	order := make([]int, runs)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(p50s[0][a] - p50s[0][b]) })
	mid := order[runs/2]
	fmt.Printf("\nthreads %d (%d participants), %d queries timed × %d runs, run %d has the median flat p50:\n", workers, workers+1, nqTime, runs, mid)
	fmt.Printf("%-10s %8s %10s %9s %12s %12s %14s %14s\n", "index", "nprobe", "recall_q", "scanned", "p50_us", "p50/flat", "cpu_p50_us", "cpu_p50/flat")
	flatP50, flatCPU := p50s[0][mid], median(cpu50s[0])
	for c := 0; c < configs; c++ {
		name, np := "flat", "-"
		if c > 0 {
			name, np = "ivf", strconv.Itoa(probes[c-1])
		}
		cp := median(cpu50s[c])
		fmt.Printf("%-10s %8s %10.4f %9.4f %12.1f %12.3f %14.1f %14.3f\n", name, np, recall[c], scanned[c], float64(p50s[c][mid].Nanoseconds())/1e3,
			float64(p50s[c][mid])/float64(flatP50), float64(cp.Nanoseconds())/1e3, float64(cp)/float64(flatCPU))
	}
}

// median is the median of d (d is reordered).
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

func ints(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad number %q in %q", f, list)
		}
		out = append(out, v)
	}
	return out, nil
}
