package hnsw

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// TestConcurrentChurn runs 4 inserting (two by Build), 4 querying and 1
// deleting goroutine
// (which also compacts once half-way) for fixed operation counts. Every
// search must return well-formed results with exact scores and never an id
// whose delete returned before the search began; afterwards the graph must
// hold exactly the survivors, and its recall match a clean build of them.
func TestConcurrentChurn(t *testing.T) {
	testsize.SkipEmulated(t, "concurrency: qemu keeps the x86 host's memory order, and -race proves the locking natively")
	initial, perInserter, perQuerier, deletes := 2000, 250, 250, 600
	if testing.Short() {
		initial, perInserter, perQuerier, deletes = 700, 80, 80, 200
	}
	const inserters, queriers = 4, 4
	n := initial + inserters*perInserter
	d := load(t, "clustered", n, 60, 48, score.AdjustScale)
	g := newGraph(t, d, Config{M: 12, EfConstruction: 100, Seed: 11})
	st := d.k.Stride()
	require.NoError(t, g.Build(d.ids[:initial], d.recs[:initial*st], d.adj[:initial], nil, nil, nil, false))

	var clock atomic.Int64
	delAt := make([]atomic.Int64, n) // clock value once input i's delete returned
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	p, err := pool.New(pool.Options{Workers: 1})
	require.NoError(t, err)
	defer p.Close()
	for w := 0; w < inserters; w++ {
		wg.Go(func() {
			// Two insert one at a time; two in small Builds, deterministic
			// and concurrent (on a pool), which must stay safe alongside.
			const chunk = 16
			for j := 0; j < perInserter; j++ {
				i := initial + w*perInserter + j
				var err error
				switch w {
				case 2, 3:
					if j%chunk != 0 {
						continue
					}
					e := min(i+chunk, initial+(w+1)*perInserter)
					err = g.Build(d.ids[i:e], d.recs[i*st:e*st], d.adj[i:e], nil, nil, map[bool]*pool.Pool{true: p}[w == 3], w == 2)
				default:
					err = g.Insert(d.ids[i], d.rec(i), d.adj[i], 1, match.Attr{})
				}
				if err != nil {
					fail(fmt.Errorf("insert %d: %w", i, err))
				}
			}
		})
	}
	for w := 0; w < queriers; w++ {
		wg.Go(func() {
			s := NewSearcher()
			var res []score.Result
			for j := 0; j < perQuerier; j++ {
				qp := d.qps[(w*perQuerier+j)%len(d.qps)]
				start := clock.Load()
				res = g.Search(s, qp, 10, 40, res)
				if len(res) < 10 { // a node half-linked must never strand a search
					fail(fmt.Errorf("only %d results", len(res)))
				}
				for k, r := range res {
					i := int(r.ID - 1000)
					if i < 0 || i >= n {
						fail(fmt.Errorf("unknown id %d", r.ID))
						return
					}
					if at := delAt[i].Load(); at != 0 && at <= start {
						fail(fmt.Errorf("id %d returned after its delete", r.ID))
					}
					if want := exactScore(d, qp, i); math.Float32bits(want) != math.Float32bits(r.Score) {
						fail(fmt.Errorf("id %d: score %g, want %g", r.ID, r.Score, want))
					}
					if k > 0 && !(res[k-1].Score > r.Score || res[k-1].Score == r.Score && res[k-1].ID < r.ID) {
						fail(fmt.Errorf("results out of order at %d", k))
					}
					for _, p := range res[:k] {
						if p.ID == r.ID {
							fail(fmt.Errorf("id %d twice", r.ID))
						}
					}
				}
				if j%20 == 0 {
					_ = g.Stats() // reads every list while writers run
				}
			}
		})
	}
	wg.Go(func() {
		for j := 0; j < deletes; j++ {
			i := (j * 7919) % initial // scattered over the initial nodes, no repeats
			if err := g.Delete(d.ids[i]); err != nil {
				fail(fmt.Errorf("delete %d: %w", i, err))
			}
			delAt[i].Store(clock.Add(1))
			if j == deletes/2 {
				g.Compact(nil)
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	// Exactly the survivors remain.
	live := func(i int) bool { return delAt[i].Load() == 0 }
	alive := 0
	for i := 0; i < n; i++ {
		require.Equal(t, live(i), g.Has(d.ids[i]), "input %d", i)
		if live(i) {
			alive++
		}
	}
	require.Equal(t, alive, g.Len())
	require.Equal(t, n-alive, deletes)

	truth := exact(t, d, live, 10)
	churned := recall(t, g, d, truth, 10, 100)
	s := NewSearcher()
	for _, qp := range d.qps {
		for _, r := range g.Search(s, qp, 10, 100, nil) {
			require.True(t, live(int(r.ID-1000)))
		}
	}
	g.Compact(nil)
	compacted := recall(t, g, d, truth, 10, 100)
	clean := newGraph(t, d, Config{M: 12, EfConstruction: 100, Seed: 11})
	var ids []uint64
	var recs []byte
	var adj []float32
	for i := 0; i < n; i++ {
		if live(i) {
			ids, recs, adj = append(ids, d.ids[i]), append(recs, d.rec(i)...), append(adj, d.adj[i])
		}
	}
	require.NoError(t, clean.Build(ids, recs, adj, nil, nil, nil, true))
	ref := recall(t, clean, d, truth, 10, 100)
	t.Logf("recall@10 ef 100 over %d survivors: after churn %.4f, compacted %.4f, clean build %.4f", alive, churned, compacted, ref)
	require.GreaterOrEqual(t, churned, ref-0.01)
	require.GreaterOrEqual(t, compacted, ref-0.01)
}

// TestLinksNeverTorn has one writer rewrite a level-0 and an upper list
// with version v (v links, all equal to v) while readers copy them: every
// copy must be one whole version, never a mix.
func TestLinksNeverTorn(t *testing.T) {
	d := load(t, "clustered", 10, 1, 64, score.AdjustScale)
	g := newGraph(t, d, Config{M: 8})
	st := g.newStorage(1, 64)
	g.st.Store(st)
	h := g.head(0)
	st.words[h+hState] = 1 << levelShift
	st.words[h+hUpper] = 1
	writes := sized(200000, 20000)
	var done atomic.Bool
	var wg sync.WaitGroup
	for r := 0; r < 3; r++ {
		wg.Go(func() {
			var buf [2 * MaxM]uint32
			for !done.Load() {
				for l := 0; l <= 1; l++ {
					links := g.readLinks(st, 0, l, buf[:])
					for _, x := range links {
						if x != uint32(len(links)) {
							t.Errorf("level %d: torn list %v", l, links)
							return
						}
					}
				}
			}
		})
	}
	var ids [2 * MaxM]uint32
	for v := 0; v < writes; v++ {
		for l := 0; l <= 1; l++ {
			n := v % (g.maxLinks(l) + 1)
			for i := range n {
				ids[i] = uint32(n)
			}
			mu := g.lock(0)
			mu.Lock()
			g.writeLinks(st, 0, l, ids[:n])
			mu.Unlock()
		}
	}
	done.Store(true)
	wg.Wait()
}

// TestDeleteBitKeepsWrites flips the deleted bit of a node's state word
// (as Delete sets it) while a writer rewrites its level-0 list and readers
// copy it: no copy may be torn, and afterwards the word must hold the last
// count, the level and a version that counted every write.
func TestDeleteBitKeepsWrites(t *testing.T) {
	d := load(t, "clustered", 10, 1, 64, score.AdjustScale)
	g := newGraph(t, d, Config{M: 8})
	st := g.newStorage(g.maxM0+1, 64) // the links it writes, 0 to maxM0, are slots
	g.st.Store(st)
	h := g.head(0)
	st.words[h+hState] = 3 << levelShift
	writes := sized(100000, 10000)
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			g.markDeleted(st, 0)
			atomic.AndUint32(&st.words[h+hState], ^uint32(flagDeleted))
		}
	})
	for r := 0; r < 2; r++ {
		wg.Go(func() {
			var buf [2 * MaxM]uint32
			for !done.Load() {
				links := g.readLinks(st, 0, 0, buf[:])
				for _, x := range links {
					if x != uint32(len(links)) {
						t.Errorf("torn list %v", links)
						return
					}
				}
			}
		})
	}
	var ids [2 * MaxM]uint32
	n := 0
	for v := 0; v < writes; v++ {
		n = v % (g.maxM0 + 1)
		for i := range n {
			ids[i] = uint32(n)
		}
		mu := g.lock(0)
		mu.Lock()
		g.writeLinks(st, 0, 0, ids[:n])
		mu.Unlock()
	}
	done.Store(true)
	wg.Wait()
	g.markDeleted(st, 0)
	f := g.flags(st, 0)
	require.NotZero(t, f&flagDeleted)
	require.Equal(t, 3, levelOfFlags(f))
	require.Equal(t, uint32(n), f&countMask)
	require.Equal(t, uint32(2*writes)&0xffff, f>>verShift, "a write lost")
	var buf [2 * MaxM]uint32
	require.Len(t, g.readLinks(st, 0, 0, buf[:]), n)
}
