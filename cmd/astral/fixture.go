package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/astral-engine/astral/internal/fixture"
)

func runFixture(args []string) error {
	fs := flag.NewFlagSet("fixture", flag.ContinueOnError)
	data := fs.String("data", "random", "fixture: random, spectral or clustered")
	n := fs.Int("n", 100000, "stored vectors")
	nq := fs.Int("nq", 64, "queries")
	dim := fs.Int("dim", 384, "dimension")
	out := fs.String("out", "", "base vectors .fvecs (required)")
	qout := fs.String("queries-out", "", "queries .fvecs (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *qout == "" {
		return errors.New("fixture: --out and --queries-out are required")
	}
	set, err := fixture.Generate(*data, *n, *nq, *dim)
	if err != nil {
		return err
	}
	if err := fixture.SaveFvecsFile(*out, set.Base, set.Dim); err != nil {
		return err
	}
	if err := fixture.SaveFvecsFile(*qout, set.Queries, set.Dim); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d × %d) and %s (%d queries)\n", *out, set.N(), set.Dim, *qout, set.NQ())
	return nil
}
