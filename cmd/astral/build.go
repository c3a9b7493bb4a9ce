package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
)

// runBuild builds an index from a fixture or an .fvecs file (ids 0..n-1,
// in file order) and saves it as an index file.
func runBuild(args []string) error {
	c := newCommand("build", "astral build --out FILE.idx [flags]",
		`Builds an index from a fixture or the vectors of an .fvecs file (ids 0 to
n-1, in file order) and saves it as one index file, which 'astral inspect'
verifies, 'astral query' searches and 'astral bench --index-file' measures.`,
		"astral build --data spectral --index hnsw --out memories.idx",
		"astral build --data base.fvecs --metric l2 --storage int8 --rerank 4 --out base.idx",
		"astral build --data clustered --n 200000 --index ivf --nlist 256 --nprobe 16 --out world.idx")
	var data, index, out, metricName, storageName, rerankStorageName string
	var n, dim, m, efc, efs, threads, rerank, nlist, nprobe, ivfLimit int
	c.str(&data, "data", "random", "a fixture (random, spectral, clustered) or the stored vectors' .fvecs file", "--data base.fvecs")
	c.str(&index, "index", "auto", "index kind: flat (exact scan), hnsw (graph), ivf (partitions) or auto (flat while small)", "--index hnsw")
	c.str(&out, "out", "", "the index `FILE` to write (required)", "--out memories.idx")
	c.num(&n, "n", 100000, "stored vectors (generated fixtures only)", "--n 20000")
	c.num(&dim, "dim", 384, fmt.Sprintf("dimension, 1 to %d (generated fixtures only)", astral.MaxDim), "--dim 128")
	c.str(&metricName, "metric", "cosine", "metric: cosine, dot or l2", "--metric l2")
	c.num(&m, "m", astral.DefaultM, fmt.Sprintf("HNSW: links per node, 2 to %d (2·M on level 0)", astral.MaxM), "--m 32")
	c.num(&efc, "ef-construction", 200, fmt.Sprintf("HNSW: candidates kept while inserting, M to %d", astral.MaxEf), "--ef-construction 400")
	c.num(&efs, "ef-search", astral.DefaultEfSearch, fmt.Sprintf("HNSW: the search breadth saved with the index, 1 to %d", astral.MaxEf), "--ef-search 64")
	c.num(&nlist, "nlist", astral.DefaultNList, fmt.Sprintf("IVF: partitions, 1 to %d; the index trains once it holds max(39·nlist, 4096) records, and is saved untrained (exact) below that", astral.MaxNList), "--nlist 256")
	c.num(&nprobe, "nprobe", 0, "IVF: partitions a query probes, saved with the index, 1 to nlist (default 3/64 of nlist)", "--nprobe 16")
	c.num(&ivfLimit, "ivf-limit", 0, fmt.Sprintf("auto: the record count past which the index switches to IVF (nlist derived from it); 0 for %d, -1 for never", astral.DefaultIVFLimitRecords), "--ivf-limit 500000")
	c.num(&threads, "threads", astral.ThreadsAuto, "runtime workers for the build, not counting the caller: "+threadsWant, "--threads 3")
	c.str(&storageName, "storage", "e5m2", "stored kind: e5m2, e4m3, int8, f16 or f32", "--storage int8")
	c.num(&rerank, "rerank", 0, fmt.Sprintf("rerank factor, 0 (no rerank copy) to %d", astral.MaxRerankFactor), "--rerank 4")
	c.str(&rerankStorageName, "rerank-storage", "f32", "the rerank copy's kind: f16 or f32 (with --rerank)", "--rerank-storage f16")
	if err := c.parse(args); err != nil {
		return err
	}
	if out == "" {
		return usagef("--out is required")
	}
	kind, err := kindOf(index)
	if err != nil {
		return err
	}
	metric, err := metricOf(metricName)
	if err != nil {
		return err
	}
	storages, err := storageList("storage", storageName)
	if err != nil {
		return err
	}
	if len(storages) != 1 {
		return usagef("--storage %s: an index has one stored kind", storageName)
	}
	rerankStorage, err := rerankStorageOf(rerankStorageName)
	if err != nil {
		return err
	}
	generated := slices.Contains(fixture.Names(), data)
	if err := checkBuildFlags(c, generated, kind, n, dim, m, efc, efs, threads, rerank); err != nil {
		return err
	}
	if nprobe == 0 {
		nprobe = astral.DefaultNProbe(max(nlist, 1))
	}
	if err := checkIVFFlags(c, kind, nlist, nprobe); err != nil {
		return err
	}
	if kind != astral.KindAuto {
		if err := c.refuse("without --index auto: only an auto index switches to IVF", "ivf-limit"); err != nil {
			return err
		}
	}
	if err := checkOutputs([]output{{"data", fileOrEmpty(generated, data)}}, output{"out", out}); err != nil {
		return err
	}
	// The vectors stream in a block at a time: a file far larger than
	// memory builds in the index's memory.
	src, err := openBase(data, generated, n, dim)
	if err != nil {
		return err
	}
	defer src.close()
	rt, err := astral.NewRuntime(astral.WithThreads(threads))
	if err != nil {
		return err
	}
	defer rt.Close()
	opts := []astral.Option{astral.WithDim(src.dim), astral.WithMetric(metric), astral.WithKind(kind),
		astral.WithHNSW(m, efc), astral.WithEfSearch(efs), astral.WithStorage(storages[0])}
	if rerank > 0 {
		opts = append(opts, astral.WithRerank(rerankStorage, rerank))
	}
	if kind == astral.KindIVF {
		opts = append(opts, astral.WithIVF(nlist, nprobe))
	}
	if kind == astral.KindAuto {
		opts = append(opts, astral.WithIVFLimitRecords(int64(ivfLimit)))
	}
	x, buildS, err := buildStreamed(rt, opts, src, index)
	if err != nil {
		return err
	}
	defer x.Close()
	start := time.Now()
	if err := x.SaveFile(out); err != nil {
		return err
	}
	saveS := time.Since(start).Seconds()
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	st := x.Stats()
	peak := ""
	if hwm, ok := procStatus("VmHWM"); ok {
		peak = fmt.Sprintf("; peak RSS %s (%d bytes)", sizeString(hwm), hwm)
	}
	fmt.Fprintf(stdout, "built %s index (%v) of %s, %d × %d, %v, in %.2f s; wrote %s, %s, in %.2f s%s\n",
		st.Kind, index, src.name, st.Len, st.Dim, st.Metric, buildS, out, sizeString(fi.Size()), saveS, peak)
	if kind == astral.KindIVF || st.Kind == astral.KindIVF {
		if is, ok := x.IVFStats(); ok {
			fmt.Fprintf(stdout, "ivf: %d partitions, nprobe %d, largest %d records (%.1f%%)\n", is.Partitions, x.NProbe(), is.Largest, 100*is.Share)
		} else {
			fmt.Fprintf(stdout, "ivf: not trained (it trains at %d records): saved as an exact scan\n", astral.TrainSize(nlist))
		}
	}
	return nil
}

// checkIVFFlags refuses the IVF flags out of range or without --index ivf,
// and the graph's with it.
func checkIVFFlags(c *command, kind astral.Kind, nlist, nprobe int) error {
	if kind != astral.KindIVF {
		return c.refuse("without --index ivf: it has no partitions", "nlist", "nprobe")
	}
	if err := c.refuse("to an IVF index (--index ivf): it has no graph", "m", "ef-construction", "ef-search"); err != nil {
		return err
	}
	switch {
	case nlist < 1 || nlist > astral.MaxNList:
		return usagef("--nlist %d: want 1 to %d", nlist, astral.MaxNList)
	case nprobe < 1 || nprobe > nlist:
		return usagef("--nprobe %d: want 1 to nlist (%d)", nprobe, nlist)
	}
	return nil
}

// checkBuildFlags refuses values out of range and flags that do not apply.
func checkBuildFlags(c *command, generated bool, kind astral.Kind, n, dim, m, efc, efs, threads, rerank int) error {
	if generated {
		if err := checkFixtureShape(c.fs.Lookup("data").Value.String(), n, 1, dim); err != nil {
			return err
		}
	} else if err := c.refuse("to an .fvecs file: its rows are the vectors", "n", "dim"); err != nil {
		return err
	}
	if kind == astral.KindFlat {
		if err := c.refuse("to a flat index (--index flat): it has no graph", "m", "ef-construction", "ef-search"); err != nil {
			return err
		}
	}
	if rerank == 0 {
		if err := c.refuse("without --rerank: there is no rerank copy", "rerank-storage"); err != nil {
			return err
		}
	}
	switch {
	case m < 2 || m > astral.MaxM:
		return usagef("--m %d: want 2 to %d", m, astral.MaxM)
	case efc < m || efc > astral.MaxEf:
		return usagef("--ef-construction %d: want M (%d) to %d", efc, m, astral.MaxEf)
	case efs < 1 || efs > astral.MaxEf:
		return usagef("--ef-search %d: want 1 to %d", efs, astral.MaxEf)
	case threads < astral.ThreadsAuto || threads > astral.MaxThreads:
		return usagef("--threads %d: want %s", threads, threadsWant)
	case rerank < 0 || rerank > astral.MaxRerankFactor:
		return usagef("--rerank %d: want 0 (none) to %d", rerank, astral.MaxRerankFactor)
	}
	return nil
}

// fileOrEmpty is path when --data names a file, so outputs are checked
// against it.
func fileOrEmpty(generated bool, path string) string {
	if generated {
		return ""
	}
	return path
}

// loadBase reads stored vectors from an .fvecs file.
func loadBase(path string) (*fixture.Set, error) {
	base, dim, err := fixture.LoadFvecsFile(path)
	if err != nil {
		return nil, err
	}
	if dim == 0 || len(base) == 0 {
		return nil, fmt.Errorf("%s holds no vectors", path)
	}
	if dim > astral.MaxDim {
		return nil, fmt.Errorf("%s: dimension %d; an index takes 1 to %d", path, dim, astral.MaxDim)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return &fixture.Set{Name: name, Dim: dim, Base: base}, nil
}

// sizeString is a byte count with its binary unit.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
