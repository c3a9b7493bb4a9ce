package astral

import (
	"fmt"
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
	x.prepare(c, f, f.queryBuffer(c, 1), 0, q)
	f.search(c, nil, nil, 1, kc, 0, out, c.counts[:1])
	cands := append([]Result(nil), out[:c.counts[0]]...)
	tmp := make([]Result, len(cands))
	for b.Loop() {
		copy(tmp, cands)
		x.rerank.Rescore(c.rqs[0], tmp, c.rslots, c.rscore)
	}
}

// BenchmarkScopedDirect is the direct plan on 100,000 × 384 vectors: an
// owner group of 100 and an allowlist of 1,000, serial.
func BenchmarkScopedDirect(b *testing.B) {
	const n = 100000
	r := rand.New(rand.NewPCG(1, 1))
	vecs := randomVectors(r, n, 384)
	qs := randomVectors(r, 64, 384)
	rt := newRuntime(b, 0)
	x, err := NewIndex(rt, WithDim(384), WithKind(KindFlat))
	if err != nil {
		b.Fatal(err)
	}
	attrs := make([]Attributes, n)
	for i := range attrs {
		attrs[i].Owner = uint64(1 + r.IntN(n/100))
	}
	if err := x.AddWith(seqIDs(0, n), vecs, attrs); err != nil {
		b.Fatal(err)
	}
	allow := make([]uint64, 1000)
	for i := range allow {
		allow[i] = uint64(r.IntN(n))
	}
	for _, c := range []struct {
		name string
		f    Filter
	}{{"owner100", Filter{Owner: 7}}, {"allow1000", Filter{Allow: allow}}} {
		for _, cold := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/cold=%v", c.name, cold), func(b *testing.B) {
				dst := make([]Result, 0, 10)
				i := 0
				for b.Loop() {
					if cold {
						b.StopTimer()
						dst, _ = x.Query(dst, qs[(i+1)%64*384:((i+1)%64+1)*384], 10)
						b.StartTimer()
					}
					dst, _, _ = x.QueryWith(dst, qs[i%64*384:(i%64+1)*384], QueryOptions{K: 10, Filter: c.f})
					i++
				}
			})
		}
	}
}
