package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/astral-engine/astral/astral"
)

// runInspect prints an index file's header, sections, checksums and
// statistics. It checksums every section and then opens the index (which
// checks every count and link); a damaged file makes it fail with a
// one-line reason after printing what could be read.
func runInspect(args []string) error {
	c := newCommand("inspect", "astral inspect FILE.idx",
		`Prints an index file's header, sections, checksums and statistics. It
checksums every section and then opens the index, which checks every count
and link; a damaged file fails with a one-line reason after what could be
read is printed. It has no flags besides -h.`,
		"astral inspect memories.idx")
	c.operands = 1
	if err := c.parse(args); err != nil {
		return err
	}
	if c.fs.NArg() != 1 {
		return usagef("want one index file")
	}
	path := c.fs.Arg(0)
	info, err := astral.InspectFile(path)
	if info != nil {
		printInfo(path, info)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", path, oneLine(err))
	}
	start := time.Now()
	x, err := astral.OpenFile(nil, path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, oneLine(err))
	}
	defer x.Close()
	openMs := time.Since(start).Seconds() * 1e3
	st := x.Stats()
	fmt.Fprintf(stdout, "\nstats      %d vectors, %s, kernel %s, %.1f bytes/vector; opened (mapped, checked) in %.2f ms\n",
		st.Len, st.Kind, st.Kernel, st.BytesPerVector, openMs)
	if st.TagNames > 0 {
		var names []string
		for bit := range astral.TagBits {
			if n := x.TagName(bit); n != "" {
				names = append(names, fmt.Sprintf("%d %q", bit, n))
			}
		}
		fmt.Fprintf(stdout, "tag names  %s\n", strings.Join(names, ", "))
	}
	if gs, ok := x.GraphStats(); ok {
		fmt.Fprintf(stdout, "graph      %d nodes, %d tombstones, entry level %d\n", gs.Nodes, gs.Deleted, gs.EntryLevel)
		fmt.Fprintf(stdout, "levels     %s (live nodes on each level)\n", joinInts(gs.Levels))
		links, nodes := 0, 0
		for c, k := range gs.Level0Links {
			links += c * k
			nodes += k
		}
		mean := 0.0
		if nodes > 0 {
			mean = float64(links) / float64(nodes)
		}
		fmt.Fprintf(stdout, "level 0    %.2f links per node on average (at most %d); %d nodes without links\n",
			mean, len(gs.Level0Links)-1, gs.Level0Links[0])
	}
	if is, ok := x.IVFStats(); ok {
		fmt.Fprintf(stdout, "ivf        %d partitions, %d records, %d tombstones; largest partition %d (%d records, %.1f%% of them); %d dirty\n",
			is.Partitions, is.Records, is.Tombstones, is.LargestIndex, is.Largest, 100*is.Share, is.Dirty)
	}
	fmt.Fprintln(stdout, "ok         every checksum, count, offset and link checked")
	return nil
}

func printInfo(path string, in *astral.FileInfo) {
	fmt.Fprintf(stdout, "file       %s (%d bytes)\n", path, in.Size)
	fmt.Fprintf(stdout, "format     version %d, little-endian, header %d bytes, header CRC-32C %#08x ok\n", in.Version, in.HeaderLen, in.HeaderCRC)
	if in.Generation != 0 {
		fmt.Fprintf(stdout, "appends    generation %d (1: written whole; one more per appending save), %d dead bytes (%.1f%% of the file)\n",
			in.Generation, in.DeadBytes, 100*float64(in.DeadBytes)/float64(max(in.Size, 1)))
	}
	fmt.Fprintf(stdout, "index      %v (configured %v), dimension %d, %v, %v, %d bytes per record\n",
		in.Structure, in.Kind, in.Dim, in.Metric, in.Storage, in.Stride)
	if in.Rerank != 0 {
		fmt.Fprintf(stdout, "rerank     %v copy, %d candidates per result\n", in.Rerank, in.RerankFactor)
	}
	if in.Kind == astral.KindIVF || in.Structure == astral.KindIVF {
		fmt.Fprintf(stdout, "options    nlist %d, nprobe %d, seed %d, flat limit %d bytes\n", in.NList, in.NProbe, in.Seed, in.FlatLimit)
	} else {
		fmt.Fprintf(stdout, "options    M %d, efConstruction %d, efSearch %d, flat limit %d bytes\n", in.M, in.EfConstr, in.EfSearch, in.FlatLimit)
	}
	fmt.Fprintf(stdout, "counts     %d vectors in %d slots", in.Count, in.Slots)
	if in.Structure == astral.KindIVF {
		fmt.Fprintf(stdout, " (%d tombstones), %d partitions, split size %d", in.Slots-in.Count, in.Partitions, in.SplitAt)
	} else if in.Kind == astral.KindIVF {
		fmt.Fprint(stdout, ", not trained (an exact scan)")
	}
	if in.Structure == astral.KindHNSW {
		fmt.Fprintf(stdout, " (%d tombstones), %d words per level-0 block, %d upper-level words", in.Slots-in.Count, in.BlockWords, in.UpperWords)
	}
	fmt.Fprintln(stdout)
	if in.Structure == astral.KindHNSW {
		if in.Entry == astral.NoEntry {
			fmt.Fprintln(stdout, "entry      none (empty graph)")
		} else {
			fmt.Fprintf(stdout, "entry      slot %d, level %d; level seed %d, keep pruned %v\n", in.Entry&(1<<32-1), in.Entry>>32, in.Seed, in.KeepPruned)
		}
	}
	fmt.Fprintln(stdout, "sections")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  \tkind\tname\toffset\tlength\tcrc32c\tcomputed\t\t")
	for _, s := range in.Sections {
		status := "ok"
		switch {
		case !s.Checked:
			status = "TRUNCATED"
		case !s.OK():
			status = "BAD CHECKSUM"
		}
		name := s.Name
		if s.Optional {
			name += " (optional)"
		}
		computed := "-"
		if s.Checked {
			computed = fmt.Sprintf("%#08x", s.Computed)
		}
		fmt.Fprintf(tw, "  \t%d\t%s\t%d\t%d\t%#08x\t%s\t%s\t\n", s.Kind, name, s.Offset, s.Length, s.CRC, computed, status)
	}
	tw.Flush()
	if in.Metadata != "" {
		fmt.Fprintf(stdout, "metadata   %s\n", strings.ReplaceAll(strings.TrimRight(in.Metadata, "\n"), "\n", "; "))
	}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

// oneLine keeps an error message to one line.
func oneLine(err error) string {
	return strings.TrimPrefix(strings.Join(strings.Fields(err.Error()), " "), "astral: ")
}
