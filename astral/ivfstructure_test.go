package astral

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIVFOptions(t *testing.T) {
	x, err := NewIndex(nil, WithDim(8), WithKind(KindIVF))
	require.NoError(t, err)
	require.Equal(t, DefaultNList, x.Config().NList)
	require.Equal(t, DefaultNProbe(DefaultNList), x.Config().NProbe)
	require.Equal(t, 48, DefaultNProbe(1024))
	require.Equal(t, 39*1024, TrainSize(1024))
	require.Equal(t, 4096, TrainSize(16))
	for _, c := range []struct {
		nlist, nprobe int
		setting       Setting
	}{
		{-1, 0, SettingNList}, {MaxNList + 1, 0, SettingNList}, {16, 17, SettingNProbe}, {16, -2, SettingNProbe},
	} {
		_, err := NewIndex(nil, WithDim(8), WithKind(KindIVF), WithIVF(c.nlist, c.nprobe))
		require.ErrorIs(t, err, ErrInvalidArgument)
		var se *SettingError
		require.ErrorAs(t, err, &se)
		require.Equal(t, c.setting, se.Setting, "nlist %d nprobe %d", c.nlist, c.nprobe)
	}
	// Other kinds ignore the IVF fields.
	_, err = NewIndex(nil, WithDim(8), WithKind(KindFlat), WithIVF(16, 17))
	require.NoError(t, err)
	_, err = NewIndex(nil, WithDim(8), WithKind(KindIVF+1))
	require.ErrorIs(t, err, ErrInvalidArgument)
}

// ivfPair is an IVF index and a flat one given the same writes.
type ivfPair struct{ ivf, flat *Index }

func newIVFPair(t *testing.T, threads int, opts ...Option) ivfPair {
	t.Helper()
	x, err := NewIndex(newRuntime(t, threads), append([]Option{WithKind(KindIVF)}, opts...)...)
	require.NoError(t, err)
	f, err := NewIndex(nil, append([]Option{WithKind(KindFlat)}, opts...)...)
	require.NoError(t, err)
	return ivfPair{x, f}
}

func (p ivfPair) add(t *testing.T, ids []uint64, vecs []float32, attrs []Attributes) {
	t.Helper()
	require.NoError(t, p.ivf.AddWith(ids, vecs, attrs))
	require.NoError(t, p.flat.AddWith(ids, vecs, attrs))
}

func (p ivfPair) remove(t *testing.T, ids ...uint64) {
	t.Helper()
	require.NoError(t, p.ivf.Remove(ids...))
	require.NoError(t, p.flat.Remove(ids...))
}

// same checks that both answer qs alike under f, single and batched.
func (p ivfPair) same(t *testing.T, qs []float32, dim int, f Filter, msg string) {
	t.Helper()
	o := QueryOptions{K: 10, Filter: f}
	nq := len(qs) / dim
	counts := make([]int, nq)
	batch, _, err := p.ivf.QueryBatchWith(nil, counts, qs, o)
	require.NoError(t, err)
	for i := range nq {
		want, _, err := p.flat.QueryWith(nil, qs[i*dim:(i+1)*dim], o)
		require.NoError(t, err)
		got, _, err := p.ivf.QueryWith(nil, qs[i*dim:(i+1)*dim], o)
		require.NoError(t, err)
		require.Equal(t, want, got, "%s: query %d", msg, i)
		require.Equal(t, want, batch[i*10:i*10+counts[i]], "%s: batch query %d", msg, i)
	}
}

// TestIVFTrainsOnceAndProbingAllIsExact: an IVF index answers exactly
// while it buffers, trains at the Add that reaches its training size, and
// probing every partition then gives the flat scan's ids and score bits
// through adds, removes and retags after training.
func TestIVFTrainsOnceAndProbingAllIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	dim, n, nlist := 64, sized(2400, 1200), 12
	vecs := randomVectors(r, n, dim)
	qs := randomVectors(r, 9, dim)
	ids := seqIDs(1, n)
	attrs := make([]Attributes, n)
	for i := range attrs {
		attrs[i] = Attributes{Owner: uint64(i%5 + 1), Tags: uint64(i % 7)}
	}
	for _, m := range []Metric{Cosine, Dot, L2} {
		p := newIVFPair(t, 2, WithDim(dim), WithMetric(m), WithStorage(Int8), WithIVF(nlist, nlist), withIVFTrainAt(n/2))
		third := n / 3
		p.add(t, ids[:third], vecs[:third*dim], attrs[:third])
		_, trained := p.ivf.IVFStats()
		require.False(t, trained, "%v: trained before its training size", m)
		p.same(t, qs, dim, Filter{}, "buffered")
		p.add(t, ids[third:2*third], vecs[third*dim:2*third*dim], attrs[third:2*third])
		st, trained := p.ivf.IVFStats()
		require.True(t, trained, "%v: not trained at its training size", m)
		require.Equal(t, 2*third, st.Records)
		require.Equal(t, nlist, st.Partitions)
		require.Greater(t, st.Share, 0.0)
		require.Equal(t, KindIVF, p.ivf.Stats().Kind)
		p.add(t, ids[2*third:], vecs[2*third*dim:], attrs[2*third:])
		p.remove(t, ids[5], ids[third+1], ids[n-1])
		require.NoError(t, p.ivf.SetTags(ids[7:9], []uint64{1 << 9, 1 << 9}))
		require.NoError(t, p.flat.SetTags(ids[7:9], []uint64{1 << 9, 1 << 9}))
		require.Equal(t, n-3, p.ivf.Len())
		for name, f := range map[string]Filter{
			"none": {}, "owner": {Owner: 3}, "tag": {AllTags: 2}, "retagged": {AnyTags: 1 << 9},
			"allow": {Allow: ids[100:140]}, "deny": {Deny: ids[:50]},
		} {
			p.same(t, qs, dim, f, m.String()+"/"+name)
		}
		v, err := p.ivf.Vector(ids[10], nil)
		require.NoError(t, err)
		w, err := p.flat.Vector(ids[10], nil)
		require.NoError(t, err)
		require.Equal(t, w, v)
	}
}

// TestIVFPartialProbe: probing a few partitions returns stored matches
// best first and finds most true neighbours; a rare filter widens the
// probes to every partition and is exact.
func TestIVFPartialProbe(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 5))
	dim, n, nlist := 32, sized(4000, 2000), 16
	// Clustered points: IVF's case.
	centres := randomVectors(r, 40, dim)
	vecs := make([]float32, n*dim)
	for i := range n {
		c := centres[(i%40)*dim : (i%40+1)*dim]
		for j := range dim {
			vecs[i*dim+j] = c[j] + 0.15*float32(r.NormFloat64())
		}
	}
	qs := randomVectors(r, 20, dim)
	ids := seqIDs(1, n)
	attrs := make([]Attributes, n)
	for i := range attrs {
		if i%50 == 0 {
			attrs[i].Tags = 1 // 2 % of the records
		}
	}
	p := newIVFPair(t, 1, WithDim(dim), WithStorage(F32), WithIVF(nlist, 4), withIVFTrainAt(n))
	p.add(t, ids, vecs, attrs)
	hits, total := 0, 0
	for i := range 20 {
		q := qs[i*dim : (i+1)*dim]
		want, err := p.flat.Query(nil, q, 10)
		require.NoError(t, err)
		got, err := p.ivf.Query(nil, q, 10)
		require.NoError(t, err)
		require.Len(t, got, 10)
		for j, g := range got {
			if j > 0 {
				require.LessOrEqual(t, g.Score, got[j-1].Score)
			}
			for _, w := range want {
				if w.ID == g.ID {
					require.Equal(t, w.Score, g.Score)
					hits++
				}
			}
		}
		total += len(want)
	}
	t.Logf("recall %.3f", float64(hits)/float64(total))
	require.GreaterOrEqual(t, float64(hits)/float64(total), 0.6, "recall at nprobe 4 of 16")
	p.same(t, qs, dim, Filter{AllTags: 1}, "rare tag")
	require.NoError(t, p.ivf.SetNProbe(nlist))
	p.same(t, qs, dim, Filter{}, "every partition probed")
	require.ErrorIs(t, p.ivf.SetNProbe(nlist+1), ErrInvalidArgument)
	require.ErrorIs(t, p.ivf.SetNProbe(0), ErrInvalidArgument)
	require.ErrorIs(t, p.flat.SetNProbe(1), ErrInvalidArgument)
}

// TestIVFRankingAttributesKept: times and importances survive training,
// Touch, SetImportance, Remove and a re-add, and ranked queries see them
// before and after training exactly as a flat index does (every partition
// probed).
func TestIVFRankingAttributesKept(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 6))
	dim, n := 16, 600
	vecs := randomVectors(r, n, dim)
	ids := seqIDs(1, n)
	attrs := make([]Attributes, n)
	for i := range attrs {
		attrs[i] = Attributes{Time: int64(i % 3), Importance: float32(i%4) / 4}
	}
	p := newIVFPair(t, 1, WithDim(dim), WithIVF(8, 8), withIVFTrainAt(n/2))
	q := vecs[:dim]
	ranks := []Rank{{Relevance: 1, Importance: 1}, {Relevance: 1, Recency: 1, Decay: 0.5, Now: 2}}
	same := func(what string) {
		t.Helper()
		for _, rk := range ranks {
			o := QueryOptions{K: 7, Rank: rk}
			want, _, err := p.flat.QueryWith(nil, q, o)
			require.NoError(t, err)
			got, _, err := p.ivf.QueryWith(nil, q, o)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s %+v", what, rk)
		}
	}
	for half := range 2 {
		lo, hi := half*n/2, (half+1)*n/2
		p.add(t, ids[lo:hi], vecs[lo*dim:hi*dim], attrs[lo:hi])
		same(fmt.Sprintf("half %d", half))
	}
	x := p.ivf
	_, trained := x.IVFStats()
	require.True(t, trained)
	for _, i := range []int{0, 5, n/2 + 7, n - 1} {
		a, err := x.Attributes(ids[i])
		require.NoError(t, err)
		require.Equal(t, attrs[i].Time, a.Time, "record %d", i)
		require.Equal(t, attrs[i].Importance, a.Importance, "record %d", i)
	}
	for _, y := range []*Index{p.ivf, p.flat} {
		require.NoError(t, y.Touch(ids[1:3], 99))
		require.NoError(t, y.SetImportance(ids[2:4], 0.5))
	}
	same("after Touch and SetImportance")
	a, err := x.Attributes(ids[2])
	require.NoError(t, err)
	require.Equal(t, int64(99), a.Time)
	require.Equal(t, float32(0.5), a.Importance)
	p.remove(t, ids[2])
	p.add(t, ids[2:3], vecs[2*dim:3*dim], nil)
	a, err = x.Attributes(ids[2])
	require.NoError(t, err)
	require.Zero(t, a.Time, "a re-added record starts with no time")
	same("after a remove and a re-add")
}

// TestIVFConcurrentTrainingAndClear: queries run beside adds that cross the
// training size, removes, retags and a Clear that returns the index to
// its flat buffer; each sees a whole index, answers sorted and distinct.
func TestIVFConcurrentTrainingAndClear(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 7))
	dim, n, batch := 16, 1000, 100
	vecs := randomVectors(r, n, dim)
	qs := randomVectors(r, 4, dim)
	x, err := NewIndex(newRuntime(t, 2), WithDim(dim), WithKind(KindIVF), WithIVF(8, 2), withIVFTrainAt(400))
	require.NoError(t, err)
	done := make(chan struct{})
	errs := make(chan error, 3)
	for g := range 3 {
		go func() {
			var dst []Result
			f := []Filter{{}, {AllTags: 1}, {Allow: seqIDs(1, 50)}}[g]
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				res, _, err := x.QueryWith(dst, qs[g*dim:(g+1)*dim], QueryOptions{K: 10, Filter: f})
				if err != nil {
					errs <- err
					return
				}
				for i := 1; i < len(res); i++ {
					if res[i].Score > res[i-1].Score || res[i].ID == res[i-1].ID {
						errs <- fmt.Errorf("filter %d: results out of order or repeated: %v", g, res)
						return
					}
				}
				dst = res
			}
		}()
	}
	ids := seqIDs(1, n)
	attrs := make([]Attributes, n)
	for i := range attrs {
		attrs[i].Tags = uint64(i % 2)
	}
	for round := range 2 {
		for lo := 0; lo < n; lo += batch {
			require.NoError(t, x.AddWith(ids[lo:lo+batch], vecs[lo*dim:(lo+batch)*dim], attrs[lo:lo+batch]))
		}
		_, trained := x.IVFStats()
		require.True(t, trained, "round %d", round)
		require.NoError(t, x.Remove(ids[3:40]...))
		require.NoError(t, x.SetTags(ids[50:60], make([]uint64, 10)))
		require.NoError(t, x.Clear())
		_, trained = x.IVFStats()
		require.False(t, trained, "Clear returns to the buffer")
	}
	close(done)
	for range 3 {
		require.NoError(t, <-errs)
	}
}
