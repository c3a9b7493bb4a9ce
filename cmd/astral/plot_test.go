package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
)

func plotReport() *benchReport {
	rep := &benchReport{Version: "0.1.0", CPU: "Test CPU 9000", Kernel: "avx2",
		Dataset: benchDataset{Name: "spectral", N: 20000, Dim: 384, NQ: 100, K: 10}}
	row := func(index, storage string, rerank, threads, ef, batch int, p50, recall float64) {
		r := benchRow{Index: index, Storage: storage, Rerank: rerank, Threads: threads, Ef: ef, Batch: batch, P50us: p50, RecallAtK: recall}
		if rerank > 0 {
			r.RerankStorage = "f32"
		}
		rep.Rows = append(rep.Rows, r)
	}
	row("flat", "e5m2", 0, 0, 0, 1, 900, 0.91)
	// Rows come in ef order per build, kinds and thread counts interleaved.
	for _, threads := range []int{0, 1} {
		row("hnsw", "e5m2", 0, threads, 64, 1, 120, 0.85)
		row("hnsw", "e5m2", 0, threads, 16, 1, 40, 0.62)
		row("hnsw", "e5m2", 0, threads, 16, 16, 400, 0.62) // a batch: not plotted
	}
	row("flat", "int8", 0, 0, 0, 1, 800, 0.99)
	row("hnsw", "int8", 0, 0, 16, 1, 35, 0.64)
	row("hnsw", "int8", 0, 0, 64, 1, 110, 0.9)
	row("hnsw", "int8", 4, 0, 16, 1, 50, 0.70)
	row("hnsw", "int8", 4, 0, 64, 1, 150, 0.97)
	return rep
}

// TestPlotCurves: one curve per (index, storage, rerank, threads), labelled
// with what it is; batches left out; ef order kept per curve.
func TestPlotCurves(t *testing.T) {
	cs := curves(plotReport())
	var labels []string
	for _, c := range cs {
		labels = append(labels, c.label())
	}
	require.Equal(t, []string{
		"flat e5m2 (exact scan), serial",
		"HNSW e5m2, serial",
		"HNSW e5m2, 1 worker + caller",
		"flat int8 (exact scan), serial",
		"HNSW int8, serial",
		"HNSW int8 + f32 rerank ×4, serial",
	}, labels)
	require.Equal(t, []int{64, 16}, cs[1].efs)
	require.Len(t, cs[2].pts, 2)
}

// TestPlotLayout: labelled axes, a log latency axis, recall within 0..1,
// a title naming the data set and the machine, and a legend entry per curve.
func TestPlotLayout(t *testing.T) {
	p, _, entries, err := recallPlot(plotReport())
	require.NoError(t, err)
	require.Contains(t, p.Title.Text, "spectral: 20000 × 384, 100 queries")
	require.Contains(t, p.Title.Text, "Test CPU 9000")
	require.Contains(t, p.X.Label.Text, "p50 latency")
	require.Contains(t, p.X.Label.Text, "log scale")
	require.Equal(t, "recall@10 against exact f32 search", p.Y.Label.Text)
	require.IsType(t, plot.LogScale{}, p.X.Scale)
	require.Equal(t, 1.0, p.Y.Max)
	require.GreaterOrEqual(t, p.Y.Min, 0.0)
	require.Less(t, p.Y.Min, 0.62)
	require.Less(t, p.X.Min, 35.0)
	require.Greater(t, p.X.Max, 900.0)
	// Six curves and the note on ef.
	require.Len(t, entries, 7)
	require.Equal(t, "numbers beside HNSW points: ef", entries[6])

	path := filepath.Join(t.TempDir(), "curve.png")
	require.NoError(t, plotCurve(plotReport(), path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	require.Greater(t, img.Bounds().Dx(), img.Bounds().Dy())

	rep := plotReport()
	for i := range rep.Rows {
		rep.Rows[i].Batch = 16
	}
	require.ErrorContains(t, plotCurve(rep, path), "no rows of one query per call")
}

// TestLogTicks: numbers at 1, 2 and 5 times powers of ten, so even less
// than a decade of latency has labels.
func TestLogTicks(t *testing.T) {
	var labels []string
	for _, tk := range logTicks(12, 90) {
		require.True(t, tk.Value >= 12 && tk.Value <= 90)
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"20", "50"}, labels)
	var wide []string
	for _, tk := range logTicks(8, 3000) {
		if tk.Label != "" {
			wide = append(wide, tk.Label)
		}
	}
	require.Equal(t, "10 20 50 100 200 500 1000 2000", strings.Join(wide, " "))
}

// TestRecallTicks: a label every 0.1 of recall, minor marks between.
func TestRecallTicks(t *testing.T) {
	var labels []string
	minor := 0
	for _, tk := range recallTicks(0.5, 1) {
		if tk.Label == "" {
			minor++
		} else {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, "0.5 0.6 0.7 0.8 0.9 1.0", strings.Join(labels, " "))
	require.Equal(t, 5, minor)
	labels = labels[:0]
	for _, tk := range recallTicks(0.8, 1) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, "0.80 0.85 0.90 0.95 1.00", strings.Join(labels, " "))
}

// TestPlotCommand: astral plot merges the reports of one dataset (an HNSW
// run and an IVF run) into one plot, labels IVF points by nprobe, leaves
// out ranked and budgeted rows, and refuses reports of other datasets.
func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rep *benchReport) string {
		b, err := json.Marshal(rep)
		require.NoError(t, err)
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, b, 0o644))
		return path
	}
	hnswRep := plotReport()
	ivfRep := plotReport()
	ivfRep.Rows = []benchRow{
		{Index: "flat", Storage: "e5m2", Batch: 1, P50us: 900, RecallAtK: 0.91},
		{Index: "ivf", Storage: "e5m2", Batch: 1, NProbe: 8, P50us: 60, RecallAtK: 0.8},
		{Index: "ivf", Storage: "e5m2", Batch: 1, NProbe: 32, P50us: 200, RecallAtK: 0.9},
		{Index: "ivf", Storage: "e5m2", Batch: 1, NProbe: 32, P50us: 260, RecallAtK: 0.95, Rank: "1:1:1:1000"},
		{Index: "ivf", Storage: "e5m2", Batch: 1, NProbe: 32, P50us: 100, RecallAtK: 0.5, BudgetUs: 100},
	}
	a, b := write("hnsw.json", hnswRep), write("ivf.json", ivfRep)

	merged, err := mergeReports([]string{a, b})
	require.NoError(t, err)
	cs := curves(merged)
	last := cs[len(cs)-1]
	require.Equal(t, "IVF e5m2, serial", last.label())
	require.Equal(t, []int{8, 32}, last.efs, "nprobe labels; ranked and budgeted rows left out")
	_, _, entries, err := recallPlot(merged)
	require.NoError(t, err)
	require.Equal(t, []string{"numbers beside HNSW points: ef", "numbers beside IVF points: nprobe"}, entries[len(entries)-2:])

	out := filepath.Join(dir, "both.svg")
	code, stdoutText, errOut := runCLI(t, dir, "plot", "--out", out, a, b)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, stdoutText, "from 2 reports")
	svg, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(svg), "<svg")

	other := plotReport()
	other.Dataset.N = 1000000
	c := write("other.json", other)
	code, _, errOut = runCLI(t, dir, "plot", "--out", out, a, c)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "a plot compares one dataset")
	code, _, errOut = runCLI(t, dir, "plot", a)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--out is required")
}
