// Command astral benchmarks Astral and exports its fixtures.
//
//	astral bench   --data random --index flat --threads 0,1 --json out.json
//	astral fixture --data spectral --out base.fvecs --queries-out query.fvecs
//	astral build   --data random --index hnsw --out memories.idx
//	astral inspect memories.idx
package main

import (
	"fmt"
	"os"
)

const usage = `usage: astral <command> [flags]

commands:
  bench     measure recall and latency on a fixture (see BENCH.md)
  fixture   export a fixture as .fvecs (base and queries)
  build     build an index from a fixture or .fvecs and save it as an index file
  inspect   print an index file's header, sections, checksums and stats; verify it
  version   print the version

Run 'astral <command> -h' for a command's flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "bench":
		err = runBench(os.Args[2:])
	case "fixture":
		err = runFixture(os.Args[2:])
	case "build":
		err = runBuild(os.Args[2:])
	case "inspect":
		err = runInspect(os.Args[2:])
	case "version":
		fmt.Println(versionLine())
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "astral: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "astral:", err)
		os.Exit(1)
	}
}
