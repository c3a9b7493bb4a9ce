package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/kernel"
)

// runBuild builds an index from a fixture or an .fvecs file (ids 0..n-1,
// in file order) and saves it as an index file.
func runBuild(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	data := fs.String("data", "random", "fixture (random, spectral, clustered) or base vectors FILE.fvecs")
	index := fs.String("index", "auto", "index kind: flat, hnsw or auto")
	out := fs.String("out", "", "index file to write (required)")
	n := fs.Int("n", 100000, "stored vectors (generated fixtures)")
	dim := fs.Int("dim", 384, "dimension (generated fixtures)")
	metricName := fs.String("metric", "cosine", "metric: cosine, dot or l2")
	m := fs.Int("m", 16, "HNSW: links per node (2·M on level 0)")
	efc := fs.Int("ef-construction", 200, "HNSW: candidates kept while inserting")
	efs := fs.Int("ef-search", astral.DefaultEfSearch, "HNSW: default search breadth saved with the index")
	threads := fs.Int("threads", astral.ThreadsAuto, "runtime workers for the build (the caller not counted; -1: default)")
	storageName := fs.String("storage", "e5m2", "stored kind: e5m2, e4m3, int8, f16 or f32")
	rerank := fs.Int("rerank", 0, "rerank factor (0: no rerank copy)")
	rerankStorage := fs.String("rerank-storage", "f32", "the rerank copy's kind: f16 or f32")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("build: --out is required")
	}
	kind, ok := map[string]astral.Kind{"flat": astral.KindFlat, "auto": astral.KindAuto, "hnsw": astral.KindHNSW}[*index]
	if !ok {
		return fmt.Errorf("build: unknown --index %q (want flat, hnsw or auto)", *index)
	}
	metric, err := metricOf(*metricName)
	if err != nil {
		return fmt.Errorf("build: %v", err)
	}
	var set *fixture.Set
	if slices.Contains(fixture.Names(), *data) {
		set, err = fixture.Generate(*data, *n, 0, *dim)
	} else {
		var base []float32
		var d int
		base, d, err = fixture.LoadFvecsFile(*data)
		name := strings.TrimSuffix(filepath.Base(*data), filepath.Ext(*data))
		set = &fixture.Set{Name: name, Dim: d, Base: base}
	}
	if err != nil {
		return fmt.Errorf("build: %v", err)
	}
	if set.Dim == 0 || set.N() == 0 {
		return fmt.Errorf("build: %s holds no vectors", *data)
	}
	rt, err := astral.NewRuntime(astral.WithThreads(*threads))
	if err != nil {
		return fmt.Errorf("build: %v", err)
	}
	defer rt.Close()
	storage, err := kernel.ParseStorage(*storageName)
	if err != nil {
		return err
	}
	opts := []astral.Option{astral.WithDim(set.Dim), astral.WithMetric(metric), astral.WithKind(kind),
		astral.WithHNSW(*m, *efc), astral.WithEfSearch(*efs), astral.WithStorage(storage)}
	if *rerank > 0 {
		rs, err := kernel.ParseStorage(*rerankStorage)
		if err != nil {
			return err
		}
		opts = append(opts, astral.WithRerank(rs, *rerank))
	}
	x, buildS, err := buildIndex(rt, opts, set, *index)
	if err != nil {
		return fmt.Errorf("build: %v", err)
	}
	start := time.Now()
	if err := x.SaveFile(*out); err != nil {
		return fmt.Errorf("build: %v", err)
	}
	saveS := time.Since(start).Seconds()
	fi, err := os.Stat(*out)
	if err != nil {
		return fmt.Errorf("build: %v", err)
	}
	st := x.Stats()
	fmt.Printf("built %s index (%v) of %s, %d × %d, %v, in %.2f s; wrote %s, %s, in %.2f s\n",
		st.Kind, *index, set.Name, st.Len, st.Dim, st.Metric, buildS, *out, sizeString(fi.Size()), saveS)
	return nil
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
