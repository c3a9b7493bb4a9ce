package astral_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/astral-engine/astral/astral"
)

// The smallest complete use: a runtime, an index, three vectors, a query.
// The README quotes this function.
func Example() {
	rt, err := astral.NewRuntime(astral.WithThreads(1)) // 1 worker + the calling thread
	if err != nil {
		panic(err)
	}
	defer rt.Close()

	mem, err := astral.NewIndex(rt, astral.WithDim(4)) // cosine, E5M2, exact while small
	if err != nil {
		panic(err)
	}
	err = mem.Add([]uint64{10, 20, 30}, []float32{
		1.0, 0.0, 0.0, 0.0,
		0.0, 1.0, 0.0, 0.0,
		0.7, 0.7, 0.0, 0.0,
	}) // all or nothing: an error leaves the index unchanged
	if err != nil {
		panic(err)
	}

	hits := make([]astral.Result, 0, 10) // reused: a query with room for k allocates nothing
	hits, err = mem.Query(hits[:0], []float32{0.9, 0.1, 0.0, 0.0}, 2)
	if err != nil {
		panic(err)
	}
	for _, h := range hits {
		fmt.Printf("id %d score %.3f\n", h.ID, h.Score)
	}
	// Output:
	// id 10 score 0.994
	// id 30 score 0.781
}

// Several queries in one call: each pass over the records serves up to
// MaxBatch of them, and the results equal Query's bit for bit.
func ExampleIndex_QueryBatch() {
	mem, err := astral.NewIndex(nil, astral.WithDim(2)) // nil runtime: serial
	if err != nil {
		panic(err)
	}
	if err := mem.Add([]uint64{1, 2, 3}, []float32{1, 0, 0, 1, -1, 0}); err != nil {
		panic(err)
	}

	const k = 2
	queries := []float32{
		1, 0.2, // query 0
		0, -1, // query 1: ids 1 and 3 tie; the lower id comes first
	}
	counts := make([]int, 2)
	hits, err := mem.QueryBatch(make([]astral.Result, 2*k), counts, queries, k)
	if err != nil {
		panic(err)
	}
	for i, n := range counts {
		for _, h := range hits[i*k : i*k+n] { // query i's results, best first
			fmt.Printf("query %d: id %d score %.3f\n", i, h.ID, h.Score)
		}
	}
	// Output:
	// query 0: id 1 score 0.981
	// query 0: id 2 score 0.196
	// query 1: id 1 score 0.000
	// query 1: id 3 score 0.000
}

// Save to any writer and Load from any reader (a save game, a packed
// asset); the loaded index answers with the same bits.
func ExampleLoad() {
	mem, err := astral.NewIndex(nil, astral.WithDim(3), astral.WithMetric(astral.L2))
	if err != nil {
		panic(err)
	}
	if err := mem.Add([]uint64{7, 8}, []float32{0, 0, 0, 1, 1, 1}); err != nil {
		panic(err)
	}

	var saved bytes.Buffer
	if err := mem.Save(&saved); err != nil {
		panic(err)
	}
	loaded, err := astral.Load(nil, &saved) // every checksum and link is checked first
	if err != nil {
		panic(err)
	}
	hits, err := loaded.Query(nil, []float32{0.9, 0.9, 0.9}, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d vectors; nearest: id %d, squared distance %.3f\n", loaded.Len(), hits[0].ID, hits[0].Score)
	// Output:
	// 2 vectors; nearest: id 8, squared distance 0.030
}

// SaveFile writes crash-safely (temporary file, fsync, rename); OpenFile
// maps the file instead of reading it, and VerifyInBackground lets it
// return before the bulk of the file is checked.
func ExampleOpenFile() {
	dir, err := os.MkdirTemp("", "astral-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.idx")

	mem, err := astral.NewIndex(nil, astral.WithDim(2))
	if err != nil {
		panic(err)
	}
	if err := mem.Add([]uint64{1, 2}, []float32{1, 0, 0, 1}); err != nil {
		panic(err)
	}
	if err := mem.SaveFile(path); err != nil {
		panic(err)
	}

	opened, err := astral.OpenFile(nil, path, astral.VerifyInBackground())
	if err != nil {
		panic(err)
	}
	defer opened.Close() // unmaps the file

	// Verify waits for the background check; queries may run meanwhile.
	if err := opened.Verify(); err != nil {
		panic(err)
	}
	hits, err := opened.Query(nil, []float32{0.1, 1}, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println("nearest:", hits[0].ID)
	// Output:
	// nearest: 2
}

// int8 storage keeps one byte a component, like E5M2, with better recall;
// a rerank copy in f32 rescores each query's rerank·k best candidates so
// that the scores are exact f32 ones.
func ExampleWithRerank() {
	mem, err := astral.NewIndex(nil,
		astral.WithDim(3),
		astral.WithStorage(astral.Int8),
		astral.WithRerank(astral.F32, 4))
	if err != nil {
		panic(err)
	}
	if err := mem.Add([]uint64{1, 2}, []float32{0.3, 0.2, 0.1, 0.1, 0.2, 0.3}); err != nil {
		panic(err)
	}
	hits, err := mem.Query(nil, []float32{0.3, 0.2, 0.1}, 2)
	if err != nil {
		panic(err)
	}
	for _, h := range hits {
		fmt.Printf("id %d score %.4f\n", h.ID, h.Score)
	}
	st := mem.Stats()
	fmt.Println(st.Kind, st.Storage, "records,", mem.Config().Rerank, "copy")
	// Output:
	// id 1 score 1.0000
	// id 2 score 0.7143
	// flat int8 records, f32 copy
}
