package flat

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
)

// BenchmarkScopedCold times scoped searches the way astral bench's
// interleaved rows see them: each one right after an unfiltered search
// has flushed the caches. It reports the median of the timed calls
// (med-ns) and the unfiltered search's median beside it (scan-ns), so
// their ratio is read within one run. owner-ids is owner 7's group (about
// 100 records) looked up by id, owner the same group by its posting.
//
//	go test -run '^$' -bench 'ScopedCold' -count 6 ./flat/ | benchstat -col /filter -
func BenchmarkScopedCold(b *testing.B) {
	x, qs := index100k(b)
	s := NewSearcher(1)
	dst, counts := make([]score.Result, 10), make([]int, 1)
	r := rand.New(rand.NewPCG(7, 77))
	allow := make([]uint64, 1000)
	for i, v := range r.Perm(x.Len())[:1000] {
		allow[i] = uint64(v)
	}
	slices.Sort(allow)
	var fa match.Filter
	fa.Allow.Build(allow, nil)
	var owner []uint64
	for i := range x.Len() {
		if x.owners[i] == 7 {
			owner = append(owner, x.ids[i])
		}
	}
	half := match.Filter{AllTags: 1 << 3}
	for _, c := range []struct {
		name string
		run  func()
	}{
		{"allow:1000", func() { x.SearchIDs(s, nil, 1, 10, fa.Allow.IDs(), nil, dst, counts) }},
		{"owner-ids", func() { x.SearchIDs(s, nil, 1, 10, owner, nil, dst, counts) }},
		{"owner", func() { x.SearchOwner(s, nil, 1, 10, 7, nil, dst, counts) }},
		{"tags:0.5", func() { x.SearchFiltered(s, nil, 1, 10, &half, dst, counts) }},
		{"tags:0.5-whole", func() {
			saved := densePercent
			densePercent = 0
			x.SearchFiltered(s, nil, 1, 10, &half, dst, counts)
			densePercent = saved
		}},
	} {
		b.Run(fmt.Sprintf("filter=%s", c.name), func(b *testing.B) {
			var cold, scan []time.Duration
			i := 0
			for b.Loop() {
				layout(x, s, qs[i%len(qs)])
				t0 := time.Now()
				x.Search(s, nil, 1, 10, dst, counts)
				t1 := time.Now()
				layout(x, s, qs[(i+1)%len(qs)])
				c.run()
				cold, scan = append(cold, time.Since(t1)), append(scan, t1.Sub(t0))
				i++
			}
			slices.Sort(cold)
			slices.Sort(scan)
			b.ReportMetric(float64(cold[len(cold)/2]), "med-ns")
			b.ReportMetric(float64(scan[len(scan)/2]), "scan-ns")
			b.ReportMetric(float64(cold[len(cold)/2])/float64(scan[len(scan)/2]), "x-scan")
		})
	}
}
