package astral

import "github.com/astral-engine/astral/internal/match"

// The work an index does in the background (a graph compaction, an auto
// index's switch to a graph or to IVF) is ordered with the calls that start it, so
// the same calls always give the same structure and the same saved bytes:
//
//   - a compaction starts in the Remove that makes tombstones a fifth of
//     the graph, and the next Add, Remove or Save waits for it;
//   - writes made during a switch are replayed call by call, as they
//     would have been applied to the graph (an Add of parallelBuildMin or
//     more as one parallel build, a Remove with its compaction, an Upsert
//     as its removal, its insert, then the compaction), and a Save
//     finishes the switch before it writes;
//   - a switch to IVF starts in the call that takes the records past
//     IVFLimitRecords, from the structure live then; one to a graph still
//     building from the flat index is dropped for it (its snapshot is
//     older), so the partitions never depend on when a build finished.
//
// Queries never wait for either.

// structureSwitch is one background switch to a graph or to IVF.
type structureSwitch struct {
	built  chan struct{} // closed when to and err are set
	to     structure
	err    error
	nlist  int // IVF: the partitions to train; 0 for a graph
	nprobe int // IVF: the nprobe in force after the swap
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
// compaction done, a switch finished; hold writeMu.
func (x *Index) settle() {
	x.awaitCompaction()
	if sw := x.switching; sw != nil {
		x.finishSwitch(sw)
	}
}

// finishSwitch waits for sw's structure, replays the writes made since
// its snapshot and makes it live, unless that has been done or sw was
// dropped; hold writeMu. Queries go on from the old structure until the
// swap.
func (x *Index) finishSwitch(sw *structureSwitch) {
	if x.switching != sw {
		return
	}
	<-sw.built
	x.switching = nil
	err := sw.err
	if err == nil {
		err = x.replay(sw.to, x.pending)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.pending, x.building = nil, false
	if err != nil {
		// Keep serving exactly; the next Add past the limit tries again.
		return
	}
	x.live = sw.to
	if sw.nprobe > 0 {
		x.nprobe.Store(int32(sw.nprobe))
	}
}

// replay applies ops to g (not yet live) a call at a time.
func (x *Index) replay(g structure, ops []pendingOp) error {
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
		if op := call[0]; op.retag || op.retime || op.reimp {
			for _, op := range call {
				switch {
				case op.retag:
					g.setTags(op.id, op.attr.Tags)
				case op.retime:
					g.setTime(op.id, op.attr.Time)
				default:
					g.setImportance(op.id, op.attr.Importance)
				}
			}
			continue
		}
		if call[0].rec == nil {
			if err := g.remove(ids); err != nil {
				return err
			}
			if !call[0].replace {
				x.compactIfSparse(g, true)
			}
			continue
		}
		recs := make([]byte, 0, len(call)*stride)
		bias, scales := make([]float32, len(call)), make([]float32, len(call))
		attrs := make([]match.Attr, len(call))
		for i, op := range call {
			recs = append(recs, op.rec...)
			bias[i], scales[i], attrs[i] = op.adjust, op.scale, op.attr
		}
		if err := g.insert(&batch{ids: ids, recs: recs, bias: bias, scales: scales, attrs: attrs}, x.rt.workers()); err != nil {
			return err
		}
		if call[0].replace {
			x.compactIfSparse(g, true)
		}
	}
	return nil
}
