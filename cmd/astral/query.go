package main

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/internal/fixture"
)

// runQuery searches a saved index with the vectors of an .fvecs file and
// prints each query's results.
func runQuery(args []string) error {
	c := newCommand("query", "astral query --index-file FILE.idx --queries FILE.fvecs [flags]",
		`Opens a saved index (mapped, every checksum checked) and searches it with
each vector of an .fvecs file, printing one line per result: the query's
row in the file, the rank, the stored id and the score (cosine and dot:
higher is closer; l2: the squared distance, lower is closer). Scores are
printed in full, so two runs can be compared bit for bit.`,
		"astral query --index-file memories.idx --queries query.fvecs --k 5",
		"astral query --index-file memories.idx --queries query.fvecs --first 3 --ef 256")
	var indexFile, queries string
	var k, ef, first, threads int
	c.str(&indexFile, "index-file", "", "the index `FILE` to search (required)", "--index-file memories.idx")
	c.str(&queries, "queries", "", "the queries' .fvecs `FILE`, of the index's dimension (required)", "--queries query.fvecs")
	c.num(&k, "k", 10, fmt.Sprintf("results per query, 1 to %d", astral.MaxK), "--k 5")
	c.num(&ef, "ef", 0, fmt.Sprintf("HNSW: search breadth, 1 to %d; default: the one saved in the file", astral.MaxEf), "--ef 256")
	c.num(&first, "first", 0, "search only the first N queries of the file (0: all)", "--first 3")
	c.num(&threads, "threads", astral.ThreadsAuto, "runtime workers a flat scan is split over, not counting the caller: "+threadsWant, "--threads 0")
	if err := c.parse(args); err != nil {
		return err
	}
	switch {
	case indexFile == "" || queries == "":
		return usagef("--index-file and --queries are required")
	case k < 1 || k > astral.MaxK:
		return usagef("--k %d: want 1 to %d", k, astral.MaxK)
	case c.given("ef") && (ef < 1 || ef > astral.MaxEf):
		return usagef("--ef %d: want 1 to %d", ef, astral.MaxEf)
	case first < 0:
		return usagef("--first %d: want 0 (all) or more", first)
	case threads < astral.ThreadsAuto || threads > astral.MaxThreads:
		return usagef("--threads %d: want %s", threads, threadsWant)
	}
	qs, dim, err := fixture.LoadFvecsFile(queries)
	if err != nil {
		return err
	}
	rt, err := astral.NewRuntime(astral.WithThreads(threads))
	if err != nil {
		return err
	}
	defer rt.Close()
	x, err := astral.OpenFile(rt, indexFile)
	if err != nil {
		return fmt.Errorf("--index-file %s: %v", indexFile, message(err))
	}
	defer x.Close()
	st := x.Stats()
	if dim != st.Dim || len(qs) == 0 {
		return fmt.Errorf("--queries %s: dimension %d and %d vectors; %s has dimension %d", queries, dim, len(qs)/max(dim, 1), indexFile, st.Dim)
	}
	if c.given("ef") {
		if st.Kind != astral.KindHNSW {
			return usagef("--ef does not apply: %s holds a %s index, which has no graph", indexFile, st.Kind)
		}
		if err := x.SetEfSearch(ef); err != nil {
			return err
		}
	}
	nq := len(qs) / dim
	if first > 0 {
		nq = min(nq, first)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "query\trank\tid\tscore")
	res := make([]astral.Result, k)
	for q := range nq {
		res, err = x.Query(res[:0], qs[q*dim:(q+1)*dim], k)
		if err != nil {
			return fmt.Errorf("query %d: %v", q, message(err))
		}
		for i, r := range res {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%s\n", q, i+1, r.ID, strconv.FormatFloat(float64(r.Score), 'g', -1, 32))
		}
	}
	return tw.Flush()
}
