package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
	"github.com/klauspost/cpuid/v2"
)

// benchReport is the JSON contract of BENCH.md: fields may be added, never
// renamed or removed.
type benchReport struct {
	Version         string             `json:"version"`
	Go              string             `json:"go"`
	CPU             string             `json:"cpu"`
	Kernel          string             `json:"kernel"`
	Dataset         benchDataset       `json:"dataset"`
	ReadCeilingGBps map[string]float64 `json:"read_ceiling_gbps"`
	Rows            []benchRow         `json:"rows"`
}

type benchDataset struct {
	Name string `json:"name"`
	N    int    `json:"n"`
	Dim  int    `json:"dim"`
	NQ   int    `json:"nq"`
	K    int    `json:"k"`
}

type benchRow struct {
	Index                  string  `json:"index"`
	Storage                string  `json:"storage"`
	Rerank                 int     `json:"rerank"`
	RerankStorage          string  `json:"rerank_storage,omitempty"`
	Threads                int     `json:"threads"`
	Participants           int     `json:"participants"`
	Ef                     int     `json:"ef"`
	Batch                  int     `json:"batch"`
	RecallAtK              float64 `json:"recall_at_k"`
	RecallVsExactQuantized float64 `json:"recall_vs_exact_quantized"`
	P50us                  float64 `json:"p50_us"`
	P95us                  float64 `json:"p95_us"`
	P99us                  float64 `json:"p99_us"`
	MeanUs                 float64 `json:"mean_us"`
	QPS                    float64 `json:"qps"`
	ScanGBps               float64 `json:"scan_gbps"`
	AllocsPerQuery         float64 `json:"allocs_per_query"`
	BuildS                 float64 `json:"build_s"`
	BytesPerVector         float64 `json:"bytes_per_vector"`
	Kernel                 string  `json:"kernel"`
}

type benchFlags struct {
	data, queries, index, jsonPath, kernel, metric, plot, indexFile string
	n, nq, dim, k, runs, m, efConstruction                          int
	threads, batch, ef, rerank                                      []int
	storages                                                        []astral.Storage
	rerankStorage                                                   astral.Storage
	runSeconds                                                      float64
	generated                                                       bool
	// Whether the user set them: a saved index supplies them otherwise.
	efGiven, nGiven, dimGiven bool
}

func parseBench(args []string) (*benchFlags, error) {
	c := newCommand("bench", "astral bench [flags]",
		`Measures recall@k and query latency (p50, p95, p99, mean) of Astral indexes
on a generated fixture, on .fvecs files, or on a saved index file, and
prints a table; --json writes BENCH.md's report and --plot the recall-latency
curve. Every combination of the comma lists is one row.`,
		"astral bench --data spectral --index hnsw --storage e5m2,int8 --ef 32,64,128 --plot curve.png",
		"astral bench --data base.fvecs --queries query.fvecs --index flat --threads 0,1 --json out.json",
		"astral bench --index-file memories.idx --data spectral --ef 64,128")
	b := &benchFlags{}
	var storages, rerank, rerankStorage, threads, batch, ef string
	c.str(&b.data, "data", "random", "a fixture (random, spectral, clustered) or the stored vectors' .fvecs file", "--data spectral")
	c.str(&b.queries, "queries", "", "the queries' .fvecs `FILE` (with --data FILE.fvecs)", "--queries query.fvecs")
	c.str(&b.indexFile, "index-file", "", "measure this saved index `FILE` instead of building one; --data gives its vectors (for the ground truth) and the queries", "--index-file memories.idx")
	c.str(&b.index, "index", "flat", "index kind: flat (exact scan), hnsw (graph) or auto (flat while small)", "--index hnsw")
	c.num(&b.m, "m", astral.DefaultM, fmt.Sprintf("HNSW: links per node, 2 to %d (2·M on level 0)", astral.MaxM), "--m 32")
	c.num(&b.efConstruction, "ef-construction", 200, fmt.Sprintf("HNSW: candidates kept while inserting, M to %d", astral.MaxEf), "--ef-construction 100")
	c.str(&ef, "ef", "128", fmt.Sprintf("HNSW: efSearch values to measure (a comma `LIST`), each 1 to %d", astral.MaxEf), "--ef 16,32,64,128,256,512")
	c.str(&storages, "storage", "e5m2", "stored kinds to measure (a comma `LIST`): e5m2, e4m3, int8, f16, f32", "--storage e5m2,int8")
	c.str(&rerank, "rerank", "0", fmt.Sprintf("rerank factors to measure (a comma `LIST`), each 0 (none) to %d", astral.MaxRerankFactor), "--rerank 0,4")
	c.str(&rerankStorage, "rerank-storage", "f32", "the rerank copy's kind: f16 or f32 (with --rerank above 0)", "--rerank-storage f16")
	c.str(&b.metric, "metric", "cosine", "metric: cosine, dot or l2", "--metric l2")
	c.str(&b.kernel, "kernel", "", "force a kernel implementation (go, avx2, avx512, neon); default: the fastest this CPU runs", "--kernel go")
	c.str(&threads, "threads", "0,1", "runtime worker counts to measure (a comma `LIST`), not counting the caller; each "+threadsWant, "--threads 0,1,3")
	c.str(&batch, "batch", "1", fmt.Sprintf("queries per call to measure (a comma `LIST`), each 1 to %d", astral.MaxBatch*64), "--batch 1,16")
	c.num(&b.n, "n", 100000, "stored vectors (generated fixtures only)", "--n 20000")
	c.num(&b.nq, "nq", 64, "queries (generated fixtures only)", "--nq 200")
	c.num(&b.dim, "dim", 384, fmt.Sprintf("dimension, 1 to %d (generated fixtures only)", astral.MaxDim), "--dim 128")
	c.num(&b.k, "k", 10, fmt.Sprintf("results per query, 1 to %d", astral.MaxK), "--k 100")
	c.num(&b.runs, "runs", 5, "timed runs; the run with the median p50 is reported", "--runs 7")
	c.float(&b.runSeconds, "run-seconds", 0.3, "least `SECONDS` per run, in whole passes over the queries (0: one pass)", "--run-seconds 1")
	c.str(&b.jsonPath, "json", "", "write the JSON report (docs/BENCHMARKS.md gives its fields) to this `FILE`", "--json out.json")
	c.str(&b.plot, "plot", "", "write the recall-latency plot to this `FILE` (.png, .svg or .pdf)", "--plot curve.png")
	if err := c.parse(args); err != nil {
		return nil, err
	}
	var err error
	if b.threads, err = intList("threads", threads); err != nil {
		return nil, err
	}
	if b.batch, err = intList("batch", batch); err != nil {
		return nil, err
	}
	if b.ef, err = intList("ef", ef); err != nil {
		return nil, err
	}
	if b.rerank, err = intList("rerank", rerank); err != nil {
		return nil, err
	}
	if b.storages, err = storageList("storage", storages); err != nil {
		return nil, err
	}
	if b.rerankStorage, err = rerankStorageOf(rerankStorage); err != nil {
		return nil, err
	}
	if _, err := kindOf(b.index); err != nil {
		return nil, err
	}
	if _, err := metricOf(b.metric); err != nil {
		return nil, err
	}
	for _, e := range []error{
		inRange("threads", b.threads, astral.ThreadsAuto, astral.MaxThreads, threadsWant),
		inRange("batch", b.batch, 1, astral.MaxBatch*64, fmt.Sprintf("1 to %d", astral.MaxBatch*64)),
		inRange("ef", b.ef, 1, astral.MaxEf, fmt.Sprintf("1 to %d (the search breadth; at least k is always used)", astral.MaxEf)),
		inRange("rerank", b.rerank, 0, astral.MaxRerankFactor, fmt.Sprintf("0 (none) to %d", astral.MaxRerankFactor)),
		inRange("k", []int{b.k}, 1, astral.MaxK, fmt.Sprintf("1 to %d", astral.MaxK)),
		inRange("runs", []int{b.runs}, 1, 1<<20, "1 or more"),
		inRange("m", []int{b.m}, 2, astral.MaxM, fmt.Sprintf("2 to %d", astral.MaxM)),
		inRange("ef-construction", []int{b.efConstruction}, b.m, astral.MaxEf, fmt.Sprintf("M (%d) to %d", b.m, astral.MaxEf)),
		checkKernel(b.kernel),
	} {
		if e != nil {
			return nil, e
		}
	}
	if !(b.runSeconds >= 0) || math.IsInf(b.runSeconds, 1) {
		return nil, usagef("--run-seconds %g: want 0 (one pass over the queries per run) or more", b.runSeconds)
	}
	b.efGiven, b.nGiven, b.dimGiven = c.given("ef"), c.given("n"), c.given("dim")
	if err := checkBenchApplies(c, b); err != nil {
		return nil, err
	}
	if err := checkPlotPath(b.plot); err != nil {
		return nil, err
	}
	inputs := []output{{"data", fileOrEmpty(b.generated, b.data)}, {"queries", b.queries}, {"index-file", b.indexFile}}
	if err := checkOutputs(inputs, output{"json", b.jsonPath}, output{"plot", b.plot}); err != nil {
		return nil, err
	}
	return b, nil
}

// checkBenchApplies refuses flags that would be ignored.
func checkBenchApplies(c *command, b *benchFlags) error {
	b.generated = slices.Contains(fixture.Names(), b.data)
	if b.generated {
		if err := c.refuse("to a generated fixture: it makes its own queries (give --data FILE.fvecs for yours)", "queries"); err != nil {
			return err
		}
		if err := checkFixtureShape(b.data, b.n, b.nq, b.dim); err != nil {
			return err
		}
	} else {
		if err := c.refuse("to an .fvecs file: its rows are the vectors", "n", "nq", "dim"); err != nil {
			return err
		}
		if b.queries == "" {
			return usagef("--data %s needs --queries FILE.fvecs", b.data)
		}
	}
	if b.indexFile != "" {
		// The saved index fixes these; --n and --dim may only repeat it.
		return c.refuse("to a saved index (--index-file): the file fixes it", "index", "storage", "rerank", "rerank-storage", "metric", "m", "ef-construction", "kernel")
	}
	if b.index == "flat" {
		if err := c.refuse("to a flat index (--index flat): it has no graph", "ef", "m", "ef-construction"); err != nil {
			return err
		}
	}
	if !slices.ContainsFunc(b.rerank, func(r int) bool { return r > 0 }) {
		if err := c.refuse("without --rerank above 0: there is no rerank copy", "rerank-storage"); err != nil {
			return err
		}
	}
	return nil
}

func loadData(b *benchFlags) (*fixture.Set, error) {
	if b.generated {
		return generate(b.data, b.n, b.nq, b.dim)
	}
	set, err := loadBase(b.data)
	if err != nil {
		return nil, err
	}
	qs, qdim, err := fixture.LoadFvecsFile(b.queries)
	if err != nil {
		return nil, err
	}
	if qdim != set.Dim || len(qs) == 0 {
		return nil, fmt.Errorf("%s: dimension %d and %d queries; %s has dimension %d", b.queries, qdim, len(qs)/max(qdim, 1), b.data, set.Dim)
	}
	set.Queries = qs
	return set, nil
}

// exactTopK is the ground truth, drawn as a bar on a terminal.
func exactTopK(set *fixture.Set, k int) [][]int32 {
	nq, dim := set.NQ(), set.Dim
	bar := newProgress(fmt.Sprintf("ground truth, %d queries over %d vectors", nq, set.N()), nq)
	truth := make([][]int32, 0, nq)
	step := max(1, nq/20)
	for lo := 0; lo < nq; lo += step {
		hi := min(lo+step, nq)
		truth = append(truth, fixture.ExactTopK(set.Base, set.Queries[lo*dim:hi*dim], dim, k, 0)...)
		bar.set(hi)
	}
	bar.done()
	return truth
}

func versionLine() string {
	return fmt.Sprintf("astral %s (%s, %s/%s)", astral.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func runBench(args []string) error {
	b, err := parseBench(args)
	if err != nil {
		return err
	}
	if b.indexFile != "" {
		return benchIndexFile(b)
	}
	metric, _ := metricOf(b.metric)
	kind, _ := kindOf(b.index)
	set, err := loadData(b)
	if err != nil {
		return err
	}
	n, nq, dim := set.N(), set.NQ(), set.Dim
	truth := exactTopK(set, b.k)
	rep := newReport(set, b.k)
	var ceilingBuf []byte
	for _, storage := range b.storages {
		base := []astral.Option{astral.WithDim(dim), astral.WithMetric(metric), astral.WithKernel(b.kernel), astral.WithStorage(storage)}
		// The exact scan of the quantized vectors: a serial flat index.
		ref, _, err := buildIndex(nil, append(base, astral.WithKind(astral.KindFlat)), set, "exact "+storage.String()+" reference")
		if err != nil {
			return err
		}
		exactQuantized := make([][]int64, nq)
		for i := 0; i < nq; i++ {
			res, err := ref.Query(nil, set.Query(i), b.k)
			if err != nil {
				return err
			}
			exactQuantized[i] = ids(res)
		}
		rst := ref.Stats()
		// What a flat scan reads per vector: the record and its per-record values.
		scanned := rst.BytesPerVector - 8
		if ceilingBuf == nil {
			ceilingBuf = make([]byte, int(float64(n)*scanned))
			for i := range ceilingBuf {
				ceilingBuf[i] = byte(i*7 + 1) // touched pages, not the shared zero page
			}
		}
		if kind == astral.KindHNSW {
			// The exact point for the recall–latency curve: a serial scan.
			row, err := measure(ref, set, b, 1, truth, exactQuantized, "timing the exact "+storage.String()+" scan")
			if err != nil {
				return err
			}
			row.Index, row.Storage, row.Participants, row.BytesPerVector, row.Kernel = "flat", storage.String(), 1, rst.BytesPerVector, rst.Kernel
			row.ScanGBps = float64(n) * scanned / (row.P50us * 1e3)
			rep.Rows = append(rep.Rows, row)
			if _, ok := rep.ReadCeilingGBps["1"]; !ok {
				rep.ReadCeilingGBps["1"] = readCeiling(ceilingBuf, 1)
			}
		}
		ref.Close()
		for _, rerank := range b.rerank {
			opts := append(base, astral.WithKind(kind), astral.WithHNSW(b.m, b.efConstruction))
			if rerank > 0 {
				opts = append(opts, astral.WithRerank(b.rerankStorage, rerank))
			}
			for _, threads := range b.threads {
				rt, err := astral.NewRuntime(astral.WithThreads(threads))
				if err != nil {
					return err
				}
				x, buildS, err := buildIndex(rt, opts, set, b.index+" "+storage.String())
				if err != nil {
					rt.Close()
					return err
				}
				st := x.Stats()
				rep.Kernel = st.Kernel
				key := strconv.Itoa(st.Participants)
				if _, ok := rep.ReadCeilingGBps[key]; !ok {
					rep.ReadCeilingGBps[key] = readCeiling(ceilingBuf, st.Participants)
				}
				efs := []int{0}
				if st.Kind == astral.KindHNSW {
					efs = b.ef
				}
				for _, ef := range efs {
					if ef > 0 {
						if err := x.SetEfSearch(ef); err != nil {
							rt.Close()
							return err
						}
					}
					for _, batch := range b.batch {
						row, err := measure(x, set, b, batch, truth, exactQuantized, rowLabel(st.Kind, storage, rerank, threads, ef, batch))
						if err != nil {
							rt.Close()
							return err
						}
						row.Index, row.Storage, row.Rerank, row.Threads, row.Participants = st.Kind.String(), storage.String(), rerank, threads, st.Participants
						row.Ef, row.BuildS, row.BytesPerVector, row.Kernel = ef, buildS, st.BytesPerVector, st.Kernel
						if rerank > 0 {
							row.RerankStorage = b.rerankStorage.String()
						}
						if st.Kind == astral.KindFlat {
							// Stored bytes scanned per query over the time per
							// query: a batch reads the records once for all its
							// queries.
							row.ScanGBps = float64(n) * scanned * float64(batch) / (row.P50us * 1e3)
						}
						rep.Rows = append(rep.Rows, row)
					}
				}
				x.Close()
				rt.Close()
			}
		}
	}
	// Measure the ceilings again after the rows and keep the best: the
	// machine is shared, and a ceiling must not be lowered by a noisy moment.
	for key := range rep.ReadCeilingGBps {
		p, _ := strconv.Atoi(key)
		rep.ReadCeilingGBps[key] = max(rep.ReadCeilingGBps[key], readCeiling(ceilingBuf, p))
	}
	return writeReport(&rep, b)
}

func newReport(set *fixture.Set, k int) benchReport {
	return benchReport{
		Version: astral.Version, Go: runtime.Version(), CPU: cpuid.CPU.BrandName,
		Dataset:         benchDataset{Name: set.Name, N: set.N(), Dim: set.Dim, NQ: set.NQ(), K: k},
		ReadCeilingGBps: map[string]float64{},
	}
}

// writeReport prints the table and writes the plot and JSON asked for.
func writeReport(rep *benchReport, b *benchFlags) error {
	printTable(rep)
	if b.plot != "" {
		if err := plotCurve(rep, b.plot); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", b.plot)
	}
	if b.jsonPath != "" {
		out, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(b.jsonPath, append(out, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nwrote %s\n", b.jsonPath)
	}
	return nil
}

func ids(res []astral.Result) []int64 {
	out := make([]int64, len(res))
	for i, r := range res {
		out[i] = int64(r.ID)
	}
	return out
}

// buildIndex adds the fixture in chunks, drawing a progress bar, and waits
// for any background graph build: build_s is the time to a ready index.
func buildIndex(rt *astral.Runtime, opts []astral.Option, set *fixture.Set, what string) (*astral.Index, float64, error) {
	x, err := astral.NewIndex(rt, opts...)
	if err != nil {
		return nil, 0, err
	}
	n, dim := set.N(), set.Dim
	bar := newProgress(fmt.Sprintf("building %s, %d × %d", what, n, dim), n)
	start := time.Now()
	const step = 10000
	idBuf := make([]uint64, step)
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		for i := lo; i < hi; i++ {
			idBuf[i-lo] = uint64(i)
		}
		if err := x.Add(idBuf[:hi-lo], set.Base[lo*dim:hi*dim]); err != nil {
			return nil, 0, err
		}
		bar.set(hi)
	}
	x.Wait()
	took := time.Since(start).Seconds()
	bar.done()
	return x, took, nil
}

// measure warms the index with one pass, then times b.runs runs of whole
// passes, one call per query (or per batch), and reports the run with the
// median p50.
func measure(x *astral.Index, set *fixture.Set, b *benchFlags, batch int, truth [][]int32, exactQ [][]int64, label string) (benchRow, error) {
	nq, dim, k := set.NQ(), set.Dim, b.k
	calls := (nq + batch - 1) / batch
	dst := make([]astral.Result, batch*k)
	counts := make([]int, batch)
	found := make([][]int64, nq)
	call := func(c int) error {
		lo, hi := c*batch, min((c+1)*batch, nq)
		if batch == 1 {
			res, err := x.Query(dst, set.Query(lo), k)
			if found[lo] == nil {
				found[lo] = ids(res)
			}
			return err
		}
		res, err := x.QueryBatch(dst, counts, set.Queries[lo*dim:hi*dim], k)
		for q := lo; q < hi && found[q] == nil; q++ {
			found[q] = ids(res[(q-lo)*k : (q-lo)*k+counts[q-lo]])
		}
		return err
	}
	for c := 0; c < calls; c++ { // warm-up pass; also records the results
		if err := call(c); err != nil {
			return benchRow{}, err
		}
	}
	type runStats struct{ p50, p95, p99, mean float64 }
	runs := make([]runStats, 0, b.runs)
	var ms0, ms1 runtime.MemStats
	var mallocs uint64
	totalCalls := 0
	lat := make([]float64, 0, 1<<16)
	bar := newProgress(label, b.runs)
	for r := 0; r < b.runs; r++ {
		// The bar draws between runs, outside the allocation count.
		bar.set(r)
		lat = lat[:0]
		runtime.ReadMemStats(&ms0)
		start := time.Now()
		for pass := 0; pass == 0 || time.Since(start).Seconds() < b.runSeconds; pass++ {
			for c := 0; c < calls; c++ {
				t0 := time.Now()
				_ = call(c)
				lat = append(lat, float64(time.Since(t0).Nanoseconds())/1e3)
			}
		}
		runtime.ReadMemStats(&ms1)
		mallocs += ms1.Mallocs - ms0.Mallocs
		totalCalls += len(lat)
		slices.Sort(lat)
		sum := 0.0
		for _, v := range lat {
			sum += v
		}
		runs = append(runs, runStats{pct(lat, 50), pct(lat, 95), pct(lat, 99), sum / float64(len(lat))})
	}
	bar.done()
	slices.SortFunc(runs, func(a, b runStats) int {
		switch {
		case a.p50 < b.p50:
			return -1
		case a.p50 > b.p50:
			return 1
		}
		return 0
	})
	med := runs[len(runs)/2]
	return benchRow{
		Batch: batch, RecallAtK: fixture.RecallAtK(truth, found, k), RecallVsExactQuantized: recallVs(exactQ, found, k),
		P50us: med.p50, P95us: med.p95, P99us: med.p99, MeanUs: med.mean,
		QPS:            float64(batch) / med.mean * 1e6,
		AllocsPerQuery: float64(mallocs) / float64(totalCalls*batch),
	}, nil
}

// rowLabel names a row in progress lines.
func rowLabel(kind astral.Kind, storage astral.Storage, rerank, threads, ef, batch int) string {
	s := fmt.Sprintf("timing %s %s", kind, storage)
	if rerank > 0 {
		s += fmt.Sprintf(" rerank ×%d", rerank)
	}
	if ef > 0 {
		s += fmt.Sprintf(" ef %d", ef)
	}
	return s + fmt.Sprintf(", %d worker(s), batch %d", threads, batch)
}

func pct(sorted []float64, p float64) float64 {
	i := int(float64(len(sorted)-1) * p / 100)
	return sorted[i]
}

// recallVs is recall@k against another result list (ids as int64).
func recallVs(ref, found [][]int64, k int) float64 {
	truth := make([][]int32, len(ref))
	for i, r := range ref {
		truth[i] = make([]int32, len(r))
		for j, id := range r {
			truth[i][j] = int32(id)
		}
	}
	return fixture.RecallAtK(truth, found, k)
}

func printTable(rep *benchReport) {
	d := rep.Dataset
	fmt.Fprintf(stdout, "\n%s  %s  cpu: %s  kernel: %s\n", versionLine(), rep.Go, rep.CPU, rep.Kernel)
	fmt.Fprintf(stdout, "dataset %s: %d × %d, %d queries, k=%d\n", d.Name, d.N, d.Dim, d.NQ, d.K)
	keys := make([]string, 0, len(rep.ReadCeilingGBps))
	for key := range rep.ReadCeilingGBps {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		fmt.Fprintf(stdout, "read ceiling, %s participant(s): %.1f GB/s\n", key, rep.ReadCeilingGBps[key])
	}
	fmt.Fprintf(stdout, "\n%-5s %-7s %6s %7s %5s %4s %5s %9s %9s %9s %9s %9s %9s %10s %9s %8s %7s %8s %6s\n",
		"index", "storage", "rerank", "threads", "part", "ef", "batch", "recall@k", "vs-quant", "p50 µs", "p95 µs", "p99 µs", "mean µs",
		"qps", "scan GB/s", "ceiling", "allocs", "build s", "B/vec")
	for _, r := range rep.Rows {
		ceil := "-"
		if r.ScanGBps > 0 && r.Batch == 1 {
			ceil = fmt.Sprintf("%.0f%%", 100*r.ScanGBps/rep.ReadCeilingGBps[strconv.Itoa(r.Participants)])
		}
		rerank := "-"
		if r.Rerank > 0 {
			rerank = fmt.Sprintf("%s×%d", r.RerankStorage, r.Rerank)
		}
		fmt.Fprintf(stdout, "%-5s %-7s %6s %7d %5d %4d %5d %9.4f %9.4f %9.1f %9.1f %9.1f %9.1f %10.0f %9.1f %8s %7.2f %8.2f %6.0f\n",
			r.Index, r.Storage, rerank, r.Threads, r.Participants, r.Ef, r.Batch, r.RecallAtK, r.RecallVsExactQuantized,
			r.P50us, r.P95us, r.P99us, r.MeanUs, r.QPS, r.ScanGBps, ceil, r.AllocsPerQuery, r.BuildS, r.BytesPerVector)
	}
}
