package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
)

// baseSource is a data set's stored vectors, read a block of rows at a
// time: a generated fixture (fixture.Stream, Generate's rows bit for bit)
// or an .fvecs file (fixture.FvecsFile). Memory stays at a block or two
// whatever n, so ten million vectors never sit in memory whole.
type baseSource struct {
	name   string
	n, dim int
	// blocks calls emit with each block of at most block rows, in row
	// order, first being the block's first row; rows is reused after emit
	// returns.
	blocks func(block int, emit func(first int, rows []float32) error) error
	close  func() error
}

// openBase opens --data: a fixture of n × dim, or an .fvecs file.
func openBase(data string, generated bool, n, dim int) (*baseSource, error) {
	if generated {
		return &baseSource{name: data, n: n, dim: dim, close: func() error { return nil },
			blocks: func(block int, emit func(int, []float32) error) error {
				first := 0
				return fixture.Stream(data, n, dim, false, block, func(rows []float32) error {
					err := emit(first, rows)
					first += len(rows) / dim
					return err
				})
			}}, nil
	}
	f, err := fixture.OpenFvecsFile(data)
	if err != nil {
		return nil, err
	}
	if f.Dim() == 0 || f.N() == 0 {
		f.Close()
		return nil, fmt.Errorf("%s holds no vectors", data)
	}
	if f.Dim() > astral.MaxDim {
		f.Close()
		return nil, fmt.Errorf("%s: dimension %d; an index takes 1 to %d", data, f.Dim(), astral.MaxDim)
	}
	name := strings.TrimSuffix(filepath.Base(data), filepath.Ext(data))
	return &baseSource{name: name, n: f.N(), dim: f.Dim(), blocks: f.Blocks, close: f.Close}, nil
}

// addStep is the rows per Add when building: buildIndex's, so a streamed
// build makes the same calls and saves the same bytes.
const addStep = 10000

// buildStreamed is buildIndex reading the vectors from src a block at a
// time: ids 0 to n-1 in order, addStep rows per Add.
func buildStreamed(rt *astral.Runtime, opts []astral.Option, src *baseSource, what string) (*astral.Index, float64, error) {
	x, err := astral.NewIndex(rt, opts...)
	if err != nil {
		return nil, 0, err
	}
	bar := newProgress(fmt.Sprintf("building %s, %d × %d", what, src.n, src.dim), src.n)
	start := time.Now()
	idBuf := make([]uint64, addStep)
	err = src.blocks(addStep, func(first int, rows []float32) error {
		m := len(rows) / src.dim
		for i := range m {
			idBuf[i] = uint64(first + i)
		}
		if err := x.Add(idBuf[:m], rows); err != nil {
			return err
		}
		bar.set(first + m)
		return nil
	})
	if err != nil {
		bar.done()
		x.Close()
		return nil, 0, err
	}
	x.Wait()
	took := time.Since(start).Seconds()
	bar.done()
	return x, took, nil
}

// procStatus is a field of /proc/self/status in bytes ("VmRSS",
// "VmHWM"), and false where there is none (not Linux).
func procStatus(field string) (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}
