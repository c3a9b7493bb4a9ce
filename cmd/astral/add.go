package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
)

// runAdd opens an index file, adds vectors (a fixture's fresh draws or an
// .fvecs file's rows) and saves it to the same file, reporting what the
// save wrote: for a trained IVF index only what changed, appended.
func runAdd(args []string) error {
	c := newCommand("add", "astral add --index-file FILE.idx --data ... [flags]",
		`Opens an index file, adds vectors under ids first-id, first-id+1, ... and
saves the index to the same file. A trained IVF index appends the slots
its partitions gained, a new directory and header instead of rewriting
the file (docs/FORMAT.md, "Appending saves"); the line printed says which
it did and how many bytes it wrote.`,
		"astral add --index-file world.idx --data spectral --n 1000",
		"astral add --index-file world.idx --data new.fvecs --first-id 5000000")
	var path, data string
	var n, firstID, threads int
	c.str(&path, "index-file", "", "the index `FILE` to add to and save (required)", "--index-file world.idx")
	c.str(&data, "data", "", "a fixture (random, spectral, clustered: its query stream, vectors not in a built base) or an .fvecs file", "--data spectral")
	c.num(&n, "n", 1000, "vectors to add (generated fixtures only)", "--n 1000")
	c.num(&firstID, "first-id", 1<<32, "the first new id (astral build numbers from 0)", "--first-id 1000000")
	c.num(&threads, "threads", astral.ThreadsAuto, "runtime workers, not counting the caller: "+threadsWant, "--threads 1")
	if err := c.parse(args); err != nil {
		return err
	}
	if path == "" || data == "" {
		return usagef("--index-file and --data are required")
	}
	generated := slices.Contains(fixture.Names(), data)
	if !generated {
		if err := c.refuse("to an .fvecs file: its rows are the vectors", "n"); err != nil {
			return err
		}
	}
	if n < 1 || firstID < 0 {
		return usagef("--n %d, --first-id %d: want n ≥ 1 and an id ≥ 0", n, firstID)
	}
	if threads < astral.ThreadsAuto || threads > astral.MaxThreads {
		return usagef("--threads %d: want %s", threads, threadsWant)
	}
	rt, err := astral.NewRuntime(astral.WithThreads(threads))
	if err != nil {
		return err
	}
	defer rt.Close()
	x, err := astral.OpenFile(rt, path)
	if err != nil {
		return err
	}
	defer x.Close()
	dim := x.Config().Dim
	var vecs []float32
	if generated {
		set, err := fixture.Generate(data, 1, n, dim)
		if err != nil {
			return err
		}
		vecs = set.Queries
	} else {
		set, err := loadBase(data)
		if err != nil {
			return err
		}
		if set.Dim != dim {
			return fmt.Errorf("%s: dimension %d, the index's is %d", data, set.Dim, dim)
		}
		vecs = set.Base
	}
	count := len(vecs) / dim
	ids := make([]uint64, count)
	for i := range ids {
		ids[i] = uint64(firstID + i)
	}
	start := time.Now()
	if err := x.Add(ids, vecs); err != nil {
		return err
	}
	x.Wait()
	addS := time.Since(start).Seconds()
	start = time.Now()
	if err := x.SaveFile(path); err != nil {
		return err
	}
	saveS := time.Since(start).Seconds()
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	ss := x.SaveStats()
	how := "wrote the whole file"
	if ss.Appended {
		how = "appended"
	}
	fmt.Fprintf(stdout, "added %d vectors (ids %d to %d) in %.2f s; saved %s in %.2f s: %s, %d bytes of %d (%.2f%%)\n",
		count, firstID, firstID+count-1, addS, path, saveS, how, ss.Bytes, fi.Size(), 100*float64(ss.Bytes)/float64(fi.Size()))
	return nil
}
