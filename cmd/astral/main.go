// Command astral benchmarks Astral, exports its fixtures, and builds,
// inspects and queries index files.
//
//	astral bench   --data random --index flat --threads 0,1 --json out.json
//	astral fixture --data spectral --out base.fvecs --queries-out query.fvecs
//	astral build   --data random --index hnsw --out memories.idx
//	astral inspect memories.idx
//	astral query   --index-file memories.idx --queries query.fvecs --k 5
//	astral plot    --out curve.png hnsw.json ivf.json
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

const usage = `usage: astral <command> [flags]

commands:
  bench     measure recall and latency on a fixture, .fvecs files or a saved index
  fixture   export a fixture as .fvecs (base and queries)
  build     build an index from a fixture or .fvecs and save it as an index file
  add       add vectors to an index file and save it again (an IVF file is appended to)
  inspect   print an index file's header, sections, checksums and stats; verify it
  query     query a saved index with vectors from .fvecs; print ids and scores
  plot      draw the recall-latency curves of one or more bench --json reports
  version   print the version

Run 'astral <command> -h' for what a command does and its flags.
`

var commands = map[string]func([]string) error{
	"bench":   runBench,
	"fixture": runFixture,
	"build":   runBuild,
	"add":     runAdd,
	"inspect": runInspect,
	"query":   runQuery,
	"plot":    runPlot,
}

func main() {
	os.Exit(run(os.Args[1:]))
}

// run runs one command line and returns the exit status: 0 done (or help
// asked for), 1 the work failed, 2 a command line that cannot run.
func run(args []string) int {
	if len(args) < 1 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	name := args[0]
	switch name {
	case "version":
		fmt.Fprintln(stdout, versionLine())
		return 0
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "astral: unknown command %q\n\n%s", name, usage)
		return 2
	}
	err := cmd(args[1:])
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "astral %s: %s\nRun 'astral %s -h' for the flags.\n", name, message(err), name)
		return 2
	}
	fmt.Fprintf(os.Stderr, "astral %s: %s\n", name, message(err))
	return 1
}
