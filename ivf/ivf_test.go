package ivf

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/astral-engine/astral/internal/fixture"
	"github.com/astral-engine/astral/internal/match"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/astral-engine/astral/kernel"
	"github.com/stretchr/testify/require"
)

func TestFullProbeIsExact(t *testing.T) {
	n := testsize.Sized(6000, 1500)
	for _, adj := range []score.Adjust{score.AdjustNone, score.AdjustScale, score.AdjustSubtract} {
		t.Run(fmt.Sprint(adj), func(t *testing.T) {
			d := newData(t, n, 8, 64, adj)
			p := newPool(t, 2)
			x := d.build(t, 24, p)
			// Tombstones too: removed records must not come back.
			for i := 0; i < n; i += 11 {
				require.NoError(t, x.Remove(d.ids[i]))
			}
			s := NewSearcher(4)
			for i := 0; i < 8; i++ {
				q := d.query(i)
				got := search(x, s, p, 20, x.NList(), nil, q)[0]
				require.Equal(t, bruteForce(x, q, 20, nil), got, "query %d", i)
			}
		})
	}
}

func TestDeterministicAcrossThreadsAndBatch(t *testing.T) {
	n := testsize.Sized(8000, 2000)
	d := newData(t, n, MaxBatch, 64, score.AdjustScale)
	x := d.build(t, 32, nil)
	for i := 0; i < n; i += 13 {
		require.NoError(t, x.Remove(d.ids[i]))
	}
	qs := make([][]float32, MaxBatch)
	for i := range qs {
		qs[i] = d.query(i)
	}
	f := &match.Filter{AnyTags: 1 | 2}
	for _, nprobe := range []int{1, 4, 9} {
		want := search(x, NewSearcher(1), nil, 10, nprobe, nil, qs...)
		wantF := search(x, NewSearcher(1), nil, 10, nprobe, f, qs...)
		for workers := 0; workers <= 3; workers++ {
			p := newPool(t, workers)
			s := NewSearcher(workers + 1)
			require.Equal(t, want, search(x, s, p, 10, nprobe, nil, qs...), "workers %d nprobe %d batch", workers, nprobe)
			require.Equal(t, wantF, search(x, s, p, 10, nprobe, f, qs...), "workers %d nprobe %d filtered", workers, nprobe)
			for i, q := range qs {
				require.Equal(t, want[i], search(x, s, p, 10, nprobe, nil, q)[0], "workers %d nprobe %d query %d", workers, nprobe, i)
				require.Equal(t, wantF[i], search(x, s, p, 10, nprobe, f, q)[0], "workers %d nprobe %d filtered query %d", workers, nprobe, i)
			}
		}
	}
}

func TestTrainingDeterministicAcrossThreads(t *testing.T) {
	n := testsize.Sized(5000, 1500)
	d := newData(t, n, 1, 64, score.AdjustScale)
	var want []float32
	var wantAssign []int32
	for workers := 0; workers <= 3; workers++ {
		p := newPool(t, workers)
		x, err := New(d.kern, d.adjust, Config{Dim: 64, NList: 40, Seed: 9, Sample: n / 2})
		require.NoError(t, err)
		require.NoError(t, x.Train(d.recs, nil, p))
		assign := x.Assign(d.recs, nil, p)
		if want == nil {
			want, wantAssign = slices.Clone(x.cents.vecs), assign
			continue
		}
		require.Equal(t, want, x.cents.vecs, "workers %d", workers)
		require.Equal(t, wantAssign, assign, "workers %d", workers)
	}
	// Another seed gives other centroids.
	x, err := New(d.kern, d.adjust, Config{Dim: 64, NList: 40, Seed: 10, Sample: n / 2})
	require.NoError(t, err)
	require.NoError(t, x.Train(d.recs, nil, nil))
	require.NotEqual(t, want, x.cents.vecs)
}

func TestKMeansReseedsEmptyClusters(t *testing.T) {
	// 8 distinct points, 3 copies each, into 8 clusters: seeded from the
	// sample, several start on copies of one point and come back empty.
	const dim = 16
	pts := make([]float32, 0, 24*dim)
	for c := 0; c < 3; c++ {
		for i := 0; i < 8; i++ {
			v := make([]float32, dim)
			v[i] = 1
			pts = append(pts, v...)
		}
	}
	cents, err := kmeans(pts, dim, 8, 5, false, 1, nil)
	require.NoError(t, err)
	seen := map[int]bool{}
	for i := 0; i < 8; i++ {
		v := cents.vec(i)
		b := slices.Index(v, 1)
		require.GreaterOrEqual(t, b, 0, "centroid %d is %v", i, v)
		seen[b] = true
	}
	require.Len(t, seen, 8, "every point has its own centroid")
}

func TestAddRemoveCompactSplit(t *testing.T) {
	n := testsize.Sized(6000, 2000)
	d := newData(t, n, 4, 64, score.AdjustNone)
	x, err := New(d.kern, d.adjust, Config{Dim: 64, NList: 8, Seed: 1, SplitAt: 400})
	require.NoError(t, err)
	half := n / 4
	require.NoError(t, Build(x, d.recs[:half*x.stride], d.ids[:half], nil, nil, d.tags[:half], d.owners[:half], nil))
	require.Equal(t, half, x.Len())
	require.ErrorIs(t, x.Add(d.ids[0], d.recs[:x.stride], 0, 1, match.Attr{}), ErrDuplicateID)
	for i := half; i < n; i++ {
		require.NoError(t, x.Add(d.ids[i], d.recs[i*x.stride:(i+1)*x.stride], 0, 1, match.Attr{Tags: d.tags[i], Owner: d.owners[i]}))
	}
	st := x.Stats()
	require.Equal(t, n, st.Records)
	require.Greater(t, st.Splits, 0, "adds past the split size split partitions")
	require.Equal(t, 8+st.Splits, st.Partitions)
	require.LessOrEqual(t, st.Largest, 400+1)
	require.InDelta(t, float64(st.Largest)/float64(n), st.Share, 1e-12)
	for i := 0; i < n; i++ {
		a, ok := x.Attr(d.ids[i])
		require.True(t, ok)
		require.Equal(t, match.Attr{Tags: d.tags[i], Owner: d.owners[i]}, a)
		rec, _, _, ok := x.Entry(d.ids[i])
		require.True(t, ok)
		require.Equal(t, d.recs[i*x.stride:(i+1)*x.stride], rec, "record %d", i)
	}
	// Removes leave tombstones until a partition compacts.
	require.NoError(t, x.Remove(d.ids[1]))
	require.ErrorIs(t, x.Remove(d.ids[1]), ErrNotFound)
	require.Equal(t, 1, x.Stats().Tombstones)
	for i := 2; i < n; i += 2 {
		require.NoError(t, x.Remove(d.ids[i]))
	}
	st = x.Stats()
	require.Equal(t, n-1-(n-2+1)/2, st.Records)
	require.Less(t, st.Tombstones, n/2, "compaction dropped most tombstones")
	for _, p := range x.parts {
		require.LessOrEqual(t, p.ndead, max(compactMin, p.slots()/compactShare))
	}
	// Re-adding a removed id works, and the exact answer holds.
	require.NoError(t, x.Add(d.ids[2], d.recs[2*x.stride:3*x.stride], 0, 1, match.Attr{}))
	s := NewSearcher(1)
	for i := 0; i < 4; i++ {
		q := d.query(i)
		require.Equal(t, bruteForce(x, q, 15, nil), search(x, s, nil, 15, x.NList(), nil, q)[0])
	}
}

func TestSplitOfIdenticalRecordsWaits(t *testing.T) {
	d := newData(t, 10, 1, 64, score.AdjustNone)
	x, err := New(d.kern, d.adjust, Config{Dim: 64, NList: 1, SplitAt: 20})
	require.NoError(t, err)
	require.NoError(t, Build(x, d.recs[:x.stride], d.ids[:1], nil, nil, nil, nil, nil))
	for i := 0; i < 60; i++ {
		require.NoError(t, x.Add(uint64(1000+i), d.recs[:x.stride], 0, 1, match.Attr{}))
	}
	st := x.Stats()
	require.Equal(t, 0, st.Splits)
	require.Equal(t, 1, st.Partitions)
	require.Equal(t, 86, x.parts[0].noSplitBelow, "tried at 21, then 43: each time at twice the size")
}

func TestFiltersMatchBruteForce(t *testing.T) {
	n := testsize.Sized(6000, 2000)
	d := newData(t, n, 6, 64, score.AdjustScale)
	p := newPool(t, 2)
	x := d.build(t, 16, p)
	for i := 0; i < n; i += 17 {
		require.NoError(t, x.Remove(d.ids[i]))
	}
	allow := func(m, step int) match.IDSet {
		var s match.IDSet
		var ids []uint64
		for i := 0; i < m; i++ {
			ids = append(ids, d.ids[(i*step)%n])
		}
		s.Build(ids, nil)
		return s
	}
	filters := map[string]*match.Filter{
		"all-tags":    {AllTags: 1 | 2},
		"any-tags":    {AnyTags: 1 << 8},
		"no-tags":     {NoTags: 4},
		"owner":       {Owner: 3},
		"allow-small": {Allow: allow(40, 37)},
		"allow-large": {Allow: allow(n/2, 2)},
		"allow-owner": {Allow: allow(300, 7), Owner: 2},
		"deny":        {Deny: allow(500, 3)},
		"deny-tags":   {Deny: allow(500, 3), AllTags: 1},
		"none-match":  {Owner: 99},
		"empty-allow": {Allow: match.IDSet{On: true}},
	}
	s := NewSearcher(3)
	for name, f := range filters {
		for i := 0; i < 6; i++ {
			q := d.query(i)
			want := bruteForce(x, q, 12, f)
			require.Equal(t, want, search(x, s, p, 12, x.NList(), f, q)[0], "%s query %d", name, i)
			// The direct plan is exact whatever the partitions.
			if f.Allow.On {
				dst := make([]score.Result, 12)
				counts := make([]int, 1)
				copy(s.QueryBuffer(x, 1), q)
				x.SearchIDs(s, p, 1, 12, f.Allow.IDs(), f, dst, counts)
				require.Equal(t, want, dst[:counts[0]], "%s direct query %d", name, i)
			}
			// A partial probe finds only matches.
			for _, r := range search(x, s, p, 12, 3, f, q)[0] {
				pi, sl, ok := x.locate(r.ID)
				require.True(t, ok)
				require.True(t, f.Match(r.ID, attrOf(x.parts[pi], sl)), "%s: %d does not match", name, r.ID)
			}
		}
	}
}

func TestSearchAllocatesNothing(t *testing.T) {
	if testsize.Race {
		t.Skip("the race detector allocates")
	}
	d := newData(t, 3000, MaxBatch, 64, score.AdjustScale)
	p := newPool(t, 1)
	x := d.build(t, 12, p)
	s := NewSearcher(2)
	buf := s.QueryBuffer(x, MaxBatch)
	for i := 0; i < MaxBatch; i++ {
		copy(buf[i*64:], d.query(i))
	}
	dst := make([]score.Result, MaxBatch*10)
	counts := make([]int, MaxBatch)
	f := &match.Filter{AnyTags: 1, Deny: d.denySet(50)}
	for _, nq := range []int{1, MaxBatch} {
		x.Search(s, p, nq, 10, 6, dst, counts) // warm
		x.SearchFiltered(s, p, nq, 10, 6, f, dst, counts)
		require.Zero(t, testing.AllocsPerRun(20, func() { x.Search(s, p, nq, 10, 6, dst, counts) }), "nq %d", nq)
		require.Zero(t, testing.AllocsPerRun(20, func() { x.SearchFiltered(s, p, nq, 10, 6, f, dst, counts) }), "nq %d filtered", nq)
	}
}

// denySet is a deny list of m of the data's ids.
func (d *data) denySet(m int) match.IDSet {
	var s match.IDSet
	s.Build(d.ids[:m], nil)
	return s
}

func TestConcurrentSearches(t *testing.T) {
	d := newData(t, testsize.Sized(4000, 1000), 8, 64, score.AdjustScale)
	p := newPool(t, 2)
	x := d.build(t, 16, p)
	want := make([][]score.Result, 8)
	for i := range want {
		want[i] = search(x, NewSearcher(1), nil, 10, 4, nil, d.query(i))[0]
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewSearcher(3)
			for r := 0; r < 20; r++ {
				i := (g + r) % 8
				got := search(x, s, p, 10, 4, nil, d.query(i))[0]
				if !slices.Equal(want[i], got) {
					t.Errorf("goroutine %d query %d differs", g, i)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestConfigErrors(t *testing.T) {
	d := newData(t, 10, 1, 64, score.AdjustNone)
	for _, c := range []Config{{Dim: 64}, {Dim: 200, NList: 1}, {Dim: 64, NList: 1, Rounds: -1}, {Dim: 64, NList: MaxNList + 1}} {
		_, err := New(d.kern, d.adjust, c)
		require.ErrorIs(t, err, ErrConfig, "%+v", c)
	}
	x, err := New(d.kern, d.adjust, Config{Dim: 64, NList: 4})
	require.NoError(t, err)
	require.ErrorIs(t, x.Add(1, d.recs[:x.stride], 0, 1, match.Attr{}), ErrNotTrained)
	require.ErrorIs(t, Build(x, d.recs, d.ids[:3], nil, nil, nil, nil, nil), ErrConfig)
	dup := slices.Clone(d.ids)
	dup[3] = dup[4]
	require.ErrorIs(t, Build(x, d.recs, dup, nil, nil, nil, nil, nil), ErrDuplicateID)
	// Fewer records than partitions: one partition each.
	require.NoError(t, Build(x, d.recs[:2*x.stride], d.ids[:2], nil, nil, nil, nil, nil))
	require.Equal(t, 2, x.NList())
	// An empty index answers nothing.
	y, err := New(d.kern, d.adjust, Config{Dim: 64, NList: 4})
	require.NoError(t, err)
	require.Empty(t, search(y, NewSearcher(1), nil, 5, 2, nil, d.query(0))[0])
}

func TestSnapshotEachDetach(t *testing.T) {
	d := newData(t, 2000, 2, 64, score.AdjustScale)
	x := d.build(t, 8, nil)
	for i := 0; i < 2000; i += 3 {
		require.NoError(t, x.Remove(d.ids[i]))
	}
	ids, recs, adj, scales := x.Snapshot()
	require.Len(t, ids, x.Len())
	require.Nil(t, scales)
	seen := 0
	x.Each(func(id uint64, a match.Attr) {
		require.Equal(t, ids[seen], id)
		want, ok := x.Attr(id)
		require.True(t, ok)
		require.Equal(t, want, a)
		seen++
	})
	require.Equal(t, x.Len(), seen)
	// A rebuild from the snapshot answers an exact query the same.
	y, err := New(d.kern, d.adjust, x.Config())
	require.NoError(t, err)
	require.NoError(t, Build(y, recs, ids, adj, nil, nil, nil, nil))
	s := NewSearcher(1)
	q := d.query(0)
	require.Equal(t, search(x, s, nil, 10, x.NList(), nil, q), search(y, s, nil, 10, y.NList(), nil, q))
	// Detach leaves the loaded parts alone and the answers as they were.
	saved := deepCopy(x.Parts())
	z, err := New(d.kern, d.adjust, x.Config())
	require.NoError(t, err)
	require.NoError(t, FromParts(z, saved))
	frozen := deepCopy(saved)
	z.Detach()
	for _, p := range z.parts {
		require.False(t, p.borrowed)
	}
	require.NoError(t, z.Add(d.ids[0], d.recs[:z.stride], d.bias[0], 1, match.Attr{}))
	require.Equal(t, frozen, saved)
	require.Greater(t, z.BytesPerVector(), float64(z.stride))
}

// TestScaledL2 runs int8 records under L2 (score = dot × s − v): training
// decodes them with their multipliers, adds choose by them, and a full
// probe is exact.
func TestScaledL2(t *testing.T) {
	const n, dim = 1500, 32
	set, err := fixture.Generate("clustered", n, 4, dim)
	require.NoError(t, err)
	k, err := kernel.New(nil, dim, kernel.Int8)
	require.NoError(t, err)
	st := k.Stride()
	recs := make([]byte, n*st)
	ids := make([]uint64, n)
	bias := make([]float32, n)
	scales := make([]float32, n)
	units := make([]float32, dim)
	for i := 0; i < n; i++ {
		rec := recs[i*st : (i+1)*st]
		scales[i] = kernel.Encode(kernel.Int8, rec, set.Row(i))
		kernel.DecodeUnits(kernel.Int8, units, rec)
		for c := range units {
			units[c] *= scales[i]
		}
		bias[i] = float32(sumSquares(units))
		ids[i] = uint64(i)
	}
	x, err := New(k, score.AdjustScaleSubtract, Config{Dim: dim, NList: 10, Seed: 2, SplitAt: 120})
	require.NoError(t, err)
	half := n / 2
	require.NoError(t, Build(x, recs[:half*st], ids[:half], bias[:half], scales[:half], nil, nil, nil))
	for i := half; i < n; i++ {
		require.NoError(t, x.Add(ids[i], recs[i*st:(i+1)*st], bias[i], scales[i], match.Attr{}))
	}
	require.Greater(t, x.Stats().Splits, 0)
	s := NewSearcher(1)
	for i := 0; i < 4; i++ {
		q := slices.Clone(set.Query(i))
		for c := range q {
			q[c] *= 2
		}
		require.Equal(t, bruteForce(x, q, 10, nil), search(x, s, nil, 10, x.NList(), nil, q)[0])
	}
	// Most records sit in the partition of their nearest centroid.
	_, rs, _, sc := x.Snapshot()
	require.Len(t, sc, n)
	assign := x.Assign(rs, sc, nil)
	ids2, _, _, _ := x.Snapshot()
	same := 0
	for i, id := range ids2 {
		pi, _, _ := x.locate(id)
		if int(assign[i]) == pi {
			same++
		}
	}
	require.Greater(t, same, n*3/4)
}

func TestAddGoesToNearestCentroid(t *testing.T) {
	d := newData(t, 3000, 1, 64, score.AdjustScale)
	x, err := New(d.kern, d.adjust, Config{Dim: 64, NList: 20, Seed: 3, SplitAt: -1})
	require.NoError(t, err)
	require.NoError(t, x.Train(d.recs[:1000*x.stride], nil, nil))
	want := x.Assign(d.recs, nil, nil)
	for i, id := range d.ids {
		require.NoError(t, x.Add(id, d.recs[i*x.stride:(i+1)*x.stride], d.bias[i], 1, match.Attr{}))
		pi, _, ok := x.locate(id)
		require.True(t, ok)
		require.Equal(t, int(want[i]), pi, "record %d", i)
	}
	require.Equal(t, 0, x.Stats().Splits, "SplitAt -1 never splits")
}

// TestAttributeColumnsLazy checks that an index without attributes keeps
// no attribute columns, that the first nonzero value of each makes its
// column (in every partition the record moves to), that -0 is kept bit
// for bit, and that answers and attributes match an index built with
// explicit zero columns.
func TestAttributeColumnsLazy(t *testing.T) {
	d := newData(t, 3000, 4, 64, score.AdjustScale)
	x, err := New(d.kern, d.adjust, Config{Dim: d.set.Dim, NList: 16, Seed: 5})
	require.NoError(t, err)
	require.NoError(t, Build(x, d.recs, d.ids, d.bias, nil, nil, nil, nil))
	y, err := New(d.kern, d.adjust, Config{Dim: d.set.Dim, NList: 16, Seed: 5})
	require.NoError(t, err)
	zeros := make([]uint64, len(d.ids))
	require.NoError(t, Build(y, d.recs, d.ids, d.bias, nil, zeros, zeros, nil))
	for _, p := range x.parts {
		require.Nil(t, p.tags)
		require.Nil(t, p.owners)
		require.Nil(t, p.times)
		require.Nil(t, p.imps)
	}
	// Records, ids, adjust values and the id table: nothing per attribute.
	require.Less(t, x.BytesPerVector(), float64(x.stride+8+4+22+16))
	s := NewSearcher(1)
	for i := range 4 {
		q := d.query(i)
		require.Equal(t, search(y, s, nil, 10, 4, nil, q), search(x, s, nil, 10, 4, nil, q))
	}

	id := d.ids[17]
	negZero := float32(math.Copysign(0, -1))
	require.True(t, x.SetTags(id, 0))
	require.True(t, x.SetTime(id, 0))
	pi, _, _ := x.locate(id)
	require.Nil(t, x.parts[pi].tags, "a zero keeps the column out")
	require.Nil(t, x.parts[pi].times)
	require.True(t, x.SetTags(id, 9))
	require.True(t, x.SetTime(id, -5))
	require.True(t, x.SetImportance(id, negZero))
	a, ok := x.Attr(id)
	require.True(t, ok)
	require.Equal(t, uint64(9), a.Tags)
	require.Equal(t, int64(-5), a.Time)
	require.Equal(t, math.Float32bits(negZero), math.Float32bits(a.Importance))
	require.Len(t, x.parts[pi].tags, x.parts[pi].slots())
	require.Nil(t, x.parts[pi].owners)
	// Another record of that partition still reads zeros.
	for s, other := range x.parts[pi].ids {
		if other != id {
			b, _ := x.Attr(other)
			require.Equal(t, match.Attr{}, b, "slot %d", s)
			break
		}
	}
	// A new record with an owner makes that column where it lands.
	rec := d.recs[:x.stride]
	require.NoError(t, x.Add(1<<40, rec, d.bias[0], 1, match.Attr{Owner: 3}))
	b, ok := x.Attr(1 << 40)
	require.True(t, ok)
	require.Equal(t, uint64(3), b.Owner)
	// Removing enough records compacts partitions; the columns follow.
	for _, r := range d.ids[100:1500] {
		require.NoError(t, x.Remove(r))
	}
	a, ok = x.Attr(id)
	require.True(t, ok)
	require.Equal(t, uint64(9), a.Tags)
	require.Equal(t, int64(-5), a.Time)
	// A round trip through the parts keeps the values and drops zero columns.
	z, err := New(d.kern, d.adjust, x.Config())
	require.NoError(t, err)
	require.NoError(t, FromParts(z, deepCopy(x.Parts())))
	a2, ok := z.Attr(id)
	require.True(t, ok)
	require.Equal(t, a, a2)
	for i, p := range z.parts {
		if p.owners != nil {
			require.True(t, slices.ContainsFunc(p.owners, func(o uint64) bool { return o != 0 }), "partition %d: an all-zero owner column after a load", i)
		}
	}
}

// TestAddBatchMatchesAdd checks that AddBatch stores every record in the
// partition and slot that Adds one by one give, whatever the workers,
// splits included, and stops at a duplicate id.
func TestAddBatchMatchesAdd(t *testing.T) {
	for _, adj := range []score.Adjust{score.AdjustScale, score.AdjustSubtract} {
		d := newData(t, 4000, 1, 64, adj)
		train := 1000
		mk := func() *Index {
			x, err := New(d.kern, d.adjust, Config{Dim: d.set.Dim, NList: 8, Seed: 5, SplitAt: 400})
			require.NoError(t, err)
			require.NoError(t, Build(x, d.recs[:train*x.stride], d.ids[:train], d.bias[:train], nil, d.tags[:train], d.owners[:train], nil))
			return x
		}
		bias := d.bias
		if bias == nil {
			bias = make([]float32, len(d.ids))
		}
		ones := make([]float32, len(d.ids))
		for i := range ones {
			ones[i] = 1
		}
		attr := func(i int) match.Attr { return match.Attr{Tags: d.tags[i], Owner: d.owners[i], Time: int64(i % 11)} }
		want := mk()
		for i := train; i < len(d.ids); i++ {
			require.NoError(t, want.Add(d.ids[i], d.recs[i*want.stride:(i+1)*want.stride], bias[i], 1, attr(i)))
		}
		require.Positive(t, want.Stats().Splits, "the test needs splits")
		for _, workers := range []int{0, 1, 3} {
			got := mk()
			p := newPool(t, workers)
			st := got.stride
			for lo := train; lo < len(d.ids); lo += 700 {
				hi := min(lo+700, len(d.ids))
				require.NoError(t, got.AddBatch(d.ids[lo:hi], d.recs[lo*st:hi*st], bias[lo:hi], ones[lo:hi],
					func(i int) match.Attr { return attr(lo + i) }, p))
			}
			require.Equal(t, want.Parts(), got.Parts(), "workers %d, adjust %v", workers, adj)
			err := got.AddBatch(d.ids[:100], d.recs[:100*st], bias[:100], ones[:100], attr, p)
			require.ErrorIs(t, err, ErrDuplicateID)
		}
	}
}
