package astral

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkQuery is one query on 100,000 × 384 vectors, serial and with one
// worker: the reference workload's shape on random data.
func BenchmarkQuery(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	vecs := randomVectors(r, 100000, 384)
	q := randomVectors(r, 1, 384)
	for _, threads := range []int{0, 1} {
		rt := newRuntime(b, threads)
		x, err := NewIndex(rt, WithDim(384))
		if err != nil {
			b.Fatal(err)
		}
		if err := x.Add(seqIDs(0, 100000), vecs); err != nil {
			b.Fatal(err)
		}
		b.Run("threads="+string(rune('0'+threads)), func(b *testing.B) {
			dst := make([]Result, 0, 10)
			b.SetBytes(100000 * 384)
			for b.Loop() {
				dst, _ = x.Query(dst, q, 10)
			}
		})
	}
}

// BenchmarkRescore is the rerank step alone: 40 candidates (k 10, factor
// 4) of 100,000 × 384 rescored against an f32 copy, records in cache. A
// reranked query costs a scan plus this (plus cache misses).
func BenchmarkRescore(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	vecs := randomVectors(r, 100000, 384)
	q := randomVectors(r, 1, 384)
	x, err := NewIndex(nil, WithDim(384), WithKind(KindFlat), WithRerank(F32, 4))
	if err != nil {
		b.Fatal(err)
	}
	if err := x.Add(seqIDs(0, 100000), vecs); err != nil {
		b.Fatal(err)
	}
	c := x.getCtx()
	kc := x.candidates(10)
	out := c.candBuffer(1, kc)
	f := x.live.(flatStructure)
	x.prepare(c, f.queryBuffer(c, 1), 0, q)
	f.search(c, nil, nil, 1, kc, 0, out, c.counts[:1])
	cands := append([]Result(nil), out[:c.counts[0]]...)
	tmp := make([]Result, len(cands))
	for b.Loop() {
		copy(tmp, cands)
		x.rerank.Rescore(c.rqs[0], tmp, c.rslots, c.rscore)
	}
}
