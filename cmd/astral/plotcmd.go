package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// maxPlotReports bounds the reports one plot merges.
const maxPlotReports = 16

// runPlot draws the recall-latency curves of one or more --json reports of
// the same dataset in one plot: e.g. an HNSW run and an IVF run, which are
// separate bench commands.
func runPlot(args []string) error {
	var out string
	c := newCommand("plot", "astral plot --out FILE.png REPORT.json [REPORT.json...]",
		`Draws the recall@k against p50 curves of astral bench --json reports in one
plot, as --plot does for one run: one curve per index, storage, rerank and
thread count, the ef (HNSW) or nprobe (IVF) beside each point, flat rows
as single points. The reports must be of the same dataset (name, vectors,
dimension, queries and k); the title names the first one's machine.`,
		"astral plot --out curve.png hnsw.json ivf.json")
	c.str(&out, "out", "", "the plot `FILE` (.png, .svg or .pdf)", "--out curve.png")
	c.operands = maxPlotReports
	if err := c.parse(args); err != nil {
		return err
	}
	if out == "" {
		return usagef("--out is required")
	}
	if err := checkPlotPath(out); err != nil {
		return err
	}
	if c.fs.NArg() == 0 {
		return usagef("want at least one report (astral bench --json FILE)")
	}
	merged, err := mergeReports(c.fs.Args())
	if err != nil {
		return err
	}
	if err := plotCurve(merged, out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d rows from %d reports)\n", out, len(merged.Rows), c.fs.NArg())
	return nil
}

// mergeReports reads the reports at paths and returns the first with every
// report's rows, in order; they must share a dataset.
func mergeReports(paths []string) (*benchReport, error) {
	var merged *benchReport
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var rep benchReport
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, fmt.Errorf("%s: not an astral bench --json report: %v", path, err)
		}
		if merged == nil {
			merged = &rep
			continue
		}
		if rep.Dataset != merged.Dataset {
			return nil, fmt.Errorf("%s: dataset %+v, but %s has %+v: a plot compares one dataset", path, rep.Dataset, paths[0], merged.Dataset)
		}
		merged.Rows = append(merged.Rows, rep.Rows...)
	}
	return merged, nil
}
