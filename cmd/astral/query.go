package main

import (
	"fmt"
	"strconv"
	"strings"
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
row in the file, the rank, the stored id, the score (cosine and dot:
higher is closer; l2: the squared distance, lower is closer) and the plan
that answered (scan, direct or graph). Scores are printed in full, so two
runs can be compared bit for bit. --owner, --tags-*, --allow and --deny
scope the search to the records whose attributes (saved with the index by
the host that built it) pass them all.`,
		"astral query --index-file memories.idx --queries query.fvecs --k 5",
		"astral query --index-file memories.idx --queries query.fvecs --first 3 --ef 256",
		"astral query --index-file npc.idx --queries q.fvecs --owner 42 --tags-any 3,7 --deny 1001")
	var indexFile, queries, owner, tagsAll, tagsAny, tagsNone, allow, deny string
	var k, ef, nprobe, first, threads int
	c.str(&indexFile, "index-file", "", "the index `FILE` to search (required)", "--index-file memories.idx")
	c.str(&queries, "queries", "", "the queries' .fvecs `FILE`, of the index's dimension (required)", "--queries query.fvecs")
	c.num(&k, "k", 10, fmt.Sprintf("results per query, 1 to %d", astral.MaxK), "--k 5")
	c.num(&ef, "ef", 0, fmt.Sprintf("HNSW: search breadth, 1 to %d; default: the one saved in the file", astral.MaxEf), "--ef 256")
	c.num(&nprobe, "nprobe", 0, "IVF: partitions probed per query, 1 to the file's nlist; default: the one saved in the file", "--nprobe 32")
	c.num(&first, "first", 0, "search only the first N queries of the file (0: all)", "--first 3")
	c.num(&threads, "threads", astral.ThreadsAuto, "runtime workers a flat scan is split over, not counting the caller: "+threadsWant, "--threads 0")
	c.str(&owner, "owner", "", "only records of this owner key (a whole number; 0: any)", "--owner 42")
	c.str(&tagsAll, "tags-all", "", "only records holding every one of these tags (a comma `LIST` of tag numbers 0 to 63)", "--tags-all 1,4")
	c.str(&tagsAny, "tags-any", "", "only records holding at least one of these tags (a comma `LIST`, 0 to 63)", "--tags-any 3,7")
	c.str(&tagsNone, "tags-none", "", "only records holding none of these tags (a comma `LIST`, 0 to 63)", "--tags-none 2")
	c.str(&allow, "allow", "", "only these ids (a comma `LIST`)", "--allow 5,17,230")
	c.str(&deny, "deny", "", "never these ids (a comma `LIST`)", "--deny 1001")
	if err := c.parse(args); err != nil {
		return err
	}
	var filter astral.Filter
	var err error
	if filter.Owner, err = uintFlag("owner", owner); err != nil {
		return err
	}
	if filter.AllTags, err = tagMask("tags-all", tagsAll); err != nil {
		return err
	}
	if filter.AnyTags, err = tagMask("tags-any", tagsAny); err != nil {
		return err
	}
	if filter.NoTags, err = tagMask("tags-none", tagsNone); err != nil {
		return err
	}
	if filter.Allow, err = idList("allow", allow); err != nil {
		return err
	}
	if filter.Deny, err = idList("deny", deny); err != nil {
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
	if c.given("nprobe") {
		if st.Kind != astral.KindIVF {
			return usagef("--nprobe does not apply: %s holds a %s index, which has no partitions", indexFile, st.Kind)
		}
		if err := x.SetNProbe(nprobe); err != nil {
			return usagef("--nprobe %d: want 1 to the file's nlist (%d)", nprobe, x.Config().NList)
		}
	}
	nq := len(qs) / dim
	if first > 0 {
		nq = min(nq, first)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "query\trank\tid\tscore\tplan")
	res := make([]astral.Result, k)
	for q := range nq {
		var plan astral.Plan
		res, plan, err = x.QueryWith(res[:0], qs[q*dim:(q+1)*dim], astral.QueryOptions{K: k, Filter: filter})
		if err != nil {
			return fmt.Errorf("query %d: %v", q, message(err))
		}
		for i, r := range res {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\n", q, i+1, r.ID, strconv.FormatFloat(float64(r.Score), 'g', -1, 32), plan)
		}
	}
	return tw.Flush()
}

// uintFlag parses a whole number flag; empty is 0.
func uintFlag(name, s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, usagef("--%s %s: want a whole number, 0 to 2^64-1", name, s)
	}
	return v, nil
}

// idList parses a comma list of ids; empty is no list (nil).
func idList(name, s string) ([]uint64, error) {
	if s == "" {
		return nil, nil
	}
	var ids []uint64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, usagef("--%s %s: %q is not an id (a whole number)", name, s, strings.TrimSpace(f))
		}
		ids = append(ids, v)
	}
	return ids, nil
}

// tagMask turns a comma list of tag numbers into a tag mask.
func tagMask(name, s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	tags, err := intList(name, s)
	if err != nil {
		return 0, err
	}
	if err := inRange(name, tags, 0, 63, "tag numbers 0 to 63"); err != nil {
		return 0, err
	}
	var mask uint64
	for _, t := range tags {
		mask |= 1 << t
	}
	return mask, nil
}
