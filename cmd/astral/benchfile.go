package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
)

// maxCeilingBytes caps the read-ceiling buffer: a bandwidth figure needs
// no more, and a buffer the size of ten million records would double what
// the bench holds.
const maxCeilingBytes = 1 << 30

// truthBlock is the rows the f32 ground truth reads from --data at a time.
const truthBlock = 1 << 14

// benchIndexFile measures a saved index as it is, one row per thread
// count, ef or nprobe, and batch, without rebuilding it. --data supplies
// the vectors it was built from (ids 0 to n-1 in order, as 'astral build'
// saves them), for the ground truth, and the queries. Memory stays near
// the index's own: the vectors stream past a block at a time, the exact
// answers over the stored records come from the index itself (an IVF
// index probing every partition, a flat index as it is; an HNSW index
// beside a flat index built from the stream), and the read-ceiling buffer
// is at most maxCeilingBytes.
func benchIndexFile(b *benchFlags) error {
	rtAll, err := astral.NewRuntime(astral.WithThreads(astral.ThreadsAuto))
	if err != nil {
		return err
	}
	defer rtAll.Close()
	x0, err := astral.OpenFile(rtAll, b.indexFile)
	if err != nil {
		return fmt.Errorf("--index-file %s: %v", b.indexFile, message(err))
	}
	defer func() {
		if x0 != nil {
			x0.Close()
		}
	}()
	cfg, st := x0.Config(), x0.Stats()
	ivs, trained := x0.IVFStats()
	if b.generated {
		if b.dim, b.n, err = shapeFromIndex(b, st); err != nil {
			return err
		}
	}
	src, err := openBase(b.data, b.generated, b.n, b.dim)
	if err != nil {
		return err
	}
	defer src.close()
	if src.n != st.Len || src.dim != st.Dim {
		return fmt.Errorf("--index-file %s holds %d × %d but --data %s gives %d × %d: measure it with the data it was built from",
			b.indexFile, st.Len, st.Dim, b.data, src.n, src.dim)
	}
	queries, err := loadQueries(b, src)
	if err != nil {
		return err
	}
	set := &fixture.Set{Name: src.name, Dim: src.dim, Queries: queries}
	nq, dim := set.NQ(), set.Dim
	truthQ := nq
	if b.truthQueries > 0 {
		if b.truthQueries > nq {
			return usagef("--truth-queries %d: there are %d queries", b.truthQueries, nq)
		}
		truthQ = b.truthQueries
	}
	// The knob each row sweeps: HNSW's ef, a trained IVF index's nprobe.
	knobs := []int{0}
	switch {
	case st.Kind == astral.KindHNSW:
		knobs = b.ef
		if !b.efGiven {
			knobs = []int{cfg.EfSearch}
		}
	case b.efGiven:
		return usagef("--ef does not apply: %s holds %s index, which has no graph", b.indexFile, aKind(st.Kind))
	}
	if trained {
		knobs = []int{x0.NProbe()}
		if b.nprobeGiven {
			knobs = b.nprobe
		}
		for _, p := range knobs {
			if p > ivs.Partitions {
				return usagef("--nprobe %d: %s has %d partitions", p, b.indexFile, ivs.Partitions)
			}
		}
	} else if b.nprobeGiven {
		what := aKind(st.Kind) + " index, which has no partitions"
		if st.Kind == astral.KindIVF {
			what = "an IVF index that has not trained (it scans exactly)"
		}
		return usagef("--nprobe does not apply: %s holds %s", b.indexFile, what)
	}
	// A graph, or a rerank copy (the index's answers are reranked; the
	// exact answers over the stored records are not), takes a flat index
	// built from the stream.
	useRef := st.Kind == astral.KindHNSW || cfg.RerankFactor > 0
	if useRef {
		// Its exact answers come from a flat index: not both in memory.
		x0.Close()
		x0 = nil
		freeMemory()
	}
	// The exact answers over the stored records, for every query.
	exactQ, err := exactQuantizedOf(x0, useRef, cfg, src, queries, b.k)
	if err != nil {
		return err
	}
	scanned, err := scannedBytes(cfg)
	if err != nil {
		return err
	}
	if x0 != nil {
		x0.Close()
		x0 = nil
		freeMemory()
	}
	// The f32 ground truth, for the first truthQ queries.
	var truth [][]int32
	if b.truth != "" {
		if truth, err = readTruth(b.truth, nq, b.k, src.n); err != nil {
			return err
		}
		truth = truth[:truthQ]
	} else if truth, err = streamTruth(src, queries[:truthQ*dim], b.k, fixtureMetric(cfg.Metric)); err != nil {
		return err
	}
	rep := newReport(set, b.k)
	rep.Dataset.N = src.n
	o := opened{set: set, truth: truth, exactQ: exactQ, truthQ: truthQ, scanned: scanned,
		ceilingBytes: ceilingSize(src.n, scanned), knobs: knobs}
	for _, threads := range b.threads {
		if err := benchOpened(b, &rep, &o, threads); err != nil {
			return err
		}
	}
	// Measure the ceilings again and keep the best, as runBench does.
	for key := range rep.ReadCeilingGBps {
		p, _ := strconv.Atoi(key)
		rep.ReadCeilingGBps[key] = max(rep.ReadCeilingGBps[key], readCeilingOf(o.ceilingBytes, p))
	}
	notePeakRSS(&rep)
	return writeReport(&rep, b)
}

// aKind is the kind with its article: "a flat", "an ivf".
func aKind(k astral.Kind) string {
	if s := k.String(); strings.ContainsAny(s[:1], "aehiou") {
		return "an " + s
	}
	return "a " + k.String()
}

// loadQueries is --queries (an .fvecs file of src's dimension) or the
// generated fixture's queries.
func loadQueries(b *benchFlags, src *baseSource) ([]float32, error) {
	if b.generated {
		set, err := fixture.Generate(b.data, 0, b.nq, src.dim)
		if err != nil {
			return nil, err
		}
		return set.Queries, nil
	}
	qs, qdim, err := fixture.LoadFvecsFile(b.queries)
	if err != nil {
		return nil, err
	}
	if qdim != src.dim || len(qs) == 0 {
		return nil, fmt.Errorf("%s: dimension %d and %d queries; %s has dimension %d", b.queries, qdim, len(qs)/max(qdim, 1), b.data, src.dim)
	}
	return qs, nil
}

// exactQuantizedOf answers every query exactly over the index's stored
// records, no rerank: an IVF index probing all its partitions (the same
// answers as a flat index of the same records, ids and scores), a flat
// index itself, or with useRef (an HNSW index, or one with a rerank copy;
// x is not used and may be nil) a serial flat index of cfg's dimension,
// metric and storage built from src.
func exactQuantizedOf(x *astral.Index, useRef bool, cfg astral.Config, src *baseSource, queries []float32, k int) ([][]int64, error) {
	// Past the partition count: all of them. A flat index ignores it.
	o := astral.QueryOptions{K: k, NProbe: astral.MaxNList}
	if useRef {
		ref, _, err := buildStreamed(nil, []astral.Option{astral.WithDim(cfg.Dim), astral.WithMetric(cfg.Metric),
			astral.WithStorage(cfg.Storage), astral.WithKind(astral.KindFlat)}, src, "exact "+cfg.Storage.String()+" reference")
		if err != nil {
			return nil, err
		}
		defer ref.Close()
		x = ref
	}
	dim := cfg.Dim
	nq := len(queries) / dim
	out := make([][]int64, nq)
	const step = 256
	dst, counts := make([]astral.Result, step*k), make([]int, step)
	bar := newProgress(fmt.Sprintf("exact answers over the stored records, %d queries", nq), nq)
	defer bar.done()
	for lo := 0; lo < nq; lo += step {
		hi := min(lo+step, nq)
		res, _, err := x.QueryBatchWith(dst, counts[:hi-lo], queries[lo*dim:hi*dim], o)
		if err != nil {
			return nil, err
		}
		for i := lo; i < hi; i++ {
			out[i] = ids(res[(i-lo)*k : (i-lo)*k+counts[i-lo]])
		}
		bar.set(hi)
	}
	return out, nil
}

// scannedBytes is what an exact scan reads per vector of cfg's stored
// kind: the record and its per-record values, a flat index's bytes per
// vector less its id.
func scannedBytes(cfg astral.Config) (float64, error) {
	x, err := astral.NewIndex(nil, astral.WithDim(cfg.Dim), astral.WithMetric(cfg.Metric), astral.WithStorage(cfg.Storage), astral.WithKind(astral.KindFlat))
	if err != nil {
		return 0, err
	}
	defer x.Close()
	return x.Stats().BytesPerVector - 8, nil
}

// streamTruth is the exact f32 top k of each query over src's vectors,
// read a block at a time and scored over GOMAXPROCS goroutines: the ids,
// order and ties of ExactTopKIn.
func streamTruth(src *baseSource, queries []float32, k int, metric fixture.Metric) ([][]int32, error) {
	nq := len(queries) / src.dim
	es := fixture.NewExactStream(queries, src.dim, k, metric, 0)
	bar := newProgress(fmt.Sprintf("ground truth, %d queries over %d vectors", nq, src.n), src.n)
	defer bar.done()
	err := src.blocks(truthBlock, func(first int, rows []float32) error {
		es.Add(first, rows)
		bar.set(first + len(rows)/src.dim)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return es.TopK(), nil
}

// shapeFromIndex is the dimension and size of the fixture an index was
// built from: the index's own, which --dim and --n may only repeat.
func shapeFromIndex(b *benchFlags, st astral.Stats) (dim, n int, err error) {
	if b.dimGiven && b.dim != st.Dim {
		return 0, 0, usagef("--dim %d: %s has dimension %d", b.dim, b.indexFile, st.Dim)
	}
	if b.nGiven && b.n != st.Len {
		return 0, 0, usagef("--n %d: %s holds %d vectors", b.n, b.indexFile, st.Len)
	}
	return st.Dim, st.Len, nil
}

// opened is what every opening of the file is measured against.
type opened struct {
	set     *fixture.Set // the queries (no stored vectors)
	truth   [][]int32    // the f32 truth of the first truthQ queries
	exactQ  [][]int64    // the exact answers over the stored records, every query
	truthQ  int
	scanned float64
	// The read-ceiling buffer's size: the stored records, at most
	// maxCeilingBytes. It is made for each measurement and dropped, so the
	// resident size after the rows is the index's.
	ceilingBytes int
	knobs        []int // ef (HNSW), nprobe (trained IVF) or 0
}

// benchOpened opens the file on a runtime of threads workers and measures
// each ef or nprobe and batch; a trained IVF index first gets the exact
// point of its curve, all its partitions probed (a flat scan).
func benchOpened(b *benchFlags, rep *benchReport, o *opened, threads int) error {
	freeMemory() // the last opening's index, closed: not two in memory
	rt, err := astral.NewRuntime(astral.WithThreads(threads))
	if err != nil {
		return err
	}
	defer rt.Close()
	x, err := astral.OpenFile(rt, b.indexFile)
	if err != nil {
		return fmt.Errorf("--index-file %s: %v", b.indexFile, message(err))
	}
	defer x.Close()
	cfg, st := x.Config(), x.Stats()
	ivs, trained := x.IVFStats()
	rep.Kernel = st.Kernel
	key := strconv.Itoa(st.Participants)
	if _, ok := rep.ReadCeilingGBps[key]; !ok {
		rep.ReadCeilingGBps[key] = readCeilingOf(o.ceilingBytes, st.Participants)
	}
	set, n := o.set, st.Len
	none := &fixture.ScopeFilter{}
	fill := func(row *benchRow) {
		row.Index, row.Storage, row.Threads, row.Participants = st.Kind.String(), cfg.Storage.String(), threads, st.Participants
		row.BytesPerVector, row.Kernel = st.BytesPerVector, st.Kernel
		if cfg.Rerank != 0 {
			row.Rerank, row.RerankStorage = cfg.RerankFactor, cfg.Rerank.String()
		}
		if o.truthQ < set.NQ() {
			row.TruthQueries = o.truthQ
		}
		row.P50VsUnfiltered = 1
	}
	if trained {
		// The full scan: every partition probed, over the queries the f32
		// truth covers (a scan of every record per query is slow at 10M).
		sub := &fixture.Set{Name: set.Name, Dim: set.Dim, Queries: set.Queries[:o.truthQ*set.Dim]}
		label := fmt.Sprintf("timing the exact full scan of %s: ivf nprobe = nlist (%d partitions), %d worker(s), %d queries", cfg.Storage, ivs.Partitions, threads, o.truthQ)
		row, err := measure(x, sub, b, 1, rowQuery{filter: none, nprobe: astral.MaxNList}, o.truth, o.exactQ[:o.truthQ], label)
		if err != nil {
			return err
		}
		fill(&row)
		row.Index, row.NList, row.NProbe, row.LargestShare = "flat", ivs.Partitions, ivs.Partitions, ivs.Share
		row.ScanGBps = float64(n) * o.scanned / (row.P50us * 1e3)
		rep.Rows = append(rep.Rows, row)
	}
	for _, knob := range o.knobs {
		ef, nprobe := 0, 0
		switch {
		case trained:
			nprobe, err = knob, x.SetNProbe(knob)
		case knob > 0:
			ef, err = knob, x.SetEfSearch(knob)
		}
		if err != nil {
			return err
		}
		for _, batch := range b.batch {
			label := rowLabel(st.Kind, cfg.Storage, cfg.RerankFactor, threads, ef, nprobe, batch)
			row, err := measure(x, set, b, batch, rowQuery{filter: none}, o.truth, o.exactQ, label)
			if err != nil {
				return err
			}
			fill(&row)
			row.Ef = ef
			if trained {
				row.NList, row.NProbe, row.LargestShare = ivs.Partitions, nprobe, ivs.Share
			}
			if st.Kind == astral.KindFlat {
				row.ScanGBps = float64(n) * o.scanned * float64(batch) / (row.P50us * 1e3)
			}
			rep.Rows = append(rep.Rows, row)
		}
	}
	noteRSS(rep) // the index open, its rows done
	return nil
}

// ceilingSize is the read-ceiling buffer for n records of scanned bytes:
// their size, at most maxCeilingBytes.
func ceilingSize(n int, scanned float64) int {
	return int(min(float64(n)*scanned, maxCeilingBytes))
}

// readCeilingOf is readCeiling over a buffer of size bytes made for it.
func readCeilingOf(size, p int) float64 {
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = byte(i*7 + 1) // touched pages, not the shared zero page
	}
	return readCeiling(buf, p)
}

// freeMemory returns the heap's garbage to the operating system, so the
// resident size that follows is what is live.
func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// noteRSS records the resident size now, after a collection (the bench's
// garbage is not the index's), keeping the largest seen.
func noteRSS(rep *benchReport) {
	freeMemory()
	if rss, ok := procStatus("VmRSS"); ok {
		rep.RSSBytes = max(rep.RSSBytes, rss)
	}
}

// notePeakRSS records the process's peak resident size.
func notePeakRSS(rep *benchReport) {
	if hwm, ok := procStatus("VmHWM"); ok {
		rep.PeakRSSBytes = hwm
	}
}
