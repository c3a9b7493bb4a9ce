// Package astral is Astral's Go API: vector memory for games. An Index
// stores embeddings under the caller's uint64 ids and finds the k nearest
// to a query; a Runtime holds the worker threads that every index shares.
//
// An index is exact (flat) while its records take at most
// DefaultFlatLimitBytes, then builds an HNSW graph in the background and
// switches to it, and past DefaultIVFLimitRecords records switches the same
// way to IVF partitions (WithKind forces one; WithIVFLimitRecords moves or
// turns off the second switch). Records are stored compactly:
// E5M2 (the default), E4M3 or int8 at one byte a component, or f16 or f32;
// WithRerank keeps a second, wider copy that rescores each query's best
// candidates. Metrics are cosine (the default), dot and squared L2.
//
// Results are the same ids, score bits and order whatever the thread count,
// batch or CPU, ties breaking by id. A query with room for k results in dst
// allocates nothing. Adds, removes and queries may run at once from any
// goroutines.
//
// An index is saved to a writer, a buffer or a file (crash-safe), and
// loaded from a reader or bytes, or mapped from a file (OpenFile), with
// every checksum, count, offset and link checked: a damaged file gives
// ErrCorrupt, never a crash. The file layout is in docs/FORMAT.md; the
// measured speeds are in docs/BENCHMARKS.md.
package astral
