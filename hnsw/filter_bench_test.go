package hnsw

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
)

// filterShares are the tag selectivities of the filtered benchmarks: bit b
// of a record's tags is set with probability filterShares[b].
var filterShares = []float64{0.001, 0.01, 0.1, 0.5}

// shareTags draws d's tags (a fixed seed) and returns them with, per
// share, the ids that hold its bit.
func shareTags(d *data) ([]uint64, [][]uint64) {
	r := rand.New(rand.NewPCG(3, 4096))
	tags := make([]uint64, d.n())
	holders := make([][]uint64, len(filterShares))
	for i := range tags {
		for b, s := range filterShares {
			if r.Float64() < s {
				tags[i] |= 1 << b
				holders[b] = append(holders[b], d.ids[i])
			}
		}
	}
	return tags, holders
}

// BenchmarkFilteredTable prints, for 100,000 × 384 spectral records (M 16,
// efConstruction 200), recall@10 of SearchFiltered against Exact under a
// tag filter of each share, at several ef, and the p50 of SearchFiltered,
// of Exact over all slots and of Exact over the tag's holders (the engine's
// candidate plan), each as a ratio to unfiltered Search at ef 128 timed
// interleaved with them query by query in the same run:
//
//	go test -run '^$' -bench FilteredTable -benchtime 1x -timeout 30m ./hnsw/
func BenchmarkFilteredTable(b *testing.B) {
	d := load(b, "spectral", 100000, 100, 384, score.AdjustScale)
	g := benchBuild(b, d, 1, false)
	tags, holders := shareTags(d)
	for i, id := range d.ids {
		g.SetTags(id, tags[i])
	}
	efs := []int{128, 256, 512, 1024, 2048}
	s, e := NewSearcher(), NewExactSearcher(1)
	res := make([]score.Result, 0, 10)

	type row struct {
		name   string
		run    func(qp []float32)
		recall float64
		p50s   []float64
	}
	hit, total := 0, 0
	for _, qp := range d.qps {
		res = g.Search(s, qp, 10, 128, res)
		hit += overlap(res, g.Exact(e, nil, qp, 10, nil, nil, nil))
		total += 10
	}
	rows := []*row{{name: "unfiltered ef=128", recall: float64(hit) / float64(total),
		run: func(qp []float32) { res = g.Search(s, qp, 10, 128, res) }}}
	for bi, share := range filterShares {
		f := &match.Filter{AllTags: 1 << bi}
		truth := make([][]score.Result, len(d.qps))
		for j, qp := range d.qps {
			truth[j] = g.Exact(e, nil, qp, 10, nil, f, nil)
		}
		for _, ef := range efs {
			hit, total := 0, 0
			for j, qp := range d.qps {
				res = g.SearchFiltered(s, qp, 10, ef, f, res)
				hit += overlap(res, truth[j])
				total += len(truth[j])
			}
			rows = append(rows, &row{
				name:   fmt.Sprintf("share=%g (%.4f) graph ef=%d", share, float64(len(holders[bi]))/float64(d.n()), ef),
				run:    func(qp []float32) { res = g.SearchFiltered(s, qp, 10, ef, f, res) },
				recall: float64(hit) / float64(total),
			})
		}
		cands := holders[bi]
		rows = append(rows,
			&row{name: fmt.Sprintf("share=%g exact scan", share), recall: 1,
				run: func(qp []float32) { res = g.Exact(e, nil, qp, 10, nil, f, res) }},
			&row{name: fmt.Sprintf("share=%g exact cands (%d)", share, len(cands)), recall: 1,
				run: func(qp []float32) { res = g.Exact(e, nil, qp, 10, cands, f, res) }})
	}
	for b.Loop() {
		for _, r := range rows { // warm-up
			for _, qp := range d.qps {
				r.run(qp)
			}
		}
		// Rows alternate query by query, so a burst of load on this
		// shared machine hits every row alike.
		lat := make([][]float64, len(rows))
		for range 3 {
			for i := range lat {
				lat[i] = lat[i][:0]
			}
			for _, qp := range d.qps {
				for i, r := range rows {
					t := time.Now()
					r.run(qp)
					lat[i] = append(lat[i], float64(time.Since(t).Nanoseconds())/1e3)
				}
			}
			for i, r := range rows {
				slices.Sort(lat[i])
				r.p50s = append(r.p50s, lat[i][len(lat[i])/2])
			}
		}
	}
	median := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	base := median(rows[0].p50s)
	var out strings.Builder
	fmt.Fprintf(&out, "\n%-44s %8s %9s %8s\n", "plan", "recall", "p50_us", "x_unf128")
	for _, r := range rows {
		p := median(r.p50s)
		fmt.Fprintf(&out, "%-44s %8.4f %9.1f %8.2f\n", r.name, r.recall, p, p/base)
	}
	fmt.Print(out.String()) // b.Log would cut the table short
}

// overlap counts the ids of got found in want.
func overlap(got, want []score.Result) int {
	n := 0
	for _, r := range got {
		for _, w := range want {
			if r.ID == w.ID {
				n++
				break
			}
		}
	}
	return n
}
