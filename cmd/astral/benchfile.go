package main

import (
	"fmt"
	"strconv"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
)

// benchIndexFile measures a saved index as it is, one row per thread
// count, ef and batch, without rebuilding it. --data supplies the vectors
// it was built from (ids 0 to n-1 in order, as 'astral build' saves them),
// for the ground truth, and the queries.
func benchIndexFile(b *benchFlags) error {
	probe, err := astral.OpenFile(nil, b.indexFile)
	if err != nil {
		return fmt.Errorf("--index-file %s: %v", b.indexFile, message(err))
	}
	cfg, st := probe.Config(), probe.Stats()
	probe.Close()
	if b.generated {
		if b.dim, b.n, err = shapeFromIndex(b, st); err != nil {
			return err
		}
	}
	set, err := loadData(b)
	if err != nil {
		return err
	}
	if set.N() != st.Len || set.Dim != st.Dim {
		return fmt.Errorf("--index-file %s holds %d × %d but --data %s gives %d × %d: measure it with the data it was built from",
			b.indexFile, st.Len, st.Dim, b.data, set.N(), set.Dim)
	}
	efs := []int{0}
	if st.Kind == astral.KindHNSW {
		efs = b.ef
		if !b.efGiven {
			efs = []int{cfg.EfSearch}
		}
	} else if b.efGiven {
		return usagef("--ef does not apply: %s holds a flat index, which has no graph", b.indexFile)
	}
	// Unfiltered: the file's attributes are the host's, not a fixture's.
	none := &fixture.ScopeFilter{}
	truth := exactTopK(set, b.k, cfg.Metric, none)
	rep := newReport(set, b.k)
	// The exact scan of the same stored kind, for recall_vs_exact_quantized.
	ref, _, err := buildIndex(nil, []astral.Option{astral.WithDim(cfg.Dim), astral.WithMetric(cfg.Metric),
		astral.WithStorage(cfg.Storage), astral.WithKind(astral.KindFlat)}, set, "exact "+cfg.Storage.String()+" reference")
	if err != nil {
		return err
	}
	exactQuantized := make([][]int64, set.NQ())
	for i := range exactQuantized {
		res, err := ref.Query(nil, set.Query(i), b.k)
		if err != nil {
			ref.Close()
			return err
		}
		exactQuantized[i] = ids(res)
	}
	scanned := ref.Stats().BytesPerVector - 8
	ref.Close()
	ceilingBuf := make([]byte, int(float64(set.N())*scanned))
	for i := range ceilingBuf {
		ceilingBuf[i] = byte(i*7 + 1) // touched pages, not the shared zero page
	}
	for _, threads := range b.threads {
		if err := benchOpened(b, &rep, set, threads, efs, none, truth, exactQuantized, scanned, ceilingBuf); err != nil {
			return err
		}
	}
	for key := range rep.ReadCeilingGBps {
		p, _ := strconv.Atoi(key)
		rep.ReadCeilingGBps[key] = max(rep.ReadCeilingGBps[key], readCeiling(ceilingBuf, p))
	}
	return writeReport(&rep, b)
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

// benchOpened opens the file on a runtime of threads workers and measures
// each ef and batch.
func benchOpened(b *benchFlags, rep *benchReport, set *fixture.Set, threads int, efs []int, none *fixture.ScopeFilter, truth [][]int32, exactQ [][]int64, scanned float64, ceilingBuf []byte) error {
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
	rep.Kernel = st.Kernel
	key := strconv.Itoa(st.Participants)
	if _, ok := rep.ReadCeilingGBps[key]; !ok {
		rep.ReadCeilingGBps[key] = readCeiling(ceilingBuf, st.Participants)
	}
	for _, ef := range efs {
		if ef > 0 {
			if err := x.SetEfSearch(ef); err != nil {
				return err
			}
		}
		for _, batch := range b.batch {
			row, err := measure(x, set, b, batch, rowQuery{filter: none}, truth, exactQ, rowLabel(st.Kind, cfg.Storage, cfg.RerankFactor, threads, ef, 0, batch))
			if err != nil {
				return err
			}
			row.Index, row.Storage, row.Threads, row.Participants = st.Kind.String(), cfg.Storage.String(), threads, st.Participants
			row.Ef, row.BytesPerVector, row.Kernel = ef, st.BytesPerVector, st.Kernel
			if cfg.Rerank != 0 {
				row.Rerank, row.RerankStorage = cfg.RerankFactor, cfg.Rerank.String()
			}
			row.P50VsUnfiltered = 1
			if st.Kind == astral.KindFlat {
				row.ScanGBps = float64(set.N()) * scanned * float64(batch) / (row.P50us * 1e3)
			}
			rep.Rows = append(rep.Rows, row)
		}
	}
	return nil
}
