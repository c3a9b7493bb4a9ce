package astral

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	container "github.com/astral-engine/astral/astral/internal/file"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// stressWriter is one writer goroutine's model: the ids it owns, the
// vectors it stored, and the log of its operations, so the state after
// any number of them can be replayed.
type stressWriter struct {
	mu   sync.Mutex
	vecs map[uint64][]float32
	ops  []stressOp
	done atomic.Int64 // operations finished
}

type stressOp struct {
	add    bool
	ids    []uint64
	failed bool // the index refused it (never expected)
}

// stateAfter is the set of ids stored after the first k operations.
func (w *stressWriter) stateAfter(k int) map[uint64]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := map[uint64]bool{}
	for _, op := range w.ops[:k] {
		for _, id := range op.ids {
			if op.add {
				s[id] = true
			} else {
				delete(s, id)
			}
		}
	}
	return s
}

// snapshot is one Save made under load, with each writer's finished
// operations counted just before it started and just after it returned.
type snapshot struct {
	file          []byte
	before, after []int
}

// TestStressConcurrentSave runs adds, removes, queries and saves from many
// goroutines at once (run it under -race). Every save must be a snapshot
// of one moment: for each writer, exactly its state after some number of
// its operations, between those finished when the save began and when it
// ended; every snapshot loads, and its answers are a brute-force model's
// (bit for bit when flat; the model's scores, at good recall, for HNSW).
func TestStressConcurrentSave(t *testing.T) {
	testsize.SkipNoAsm(t, "snapshots and their loading are kernel-independent; the model check is exact only for flat")
	testsize.SkipEmulated(t, "concurrency: qemu keeps the x86 host's memory order, and -race proves the locking natively")
	for _, kind := range []Kind{KindFlat, KindHNSW, KindAuto, KindIVF} {
		t.Run(kind.String(), func(t *testing.T) { stress(t, kind) })
	}
}

func stress(t *testing.T, kind Kind) {
	const dim, writers, queriers = 16, 4, 3
	// 150 operations a writer already take the savers through dozens of
	// snapshots mid-write; make test-long runs 300.
	opsPer := sized(150, 80)
	if testsize.Long() {
		opsPer = 300
	}
	rt := newRuntime(t, 1)
	x, err := NewIndex(rt, WithDim(dim), WithKind(kind), WithHNSW(8, 60), WithEfSearch(64),
		WithFlatLimitBytes(int64(writers*opsPer/3*64)), WithIVF(4, 4), withIVFTrainAt(writers*opsPer/4))
	require.NoError(t, err)
	ws := make([]*stressWriter, writers)
	for i := range ws {
		ws[i] = &stressWriter{vecs: map[uint64][]float32{}}
	}
	var stop atomic.Bool
	var saves atomic.Int64
	var maxGen atomic.Uint64 // the largest header generation saver 1's file had
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}

	for wi, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(wi), 7))
			next := uint64(wi) << 32
			var live []uint64
			for k := range opsPer {
				if k == opsPer/2 {
					// Half-way, let two saves finish under load however
					// slow saving is here (qemu, -race).
					for deadline := time.Now().Add(time.Minute); saves.Load() < 2 && time.Now().Before(deadline); {
						time.Sleep(time.Millisecond)
					}
				}
				if k == opsPer-1 && kind == KindIVF {
					// Before the last operation, let saver 1 append to its
					// file at least once, however late a loaded machine
					// scheduled it.
					for deadline := time.Now().Add(time.Minute); maxGen.Load() <= 1 && time.Now().Before(deadline); {
						time.Sleep(time.Millisecond)
					}
				}
				op := stressOp{add: len(live) < 5 || r.IntN(3) > 0}
				if op.add {
					n := 1 + r.IntN(3)
					v := randomVectors(r, n, dim)
					for i := range n {
						op.ids = append(op.ids, next)
						w.mu.Lock()
						w.vecs[next] = v[i*dim : (i+1)*dim]
						w.mu.Unlock()
						next++
					}
					w.mu.Lock()
					w.ops = append(w.ops, op)
					w.mu.Unlock()
					if err := x.Add(op.ids, v); err != nil {
						report(fmt.Errorf("writer %d: add: %v", wi, err))
					}
					live = append(live, op.ids...)
				} else {
					i := r.IntN(len(live))
					op.ids = []uint64{live[i]}
					live = slices.Delete(live, i, i+1)
					w.mu.Lock()
					w.ops = append(w.ops, op)
					w.mu.Unlock()
					if err := x.Remove(op.ids...); err != nil {
						report(fmt.Errorf("writer %d: remove: %v", wi, err))
					}
				}
				w.done.Add(1)
			}
		}()
	}

	var qwg sync.WaitGroup
	for qi := range queriers {
		qwg.Add(1)
		go func() {
			defer qwg.Done()
			r := rand.New(rand.NewPCG(uint64(qi), 99))
			dst := make([]Result, 0, 10)
			for !stop.Load() {
				res, err := x.Query(dst, randomVectors(r, 1, dim), 10)
				if err != nil {
					report(fmt.Errorf("query: %v", err))
					return
				}
				for i, h := range res {
					w := ws[h.ID>>32]
					w.mu.Lock()
					_, known := w.vecs[h.ID]
					w.mu.Unlock()
					if !known || (i > 0 && (res[i-1].Score < h.Score || (res[i-1].Score == h.Score && res[i-1].ID >= h.ID))) {
						report(fmt.Errorf("query: result %d (%v) unknown or out of order in %v", i, h, res))
						return
					}
				}
			}
		}()
	}

	// Two savers save without pause; each keeps a uniform sample of its
	// snapshots (a reservoir) for the checks.
	const keep = 25
	path := filepath.Join(t.TempDir(), "stress.idx")
	var snaps []snapshot
	var swg sync.WaitGroup
	var smu sync.Mutex
	for si := range 2 {
		swg.Add(1)
		go func() {
			defer swg.Done()
			r := rand.New(rand.NewPCG(uint64(si), 3))
			var mine []snapshot
			defer func() {
				smu.Lock()
				snaps = append(snaps, mine...)
				smu.Unlock()
			}()
			for n := 0; !stop.Load(); n++ {
				s := snapshot{before: make([]int, writers), after: make([]int, writers)}
				for i, w := range ws {
					s.before[i] = int(w.done.Load())
				}
				var b bytes.Buffer
				var err error
				if si == 1 {
					// Saver 1 saves to a file, again and again: an IVF
					// index appends to it.
					if err = x.SaveFile(path); err == nil {
						var f []byte
						f, err = os.ReadFile(path)
						b.Write(f)
						if len(f) > container.DataStart && binary.LittleEndian.Uint32(f[8:]) >= container.SlotVersion {
							for _, g := range []uint64{binary.LittleEndian.Uint64(f[128:]), binary.LittleEndian.Uint64(f[container.SlotSize+128:])} {
								if g > maxGen.Load() {
									maxGen.Store(g)
								}
							}
						}
					}
				} else {
					err = x.Save(&b)
				}
				if err != nil {
					report(fmt.Errorf("save: %v", err))
					return
				}
				for i, w := range ws {
					s.after[i] = int(w.done.Load())
				}
				s.file = b.Bytes()
				saves.Add(1)
				if n < keep {
					mine = append(mine, s)
				} else if j := r.IntN(n + 1); j < keep {
					mine[j] = s
				}
			}
		}()
	}

	wg.Wait()
	defer func() {
		if kind == KindIVF {
			require.Greater(t, maxGen.Load(), uint64(1), "saver 1 never appended")
		}
	}()
	stop.Store(true)
	qwg.Wait()
	swg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	x.Wait()
	final := snapshot{file: saved(t, x), before: make([]int, writers), after: make([]int, writers)}
	for i := range ws {
		final.before[i], final.after[i] = opsPer, opsPer
	}
	snaps = append(snaps, final)
	if kind == KindIVF {
		_, trained := x.IVFStats()
		require.True(t, trained, "the IVF index trained under load")
	}
	t.Logf("%v: %d saves under load (%d checked), final kind %v, %d vectors", kind, saves.Load(), len(snaps), x.Stats().Kind, x.Len())
	require.GreaterOrEqual(t, len(snaps), 3)

	for si, s := range snaps {
		y, err := LoadBytes(rt, s.file)
		require.NoError(t, err, "snapshot %d", si)
		var ids []uint64
		var vecs []float32
		for wi, w := range ws {
			// The operation a writer had in flight may be in the snapshot
			// before it counted itself done: up to after+1.
			match, last := -1, min(s.after[wi]+1, len(w.ops))
			for k := s.before[wi]; k <= last && match < 0; k++ {
				want := w.stateAfter(k)
				ok := true
				for id := range w.vecs {
					if y.has(id) != want[id] {
						ok = false
						break
					}
				}
				if ok {
					match = k
				}
			}
			require.GreaterOrEqual(t, match, 0, "snapshot %d: writer %d matches none of its states %d..%d", si, wi, s.before[wi], last)
			for id := range w.stateAfter(match) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			vecs = append(vecs, ws[id>>32].vecs[id]...)
		}
		checkAgainstModel(t, y, ids, vecs, fmt.Sprintf("snapshot %d", si))
	}
	checkAgainstModel(t, x, nil, nil, "final") // the live index against its own final save
}

// checkAgainstModel compares y's answers with a brute-force model: a flat
// index of the given vectors (when ids is nil: of y's own final save).
func checkAgainstModel(t *testing.T, y *Index, ids []uint64, vecs []float32, what string) {
	dim := y.Config().Dim
	model, err := NewIndex(nil, WithDim(dim), WithKind(KindFlat), WithMetric(y.Config().Metric))
	require.NoError(t, err)
	if ids == nil {
		z, err := LoadBytes(nil, saved(t, y))
		require.NoError(t, err)
		require.Equal(t, answers(t, y, 8), answers(t, z, 8), what)
		return
	}
	if len(ids) > 0 {
		require.NoError(t, model.Add(ids, vecs))
	}
	require.Equal(t, len(ids), y.Len(), what)
	r := rand.New(rand.NewPCG(1, 1))
	found, total := 0, 0
	for range 8 {
		q := randomVectors(r, 1, dim)
		want, err := model.Query(nil, q, 10)
		require.NoError(t, err)
		got, err := y.Query(nil, q, 10)
		require.NoError(t, err)
		if y.Stats().Kind == KindFlat {
			require.Equal(t, want, got, "%s: flat answers differ from the model", what)
			continue
		}
		all, err := model.Query(nil, q, min(MaxK, max(len(ids), 1)))
		require.NoError(t, err)
		exact := map[uint64]float32{}
		for _, h := range all {
			exact[h.ID] = h.Score
		}
		for _, h := range got {
			s, ok := exact[h.ID]
			require.True(t, ok, "%s: graph answer %d not in the model", what, h.ID)
			require.Equal(t, s, h.Score, "%s: graph score of %d", what, h.ID)
		}
		found += int(recallAgainst(want, got) * float64(len(want)))
		total += len(want)
	}
	if total > 0 {
		require.GreaterOrEqual(t, float64(found)/float64(total), 0.9, "%s: graph recall", what)
	}
}
