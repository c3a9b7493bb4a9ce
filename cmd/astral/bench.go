package main

import (
	"bufio"
	"cmp"
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
	"github.com/astral-engine/astral/internal/rank"
	"github.com/klauspost/cpuid/v2"
)

// benchReport is the JSON contract of docs/BENCHMARKS.md: fields may be added, never
// renamed or removed.
type benchReport struct {
	Version         string             `json:"version"`
	Go              string             `json:"go"`
	CPU             string             `json:"cpu"`
	Kernel          string             `json:"kernel"`
	Dataset         benchDataset       `json:"dataset"`
	ReadCeilingGBps map[string]float64 `json:"read_ceiling_gbps"`
	Rows            []benchRow         `json:"rows"`
	// The process's resident size (VmRSS, Linux) with an index open after
	// its rows, after a garbage collection, the largest over the indexes
	// measured; and its peak (VmHWM). 0 where the system does not say.
	RSSBytes     int64 `json:"rss_bytes,omitempty"`
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
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
	// Scoped rows (docs/BENCHMARKS.md): the filter spec ("" for none), the share of
	// records it matches, the plan the engine ran, and p50 over the same
	// index's unfiltered p50 (same storage, rerank, threads, ef and batch,
	// timed interleaved with it).
	Filter          string  `json:"filter"`
	Selectivity     float64 `json:"selectivity"`
	Plan            string  `json:"plan"`
	P50VsUnfiltered float64 `json:"p50_vs_unfiltered"`
	// The host-side post-filter's over-fetch factor x (query k·x
	// unfiltered, keep the first k that match); 0 for the engine's filter.
	Postfilter int `json:"postfilter"`
	// Ranked rows (docs/RANKING.md): the --rank spec ("" for none), and
	// the recall@k against the same exact ranking of what a host gets by
	// querying the top 50 by similarity and ranking those (0 unless
	// ranked).
	Rank           string  `json:"rank"`
	Rerank50Recall float64 `json:"rerank50_recall"`
	// Budgeted rows (docs/BUDGETS.md): the frame budget (0: none), the
	// mean share of the work its queries covered (1 without a budget), and
	// how many of the timed queries (and what share) came back complete.
	// Their recall is the mean over every timed query, not the warm-up's.
	BudgetUs        int     `json:"budget_us"`
	Covered         float64 `json:"covered"`
	CompleteQueries int     `json:"complete_queries"`
	CompleteShare   float64 `json:"complete_share"`
	// The machine's floor beside a budgeted row (budgets to 5 ms): p50
	// and p99 of a call that does nothing but read the clock until the
	// budget has passed, timed call by call with the row. No search can
	// end closer to its budget than this; on a VM the hypervisor's pauses
	// show here.
	FloorP50us float64 `json:"floor_p50_us,omitempty"`
	FloorP99us float64 `json:"floor_p99_us,omitempty"`
	// IVF rows (docs/IVF.md): partitions, partitions probed per query,
	// and the largest partition's share of the records.
	NList        int     `json:"nlist,omitempty"`
	NProbe       int     `json:"nprobe,omitempty"`
	LargestShare float64 `json:"largest_partition_share,omitempty"`
	// recall_at_k covers only the first TruthQueries queries
	// (--truth-queries; 0: every query); recall_vs_exact_quantized covers
	// them all, except on the exact flat rows (an IVF file's full scan, a
	// building bench's reference), timed over the same first queries.
	TruthQueries int `json:"truth_queries,omitempty"`
}

type benchFlags struct {
	data, queries, index, jsonPath, kernel, metric, plot, export, indexFile, truth string
	n, nq, dim, k, runs, m, efConstruction, nlist, ivfLimit, truthQueries          int
	threads, batch, ef, rerank, postfilter, budgetUs, nprobe                       []int
	filters                                                                        []fixture.FilterSpec
	ranks                                                                          []fixture.RankSpec
	storages                                                                       []astral.Storage
	rerankStorage                                                                  astral.Storage
	runSeconds                                                                     float64
	generated                                                                      bool
	// Whether the user set them: a saved index supplies them otherwise.
	efGiven, nGiven, dimGiven, nlistGiven, nprobeGiven bool
}

func parseBench(args []string) (*benchFlags, error) {
	c := newCommand("bench", "astral bench [flags]",
		`Measures recall@k and query latency (p50, p95, p99, mean) of Astral indexes
on a generated fixture, on .fvecs files, or on a saved index file, and
prints a table; --json writes the report of docs/BENCHMARKS.md and --plot the recall-latency
curve. Every combination of the comma lists is one row.`,
		"astral bench --data spectral --index hnsw --storage e5m2,int8 --ef 32,64,128 --plot curve.png",
		"astral bench --data base.fvecs --queries query.fvecs --index flat --threads 0,1 --json out.json",
		"astral bench --index-file memories.idx --data spectral --ef 64,128")
	b := &benchFlags{}
	var storages, rerank, rerankStorage, threads, batch, ef, filters, postfilter, ranks, budgetUs, nprobe string
	c.str(&b.data, "data", "random", "a fixture (random, spectral, clustered) or the stored vectors' .fvecs file", "--data spectral")
	c.str(&b.queries, "queries", "", "the queries' .fvecs `FILE` (with --data FILE.fvecs)", "--queries query.fvecs")
	c.str(&b.truth, "truth", "", "the unfiltered ground truth as an .ivecs `FILE` (per query, the exact nearest rows, best first, at least --k of them) instead of computing it (with --data FILE.fvecs)", "--truth groundtruth.ivecs")
	c.num(&b.truthQueries, "truth-queries", 0, "the f32 ground truth, and recall@k, cover only the first `N` queries (0: all); recall against the exact scan of the stored records covers every query; not with --filter, --rank, --export or --budget-us", "--truth-queries 100")
	c.str(&b.indexFile, "index-file", "", "measure this saved index `FILE` instead of building one; --data gives its vectors (for the ground truth) and the queries", "--index-file memories.idx")
	c.str(&b.index, "index", "flat", "index kind: flat (exact scan), hnsw (graph), ivf (partitions) or auto (flat while small)", "--index hnsw")
	c.num(&b.nlist, "nlist", astral.DefaultNList, fmt.Sprintf("IVF: partitions, 1 to %d; the index trains once it holds max(39·nlist, 4096) records", astral.MaxNList), "--nlist 256")
	c.str(&nprobe, "nprobe", "", "IVF: partitions probed per query, values to measure (a comma `LIST`), each 1 to nlist; default 3/64 of nlist", "--nprobe 8,16,32,64")
	c.num(&b.ivfLimit, "ivf-limit", 0, fmt.Sprintf("auto: the record count past which the index switches to IVF (nlist derived unless --nlist); 0 for %d, -1 for never", astral.DefaultIVFLimitRecords), "--ivf-limit 500000")
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
	c.str(&filters, "filter", "none", "filters to measure (a comma `LIST`): none, tags:SHARE (a tag held by that share of the records), allow:N, owner:N, deny:N; docs/SCOPED.md", "--filter none,tags:0.01,allow:1000")
	c.str(&ranks, "rank", "none", "memory rankings to measure (a comma `LIST`): none or W_REL:W_REC:W_IMP:HALF_LIFE, the recency half-life in the fixture's time units; each under each --filter; times and importances come from a fixed seed; docs/RANKING.md", "--rank none,1:1:1:1000")
	c.str(&postfilter, "postfilter", "0", "host-side post-filter rows beside each filter (batch 1), a comma `LIST` of over-fetch factors x: query k·x unfiltered and keep the first k matches; 0: none", "--postfilter 0,10")
	c.str(&budgetUs, "budget-us", "0", "frame budgets in microseconds (a comma `LIST`): rows of QueryWithin beside each batch-1 row; 0: none; docs/BUDGETS.md", "--budget-us 100,250,500,1000")
	c.str(&b.export, "export", "", "write the vectors, attributes, filter lists and exact filtered truth to this `FOLDER` (bench/hnswlib-filter reads it)", "--export /tmp/scoped")
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
	if nprobe == "" {
		nprobe = strconv.Itoa(astral.DefaultNProbe(max(b.nlist, 1)))
	}
	if b.nprobe, err = intList("nprobe", nprobe); err != nil {
		return nil, err
	}
	if b.rerank, err = intList("rerank", rerank); err != nil {
		return nil, err
	}
	if b.storages, err = storageList("storage", storages); err != nil {
		return nil, err
	}
	if b.filters, err = fixture.ParseFilterSpecs(filters); err != nil {
		return nil, usagef("--filter: %w", err)
	}
	if b.ranks, err = fixture.ParseRankSpecs(ranks); err != nil {
		return nil, usagef("--rank: %w", err)
	}
	if b.postfilter, err = intList("postfilter", postfilter); err != nil {
		return nil, err
	}
	if b.budgetUs, err = intList("budget-us", budgetUs); err != nil {
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
		inRange("postfilter", b.postfilter, 0, astral.MaxK, fmt.Sprintf("0 (none) to %d", astral.MaxK)),
		inRange("budget-us", b.budgetUs, 0, 60_000_000, "0 (none) to 60000000 (a minute)"),
		inRange("k", []int{b.k}, 1, astral.MaxK, fmt.Sprintf("1 to %d", astral.MaxK)),
		inRange("runs", []int{b.runs}, 1, 1<<20, "1 or more"),
		inRange("m", []int{b.m}, 2, astral.MaxM, fmt.Sprintf("2 to %d", astral.MaxM)),
		inRange("ef-construction", []int{b.efConstruction}, b.m, astral.MaxEf, fmt.Sprintf("M (%d) to %d", b.m, astral.MaxEf)),
		inRange("nlist", []int{b.nlist}, 1, astral.MaxNList, fmt.Sprintf("1 to %d", astral.MaxNList)),
		nprobeRange(b),
		inRange("truth-queries", []int{b.truthQueries}, 0, math.MaxInt32, "0 (every query) or more"),
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
	b.nlistGiven, b.nprobeGiven = c.given("nlist"), c.given("nprobe")
	if err := checkBenchApplies(c, b); err != nil {
		return nil, err
	}
	if err := checkPlotPath(b.plot); err != nil {
		return nil, err
	}
	inputs := []output{{"data", fileOrEmpty(b.generated, b.data)}, {"queries", b.queries}, {"index-file", b.indexFile}, {"truth", b.truth}}
	if err := checkOutputs(inputs, output{"json", b.jsonPath}, output{"plot", b.plot}); err != nil {
		return nil, err
	}
	if err := checkOutputDir(output{"export", b.export}); err != nil {
		return nil, err
	}
	return b, nil
}

// nprobeRange checks --nprobe against --nlist, or for a saved index (whose
// partitions are checked once it is open) against MaxNList.
func nprobeRange(b *benchFlags) error {
	if b.indexFile != "" {
		return inRange("nprobe", b.nprobe, 1, astral.MaxNList, fmt.Sprintf("1 to the file's partitions (at most %d)", astral.MaxNList))
	}
	return inRange("nprobe", b.nprobe, 1, max(b.nlist, 1), fmt.Sprintf("1 to nlist (%d)", b.nlist))
}

// checkBenchApplies refuses flags that would be ignored.
func checkBenchApplies(c *command, b *benchFlags) error {
	b.generated = slices.Contains(fixture.Names(), b.data)
	if b.generated {
		if err := c.refuse("to a generated fixture: it makes its own queries (give --data FILE.fvecs for yours)", "queries", "truth"); err != nil {
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
	if !filteredBench(b) {
		if err := c.refuse("without a --filter other than none: there is nothing to post-filter", "postfilter"); err != nil {
			return err
		}
	}
	if slices.ContainsFunc(b.ranks, fixture.RankSpec.On) && b.metric == "l2" {
		return usagef("--rank with --metric l2: ranking needs cosine or dot")
	}
	if b.indexFile == "" && !streamable(b) {
		if err := c.refuse("with --filter, --rank or --export: their truth covers every query", "truth-queries"); err != nil {
			return err
		}
	}
	if b.truthQueries > 0 && slices.ContainsFunc(b.budgetUs, func(us int) bool { return us > 0 }) {
		return usagef("--truth-queries with --budget-us: a budgeted row's recall covers every query")
	}
	if b.indexFile != "" {
		// The saved index fixes these; --n and --dim may only repeat it.
		if err := c.refuse("to a saved index (--index-file): it holds no fixture attributes", "filter", "postfilter", "export", "rank", "budget-us"); err != nil {
			return err
		}
		return c.refuse("to a saved index (--index-file): the file fixes it", "index", "storage", "rerank", "rerank-storage", "metric", "m", "ef-construction", "kernel", "nlist", "ivf-limit")
	}
	if b.index == "flat" || b.index == "ivf" {
		what := map[string]string{"flat": "a flat", "ivf": "an IVF"}[b.index]
		if err := c.refuse("to "+what+" index (--index "+b.index+"): it has no graph", "ef", "m", "ef-construction"); err != nil {
			return err
		}
	}
	if b.index != "ivf" && b.index != "auto" {
		if err := c.refuse("without --index ivf or auto: it has no partitions", "nlist", "nprobe"); err != nil {
			return err
		}
	}
	if b.index != "auto" {
		if err := c.refuse("without --index auto: only an auto index switches to IVF", "ivf-limit"); err != nil {
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

func versionLine() string {
	return fmt.Sprintf("astral %s (%s, %s/%s)", astral.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// fixtureMetric is the exact search's twin of an index metric.
func fixtureMetric(m astral.Metric) fixture.Metric {
	switch m {
	case astral.Cosine:
		return fixture.Cosine
	case astral.L2:
		return fixture.L2
	}
	return fixture.Dot
}

// scoped is what a bench run needs for its --filter rows: the fixture's
// attributes and, per filter, the exact filtered answer over the f32
// vectors. Filters[0] is always none, the unfiltered baseline.
type scoped struct {
	scope *fixture.Scope
	truth [][][]int32 // per filter
	attrs []astral.Attributes
	// The --rank specs that rank, each's exact ranked answer over the f32
	// vectors of each filter's records ([rank][filter]), and the records'
	// times and importances.
	ranks      []fixture.RankSpec
	rankTruth  [][][][]int32
	times      []int64
	importance []float32
}

func (sc *scoped) active() bool { return sc.attrs != nil }

func newScoped(b *benchFlags, set *fixture.Set, metric astral.Metric) (*scoped, error) {
	specs := b.filters
	if !slices.Contains(specs, fixture.FilterSpec{}) {
		specs = append([]fixture.FilterSpec{{}}, specs...)
	} else if specs[0] != (fixture.FilterSpec{}) {
		// The baseline first: every filtered row is compared with it.
		specs = append([]fixture.FilterSpec{{}}, slices.DeleteFunc(slices.Clone(specs), func(s fixture.FilterSpec) bool { return s == fixture.FilterSpec{} })...)
	}
	scope, err := fixture.NewScope(set.N(), specs)
	if err != nil {
		return nil, usagef("--filter: %w", err)
	}
	sc := &scoped{scope: scope}
	for i := range scope.Filters {
		if i == 0 && b.truth != "" {
			t, err := readTruth(b.truth, set.NQ(), b.k, set.N())
			if err != nil {
				return nil, err
			}
			sc.truth = append(sc.truth, t)
			continue
		}
		sc.truth = append(sc.truth, exactTopK(set, b.k, metric, &scope.Filters[i]))
	}
	for _, r := range b.ranks {
		if r.On() {
			sc.ranks = append(sc.ranks, r)
		}
	}
	if len(specs) > 1 || len(sc.ranks) > 0 {
		sc.times, sc.importance = fixture.Memories(set.N())
		sc.attrs = make([]astral.Attributes, set.N())
		for i := range sc.attrs {
			sc.attrs[i] = astral.Attributes{Tags: scope.Tags[i], Owner: scope.Owners[i], Time: sc.times[i], Importance: sc.importance[i]}
		}
	}
	for _, r := range sc.ranks {
		bar := newProgress("exact ranking "+r.String(), len(scope.Filters))
		var perFilter [][][]int32
		for fi, f := range scope.Filters {
			perFilter = append(perFilter, fixture.RankedTopKIn(set.Base, set.Queries, set.Dim, b.k, fixtureMetric(metric), r, sc.times, sc.importance, f.Rows, 0))
			bar.set(fi + 1)
		}
		sc.rankTruth = append(sc.rankTruth, perFilter)
		bar.done()
	}
	return sc, nil
}

// readTruth reads an .ivecs ground truth: nq lists of at least k rows
// below n, of which the first k are kept.
func readTruth(path string, nq, k, n int) ([][]int32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--truth: %w", err)
	}
	defer f.Close()
	lists, err := fixture.ReadIvecs(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("--truth %s: %w", path, err)
	}
	if len(lists) != nq {
		return nil, fmt.Errorf("--truth %s: %d lists for %d queries", path, len(lists), nq)
	}
	for i, l := range lists {
		if len(l) < k {
			return nil, fmt.Errorf("--truth %s: query %d has %d rows, --k is %d", path, i, len(l), k)
		}
		for _, r := range l[:k] {
			if r < 0 || int(r) >= n {
				return nil, fmt.Errorf("--truth %s: query %d names row %d of %d", path, i, r, n)
			}
		}
		lists[i] = l[:k]
	}
	return lists, nil
}

// exactTopK is the ground truth under one filter, drawn as a bar on a
// terminal.
func exactTopK(set *fixture.Set, k int, metric astral.Metric, f *fixture.ScopeFilter) [][]int32 {
	nq, dim := set.NQ(), set.Dim
	label := fmt.Sprintf("ground truth, %d queries over %d vectors", nq, set.N())
	if f.Spec.Kind != fixture.FilterNone {
		label += ", " + f.Spec.String()
	}
	bar := newProgress(label, nq)
	truth := make([][]int32, 0, nq)
	step := max(1, nq/20)
	for lo := 0; lo < nq; lo += step {
		hi := min(lo+step, nq)
		truth = append(truth, fixture.ExactTopKIn(set.Base, set.Queries[lo*dim:hi*dim], dim, k, fixtureMetric(metric), f.Rows, 0)...)
		bar.set(hi)
	}
	bar.done()
	return truth
}

// engineFilter is the engine's form of a fixture filter.
func engineFilter(f *fixture.ScopeFilter) astral.Filter {
	switch f.Spec.Kind {
	case fixture.FilterTags:
		return astral.Filter{AllTags: f.Tag}
	case fixture.FilterOwner:
		return astral.Filter{Owner: f.Owner}
	case fixture.FilterAllow:
		return astral.Filter{Allow: f.IDs}
	case fixture.FilterDeny:
		return astral.Filter{Deny: f.IDs}
	}
	return astral.Filter{}
}

// filterName is a row's "filter" field: "" for none.
func filterName(f *fixture.ScopeFilter) string {
	if f.Spec.Kind == fixture.FilterNone {
		return ""
	}
	return f.Spec.String()
}

// exactRanked answers every query under each of sc's rankings and each
// filter ([rank][filter]) exactly over the stored (quantized) vectors: a
// serial flat index of every record, whose ranked scan is exact.
func exactRanked(opts []astral.Option, set *fixture.Set, sc *scoped, k int) ([][][][]int64, error) {
	if len(sc.ranks) == 0 {
		return nil, nil
	}
	x, _, err := buildIndexWith(nil, append(opts, astral.WithKind(astral.KindFlat)), set, sc.attrs, "exact ranked reference")
	if err != nil {
		return nil, err
	}
	defer x.Close()
	out := make([][][][]int64, len(sc.ranks))
	for ri, r := range sc.ranks {
		for fi := range sc.scope.Filters {
			f := engineFilter(&sc.scope.Filters[fi])
			found := make([][]int64, set.NQ())
			for i := range found {
				res, _, err := x.QueryWith(nil, set.Query(i), astral.QueryOptions{K: k, Filter: f, Rank: engineRank(r)})
				if err != nil {
					return nil, err
				}
				found[i] = ids(res)
			}
			out[ri] = append(out[ri], found)
		}
	}
	return out, nil
}

// engineRank is the engine's form of a rank spec.
func engineRank(r fixture.RankSpec) astral.Rank {
	p := r.Params()
	return astral.Rank{Relevance: p.Relevance, Recency: p.Recency, Importance: p.Importance, Decay: p.Decay, Now: p.Now}
}

// rerank50Recall is the recall@k against the exact ranking truth of a
// host's way: the 50 most similar records passing f, ranked by r with the
// similarities the index returns.
func rerank50Recall(x *astral.Index, set *fixture.Set, sc *scoped, f *fixture.ScopeFilter, r fixture.RankSpec, truth [][]int32, k int) (float64, error) {
	p := r.Params()
	scorer := rank.NewScorer(&p)
	found := make([][]int64, set.NQ())
	for i := range found {
		res, _, err := x.QueryWith(nil, set.Query(i), astral.QueryOptions{K: max(50, k), Filter: engineFilter(f)})
		if err != nil {
			return 0, err
		}
		for j := range res {
			row := res[j].ID
			res[j].Score = scorer.Score(res[j].Score, sc.times[row], sc.importance[row])
		}
		slices.SortStableFunc(res, func(a, b astral.Result) int {
			switch {
			case a.Score > b.Score:
				return -1
			case a.Score < b.Score:
				return 1
			}
			return cmp.Compare(a.ID, b.ID)
		})
		found[i] = ids(res[:min(k, len(res))])
	}
	return fixture.RecallAtK(truth, found, k), nil
}

// exactQuantized answers every query exactly over the stored (quantized)
// vectors of each filter's matching records: a serial flat index of only
// those records, so the reference shares no code with the engine's filter
// and every record scores as it does in the full index.
func exactQuantized(opts []astral.Option, set *fixture.Set, sc *scoped, k int) ([][][]int64, error) {
	out := make([][][]int64, len(sc.scope.Filters))
	for fi, f := range sc.scope.Filters {
		x, err := astral.NewIndex(nil, append(opts, astral.WithKind(astral.KindFlat))...)
		if err != nil {
			return nil, err
		}
		rows := f.Rows
		if rows == nil {
			rows = make([]int32, set.N())
			for i := range rows {
				rows[i] = int32(i)
			}
		}
		const step = 10000
		idBuf := make([]uint64, 0, step)
		vecBuf := make([]float32, 0, step*set.Dim)
		for lo := 0; lo < len(rows); lo += step {
			idBuf, vecBuf = idBuf[:0], vecBuf[:0]
			for _, r := range rows[lo:min(lo+step, len(rows))] {
				idBuf = append(idBuf, uint64(r))
				vecBuf = append(vecBuf, set.Row(int(r))...)
			}
			if err := x.Add(idBuf, vecBuf); err != nil {
				x.Close()
				return nil, err
			}
		}
		out[fi] = make([][]int64, set.NQ())
		for i := range out[fi] {
			res, err := x.Query(nil, set.Query(i), k)
			if err != nil {
				x.Close()
				return nil, err
			}
			out[fi][i] = ids(res)
		}
		x.Close()
	}
	return out, nil
}

func runBench(args []string) error {
	return runBenchWith(args, false)
}

// streamable is whether the building bench needs no per-row fixture data
// in memory (attributes, filter lists, rankings, an export): then it
// streams the stored vectors a block at a time.
func streamable(b *benchFlags) bool {
	return b.export == "" && !filteredBench(b) && !slices.ContainsFunc(b.ranks, fixture.RankSpec.On)
}

// filteredBench is whether a --filter other than none is asked for.
func filteredBench(b *benchFlags) bool {
	return slices.ContainsFunc(b.filters, func(f fixture.FilterSpec) bool { return f != fixture.FilterSpec{} })
}

// runBenchWith is runBench; inMemory holds every stored vector in memory
// even where the run could stream them (the tests compare the two).
//
// Streamed, the queries sit in memory and the stored vectors do not: every
// index (the exact flat reference and each one measured) is filled from
// openBase's blocks with buildIndex's ids and Add calls, and the f32 truth
// comes from an exact scan over the same blocks on every core.
func runBenchWith(args []string, inMemory bool) error {
	b, err := parseBench(args)
	if err != nil {
		return err
	}
	if b.indexFile != "" {
		return benchIndexFile(b)
	}
	metric, _ := metricOf(b.metric)
	kind, _ := kindOf(b.index)
	streamed := !inMemory && streamable(b)
	var set *fixture.Set
	var src *baseSource
	var sc *scoped
	if streamed {
		if src, err = openBase(b.data, b.generated, b.n, b.dim); err != nil {
			return err
		}
		defer src.close()
		queries, err := loadQueries(b, src)
		if err != nil {
			return err
		}
		set = &fixture.Set{Name: src.name, Dim: src.dim, Queries: queries}
	} else if set, err = loadData(b); err != nil {
		return err
	}
	nq, dim := set.NQ(), set.Dim
	n := set.N()
	if streamed {
		n = src.n
	}
	truthQ := nq
	if b.truthQueries > 0 {
		if b.truthQueries > nq {
			return usagef("--truth-queries %d: there are %d queries", b.truthQueries, nq)
		}
		truthQ = b.truthQueries
	}
	if streamed {
		var truth [][]int32
		if b.truth != "" {
			if truth, err = readTruth(b.truth, nq, b.k, n); err != nil {
				return err
			}
			truth = truth[:truthQ]
		} else if truth, err = streamTruth(src, set.Queries[:truthQ*dim], b.k, fixtureMetric(metric)); err != nil {
			return err
		}
		sc = &scoped{scope: &fixture.Scope{N: n, Filters: []fixture.ScopeFilter{{}}}, truth: [][][]int32{truth}}
	} else {
		if sc, err = newScoped(b, set, metric); err != nil {
			return err
		}
		// --truth-queries comes with no filter, ranking or budget.
		sc.truth[0] = sc.truth[0][:truthQ]
	}
	// build fills an index: from the stream, or from the rows in memory
	// with their attributes.
	build := func(rt *astral.Runtime, opts []astral.Option, attrs []astral.Attributes, what string) (*astral.Index, float64, error) {
		if streamed {
			return buildStreamed(rt, opts, src, what)
		}
		return buildIndexWith(rt, opts, set, attrs, what)
	}
	if b.export != "" {
		e := &fixture.Export{K: b.k, Metric: fixtureMetric(metric), Dim: dim, Base: set.Base, Queries: set.Queries, Scope: sc.scope, Truth: sc.truth}
		if err := fixture.WriteExport(b.export, e); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", b.export)
	}
	rep := newReport(set, b.k)
	rep.Dataset.N = n
	// The read-ceiling buffer's size (the stored records, at most
	// maxCeilingBytes), made for each measurement and dropped, as for a
	// saved index: the resident size after the rows is the index's.
	var ceilingBytes int
	none := &sc.scope.Filters[0]
	for _, storage := range b.storages {
		base := []astral.Option{astral.WithDim(dim), astral.WithMetric(metric), astral.WithKernel(b.kernel), astral.WithStorage(storage)}
		// The exact scan of the quantized vectors: a serial flat index.
		ref, _, err := build(nil, append(base, astral.WithKind(astral.KindFlat)), nil, "exact "+storage.String()+" reference")
		if err != nil {
			return err
		}
		exactR, err := exactRanked(base, set, sc, b.k)
		if err != nil {
			return err
		}
		var exactQ [][][]int64
		if sc.active() {
			if exactQ, err = exactQuantized(base, set, sc, b.k); err != nil {
				return err
			}
		} else {
			// Batches of queries: each pass over the records serves many.
			found, err := exactQuantizedOf(ref, false, ref.Config(), nil, set.Queries, b.k)
			if err != nil {
				return err
			}
			exactQ = [][][]int64{found}
		}
		rst := ref.Stats()
		// What a flat scan reads per vector: the record and its per-record values.
		scanned := rst.BytesPerVector - 8
		if ceilingBytes == 0 {
			ceilingBytes = ceilingSize(n, scanned)
		}
		if kind == astral.KindHNSW || kind == astral.KindIVF {
			// The exact point for the recall–latency curve: a serial scan,
			// timed over the queries the f32 truth covers (a scan of every
			// record per query is slow at 10M).
			sub := set
			if truthQ < nq {
				sub = &fixture.Set{Name: set.Name, Dim: dim, Queries: set.Queries[:truthQ*dim]}
			}
			row, err := measure(ref, sub, b, 1, rowQuery{scope: sc.scope, filter: none}, sc.truth[0], exactQ[0][:truthQ], "timing the exact "+storage.String()+" scan")
			if err != nil {
				return err
			}
			row.Index, row.Storage, row.Participants, row.BytesPerVector, row.Kernel = "flat", storage.String(), 1, rst.BytesPerVector, rst.Kernel
			row.ScanGBps = float64(n) * scanned / (row.P50us * 1e3)
			row.P50VsUnfiltered = 1
			if truthQ < nq {
				row.TruthQueries = truthQ
			}
			rep.Rows = append(rep.Rows, row)
			if _, ok := rep.ReadCeilingGBps["1"]; !ok {
				rep.ReadCeilingGBps["1"] = readCeilingOf(ceilingBytes, 1)
			}
		}
		ref.Close()
		freeMemory() // the reference gone before the next index is built: not both in memory
		for _, rerank := range b.rerank {
			opts := append(base, astral.WithKind(kind), astral.WithHNSW(b.m, b.efConstruction))
			if kind == astral.KindIVF {
				opts = append(opts, astral.WithIVF(b.nlist, b.nprobe[0]))
			}
			if kind == astral.KindAuto {
				// 0: derived when it grows into IVF.
				nlist, nprobe := 0, 0
				if b.nlistGiven {
					nlist = b.nlist
				}
				if b.nprobeGiven {
					nprobe = b.nprobe[0]
				}
				opts = append(opts, astral.WithIVF(nlist, nprobe), astral.WithIVFLimitRecords(int64(b.ivfLimit)))
			}
			if rerank > 0 {
				opts = append(opts, astral.WithRerank(b.rerankStorage, rerank))
			}
			for _, threads := range b.threads {
				rt, err := astral.NewRuntime(astral.WithThreads(threads))
				if err != nil {
					return err
				}
				x, buildS, err := build(rt, opts, sc.attrs, b.index+" "+storage.String())
				if err != nil {
					rt.Close()
					return err
				}
				st := x.Stats()
				rep.Kernel = st.Kernel
				key := strconv.Itoa(st.Participants)
				if _, ok := rep.ReadCeilingGBps[key]; !ok {
					rep.ReadCeilingGBps[key] = readCeilingOf(ceilingBytes, st.Participants)
				}
				ivs, trained := x.IVFStats()
				if kind == astral.KindIVF && !trained {
					x.Close()
					rt.Close()
					return usagef("--nlist %d: IVF trains at %d records and the index holds %d: give a smaller --nlist or more records", b.nlist, astral.TrainSize(b.nlist), n)
				}
				// The knob each row sweeps: HNSW's ef, IVF's nprobe.
				knobs := []int{0}
				switch st.Kind {
				case astral.KindHNSW:
					knobs = b.ef
				case astral.KindIVF:
					knobs = b.nprobe
					if kind == astral.KindAuto && !b.nprobeGiven {
						knobs = []int{x.NProbe()} // its derived nprobe
					}
				}
				for _, knob := range knobs {
					ef, nprobe := 0, 0
					var err error
					switch {
					case st.Kind == astral.KindIVF:
						nprobe, err = knob, x.SetNProbe(knob)
					case knob > 0:
						ef, err = knob, x.SetEfSearch(knob)
					}
					if err != nil {
						rt.Close()
						return err
					}
					for _, batch := range b.batch {
						// Every row of the group (the unfiltered one first)
						// is timed interleaved with the others, and compared
						// with the unfiltered p50.
						var runners []*rowRunner
						var queries []rowQuery
						// Per row, its filter and its ranking (-1: none).
						type rowOf struct{ fi, ri int }
						var of []rowOf
						for fi := range sc.scope.Filters {
							f := &sc.scope.Filters[fi]
							qs := []rowQuery{{scope: sc.scope, filter: f}}
							if f.Spec.Kind != fixture.FilterNone && batch == 1 {
								for _, over := range b.postfilter {
									if over > 0 {
										qs = append(qs, rowQuery{scope: sc.scope, filter: f, post: over})
									}
								}
							}
							if batch == 1 {
								for _, us := range b.budgetUs {
									if us > 0 {
										qs = append(qs, rowQuery{scope: sc.scope, filter: f, budget: time.Duration(us) * time.Microsecond, truth: sc.truth[fi], exactQ: exactQ[fi]})
									}
								}
							}
							for _, q := range qs {
								r, err := newRowRunner(x, set, b, batch, q)
								if err != nil {
									rt.Close()
									return err
								}
								runners, queries, of = append(runners, r), append(queries, q), append(of, rowOf{fi, -1})
								if q.budget > 0 && q.budget <= maxFloorBudget {
									// The clock floor, timed right after the row.
									runners, queries, of = append(runners, floorRunner(r.calls, q.budget)), append(queries, q), append(of, rowOf{fi, floorRow})
								}
							}
						}
						// Ranked rows, after the filters': each ranking
						// under each filter.
						for ri, spec := range sc.ranks {
							for fi := range sc.scope.Filters {
								q := rowQuery{scope: sc.scope, filter: &sc.scope.Filters[fi], rank: spec}
								r, err := newRowRunner(x, set, b, batch, q)
								if err != nil {
									rt.Close()
									return err
								}
								runners, queries, of = append(runners, r), append(queries, q), append(of, rowOf{fi, ri})
							}
						}
						label := rowLabel(st.Kind, storage, rerank, threads, ef, nprobe, batch)
						if len(runners) > 1 {
							label += fmt.Sprintf(", %d filter rows interleaved", len(runners))
						}
						timeRows(runners, b, label)
						var unfilteredP50 float64
						for i, r := range runners {
							fi, ri := of[i].fi, of[i].ri
							if ri == floorRow {
								continue // reported in the budgeted row before it
							}
							var row benchRow
							if ri >= 0 {
								truth := sc.rankTruth[ri][fi]
								row = r.row(set, b.k, queries[i], truth, exactR[ri][fi])
								if row.Rerank50Recall, err = rerank50Recall(x, set, sc, queries[i].filter, sc.ranks[ri], truth, b.k); err != nil {
									rt.Close()
									return err
								}
							} else {
								row = r.row(set, b.k, queries[i], sc.truth[fi], exactQ[fi])
							}
							row.Index, row.Storage, row.Rerank, row.Threads, row.Participants = st.Kind.String(), storage.String(), rerank, threads, st.Participants
							row.Ef, row.BuildS, row.BytesPerVector, row.Kernel = ef, buildS, st.BytesPerVector, st.Kernel
							if trained {
								row.NList, row.NProbe, row.LargestShare = ivs.Partitions, nprobe, ivs.Share
							}
							if rerank > 0 {
								row.RerankStorage = b.rerankStorage.String()
							}
							if i == 0 {
								unfilteredP50 = row.P50us
								if st.Kind == astral.KindFlat {
									// Stored bytes scanned per query over the time per
									// query: a batch reads the records once for all its
									// queries.
									row.ScanGBps = float64(n) * scanned * float64(batch) / (row.P50us * 1e3)
								}
							}
							row.P50VsUnfiltered = row.P50us / unfilteredP50
							if i+1 < len(runners) && of[i+1].ri == floorRow {
								fl := runners[i+1].medianRun()
								row.FloorP50us, row.FloorP99us = fl.p50, fl.p99
							}
							if truthQ < nq {
								row.TruthQueries = truthQ
							}
							rep.Rows = append(rep.Rows, row)
						}
					}
				}
				noteRSS(&rep) // the index open, its rows done
				x.Close()
				rt.Close()
			}
		}
	}
	// Measure the ceilings again after the rows and keep the best: the
	// machine is shared, and a ceiling must not be lowered by a noisy moment.
	for key := range rep.ReadCeilingGBps {
		p, _ := strconv.Atoi(key)
		rep.ReadCeilingGBps[key] = max(rep.ReadCeilingGBps[key], readCeilingOf(ceilingBytes, p))
	}
	notePeakRSS(&rep)
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
	return buildIndexWith(rt, opts, set, nil, what)
}

// buildIndexWith is buildIndex giving each record its attributes (attrs,
// one per record; nil: none).
func buildIndexWith(rt *astral.Runtime, opts []astral.Option, set *fixture.Set, attrs []astral.Attributes, what string) (*astral.Index, float64, error) {
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
		if attrs != nil {
			err = x.AddWith(idBuf[:hi-lo], set.Base[lo*dim:hi*dim], attrs[lo:hi])
		} else {
			err = x.Add(idBuf[:hi-lo], set.Base[lo*dim:hi*dim])
		}
		if err != nil {
			x.Close()
			return nil, 0, err
		}
		bar.set(hi)
	}
	x.Wait()
	took := time.Since(start).Seconds()
	bar.done()
	return x, took, nil
}

// rowQuery is how a row queries: unfiltered (filter none), with the
// engine's filter, or (post > 0) the naive host-side way: k·post results
// unfiltered, then the first k that pass the filter; budget > 0 queries
// within that frame budget, each timed query's answer scored against
// truth and exactQ (the unbudgeted exact answers).
type rowQuery struct {
	scope  *fixture.Scope
	filter *fixture.ScopeFilter
	post   int
	rank   fixture.RankSpec
	budget time.Duration
	truth  [][]int32
	exactQ [][]int64
	// nprobe > 0: the IVF partitions each query probes (MaxNList: all).
	nprobe int
}

// measure warms the index with one pass, then times b.runs runs of whole
// passes, one call per query (or per batch), and reports the run with the
// median p50.
func measure(x *astral.Index, set *fixture.Set, b *benchFlags, batch int, q rowQuery, truth [][]int32, exactQ [][]int64, label string) (benchRow, error) {
	r, err := newRowRunner(x, set, b, batch, q)
	if err != nil {
		return benchRow{}, err
	}
	timeRows([]*rowRunner{r}, b, label)
	return r.row(set, b.k, q, truth, exactQ), nil
}

type runStats struct{ p50, p95, p99, mean float64 }

// rowRunner is one row's queries, warmed up and ready to be timed beside
// other rows.
type rowRunner struct {
	batch, calls int
	call         func(c int) error
	found        [][]int64 // per query, from the warm-up pass
	plan         string
	allocs       float64 // per query
	lat          []float64
	runs         []runStats
	// A budgeted row: tally scores call c's answer, outside the timed call;
	// tallied sums what it scored.
	tally   func(c int)
	tallied budgetTally
}

// floorRow marks a clock-floor runner in the bench's row list.
const floorRow = -2

// maxFloorBudget bounds the budgets given a clock floor: the floor costs
// its budget every call, and past a frame-sized budget the search ends long
// before it anyway.
const maxFloorBudget = 5 * time.Millisecond

// floorRunner is the clock floor of a budgeted row of calls calls: each
// call reads the clock until budget has passed, as a search that did no
// work but watch its deadline would.
func floorRunner(calls int, budget time.Duration) *rowRunner {
	return &rowRunner{batch: 1, calls: calls, lat: make([]float64, 0, 1<<16), call: func(int) error {
		for start := time.Now(); time.Since(start) < budget; {
		}
		return nil
	}}
}

// medianRun is the run with the median p50.
func (r *rowRunner) medianRun() runStats {
	runs := slices.Clone(r.runs)
	slices.SortFunc(runs, func(a, b runStats) int {
		switch {
		case a.p50 < b.p50:
			return -1
		case a.p50 > b.p50:
			return 1
		}
		return 0
	})
	return runs[len(runs)/2]
}

// budgetTally sums a budgeted row's timed queries.
type budgetTally struct {
	queries, complete        int
	covered, recall, recall2 float64
}

// newRowRunner prepares a row: one warm-up pass that records the results,
// and one pass that counts allocations.
func newRowRunner(x *astral.Index, set *fixture.Set, b *benchFlags, batch int, q rowQuery) (*rowRunner, error) {
	nq, dim, k := set.NQ(), set.Dim, b.k
	r := &rowRunner{batch: batch, calls: (nq + batch - 1) / batch, found: make([][]int64, nq), lat: make([]float64, 0, 1<<16)}
	filtered := q.filter.Spec.Kind != fixture.FilterNone || q.rank.On() || q.nprobe > 0
	fetch := k
	if q.post > 0 {
		fetch = min(k*q.post, astral.MaxK)
	}
	dst := make([]astral.Result, batch*fetch)
	counts := make([]int, batch)
	kept := make([]int64, k)
	found := r.found
	opts := astral.QueryOptions{K: k, Filter: engineFilter(q.filter), Rank: engineRank(q.rank), NProbe: q.nprobe}
	var plan astral.Plan
	var last []astral.Result
	var lastCov astral.Coverage
	if q.budget > 0 {
		r.tally = func(c int) {
			t := &r.tallied
			t.queries++
			t.covered += lastCov.Covered
			if lastCov.Complete {
				t.complete++
			}
			got := [][]int64{ids(last)}
			t.recall += fixture.RecallAtK(q.truth[c:c+1], got, k)
			t.recall2 += recallVs(q.exactQ[c:c+1], got, k)
		}
	}
	r.call = func(c int) error {
		lo, hi := c*batch, min((c+1)*batch, nq)
		switch {
		case q.budget > 0:
			res, cov, err := x.QueryWithin(dst, set.Query(lo), opts, q.budget)
			last, lastCov = res, cov
			if found[lo] == nil {
				found[lo], plan = ids(res), cov.Plan
			}
			return err
		case q.post > 0:
			res, err := x.Query(dst, set.Query(lo), fetch)
			m := 0
			for _, r := range res {
				if m == k {
					break
				}
				if q.scope.Match(q.filter, int(r.ID)) {
					kept[m] = int64(r.ID)
					m++
				}
			}
			if found[lo] == nil {
				found[lo] = slices.Clone(kept[:m])
			}
			return err
		case filtered && batch == 1:
			res, p, err := x.QueryWith(dst, set.Query(lo), opts)
			if found[lo] == nil {
				found[lo], plan = ids(res), p
			}
			return err
		case filtered:
			res, p, err := x.QueryBatchWith(dst, counts, set.Queries[lo*dim:hi*dim], opts)
			if found[lo] == nil {
				plan = p
			}
			for i := lo; i < hi && found[i] == nil; i++ {
				found[i] = ids(res[(i-lo)*k : (i-lo)*k+counts[i-lo]])
			}
			return err
		case batch == 1:
			res, err := x.Query(dst, set.Query(lo), k)
			if found[lo] == nil {
				found[lo] = ids(res)
			}
			return err
		}
		res, err := x.QueryBatch(dst, counts, set.Queries[lo*dim:hi*dim], k)
		for i := lo; i < hi && found[i] == nil; i++ {
			found[i] = ids(res[(i-lo)*k : (i-lo)*k+counts[i-lo]])
		}
		return err
	}
	for c := 0; c < r.calls; c++ { // warm-up pass; also records the results
		if err := r.call(c); err != nil {
			return nil, err
		}
	}
	if !filtered {
		// The plan an unfiltered query runs, for the row.
		_, p, err := x.QueryWith(dst, set.Query(0), astral.QueryOptions{K: k})
		if err != nil {
			return nil, err
		}
		plan = p
	}
	r.plan = plan.String()
	if q.post > 0 {
		r.plan = "host-postfilter"
	}
	if q.budget > 0 {
		// The plan of a whole query: a budget cut short reports the same.
		_, cov, err := x.QueryWithin(dst, set.Query(0), opts, time.Hour)
		if err != nil {
			return nil, err
		}
		r.plan = cov.Plan.String()
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for c := 0; c < r.calls; c++ {
		_ = r.call(c)
	}
	runtime.ReadMemStats(&ms1)
	r.allocs = float64(ms1.Mallocs-ms0.Mallocs) / float64(nq)
	return r, nil
}

// timeRows times b.runs runs of whole passes over the queries, one call per
// query (or batch). Rows are interleaved call by call, so a burst of load
// on a shared machine falls on all of them alike and their ratios hold.
func timeRows(rs []*rowRunner, b *benchFlags, label string) {
	calls := rs[0].calls
	bar := newProgress(label, b.runs)
	defer bar.done()
	for run := 0; run < b.runs; run++ {
		bar.set(run) // between runs, outside the timed calls
		for _, r := range rs {
			r.lat = r.lat[:0]
		}
		start := time.Now()
		for pass := 0; pass == 0 || time.Since(start).Seconds() < b.runSeconds*float64(len(rs)); pass++ {
			for c := 0; c < calls; c++ {
				for _, r := range rs {
					t0 := time.Now()
					_ = r.call(c)
					r.lat = append(r.lat, float64(time.Since(t0).Nanoseconds())/1e3)
					if r.tally != nil {
						r.tally(c)
					}
				}
			}
		}
		for _, r := range rs {
			slices.Sort(r.lat)
			sum := 0.0
			for _, v := range r.lat {
				sum += v
			}
			r.runs = append(r.runs, runStats{pct(r.lat, 50), pct(r.lat, 95), pct(r.lat, 99), sum / float64(len(r.lat))})
		}
	}
}

// row reports the run with the median p50.
func (r *rowRunner) row(set *fixture.Set, k int, q rowQuery, truth [][]int32, exactQ [][]int64) benchRow {
	med := r.medianRun()
	row := benchRow{
		Batch: r.batch, RecallAtK: fixture.RecallAtK(truth, r.found, k), RecallVsExactQuantized: recallVs(exactQ, r.found, k),
		P50us: med.p50, P95us: med.p95, P99us: med.p99, MeanUs: med.mean,
		QPS:            float64(r.batch) / med.mean * 1e6,
		AllocsPerQuery: r.allocs,
		Filter:         filterName(q.filter), Selectivity: q.filter.Selectivity(set.N()), Plan: r.plan,
		Postfilter: q.post, Rank: q.rank.String(),
		Covered: 1,
	}
	if t := r.tallied; t.queries > 0 {
		n := float64(t.queries)
		row.BudgetUs = int(q.budget / time.Microsecond)
		row.RecallAtK, row.RecallVsExactQuantized = t.recall/n, t.recall2/n
		row.Covered, row.CompleteQueries, row.CompleteShare = t.covered/n, t.complete, float64(t.complete)/n
	}
	return row
}

// rowLabel names a row in progress lines.
func rowLabel(kind astral.Kind, storage astral.Storage, rerank, threads, ef, nprobe, batch int) string {
	s := fmt.Sprintf("timing %s %s", kind, storage)
	if rerank > 0 {
		s += fmt.Sprintf(" rerank ×%d", rerank)
	}
	if ef > 0 {
		s += fmt.Sprintf(" ef %d", ef)
	}
	if nprobe > 0 {
		s += fmt.Sprintf(" nprobe %d", nprobe)
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
	if i := slices.IndexFunc(rep.Rows, func(r benchRow) bool { return r.TruthQueries > 0 }); i >= 0 {
		fileScan := ""
		// Flat rows beside others are exact scans (an IVF file's full scan,
		// a building bench's reference), timed over the first queries.
		if slices.ContainsFunc(rep.Rows, func(r benchRow) bool { return r.Index == "flat" }) &&
			slices.ContainsFunc(rep.Rows, func(r benchRow) bool { return r.Index != "flat" }) {
			fileScan = fmt.Sprintf(" (the exact flat rows: their first %d)", rep.Rows[i].TruthQueries)
		}
		fmt.Fprintf(stdout, "recall@k: over the first %d of the %d queries (--truth-queries); vs-quant: over all %d%s\n",
			rep.Rows[i].TruthQueries, d.NQ, d.NQ, fileScan)
	}
	if slices.ContainsFunc(rep.Rows, func(r benchRow) bool { return r.Index == "flat" && r.NList > 0 }) {
		fmt.Fprintln(stdout, "flat rows with an nlist: an IVF file probing all its partitions (nprobe = nlist), its exact full scan")
	}
	if rep.RSSBytes > 0 {
		fmt.Fprintf(stdout, "resident: %.1f bytes per vector (RSS / n: %d bytes with the index open after its rows, after a GC)\n",
			float64(rep.RSSBytes)/float64(max(d.N, 1)), rep.RSSBytes)
	}
	if rep.PeakRSSBytes > 0 {
		fmt.Fprintf(stdout, "peak RSS: %d bytes (%s)\n", rep.PeakRSSBytes, sizeString(rep.PeakRSSBytes))
	}
	keys := make([]string, 0, len(rep.ReadCeilingGBps))
	for key := range rep.ReadCeilingGBps {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		fmt.Fprintf(stdout, "read ceiling, %s participant(s): %.1f GB/s\n", key, rep.ReadCeilingGBps[key])
	}
	scopedRows := slices.ContainsFunc(rep.Rows, func(r benchRow) bool { return r.Filter != "" || r.Rank != "" })
	rankedRows := slices.ContainsFunc(rep.Rows, func(r benchRow) bool { return r.Rank != "" })
	budgetRows := slices.ContainsFunc(rep.Rows, func(r benchRow) bool { return r.BudgetUs > 0 })
	ivfRows := slices.ContainsFunc(rep.Rows, func(r benchRow) bool { return r.NList > 0 })
	fmt.Fprintf(stdout, "\n%-5s %-7s %6s %7s %5s %4s %5s %9s %9s %9s %9s %9s %9s %10s %9s %8s %7s %8s %6s",
		"index", "storage", "rerank", "threads", "part", "ef", "batch", "recall@k", "vs-quant", "p50 µs", "p95 µs", "p99 µs", "mean µs",
		"qps", "scan GB/s", "ceiling", "allocs", "build s", "B/vec")
	if scopedRows {
		fmt.Fprintf(stdout, "  %-20s %8s %-15s %7s", "filter", "select.", "plan", "×unfilt")
	}
	if rankedRows {
		fmt.Fprintf(stdout, "  %-16s %9s", "rank", "top50+rr")
	}
	if budgetRows {
		fmt.Fprintf(stdout, "  %7s %7s %9s %9s %9s", "budget", "covered", "complete", "floor p50", "floor p99")
	}
	if ivfRows {
		fmt.Fprintf(stdout, "  %7s %6s %8s", "nlist", "nprobe", "largest")
	}
	fmt.Fprintln(stdout)
	for _, r := range rep.Rows {
		ceil := "-"
		if r.ScanGBps > 0 && r.Batch == 1 {
			ceil = fmt.Sprintf("%.0f%%", 100*r.ScanGBps/rep.ReadCeilingGBps[strconv.Itoa(r.Participants)])
		}
		rerank := "-"
		if r.Rerank > 0 {
			rerank = fmt.Sprintf("%s×%d", r.RerankStorage, r.Rerank)
		}
		fmt.Fprintf(stdout, "%-5s %-7s %6s %7d %5d %4d %5d %9.4f %9.4f %9.1f %9.1f %9.1f %9.1f %10.0f %9.1f %8s %7.2f %8.2f %6.0f",
			r.Index, r.Storage, rerank, r.Threads, r.Participants, r.Ef, r.Batch, r.RecallAtK, r.RecallVsExactQuantized,
			r.P50us, r.P95us, r.P99us, r.MeanUs, r.QPS, r.ScanGBps, ceil, r.AllocsPerQuery, r.BuildS, r.BytesPerVector)
		if scopedRows {
			filter := r.Filter
			if filter == "" {
				filter = "none"
			}
			if r.Postfilter > 0 {
				filter = fmt.Sprintf("%s post×%d", filter, r.Postfilter)
			}
			fmt.Fprintf(stdout, "  %-20s %8.4f %-15s %7.3f", filter, r.Selectivity, r.Plan, r.P50VsUnfiltered)
		}
		if rankedRows {
			rank, rr := r.Rank, "-"
			if rank == "" {
				rank = "none"
			} else {
				rr = fmt.Sprintf("%.4f", r.Rerank50Recall)
			}
			fmt.Fprintf(stdout, "  %-16s %9s", rank, rr)
		}
		if budgetRows {
			budget, complete, floor50, floor99 := "-", "-", "-", "-"
			if r.BudgetUs > 0 {
				budget, complete = strconv.Itoa(r.BudgetUs), fmt.Sprintf("%.1f%%", 100*r.CompleteShare)
				floor50, floor99 = fmt.Sprintf("%.1f", r.FloorP50us), fmt.Sprintf("%.1f", r.FloorP99us)
			}
			fmt.Fprintf(stdout, "  %7s %7.3f %9s %9s %9s", budget, r.Covered, complete, floor50, floor99)
		}
		if ivfRows {
			if r.NList > 0 {
				fmt.Fprintf(stdout, "  %7d %6d %7.2f%%", r.NList, r.NProbe, 100*r.LargestShare)
			} else {
				fmt.Fprintf(stdout, "  %7s %6s %8s", "-", "-", "-")
			}
		}
		fmt.Fprintln(stdout)
	}
}
