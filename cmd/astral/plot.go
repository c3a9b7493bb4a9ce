package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotFormats are the --plot extensions gonum writes.
var plotFormats = []string{"png", "svg", "pdf"}

func checkPlotPath(path string) error {
	if path == "" {
		return nil
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if !slices.Contains(plotFormats, ext) {
		return usagef("--plot %s: want a .png, .svg or .pdf file", path)
	}
	return nil
}

// curve is the rows of one (index, storage, rerank, threads): a line
// through its ef values for HNSW, one point for flat.
type curve struct {
	index, storage, rerankStorage string
	rerank, threads               int
	pts                           plotter.XYs
	efs                           []int
}

func (c *curve) label() string {
	s := c.index
	if s == "hnsw" {
		s = "HNSW"
	}
	if s == "ivf" {
		s = "IVF"
	}
	s += " " + c.storage
	if c.rerank > 0 {
		s += fmt.Sprintf(" + %s rerank ×%d", c.rerankStorage, c.rerank)
	}
	if c.index == "flat" {
		s += " (exact scan)"
	}
	if c.threads == 0 {
		return s + ", serial"
	}
	if c.threads == 1 {
		return s + ", 1 worker + caller"
	}
	return s + fmt.Sprintf(", %d workers + caller", c.threads)
}

// curves groups the plain one-query-per-call rows (no filter, ranking,
// budget or post-filter), in the order they came. A point's label is its
// ef (HNSW) or nprobe (IVF).
func curves(rep *benchReport) []*curve {
	var out []*curve
	for _, r := range rep.Rows {
		if r.Batch != 1 || r.Filter != "" || r.Rank != "" || r.BudgetUs != 0 || r.Postfilter != 0 {
			continue
		}
		i := slices.IndexFunc(out, func(c *curve) bool {
			return c.index == r.Index && c.storage == r.Storage && c.rerank == r.Rerank && c.rerankStorage == r.RerankStorage && c.threads == r.Threads
		})
		if i < 0 {
			out = append(out, &curve{index: r.Index, storage: r.Storage, rerank: r.Rerank, rerankStorage: r.RerankStorage, threads: r.Threads})
			i = len(out) - 1
		}
		out[i].pts = append(out[i].pts, plotter.XY{X: r.P50us, Y: r.RecallAtK})
		out[i].efs = append(out[i].efs, max(r.Ef, r.NProbe))
	}
	return out
}

// plotCurve draws recall@k against p50 latency (log scale): one curve per
// (index, storage, rerank, threads), the ef beside each HNSW point, flat
// rows as single points; the legend sits beside the plot so it hides none.
func plotCurve(rep *benchReport, path string) error {
	p, legend, entries, err := recallPlot(rep)
	if err != nil {
		return fmt.Errorf("--plot %s: %v", path, err)
	}
	// The legend gets the width its longest entry needs, beside a plot
	// of fixed size.
	legendW := 0 * vg.Inch
	for _, e := range entries {
		legendW = max(legendW, legend.TextStyle.Rectangle(e).Size().X)
	}
	legendW += legend.ThumbnailWidth + vg.Points(24)
	w, h := 6.4*vg.Inch+legendW, 5.5*vg.Inch
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	canvas, err := draw.NewFormattedCanvas(w, h, ext)
	if err != nil {
		return err
	}
	dc := draw.New(canvas)
	p.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
	legend.Draw(draw.Crop(dc, w-legendW+vg.Points(8), -vg.Points(4), 0, -vg.Points(50)))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := canvas.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// recallPlot lays out the plot and its legend, whose texts it returns.
func recallPlot(rep *benchReport) (*plot.Plot, *plot.Legend, []string, error) {
	cs := curves(rep)
	if len(cs) == 0 {
		return nil, nil, nil, errors.New("no rows of one query per call to plot (add 1 to --batch)")
	}
	d := rep.Dataset
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %d × %d, %d queries, recall@%d vs p50 latency\n%s, %d logical CPUs; astral %s, kernel %s",
		d.Name, d.N, d.Dim, d.NQ, d.K, machineName(rep.CPU), runtime.NumCPU(), rep.Version, strings.Split(rep.Kernel, "/")[0])
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = "p50 latency per query, µs (log scale; one query per call)"
	p.Y.Label.Text = fmt.Sprintf("recall@%d against exact f32 search", d.K)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.TickerFunc(logTicks)
	p.Y.Tick.Marker = plot.TickerFunc(recallTicks)
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	var entries []string
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(9)
	minX, maxX, minY := math.Inf(1), 0.0, 1.0
	colors := map[string]int{}
	threadStyles := map[int]int{}
	efNote, probeNote := false, false
	// One colour per stored kind (and rerank), so that a flat point and
	// the curve of the same kind match; per index too when a merged plot
	// holds more than one kind of approximate index (IVF beside HNSW).
	approx := map[string]bool{}
	for _, c := range cs {
		if c.index != "flat" {
			approx[c.index] = true
		}
	}
	for _, c := range cs {
		for _, pt := range c.pts {
			minX, maxX, minY = min(minX, pt.X), max(maxX, pt.X), min(minY, pt.Y)
		}
		// One dash per thread count.
		ck := fmt.Sprint(c.storage, c.rerank, c.rerankStorage)
		if len(approx) > 1 && c.index != "flat" {
			ck += c.index
		}
		if _, ok := colors[ck]; !ok {
			colors[ck] = len(colors)
		}
		if _, ok := threadStyles[c.threads]; !ok {
			threadStyles[c.threads] = len(threadStyles)
		}
		col := plotutil.Color(colors[ck])
		if c.index == "flat" {
			sc, err := plotter.NewScatter(c.pts)
			if err != nil {
				return nil, nil, nil, err
			}
			sc.Color, sc.Shape, sc.Radius = col, draw.BoxGlyph{}, vg.Points(4)
			p.Add(sc)
			legend.Add(c.label(), sc)
			entries = append(entries, c.label())
			continue
		}
		order := make([]int, len(c.pts))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return c.efs[a] - c.efs[b] })
		pts, labels := make(plotter.XYs, len(order)), make([]string, len(order))
		for i, j := range order {
			pts[i], labels[i] = c.pts[j], fmt.Sprint(c.efs[j])
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, nil, nil, err
		}
		line.Color, points.Color = col, col
		line.Dashes = plotutil.Dashes(threadStyles[c.threads])
		points.Shape, points.Radius = draw.CircleGlyph{}, vg.Points(2.5)
		efLabels, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
		if err != nil {
			return nil, nil, nil, err
		}
		for i := range efLabels.TextStyle {
			efLabels.TextStyle[i].Font.Size = vg.Points(8)
			efLabels.TextStyle[i].Color = col
		}
		// Curves of other thread counts often overlap: put their labels on
		// the other side of the point.
		if threadStyles[c.threads]%2 == 0 {
			efLabels.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(-11)}
		} else {
			efLabels.Offset = vg.Point{X: vg.Points(-14), Y: vg.Points(4)}
		}
		p.Add(line, points, efLabels)
		legend.Add(c.label(), line, points)
		entries = append(entries, c.label())
		if c.index == "ivf" {
			probeNote = true
		} else {
			efNote = true
		}
	}
	for _, n := range []struct {
		on   bool
		text string
	}{{efNote, "numbers beside HNSW points: ef"}, {probeNote, "numbers beside IVF points: nprobe"}} {
		if n.on {
			legend.Add(n.text)
			entries = append(entries, n.text)
		}
	}
	// Recall is 0 to 1: show from a little under the lowest point to 1.
	p.Y.Min, p.Y.Max = max(0, math.Floor(minY*10-0.5)/10), 1
	p.X.Min, p.X.Max = minX/1.3, maxX*1.5
	return p, &legend, entries, nil
}

// logTicks labels 1, 2 and 5 times each power of ten, so a range of less
// than a decade still shows numbers.
func logTicks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = fmt.Sprintf("%g", v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// recallTicks labels every 0.1 of recall (0.05 on a short range), with
// minor marks between.
func recallTicks(lo, hi float64) []plot.Tick {
	step := 0.1
	if hi-lo < 0.3 {
		step = 0.05
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / step * 2); i/2*step <= hi+1e-9; i++ {
		t := plot.Tick{Value: i / 2 * step}
		if int(i)%2 == 0 {
			if step == 0.1 {
				t.Label = strconv.FormatFloat(math.Round(t.Value*10)/10, 'f', 1, 64)
			} else {
				t.Label = strconv.FormatFloat(math.Round(t.Value*20)/20, 'f', 2, 64)
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// machineName is the CPU's brand name, or a stand-in when it has none.
func machineName(cpu string) string {
	if strings.TrimSpace(cpu) == "" {
		return "unknown CPU"
	}
	return strings.TrimSpace(cpu)
}
