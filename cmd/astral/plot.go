package main

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotCurve draws recall@k against p50 latency: one line per HNSW thread
// count through its ef values, and the flat rows as points; unfiltered rows
// only.
func plotCurve(rep *benchReport, path string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %d × %d, recall@%d vs p50", rep.Dataset.Name, rep.Dataset.N, rep.Dataset.Dim, rep.Dataset.K)
	p.X.Label.Text = "p50 latency (µs, log scale)"
	p.Y.Label.Text = fmt.Sprintf("recall@%d", rep.Dataset.K)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	curves := map[int]plotter.XYs{}
	var order []int
	var flatPts plotter.XYs
	for _, r := range rep.Rows {
		if r.Filter != "" {
			continue // the curve is of unfiltered search
		}
		pt := plotter.XY{X: r.P50us, Y: r.RecallAtK}
		if r.Index == "hnsw" && r.Batch == 1 {
			if _, ok := curves[r.Threads]; !ok {
				order = append(order, r.Threads)
			}
			curves[r.Threads] = append(curves[r.Threads], pt)
		} else if r.Index == "flat" && r.Batch == 1 {
			flatPts = append(flatPts, pt)
		}
	}
	for i, t := range order {
		line, points, err := plotter.NewLinePoints(curves[t])
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(fmt.Sprintf("HNSW (built by %d worker(s) + caller; each search on one thread)", t), line, points)
	}
	if len(flatPts) > 0 {
		sc, err := plotter.NewScatter(flatPts)
		if err != nil {
			return err
		}
		sc.Color = color.RGBA{R: 200, A: 255}
		sc.Radius = vg.Points(4)
		p.Add(sc)
		p.Legend.Add("flat (exact scan of E5M2)", sc)
	}
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(30)
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}
