package hnsw

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/astral-engine/astral/kernel"
	"github.com/stretchr/testify/require"
)

func TestRecallClustered(t *testing.T) {
	n := sized(5000, 800)
	if testsize.Reduced() {
		// Under -race, noasm and qemu each build mode on a small graph:
		// recall follows from the scores (SkipScoresProven), and the
		// build's code is the same at any size.
		n = 300
	}
	d := load(t, "clustered", n, 100, 64, score.AdjustScale)
	truth := exact(t, d, nil, 10)
	for _, mode := range []string{"insert", "build", "deterministic"} {
		t.Run(mode, func(t *testing.T) {
			g := newGraph(t, d, Config{Seed: 1})
			switch mode {
			case "insert":
				for i := 0; i < d.n(); i++ {
					require.NoError(t, g.Insert(d.ids[i], d.rec(i), d.adj[i], 1, match.Attr{}))
				}
			default:
				p, err := pool.New(pool.Options{Workers: 1})
				require.NoError(t, err)
				defer p.Close()
				require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, p, mode == "deterministic"))
			}
			require.Equal(t, n, g.Len())
			r := recall(t, g, d, truth, 10, 200)
			t.Logf("%s: recall@10 vs exact quantized at ef 200: %.4f", mode, r)
			require.GreaterOrEqual(t, r, 0.99)
			// Every score is the exact one, bit for bit, in the one order.
			s := NewSearcher()
			for _, qp := range d.qps[:10] {
				checkResults(t, d, qp, g.Search(s, qp, 10, 50, nil))
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	testsize.SkipSerialUnderRace(t)
	// L2 and dot product take the same path with other adjust values.
	for _, adjust := range []score.Adjust{score.AdjustSubtract, score.AdjustNone} {
		d := load(t, "clustered", sized(1500, 500), 50, 48, adjust)
		truth := exact(t, d, nil, 10)
		g := newGraph(t, d, Config{Seed: 2})
		require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, nil, true))
		r := recall(t, g, d, truth, 10, 100)
		t.Logf("adjust %d: recall %.4f", adjust, r)
		require.GreaterOrEqual(t, r, 0.98)
		s := NewSearcher()
		for _, qp := range d.qps[:5] {
			checkResults(t, d, qp, g.Search(s, qp, 10, 50, nil))
		}
	}
}

// TestLevel0HoldsMoreThanM checks the real link counts: level 0 keeps up to
// 2·M links, and some nodes must use more than M of them (the seed engine
// capped level 0 at the upper-level size by mistake).
func TestLevel0HoldsMoreThanM(t *testing.T) {
	testsize.SkipSerialUnderRace(t)
	d := load(t, "clustered", sized(2000, 800), 1, 64, score.AdjustScale)
	for _, deterministic := range []bool{false, true} {
		g := newGraph(t, d, Config{M: 8, Seed: 3})
		require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, nil, deterministic))
		st := g.Stats()
		over := 0
		for c, nodes := range st.Level0Links {
			if c > 8 {
				over += nodes
			}
		}
		t.Logf("deterministic %v: level-0 link histogram %v, levels %v", deterministic, st.Level0Links, st.Levels)
		require.Greater(t, over, d.n()/10, "level 0 must use its 2·M capacity")
		require.Len(t, st.Level0Links, 17)
		// Upper levels stay within M.
		s := g.st.Load()
		var buf [2 * MaxM]uint32
		for slot := range uint32(s.n) {
			for l := 1; l <= levelOfFlags(g.flags(s, slot)); l++ {
				require.LessOrEqual(t, len(g.readLinks(s, slot, l, buf[:])), 8)
			}
		}
		require.Greater(t, len(st.Levels), 1, "some nodes above level 0")
	}
}

func TestDeterministicBuild(t *testing.T) {
	n := sized(3000, 600)
	d := load(t, "clustered", n, 1, 64, score.AdjustScale)
	digest := func(workers int, p0 bool) uint64 {
		var p *pool.Pool
		if !p0 {
			var err error
			p, err = pool.New(pool.Options{Workers: workers})
			require.NoError(t, err)
			defer p.Close()
		}
		g := newGraph(t, d, Config{Seed: 4})
		// Two calls: the second extends a graph, as a growing index does.
		half := n / 2
		require.NoError(t, g.Build(d.ids[:half], d.recs[:half*d.k.Stride()], d.adj[:half], nil, nil, p, true))
		require.NoError(t, g.Build(d.ids[half:], d.recs[half*d.k.Stride():], d.adj[half:], nil, nil, p, true))
		return g.Digest()
	}
	one := digest(0, true)
	require.Equal(t, one, digest(0, false), "a pool of 0 workers")
	require.Equal(t, one, digest(1, false), "1 worker + caller")
	require.Equal(t, one, digest(4, false), "4 workers + caller")
	require.Equal(t, one, digest(4, false), "again")

	// A different seed draws different levels: a different graph.
	g := newGraph(t, d, Config{Seed: 5})
	require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, nil, true))
	require.NotEqual(t, one, g.Digest())
}

// TestDeterministicAcrossKernels builds and compacts the same graph with
// every kernel this CPU runs: canonical scores make the bits equal (they
// matched NEON under qemu as well).
func TestDeterministicAcrossKernels(t *testing.T) {
	testsize.SkipSerialUnderRace(t)
	d := load(t, "clustered", sized(800, 300), 1, 100, score.AdjustScale)
	var want []uint64
	for _, impl := range kernel.All() {
		k, err := kernel.New(impl, 100, kernel.E5M2)
		require.NoError(t, err)
		g, err := New(k, score.AdjustScale, Config{Seed: 4})
		require.NoError(t, err)
		require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, nil, true))
		got := []uint64{g.Digest()}
		for i := 0; i < d.n(); i += 3 {
			require.NoError(t, g.Delete(d.ids[i]))
		}
		g.Compact(nil)
		got = append(got, g.Digest())
		if want == nil {
			want = got
		}
		require.Equal(t, want, got, "kernel %s", k.Name())
	}
}

// TestBytesPerVector checks the packed level-0 block at dim 384, M 16:
// 96 record words, 5 header words and 32 links, 532 bytes, and the storage
// per node, upper levels included, within 540 (hnswlib's is about 1,700).
func TestBytesPerVector(t *testing.T) {
	testsize.SkipEmulated(t, "memory accounting, the same Go code on every 64-bit CPU")
	d := load(t, "clustered", sized(3000, 1000), 1, 384, score.AdjustScale)
	g := newGraph(t, d, Config{M: 16, EfConstruction: 32, Seed: 1})
	require.Equal(t, 532, g.bstride)
	require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, nil, false))
	bpv := g.BytesPerVector()
	t.Logf("%d nodes: %.2f bytes/vector; Bytes %d", d.n(), bpv, g.Bytes())
	require.LessOrEqual(t, bpv, 540.0)
	require.Greater(t, bpv, 532.0, "upper levels count")
	require.GreaterOrEqual(t, float64(g.Bytes())/float64(d.n()), bpv, "Bytes is all the memory")
}

func TestLevelsAreSeeded(t *testing.T) {
	d := load(t, "clustered", 10, 1, 64, score.AdjustScale)
	a, b := newGraph(t, d, Config{Seed: 9}), newGraph(t, d, Config{Seed: 9})
	counts := make([]int, 4)
	const draws = 200000
	for id := uint64(0); id < draws; id++ {
		l := a.levelFor(id)
		require.Equal(t, l, b.levelFor(id))
		if l < len(counts) {
			counts[l]++
		}
	}
	// P(level >= l) = M^-l: level 0 takes 15/16, level 1 15/256, ...
	for l, c := range counts[:3] {
		want := draws * (1 - 1.0/16) * math.Pow(16, -float64(l))
		require.InDelta(t, want, float64(c), 5*math.Sqrt(want)+1, "level %d", l)
	}
}

func TestSearchZeroAlloc(t *testing.T) {
	testsize.SkipUnderRace(t, "allocation counts are the plain build's; the determinism tests run these queries under -race")
	d := load(t, "clustered", sized(2000, 600), 20, 64, score.AdjustScale)
	g := newGraph(t, d, Config{Seed: 6})
	require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, nil, false))
	require.NoError(t, g.Delete(d.ids[0])) // tombstones on the path too
	s := NewSearcher()
	dst := make([]score.Result, 0, 10)
	for _, qp := range d.qps {
		g.Search(s, qp, 10, 128, dst) // warm up
	}
	i := 0
	allocs := testing.AllocsPerRun(200, func() {
		qp := s.QueryBuffer(g)
		copy(qp, d.qps[i%len(d.qps)])
		dst = g.Search(s, qp, 10, 128, dst)
		i++
	})
	require.Zero(t, allocs)
}

// TestVisitedEpochWraps searches past the visited set's epoch wrap with
// one Searcher: each answer must equal a fresh Searcher's.
func TestVisitedEpochWraps(t *testing.T) {
	d := load(t, "clustered", sized(2000, 600), 20, 64, score.AdjustScale)
	g := newGraph(t, d, Config{Seed: 6})
	require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, nil, false))
	s := NewSearcher()
	var got, want []score.Result
	for i := range 700 { // two epochs a search: the wrap comes twice or more
		qp := d.qps[i%len(d.qps)]
		got = g.Search(s, qp, 10, 32, got)
		want = g.Search(NewSearcher(), qp, 10, 32, want)
		require.Equal(t, want, got, "search %d", i)
	}
}

func TestDeleteLeavesResultsAtOnce(t *testing.T) {
	d := load(t, "clustered", sized(2000, 600), 20, 64, score.AdjustScale)
	g := newGraph(t, d, Config{Seed: 7})
	require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, nil, false))
	s := NewSearcher()
	gone := map[uint64]bool{}
	for _, qp := range d.qps {
		res := g.Search(s, qp, 5, 64, nil)
		require.NotEmpty(t, res)
		for _, r := range res[:2] {
			if !gone[r.ID] {
				require.NoError(t, g.Delete(r.ID))
				gone[r.ID] = true
			}
		}
		for _, r := range g.Search(s, qp, 50, 100, nil) {
			require.False(t, gone[r.ID], "deleted id %d returned", r.ID)
		}
	}
	require.Equal(t, d.n()-len(gone), g.Len())
	require.Equal(t, len(gone), g.Deleted())
	for id := range gone {
		require.False(t, g.Has(id))
		require.ErrorIs(t, g.Delete(id), ErrNotFound)
	}
	// A deleted id may come back; it is found again.
	var back uint64
	for id := range gone {
		back = id
		break
	}
	i := int(back - 1000)
	require.NoError(t, g.Insert(back, d.rec(i), d.adj[i], 1, match.Attr{}))
	found := false
	for _, r := range g.Search(s, d.rec2query(i), 1, 64, nil) {
		found = found || r.ID == back
	}
	require.True(t, found)
}

func TestCompact(t *testing.T) {
	n := sized(4000, 700)
	d := load(t, "clustered", n, 100, 64, score.AdjustScale)
	p, err := pool.New(pool.Options{Workers: 2})
	require.NoError(t, err)
	defer p.Close()
	g := newGraph(t, d, Config{Seed: 8})
	require.NoError(t, g.Build(d.ids, d.recs, d.adj, nil, nil, p, true))
	before := g.Bytes()
	dead := func(i int) bool { return i%5 == 2 || (i > n/2 && i < n/2+n/20) } // scattered and a run
	for i := 0; i < n; i++ {
		if dead(i) {
			require.NoError(t, g.Delete(d.ids[i]))
		}
	}
	live := func(i int) bool { return !dead(i) }
	truth := exact(t, d, live, 10)
	tomb := recall(t, g, d, truth, 10, 200)
	deleted := g.Deleted()
	require.Greater(t, deleted, n/5)

	p1, err := pool.New(pool.Options{Workers: 0})
	require.NoError(t, err)
	defer p1.Close()
	g2 := newGraph(t, d, Config{Seed: 8})
	require.NoError(t, g2.Build(d.ids, d.recs, d.adj, nil, nil, p, true))
	for i := 0; i < n; i++ {
		if dead(i) {
			require.NoError(t, g2.Delete(d.ids[i]))
		}
	}
	g.Compact(p)
	g2.Compact(p1)
	require.Equal(t, g.Digest(), g2.Digest(), "Compact is the same for any worker count")

	st := g.Stats()
	require.Zero(t, g.Deleted())
	require.Zero(t, st.Deleted)
	require.Equal(t, g.Len(), st.Nodes, "slots reclaimed")
	require.Less(t, g.Bytes(), before)
	after := recall(t, g, d, truth, 10, 200)

	clean := newGraph(t, d, Config{Seed: 8})
	var ids []uint64
	var recs []byte
	var adj []float32
	for i := 0; i < n; i++ {
		if live(i) {
			ids, recs, adj = append(ids, d.ids[i]), append(recs, d.rec(i)...), append(adj, d.adj[i])
		}
	}
	require.NoError(t, clean.Build(ids, recs, adj, nil, nil, p, true))
	ref := recall(t, clean, d, truth, 10, 200)
	t.Logf("recall@10 ef 200: tombstoned %.4f, compacted %.4f, clean build %.4f", tomb, after, ref)
	require.GreaterOrEqual(t, after, ref-0.01)

	// Every survivor is still found by its own vector.
	s := NewSearcher()
	missing := 0
	for i := 0; i < n; i += 7 {
		if !live(i) {
			continue
		}
		res := g.Search(s, d.rec2query(i), 1, 64, nil)
		if len(res) == 0 || res[0].ID != d.ids[i] {
			missing++
		}
	}
	require.LessOrEqual(t, missing, 2)

	// The graph keeps working: insert the deleted ones again, then compact
	// with nothing to do.
	for i := 0; i < n; i++ {
		if dead(i) {
			require.NoError(t, g.Insert(d.ids[i], d.rec(i), d.adj[i], 1, match.Attr{}))
		}
	}
	require.Equal(t, n, g.Len())
	full := exact(t, d, nil, 10)
	require.GreaterOrEqual(t, recall(t, g, d, full, 10, 200), 0.98)
	dg := g.Digest()
	g.Compact(nil)
	require.Equal(t, dg, g.Digest())
}

func TestHostileInputs(t *testing.T) {
	d := load(t, "clustered", 300, 5, 64, score.AdjustScale)
	g := newGraph(t, d, Config{})
	require.Equal(t, DefaultM, g.Config().M)
	require.Equal(t, DefaultEfConstruction, g.Config().EfConstruction)
	s := NewSearcher()
	qp := d.qps[0]

	// Empty graph.
	require.Empty(t, g.Search(s, qp, 10, 10, nil))
	require.Equal(t, 0, g.Len())
	require.ErrorIs(t, g.Delete(1), ErrNotFound)
	g.Compact(nil)
	require.Equal(t, -1, g.Stats().EntryLevel)

	// Bad records and ids.
	require.ErrorIs(t, g.Insert(1, d.rec(0)[:10], 1, 1, match.Attr{}), ErrRecordSize)
	require.NoError(t, g.Insert(d.ids[0], d.rec(0), d.adj[0], 1, match.Attr{}))
	require.ErrorIs(t, g.Insert(d.ids[0], d.rec(1), d.adj[1], 1, match.Attr{}), ErrDuplicateID)
	require.ErrorIs(t, g.Build([]uint64{5, 5}, d.recs[:2*d.k.Stride()], d.adj[:2], nil, nil, nil, true), ErrDuplicateID)
	require.ErrorIs(t, g.Build([]uint64{5, d.ids[0]}, d.recs[:2*d.k.Stride()], d.adj[:2], nil, nil, nil, true), ErrDuplicateID)
	require.ErrorIs(t, g.Build([]uint64{5}, d.recs[:3], d.adj[:1], nil, nil, nil, true), ErrRecordSize)
	require.Error(t, g.Build([]uint64{5}, d.recs[:d.k.Stride()], nil, nil, nil, nil, true), "cosine needs adjust values")
	require.Equal(t, 1, g.Len(), "failed calls insert nothing")
	require.NoError(t, g.Build(nil, nil, nil, nil, nil, nil, true))

	// One node: k and ef beyond the graph.
	res := g.Search(s, qp, 10, 1, nil)
	require.Len(t, res, 1)
	require.NoError(t, g.Build(d.ids[1:], d.recs[d.k.Stride():], d.adj[1:], nil, nil, nil, false))
	for _, c := range []struct{ k, ef, want int }{
		{0, 10, 0}, {-1, 10, 0}, {5, 1, 5}, {5, -3, 5}, {1000, 10, 300}, {10, 1 << 30, 10}, {1 << 30, 0, 300},
	} {
		res := g.Search(s, qp, c.k, c.ef, nil)
		require.Len(t, res, c.want, "k %d ef %d", c.k, c.ef)
		checkResults(t, d, qp, res)
	}
	require.Panics(t, func() { g.Search(s, qp[:10], 10, 10, nil) })

	// All deleted: no results, and Compact empties the graph.
	for _, id := range d.ids {
		require.NoError(t, g.Delete(id))
	}
	require.Empty(t, g.Search(s, qp, 10, 50, nil))
	g.Compact(nil)
	require.Zero(t, g.Stats().Nodes)
	require.Empty(t, g.Search(s, qp, 10, 50, nil))
	require.NoError(t, g.Insert(7, d.rec(3), d.adj[3], 1, match.Attr{}))
	require.Len(t, g.Search(s, qp, 10, 50, nil), 1)

	// Inserts behind a deleted entry point link to it, which routes,
	// rather than stay unreachable until Compact.
	g4 := newGraph(t, d, Config{M: 4})
	require.NoError(t, g4.Insert(d.ids[0], d.rec(0), d.adj[0], 1, match.Attr{}))
	require.NoError(t, g4.Delete(d.ids[0]))
	for i := 1; i < 60; i++ {
		require.NoError(t, g4.Insert(d.ids[i], d.rec(i), d.adj[i], 1, match.Attr{}))
	}
	require.NoError(t, g4.Build(d.ids[60:80], d.recs[60*d.k.Stride():80*d.k.Stride()], d.adj[60:80], nil, nil, nil, true))
	res = g4.Search(s, qp, 100, 100, nil)
	require.Len(t, res, 79)
	checkResults(t, d, qp, res)
	g4.Compact(nil)
	require.Len(t, g4.Search(s, qp, 100, 100, nil), 79)

	// Bad configurations.
	for _, c := range []Config{{M: 1}, {M: -2}, {M: MaxM + 1}, {EfConstruction: -1}} {
		_, err := New(d.k, score.AdjustScale, c)
		require.ErrorIs(t, err, ErrConfig, "%+v", c)
	}
	_, err := New(nil, score.AdjustScale, Config{})
	require.ErrorIs(t, err, ErrConfig)
	g3, err := New(d.k, score.AdjustScale, Config{M: 20, EfConstruction: 5})
	require.NoError(t, err)
	require.Equal(t, 20, g3.Config().EfConstruction, "efConstruction never below M")
}

// TestLayoutRecord checks the fused decode-and-layout against the kernel's
// LayoutQuery, bit for bit, edge codes and tiny scales included.
func TestLayoutRecord(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, dim := range []int{64, 128, 384, 1024} {
		rec := make([]byte, dim)
		for i := range rec {
			rec[i] = byte(r.Uint32())
			if rec[i]&0x7c == 0x7c {
				rec[i] &^= 0x40 // finite codes only
			}
		}
		rec[0], rec[1], rec[2] = 0x80, 0x00, 0x01 // -0, +0, the smallest subnormal
		for _, scale := range []float32{1, 2, 0.9731, 1e-30, -1} {
			dec := make([]float32, dim)
			for i, b := range rec {
				dec[i] = float32(kernel.DecodeE5M2(b) * scale)
			}
			want := kernel.LayoutQuery(make([]float32, dim), dec)
			got := layoutRecord(make([]float32, dim), rec, scale)
			for i := range want {
				require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "dim %d scale %g at %d", dim, scale, i)
			}
		}
	}
}
