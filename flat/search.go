package flat

import (
	"github.com/astral-engine/astral/internal/pool"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// part is one participant's private state, padded so two participants never
// write the same cache line.
type part struct {
	top     [MaxBatch]score.TopK
	scores  []float32 // chunk*MaxBatch scores
	scratch []float32 // batch decode buffer
	_       [64]byte
}

// Searcher is the reusable scratch of one query (or batch) in flight: the
// laid-out queries and every participant's top-k. A Searcher serves one
// query at a time; keep one per goroutine or in a free list.
type Searcher struct {
	qps    []float32
	parts  []part
	merged score.TopK
	job    job
}

// job is the pool task of one search; it lives in the Searcher so Run
// allocates nothing.
type job struct {
	x      *Index
	s      *Searcher
	nq, k  int
	nparts int
}

// NewSearcher returns scratch for up to participants participants.
func NewSearcher(participants int) *Searcher {
	return &Searcher{parts: make([]part, max(participants, 1))}
}

// QueryBuffer returns room for nq laid-out queries of the index's kernel;
// fill it with the kernel's PrepareQuery before Search.
func (s *Searcher) QueryBuffer(x *Index, nq int) []float32 {
	n := nq * x.kern.QueryLen()
	if cap(s.qps) < n {
		s.qps = make([]float32, n)
	}
	s.qps = s.qps[:n]
	return s.qps
}

// Participants is how many threads (p's workers plus the caller) one query
// uses now: fewer than p offers when the index is too small to split.
func (x *Index) Participants(p *pool.Pool) int { return x.participants(p, MaxParticipants) }

// MaxParticipants bounds how many participants one query uses.
const MaxParticipants = 257

func (x *Index) participants(p *pool.Pool, limit int) int {
	avail := 1
	if p != nil {
		avail += p.Workers()
	}
	want := max(1, len(x.ids)*x.stride/minShardBytes)
	return min(avail, want, limit)
}

// Search finds the k best records for the nq queries laid out in
// s.QueryBuffer and writes query q's results, best first, to
// dst[q*k : q*k+counts[q]]. The results are the same, bit for bit and in
// order, whatever p's worker count, and for batch and single queries.
func (x *Index) Search(s *Searcher, p *pool.Pool, nq, k int, dst []score.Result, counts []int) {
	if nq < 1 || nq > MaxBatch || k < 1 || k > MaxK || len(dst) < nq*k || len(counts) < nq {
		panic("flat: Search arguments out of range")
	}
	s.job = job{x: x, s: s, nq: nq, k: k, nparts: x.participants(p, len(s.parts))}
	if s.job.nparts > 1 {
		p.Run(&s.job, s.job.nparts)
	} else {
		s.job.RunPart(0)
	}
	kk := min(k, len(x.ids))
	for q := 0; q < nq; q++ {
		m := &s.merged
		m.Reset(kk)
		for i := 0; i < s.job.nparts; i++ {
			for _, e := range s.parts[i].top[q].Entries() {
				m.Push(e)
			}
		}
		out := dst[q*k : q*k+kk]
		for i, e := range m.Sorted() {
			out[i] = e.Result()
		}
		counts[q] = m.Len()
	}
}

// RunPart scans participant i's record range.
func (j *job) RunPart(i int) {
	x, pt := j.x, &j.s.parts[i]
	n := len(x.ids)
	lo, hi := n*i/j.nparts, n*(i+1)/j.nparts
	kk := min(j.k, n)
	for q := 0; q < j.nq; q++ {
		pt.top[q].Reset(kk)
	}
	if need := chunk * j.nq; cap(pt.scores) < need {
		pt.scores = make([]float32, chunk*MaxBatch)
	}
	ql := x.kern.QueryLen()
	if j.nq > 1 && cap(pt.scratch) < ql {
		pt.scratch = make([]float32, ql)
	}
	qps := j.s.qps
	for base := lo; base < hi; base += chunk {
		m := min(chunk, hi-base)
		recs := x.slab[base*x.stride : (base+m)*x.stride]
		scores := pt.scores[:m*j.nq]
		if j.nq == 1 {
			x.kern.Scan(qps[:ql], recs, scores)
		} else {
			x.kern.ScanBatch(qps, j.nq, recs, pt.scratch[:ql], scores)
		}
		ids := x.ids[base : base+m]
		for q := 0; q < j.nq; q++ {
			x.adjust.Chunk(scores[q*m:(q+1)*m], x.bias, x.scale, base)
			collect(&pt.top[q], scores[q*m:(q+1)*m], ids, base)
		}
	}
}

// collect offers one query's scores of a chunk to t. Past the first chunks
// almost no score reaches the threshold, so a vector compare skips to the
// next candidate instead of branching on every score. base is the slot of
// the chunk's first record.
func collect(t *score.TopK, scores []float32, ids []uint64, base int) {
	for i := kernel.FirstAtLeast(scores, t.Threshold()); i < len(scores); {
		t.Push(score.Entry{Score: score.Ranked(scores[i]), Slot: uint32(base + i), ID: ids[i]})
		i++
		i += kernel.FirstAtLeast(scores[i:], t.Threshold())
	}
}
