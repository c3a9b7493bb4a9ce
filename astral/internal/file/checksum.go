package file

import (
	"sync"
	"sync/atomic"

	"github.com/astral-engine/astral/internal/crc32c"
	"github.com/astral-engine/astral/internal/pool"
)

// Every section carries a CRC-32C (Castagnoli), the checksum with
// instructions on amd64 and arm64. Large sections are checksummed in
// pieces on the engine's workers and the pieces' CRCs combined
// (crc32c.Combine), which gives the very CRC of the whole.

// update is hash/crc32's Castagnoli Update, about twice as fast on CPUs
// with VPCLMULQDQ (internal/crc32c).
func update(c uint32, b []byte) uint32 { return crc32c.Update(c, b) }

// Workers runs a task's parts in parallel: the engine's worker pool
// (*pool.Pool) is one. A nil Workers runs them on the caller.
type Workers interface {
	// Workers is how many goroutines help the caller.
	Workers() int
	// Run runs t.RunPart(0..parts-1), the caller taking a share, and
	// returns when all are done.
	Run(t pool.Task, parts int)
}

// piece is how many bytes one checksum task covers.
const piece = 1 << 20

// Checksums computes the CRC-32C of each of bufs, in pieces spread over
// w's workers plus the caller (w nil: serially).
func Checksums(w Workers, bufs [][]byte) []uint32 {
	t := &crcTask{bufs: bufs}
	for i, b := range bufs {
		t.pieces = append(t.pieces, crcRange{buf: i, hi: min(piece, len(b))})
		for off := piece; off < len(b); off += piece {
			t.pieces = append(t.pieces, crcRange{buf: i, lo: off, hi: min(off+piece, len(b))})
		}
	}
	parts := 1
	if w != nil {
		parts = min(w.Workers()+1, len(t.pieces))
	}
	if parts > 1 {
		w.Run(t, parts)
	} else {
		t.RunPart(0)
	}
	out := make([]uint32, len(bufs))
	started := make([]bool, len(bufs))
	for _, r := range t.pieces {
		if !started[r.buf] {
			out[r.buf], started[r.buf] = r.crc, true
			continue
		}
		out[r.buf] = crc32c.Combine(out[r.buf], r.crc, int64(r.hi-r.lo))
	}
	return out
}

type crcRange struct {
	buf, lo, hi int
	crc         uint32
}

type crcTask struct {
	bufs   [][]byte
	pieces []crcRange
	next   atomic.Int64
}

func (t *crcTask) RunPart(int) {
	for {
		i := int(t.next.Add(1) - 1)
		if i >= len(t.pieces) {
			return
		}
		r := &t.pieces[i]
		r.crc = crc32c.Checksum(t.bufs[r.buf][r.lo:r.hi])
	}
}

// ChunkSums collects the checksums of a section's consecutive chunks,
// computed by several goroutines while each chunk is in their cache (the
// graph's check visits its level-0 blocks so), and combines them.
type ChunkSums struct {
	mu     sync.Mutex
	crcs   []uint32
	lens   []int64
	visits int
}

// NewChunkSums expects chunks chunks.
func NewChunkSums(chunks int) *ChunkSums {
	return &ChunkSums{crcs: make([]uint32, chunks), lens: make([]int64, chunks)}
}

// Visit checksums chunk i, b.
func (c *ChunkSums) Visit(i int, b []byte) {
	crc := crc32c.Checksum(b)
	c.mu.Lock()
	c.crcs[i], c.lens[i] = crc, int64(len(b))
	c.visits++
	c.mu.Unlock()
}

// Sum combines the chunks' checksums; ok is false unless all were visited.
func (c *ChunkSums) Sum() (crc uint32, ok bool) {
	if c.visits != len(c.crcs) {
		return 0, false
	}
	for i, v := range c.crcs {
		if i == 0 {
			crc = v
		} else {
			crc = crc32c.Combine(crc, v, c.lens[i])
		}
	}
	return crc, true
}
