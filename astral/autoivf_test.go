package astral

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/match"
	"github.com/stretchr/testify/require"
)

// Auto indexes small enough to switch many times under -race: 16
// components of E5M2 (16-byte records), flat up to 100 records, IVF past
// 600, and 8 partitions.
const (
	autoDim       = 16
	autoFlatLimit = 100 * autoDim
	autoIVFLimit  = 600
)

func autoOptions(opts ...Option) []Option {
	return append([]Option{WithDim(autoDim), WithFlatLimitBytes(autoFlatLimit), WithIVFLimitRecords(autoIVFLimit),
		WithHNSW(8, 40), WithIVF(8, 8)}, opts...)
}

func TestAutoIVFOptions(t *testing.T) {
	x, err := NewIndex(nil, WithDim(8))
	require.NoError(t, err)
	c := x.Config()
	limit, ok := c.ivfLimit()
	require.True(t, ok)
	require.Equal(t, int64(DefaultIVFLimitRecords), limit)
	_, ok = (&Config{IVFLimitRecords: NeverIVF}).ivfLimit()
	require.False(t, ok)
	for n, want := range map[int]int{0: 1, 800: 20, 6000: 153, 70_000: 256, 500_000: 512, 1_000_000: 1024, 2_000_000: 1024,
		3_000_000: 2048, 10_000_000: 4096, 1 << 50: MaxNList} {
		require.Equal(t, want, AutoNList(n), "n %d", n)
	}
	// An auto index keeps 0 for derived and checks what it is given.
	for _, c := range []struct{ nlist, nprobe int }{{-1, 0}, {MaxNList + 1, 0}, {8, 9}, {0, -1}} {
		_, err := NewIndex(nil, WithDim(8), WithIVF(c.nlist, c.nprobe))
		require.ErrorIs(t, err, ErrInvalidArgument, "nlist %d nprobe %d", c.nlist, c.nprobe)
	}
	require.ErrorIs(t, x.SetNProbe(2), ErrInvalidArgument, "no partitions before the switch")
}

// autoPair is an auto index and a flat one given the same writes; the auto
// index probes every partition, so once it holds IVF both answer alike.
func autoPair(t *testing.T, threads int, opts ...Option) ivfPair {
	t.Helper()
	x, err := NewIndex(newRuntime(t, threads), autoOptions(opts...)...)
	require.NoError(t, err)
	f, err := NewIndex(nil, append([]Option{WithDim(autoDim), WithKind(KindFlat)}, opts...)...)
	require.NoError(t, err)
	return ivfPair{x, f}
}

// TestAutoGrowsFlatGraphIVF: an auto index grows from flat to a graph to
// IVF one Add after another while queries run, losing nothing.
func TestAutoGrowsFlatGraphIVF(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 6))
	n := 900
	s := newScoped(n, autoDim, 6)
	p := autoPair(t, 2)
	var stop atomic.Bool
	var wg sync.WaitGroup
	qs := randomVectors(r, 4, autoDim)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]Result, 0, 10)
			for i := 0; !stop.Load(); i++ {
				res, err := p.ivf.Query(dst, qs[(i+g)%4*autoDim:][:autoDim], 10)
				if err != nil || len(res) > 10 {
					t.Errorf("query: %v, %d results", err, len(res))
					return
				}
			}
		}()
	}
	kinds := []Kind{p.ivf.Stats().Kind}
	for lo := 0; lo < n; lo += 50 {
		p.add(t, s.ids[lo:lo+50], s.vecs[lo*autoDim:(lo+50)*autoDim], s.attrs[lo:lo+50])
		if lo+50 > 100 && lo+50 < autoIVFLimit {
			p.ivf.Wait() // the graph lives before the IVF limit
		}
		if k := p.ivf.Stats().Kind; k != kinds[len(kinds)-1] {
			kinds = append(kinds, k)
		}
	}
	p.ivf.Wait()
	stop.Store(true)
	wg.Wait()
	if k := p.ivf.Stats().Kind; k != kinds[len(kinds)-1] {
		kinds = append(kinds, k)
	}
	require.Equal(t, []Kind{KindFlat, KindHNSW, KindIVF}, kinds)
	st, ok := p.ivf.IVFStats()
	require.True(t, ok)
	require.Equal(t, 8, st.Partitions)
	require.Equal(t, n, p.ivf.Len())
	require.NoError(t, p.ivf.SetNProbe(8))
	p.same(t, qs, autoDim, Filter{}, "after the switch")
	p.same(t, qs, autoDim, Filter{AnyTags: 2}, "tagged")
	p.same(t, qs, autoDim, Filter{Owner: 101}, "owner")
	require.ErrorIs(t, p.ivf.SetNProbe(9), ErrInvalidArgument)
}

// TestAutoBulkAddGoesStraightToIVF: an Add that passes both limits at once
// trains IVF from the flat records, and one that passes the IVF limit
// while a graph builds drops the graph for IVF.
func TestAutoBulkAddGoesStraightToIVF(t *testing.T) {
	s := newScoped(800, autoDim, 7)
	p := autoPair(t, 1)
	hold := make(chan struct{})
	p.ivf.holdSwitch = hold
	p.add(t, s.ids, s.vecs, s.attrs)
	p.ivf.writeMu.Lock()
	require.NotNil(t, p.ivf.switching)
	require.Positive(t, p.ivf.switching.nlist, "a switch to IVF, not to a graph")
	p.ivf.writeMu.Unlock()
	close(hold)
	p.ivf.Wait()
	require.Equal(t, KindIVF, p.ivf.Stats().Kind)
	require.Zero(t, p.ivf.PlanCounts().Graph)
	p.same(t, s.vecs[:5*autoDim], autoDim, Filter{}, "bulk")

	hold = make(chan struct{})
	x, err := NewIndex(newRuntime(t, 1), autoOptions()...)
	require.NoError(t, err)
	x.holdSwitch = hold
	require.NoError(t, x.AddWith(s.ids[:300], s.vecs[:300*autoDim], s.attrs[:300]))
	x.writeMu.Lock()
	graph := x.switching
	x.writeMu.Unlock()
	require.Zero(t, graph.nlist, "past the flat limit: a graph first")
	removed := []uint64{s.ids[0], s.ids[7], s.ids[150]} // flat moves its last records into the holes
	require.NoError(t, x.Remove(removed...))
	require.NoError(t, x.AddWith(s.ids[300:], s.vecs[300*autoDim:], s.attrs[300:]))
	x.writeMu.Lock()
	require.NotSame(t, graph, x.switching)
	require.Positive(t, x.switching.nlist, "past the IVF limit: the graph dropped")
	x.writeMu.Unlock()
	close(hold)
	x.Wait()
	require.Equal(t, KindIVF, x.Stats().Kind)
	// The same calls with the graph swapped in before the Remove (which
	// then leaves tombstones): the same partitions, whichever structure
	// the records came from; and so for one Add of the same records.
	y, err := NewIndex(newRuntime(t, 1), autoOptions()...)
	require.NoError(t, err)
	require.NoError(t, y.AddWith(s.ids[:300], s.vecs[:300*autoDim], s.attrs[:300]))
	y.Wait()
	require.Equal(t, KindHNSW, y.Stats().Kind)
	require.NoError(t, y.Remove(removed...))
	require.NoError(t, y.AddWith(s.ids[300:], s.vecs[300*autoDim:], s.attrs[300:]))
	y.Wait()
	require.Equal(t, KindIVF, y.Stats().Kind)
	file := saved(t, x)
	require.Equal(t, file, saved(t, y), "graph dropped or swapped in: other partitions")
	z, err := NewIndex(newRuntime(t, 1), autoOptions()...)
	require.NoError(t, err)
	var ids []uint64
	var vecs []float32
	var attrs []Attributes
	for i, id := range s.ids {
		if !slices.Contains(removed, id) {
			ids, vecs, attrs = append(ids, id), append(vecs, s.vecs[i*autoDim:(i+1)*autoDim]...), append(attrs, s.attrs[i])
		}
	}
	require.NoError(t, z.AddWith(ids, vecs, attrs))
	z.Wait()
	require.Equal(t, file, saved(t, z), "one bulk Add: other partitions")
}

// TestAutoIVFWritesDuringSwitchLand: every kind of write made while the
// switch to IVF builds (from flat and from a graph) lands, as a flat index
// given the same writes shows; a Save meanwhile finishes the switch.
func TestAutoIVFWritesDuringSwitchLand(t *testing.T) {
	s := newScoped(900, autoDim, 8)
	for _, from := range []Kind{KindFlat, KindHNSW} {
		p := autoPair(t, 2)
		if from == KindHNSW {
			p.add(t, s.ids[:400], s.vecs[:400*autoDim], s.attrs[:400])
			p.ivf.Wait()
			require.Equal(t, KindHNSW, p.ivf.Stats().Kind)
		}
		hold := make(chan struct{})
		p.ivf.holdSwitch = hold
		lo := 0
		if from == KindHNSW {
			lo = 400
		}
		p.add(t, s.ids[lo:700], s.vecs[lo*autoDim:700*autoDim], s.attrs[lo:700])
		require.Equal(t, from, p.ivf.Stats().Kind, "queries served by the old structure")
		// Writes of every kind while the build waits.
		p.add(t, s.ids[700:800], s.vecs[700*autoDim:800*autoDim], s.attrs[700:800])
		p.add(t, s.ids[800:805], s.vecs[800*autoDim:805*autoDim], s.attrs[800:805])
		p.remove(t, s.ids[3], s.ids[650], s.ids[720])
		for _, x := range []*Index{p.ivf, p.flat} {
			require.NoError(t, x.SetTags(s.ids[10:12], []uint64{1 << 9, 1 << 9}))
			require.NoError(t, x.Touch(s.ids[20:23], 99))
			require.NoError(t, x.SetImportance(s.ids[30:32], 0.75))
			require.NoError(t, x.Upsert(s.ids[40:42], s.vecs[900*autoDim-2*autoDim:], []Attributes{{Tags: 1 << 9}, {Owner: 7}}))
		}
		require.Equal(t, from, p.ivf.Stats().Kind)
		if from == KindFlat {
			go func() {
				time.Sleep(20 * time.Millisecond)
				close(hold)
			}()
			saved(t, p.ivf) // waits for the build and swaps before it writes
			require.Equal(t, KindIVF, p.ivf.Stats().Kind, "a save finishes the switch")
		} else {
			close(hold)
		}
		p.ivf.Wait()
		require.Equal(t, KindIVF, p.ivf.Stats().Kind)
		require.Equal(t, p.flat.Len(), p.ivf.Len())
		qs := s.vecs[100*autoDim : 106*autoDim]
		for name, f := range map[string]Filter{"none": {}, "retagged": {AnyTags: 1 << 9}, "owner": {Owner: 7},
			"allow": {Allow: s.ids[30:60]}} {
			p.same(t, qs, autoDim, f, from.String()+"/"+name)
		}
		for _, id := range []uint64{s.ids[10], s.ids[21], s.ids[31], s.ids[41], s.ids[802]} {
			want, err := p.flat.Attributes(id)
			require.NoError(t, err)
			got, err := p.ivf.Attributes(id)
			require.NoError(t, err)
			require.Equal(t, want, got, "id %d", id)
		}
	}
}

// TestAutoIVFSameEveryThreadCountAndBatch: the same calls give the same
// partitions (the saved bytes) and the same answers for threads 0 to 3,
// single and batched, probing 2 of 8 partitions.
func TestAutoIVFSameEveryThreadCountAndBatch(t *testing.T) {
	s := newScoped(800, autoDim, 9)
	var file []byte
	var want []Result
	qs := s.vecs[:8*autoDim]
	for threads := range 4 {
		x, err := NewIndex(newRuntime(t, threads), autoOptions(WithIVF(8, 2))...)
		require.NoError(t, err)
		require.NoError(t, x.AddWith(s.ids[:200], s.vecs[:200*autoDim], s.attrs[:200]))
		require.NoError(t, x.AddWith(s.ids[200:], s.vecs[200*autoDim:], s.attrs[200:]))
		require.NoError(t, x.Remove(s.ids[5]))
		x.Wait()
		require.Equal(t, KindIVF, x.Stats().Kind)
		b := saved(t, x)
		counts := make([]int, 8)
		batch, _, err := x.QueryBatchWith(nil, counts, qs, QueryOptions{K: 10})
		require.NoError(t, err)
		var single []Result
		for i := range 8 {
			res, err := x.Query(nil, qs[i*autoDim:(i+1)*autoDim], 10)
			require.NoError(t, err)
			require.Equal(t, res, batch[i*10:i*10+counts[i]], "threads %d query %d", threads, i)
			single = append(single, res...)
		}
		if threads == 0 {
			file, want = b, single
			continue
		}
		require.Equal(t, file, b, "threads %d: other partitions", threads)
		require.Equal(t, want, single, "threads %d", threads)
	}
}

// TestAutoIVFRoundTrip: an auto index that grew into IVF saves and loads
// every way with the same answers, still auto and still IVF; it saves
// again to the same bytes, and a save to its own file appends.
func TestAutoIVFRoundTrip(t *testing.T) {
	s := newScoped(800, autoDim, 10)
	x, err := NewIndex(nil, autoOptions(WithIVF(0, 0), WithIVFLimitRecords(500), WithMetric(L2), WithStorage(Int8))...)
	require.NoError(t, err)
	require.NoError(t, x.AddWith(s.ids, s.vecs, s.attrs))
	x.Wait()
	require.NoError(t, x.Touch(s.ids[:3], 42))
	st, ok := x.IVFStats()
	require.True(t, ok)
	require.Equal(t, 20, st.Partitions, "AutoNList(800)")
	require.Equal(t, int32(DefaultNProbe(20)), x.nprobe.Load())
	require.NoError(t, x.SetNProbe(15))
	want := answers(t, x, 6)
	file := saved(t, x)
	in, err := InspectFile(writeTemp(t, file))
	require.NoError(t, err)
	require.Equal(t, KindAuto, in.Kind)
	require.Equal(t, KindIVF, in.Structure)
	require.Equal(t, 20, in.NList)
	require.Equal(t, 15, in.NProbe)
	for _, l := range loaders {
		y, err := l.load(t, nil, file)
		require.NoError(t, err, l.name)
		require.NoError(t, y.Verify())
		require.Equal(t, KindAuto, y.Config().Kind, l.name)
		require.Equal(t, KindIVF, y.Stats().Kind, l.name)
		require.Equal(t, want, answers(t, y, 6), l.name)
		a, err := y.Attributes(s.ids[1])
		require.NoError(t, err)
		require.Equal(t, int64(42), a.Time)
		require.Equal(t, file, saved(t, y), "%s: saved again, different bytes", l.name)
		require.NoError(t, y.SetNProbe(3))
		require.NoError(t, y.Close())
	}
	path := filepath.Join(t.TempDir(), "auto.astral")
	require.NoError(t, x.SaveFile(path))
	require.NoError(t, x.AddWith(seqIDs(90000, 3), s.vecs[:3*autoDim], nil))
	require.NoError(t, x.SaveFile(path))
	require.True(t, x.SaveStats().Appended, "an auto index's IVF appends as KindIVF's")
	y, err := OpenFile(nil, path)
	require.NoError(t, err)
	require.Equal(t, answers(t, x, 4), answers(t, y, 4))
	require.NoError(t, y.Close())
	_, err = os.Stat(path)
	require.NoError(t, err)
}

// TestAutoIVFQueryAllocatesNothing: after the switch a query allocates
// nothing, plain or filtered.
func TestAutoIVFQueryAllocatesNothing(t *testing.T) {
	s := newScoped(800, autoDim, 11)
	x, err := NewIndex(newRuntime(t, 2), autoOptions(WithIVF(8, 3))...)
	require.NoError(t, err)
	require.NoError(t, x.AddWith(s.ids, s.vecs, s.attrs))
	x.Wait()
	require.Equal(t, KindIVF, x.Stats().Kind)
	dst := make([]Result, 0, 10)
	q := s.vecs[:autoDim]
	for _, o := range []QueryOptions{{K: 10}, {K: 10, Filter: Filter{AnyTags: 1}}, {K: 10, Filter: Filter{Owner: 101}}} {
		run := func() {
			if _, _, err := x.QueryWith(dst, q, o); err != nil {
				t.Fatal(err)
			}
		}
		run()
		require.Zero(t, testing.AllocsPerRun(20, run), "%+v", o)
	}
}

// TestSortByID: a snapshot sorted in place keeps every record with its
// id, attributes, adjust value and multiplier.
func TestSortByID(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, stride = 300, 4
	b := &batch{ids: make([]uint64, n), recs: make([]byte, n*stride), bias: make([]float32, n), scales: make([]float32, n)}
	for i, v := range r.Perm(n) {
		b.ids[i] = uint64(v) * 3
		b.recs[i*stride], b.bias[i], b.scales[i] = byte(v), float32(v), float32(2*v)
	}
	b.attrs = make([]match.Attr, n)
	for i := range b.attrs {
		b.attrs[i].Owner = b.ids[i] + 1
	}
	sortByID(b, stride)
	for i := range n {
		require.Equal(t, uint64(i)*3, b.ids[i])
		require.Equal(t, byte(i), b.recs[i*stride])
		require.Equal(t, []float32{float32(i), float32(2 * i)}, []float32{b.bias[i], b.scales[i]})
		require.Equal(t, b.ids[i]+1, b.attrs[i].Owner)
	}
}
