package main

import (
	"fmt"
	"slices"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
)

func runFixture(args []string) error {
	c := newCommand("fixture", "astral fixture --out BASE.fvecs --queries-out QUERIES.fvecs [flags]",
		`Generates one of the benchmark fixtures (docs/BENCHMARKS.md gives their recipes) from
fixed seeds and writes its stored vectors and queries as .fvecs, so other
engines can be measured on the very same data.`,
		"astral fixture --data spectral --out base.fvecs --queries-out query.fvecs",
		"astral fixture --data clustered --n 20000 --nq 200 --dim 128 --out c.fvecs --queries-out cq.fvecs")
	var data, out, qout string
	var n, nq, dim int
	c.str(&data, "data", "random", "fixture `NAME`: random, spectral or clustered", "--data spectral")
	c.num(&n, "n", 100000, "stored vectors", "--n 20000")
	c.num(&nq, "nq", 64, "queries", "--nq 1000")
	c.num(&dim, "dim", 384, fmt.Sprintf("dimension, 1 to %d", astral.MaxDim), "--dim 128")
	c.str(&out, "out", "", "the stored vectors' .fvecs `FILE` to write (required)", "--out base.fvecs")
	c.str(&qout, "queries-out", "", "the queries' .fvecs `FILE` to write (required)", "--queries-out query.fvecs")
	if err := c.parse(args); err != nil {
		return err
	}
	if out == "" || qout == "" {
		return usagef("--out and --queries-out are required")
	}
	if err := checkFixtureShape(data, n, nq, dim); err != nil {
		return err
	}
	if err := checkOutputs(nil, output{"out", out}, output{"queries-out", qout}); err != nil {
		return err
	}
	if err := streamFixture(data, n, nq, dim, out, qout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d × %d) and %s (%d queries)\n", out, n, dim, qout, nq)
	return nil
}

// streamFixture writes the fixture a block at a time, so memory stays
// bounded whatever n (10,000,000 × 384 would be 15 GiB at once).
func streamFixture(data string, n, nq, dim int, out, qout string) error {
	t := startTicker(fmt.Sprintf("generating %s, %d × %d and %d queries", data, n, dim, nq))
	defer t.stop()
	if err := fixture.StreamFvecsFile(out, data, n, dim, false); err != nil {
		return err
	}
	return fixture.StreamFvecsFile(qout, data, nq, dim, true)
}

// checkFixtureShape refuses a fixture the generator or an index cannot take.
func checkFixtureShape(data string, n, nq, dim int) error {
	if !slices.Contains(fixture.Names(), data) {
		return usagef("--data %q: want random, spectral or clustered", data)
	}
	if n < 1 {
		return usagef("--n %d: want 1 or more", n)
	}
	if nq < 1 {
		return usagef("--nq %d: want 1 or more", nq)
	}
	if dim < 1 || dim > astral.MaxDim {
		return usagef("--dim %d: want 1 to %d, the most an index takes", dim, astral.MaxDim)
	}
	return nil
}

// generate makes a fixture, showing that it works on a terminal.
func generate(name string, n, nq, dim int) (*fixture.Set, error) {
	t := startTicker(fmt.Sprintf("generating %s, %d × %d and %d queries", name, n, dim, nq))
	defer t.stop()
	return fixture.Generate(name, n, nq, dim)
}
