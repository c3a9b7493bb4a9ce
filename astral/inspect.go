package astral

import (
	"github.com/astral-engine/astral/astral/internal/file"
	"github.com/astral-engine/astral/hnsw"
)

// FileInfo describes an index file: its header and sections (InspectFile).
type FileInfo struct {
	Size       int64 // the file's length in bytes
	Version    uint32
	HeaderLen  int
	HeaderCRC  uint32
	Dim        int
	Metric     Metric
	Kind       Kind // as configured: auto, flat, hnsw or ivf
	Structure  Kind // what the file holds: flat, hnsw or ivf
	Storage    Storage
	Stride     int // bytes per record
	M          int
	EfConstr   int
	EfSearch   int
	FlatLimit  int64
	Count      uint64 // live vectors
	Slots      uint64 // flat: Count; hnsw: nodes, tombstones included
	Entry      uint64 // hnsw entry point, level<<32 | slot; NoEntry when none
	UpperWords uint64 // hnsw: words of upper-level lists
	BlockWords int    // hnsw: words per level-0 block
	Seed       uint64 // hnsw level seed
	KeepPruned bool
	// Rerank is the rerank copy's kind (0: none) and RerankFactor its factor.
	Rerank       Storage
	RerankFactor int
	// IVF (Kind KindIVF, or an auto index grown into IVF): the configured
	// partitions, the nprobe in force, and for a trained index (Structure
	// KindIVF) its partitions (splits included) and split size (-1: never).
	NList, NProbe, Partitions int
	SplitAt                   int64
	// Version 7 (a trained IVF index): the header's generation (1 after a
	// whole write, one more per appending save) and the bytes no section
	// of the current table holds (older tables' sections, the other
	// header slot, an interrupted append), which a compacting save drops.
	Generation uint64
	DeadBytes  int64
	Sections   []SectionInfo
	Metadata   string // the metadata section, when present and whole
}

// NoEntry is FileInfo.Entry of a file with no graph or an empty one.
const NoEntry = hnsw.NoEntry

// SectionInfo describes one section of an index file; OK reports whether
// it is whole and its checksum matches.
type SectionInfo = file.SectionInfo

// InspectFile reads the header of the index file at path and checksums
// every section, reading the file piece by piece. It returns what it
// found and the first problem (ErrCorrupt, ErrVersion or ErrIO): a nil
// FileInfo when the header itself cannot be trusted. It checks the
// sections' bytes, not their meaning: OpenFile checks every count and
// link as well.
func InspectFile(path string) (*FileInfo, error) {
	in, err := fileFormat.Inspect(path)
	if in == nil {
		return nil, err
	}
	h := in.Header
	fi := &FileInfo{Size: in.Size, Version: h.Version, HeaderLen: int(h.HeaderLen), HeaderCRC: in.HeaderCRC,
		Dim: int(h.Dim), Metric: Metric(h.Metric), Kind: Kind(h.Kind), Structure: Kind(h.Structure),
		Storage: Storage(h.Storage), Stride: int(h.Stride), Rerank: Storage(h.Rerank), RerankFactor: int(h.RerankFactor),
		M: int(h.M), EfConstr: int(h.EfConstruction), EfSearch: int(h.EfSearch), FlatLimit: int64(h.FlatLimit),
		Count: h.Count, Slots: h.Slots, Entry: h.Entry, UpperWords: h.UpperWords, BlockWords: int(h.BlockWords),
		Seed: h.Seed, KeepPruned: h.GraphFlags&graphKeepPruned != 0, Sections: in.Sections, Metadata: in.Metadata,
		Generation: h.Generation, DeadBytes: in.Dead}
	if fi.Kind == KindIVF || fi.Structure == KindIVF {
		c := headerConfig(h)
		fi.NList, fi.NProbe, fi.KeepPruned = c.NList, c.NProbe, false // the graph flags hold nprobe
		if fi.Structure == KindIVF {
			fi.Partitions, fi.SplitAt = int(ivfPartitions(h)), ivfSplitAt(h)
		}
	}
	return fi, err
}
