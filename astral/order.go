package astral

import (
	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/fpenv"
	"github.com/astral-engine/astral/internal/score"
)

// The work an index does in the background (a graph compaction, an auto
// index's switch to a graph) is ordered with the calls that start it, so
// the same calls always give the same structure and the same saved bytes:
//
//   - a compaction starts in the Remove that makes tombstones a fifth of
//     the graph, and the next Add, Remove or Save waits for it;
//   - writes made during a switch are replayed call by call, as they
//     would have been applied to the graph (an Add of parallelBuildMin or
//     more as one parallel build, a Remove with its compaction), and a
//     Save finishes the switch before it writes.
//
// Queries never wait for either.

// graphSwitch is one background switch to a graph.
type graphSwitch struct {
	built chan struct{} // closed when g and err are set
	g     *hnsw.Graph
	err   error
}

// awaitCompaction waits for the compaction the last Remove started, if
// any; hold writeMu.
func (x *Index) awaitCompaction() {
	if c := x.compacting; c != nil {
		<-c
		x.compacting = nil
	}
}

// settle brings the index to the state its calls so far define: the
// compaction done, a switch to a graph finished; hold writeMu.
func (x *Index) settle() {
	x.awaitCompaction()
	if sw := x.switching; sw != nil {
		x.finishSwitch(sw)
	}
}

// finishSwitch waits for sw's graph, replays the writes made since its
// snapshot and makes it live, unless that has been done; hold writeMu.
// Queries go on from the flat index until the swap.
func (x *Index) finishSwitch(sw *graphSwitch) {
	if x.switching != sw {
		return
	}
	<-sw.built
	x.switching = nil
	err := sw.err
	if err == nil {
		err = x.replay(sw.g, x.pending)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.pending, x.building = nil, false
	if err != nil {
		// Keep serving exactly; the next Add past the limit tries again.
		return
	}
	x.graph, x.flat = sw.g, nil
}

// replay applies ops to g (not yet live) a call at a time.
func (x *Index) replay(g *hnsw.Graph, ops []pendingOp) error {
	stride := x.kern.Stride()
	for lo := 0; lo < len(ops); {
		hi := lo + 1
		for hi < len(ops) && !ops[hi].first {
			hi++
		}
		call := ops[lo:hi]
		lo = hi
		ids := make([]uint64, len(call))
		for i, op := range call {
			ids[i] = op.id
		}
		if call[0].rec == nil {
			if err := x.deleteGraph(g, ids, true); err != nil {
				return err
			}
			continue
		}
		recs := make([]byte, 0, len(call)*stride)
		bias, scales := make([]float32, len(call)), make([]float32, len(call))
		for i, op := range call {
			recs = append(recs, op.rec...)
			bias[i], scales[i] = op.adjust, op.scale
		}
		if err := x.insertGraph(g, ids, recs, bias, scales); err != nil {
			return err
		}
	}
	return nil
}

// insertGraph adds one Add call's records to g: a batch of
// parallelBuildMin or more as a deterministic parallel build on the
// runtime's workers (the same graph whatever the thread count), fewer
// one after another.
func (x *Index) insertGraph(g *hnsw.Graph, ids []uint64, recs []byte, bias, scales []float32) error {
	if len(ids) >= parallelBuildMin {
		adj, mul := bias, scales
		if x.adjust == score.AdjustNone {
			adj = nil
		}
		if x.adjust != score.AdjustScaleSubtract {
			mul = nil
		}
		if err := g.Build(ids, recs, adj, mul, x.rt.workers(), true); err != nil {
			return errorf(ErrInvalidArgument, "%v", err) // unreachable: ids were checked
		}
		return nil
	}
	stride := x.kern.Stride()
	g.Reserve(len(ids))
	for i, id := range ids {
		if err := g.Insert(id, recs[i*stride:(i+1)*stride], bias[i], scales[i]); err != nil {
			return errorf(ErrInvalidArgument, "%v", err) // unreachable: ids were checked
		}
	}
	return nil
}

// deleteGraph deletes one Remove call's ids from g. Tombstones still route
// but lengthen searches: once they are a fifth of the graph it compacts,
// right away with now (g not yet live), otherwise in the background, and
// the next write or save waits for it (awaitCompaction). Hold writeMu.
func (x *Index) deleteGraph(g *hnsw.Graph, ids []uint64, now bool) error {
	for _, id := range ids {
		if err := g.Delete(id); err != nil {
			return errorf(ErrNotFound, "%v", err) // unreachable: ids were checked
		}
	}
	if g.Deleted()*5 <= g.Len() {
		return nil
	}
	if now {
		g.Compact(x.rt.workers())
		return nil
	}
	done := make(chan struct{})
	x.compacting = done
	x.bg.Add(1)
	go func() {
		defer x.bg.Done()
		defer close(done)
		// This thread may carry a host's FTZ/DAZ (threads inherit it).
		defer fpenv.Leave(fpenv.Enter())
		g.Compact(x.rt.workers())
	}()
	return nil
}
