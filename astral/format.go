package astral

import (
	"math"

	"github.com/astral-engine/astral/astral/internal/file"
	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/internal/score"
	"github.com/astral-engine/astral/kernel"
)

// The index file format (docs/FORMAT.md): the container (header, section
// table, aligned and checksummed sections) is astral/internal/file's; what
// the header's fields and the sections mean is the engine's, below.

// FormatVersion is the index file format this library writes. It reads
// this version and the ones before it back to version 1; any other
// version fails to load with ErrVersion. Version 2 added the storage kinds
// besides E5M2, the scales section and the rerank copy; a version-1 file
// is a version-2 file without them. Version 3 added the records'
// attributes, version 4 the tag names, version 5 the times and
// importances, version 6 the IVF index kind.
const FormatVersion = file.Version

const (
	// maxFlatRecords is flat's slot limit (int32 slots).
	maxFlatRecords = math.MaxInt32
	// maxGraphNodes is the graph's slot limit (uint32 slots, one value
	// reserved).
	maxGraphNodes = math.MaxUint32 - 1
)

// The engine's section kinds; numbered once, never reused (the container
// owns 7, the metadata).
const (
	secIDs        file.Kind = 1 // flat: ids, uint64 per record, slot order
	secRecords    file.Kind = 2 // flat: records, stride bytes each
	secAdjust     file.Kind = 3 // flat: adjust values, float32 per record (not for dot)
	secTombstones file.Kind = 4 // hnsw: deleted slots, uint32 ascending
	secLevel0     file.Kind = 5 // hnsw: level-0 blocks, blockWords uint32 each
	secUpper      file.Kind = 6 // hnsw: upper-level words, uint32
	secScales     file.Kind = 8 // flat, L2 over a scaled kind: multipliers, float32 per record
	// The rerank copy (header rerank storage set): a flat index of its own.
	secRerankIDs     file.Kind = 9  // ids, uint64 per record, its slot order
	secRerankRecords file.Kind = 10 // records, rerank stride bytes each
	secRerankAdjust  file.Kind = 11 // adjust values, float32 per record (not for dot)
	// Version 3: the records' attributes, per slot as the structure holds
	// them (a graph's deleted slots included), and the payloads.
	secTags     file.Kind = 12 // tag masks, uint64 per slot
	secOwners   file.Kind = 13 // owner keys, uint64 per slot
	secPayloads file.Kind = 14 // payloads by id: see payloadSection
	// Version 4: the names of the tag bits (header TagNameBytes set).
	secTagNames file.Kind = 15 // see tagnames.go
	// Version 5: the ranking attributes, per slot as the tags.
	secTimes       file.Kind = 16 // times, int64 per slot
	secImportances file.Kind = 17 // importances, float32 per slot (finite)
	// Version 6: an IVF index's own sections; its slots' ids, records,
	// adjust values, multipliers and attributes lie in the flat kinds'
	// sections, partition after partition.
	secCentroids  file.Kind = 18 // float32, dim per partition
	secPartitions file.Kind = 19 // per partition: slots, tombstones (uint32 each)
	// secTombstones holds an IVF file's deleted slots too: each
	// partition's, numbered within it, ascending, partition after partition.
	// Version 7: an IVF file's partitions lie in segments, each a run of
	// slots with all their columns, which appending saves add; the
	// directory says which runs (extents) form each partition.
	secIVFDirectory file.Kind = 20 // see ivffile.go
	secIVFSegment   file.Kind = 21 // repeated; see ivffile.go
	// Version 8: a segment's head flags the attribute columns it leaves
	// out because every value in them is zero (see ivffile.go).
)

// attrsVersion is the first format version with attribute sections,
// tagNamesVersion the first with tag names.
const (
	attrsVersion    = 3
	tagNamesVersion = 4
	memoryVersion   = 5 // times and importances
	ivfVersion      = 6 // the IVF kind
	segmentVersion  = 7 // IVF partitions in segments, appending saves
	columnsVersion  = 8 // IVF segments without their all-zero attribute columns
)

// graphKeepPruned is the header's graph flag for hnsw.Config.KeepPruned.
const graphKeepPruned = 1

// fileFormat tells the container what the engine's sections and header
// fields are.
var fileFormat = &file.Format{
	Library: Version,
	Names: map[file.Kind]string{
		secIDs: "ids", secRecords: "records", secAdjust: "adjust", secTombstones: "tombstones",
		secLevel0: "graph-level0", secUpper: "graph-upper", secScales: "scales",
		secRerankIDs: "rerank-ids", secRerankRecords: "rerank-records", secRerankAdjust: "rerank-adjust",
		secTags: "tags", secOwners: "owners", secPayloads: "payloads", secTagNames: "tag-names",
		secTimes: "times", secImportances: "importances", secCentroids: "centroids", secPartitions: "partitions",
		secIVFDirectory: "ivf-directory", secIVFSegment: "ivf-segment",
	},
	Repeated: map[file.Kind]bool{secIVFSegment: true},
	Structures: map[uint8]string{uint8(KindFlat): KindFlat.String(), uint8(KindHNSW): KindHNSW.String(),
		uint8(KindIVF): KindIVF.String()},
	CheckFields: checkFields,
	Needs:       sectionsNeeded,
}

// decodeHeader parses and checks a whole header.
func decodeHeader(b []byte) (*file.Header, error) { return fileFormat.DecodeHeader(b) }

// headerConfig is the configuration a header records.
func headerConfig(h *file.Header) Config {
	c := Config{Dim: int(h.Dim), Metric: Metric(h.Metric), Kind: Kind(h.Kind), Storage: Storage(h.Storage),
		FlatLimitBytes: int64(h.FlatLimit), M: int(h.M), EfConstruction: int(h.EfConstruction), EfSearch: int(h.EfSearch),
		Rerank: Storage(h.Rerank), RerankFactor: int(h.RerankFactor)}
	if c.Kind == KindIVF || Kind(h.Structure) == KindIVF {
		// An IVF index (or an auto index grown into one) has no graph:
		// the graph's fields hold its settings.
		c.NList, c.NProbe, c.IVFSeed = int(h.BlockWords), int(h.GraphFlags), h.Seed
	}
	return c
}

// The IVF settings a header holds (Kind IVF, version 6) in the graph's
// fields, which an IVF index does not use.
func ivfPartitions(h *file.Header) uint64 { return h.UpperWords }
func ivfSplitAt(h *file.Header) int64     { return int64(h.Entry) }

// maxIVFSlots bounds an IVF file's slots: each partition's are int32.
const maxIVFSlots = 1 << 40

// checkFields checks the header's fields against each other; the settings
// the options share go through Config's one validator.
func checkFields(h *file.Header) error {
	// A flat limit past int64 reads as negative: refused there.
	c := headerConfig(h)
	if err := c.check(false); err != nil {
		return err
	}
	structure := Kind(h.Structure)
	if c.Kind == KindIVF && h.Version < ivfVersion {
		return errorf(ErrCorrupt, "a version-%d file of an IVF index", h.Version)
	}
	if h.Slotted() != (h.Version >= segmentVersion && structure == KindIVF) {
		return errorf(ErrCorrupt, "a version-%d file of a %v structure", h.Version, structure)
	}
	if h.Extents > maxIVFExtents {
		return errorf(ErrCorrupt, "absurd count: %d IVF extents (at most %d)", h.Extents, uint64(maxIVFExtents))
	}
	if h.Version < attrsVersion && h.PayloadBytes != 0 {
		return errorf(ErrCorrupt, "a version-%d file with %d payload bytes", h.Version, h.PayloadBytes)
	}
	if h.Version < tagNamesVersion && h.TagNameBytes != 0 {
		return errorf(ErrCorrupt, "a version-%d file with %d bytes of tag names", h.Version, h.TagNameBytes)
	}
	if h.TagNameBytes > tagNamesSectionMax {
		return errorf(ErrCorrupt, "absurd count: %d bytes of tag names (at most %d)", h.TagNameBytes, tagNamesSectionMax)
	}
	if h.PayloadBytes > payloadSectionMax(h.Count) {
		return errorf(ErrCorrupt, "absurd count: %d payload bytes for %d vectors", h.PayloadBytes, h.Count)
	}
	if want := kernel.Stride(c.Dim, c.Storage); h.Stride != uint32(want) {
		return errorf(ErrCorrupt, "record stride %d, dimension %d stores %d", h.Stride, h.Dim, want)
	}
	switch {
	case structure != KindFlat && structure != KindHNSW && structure != KindIVF:
		return errorf(ErrCorrupt, "unknown stored structure %d", structure)
	case structure == KindIVF && c.Kind != KindIVF && c.Kind != KindAuto:
		return errorf(ErrCorrupt, "a %v index stores a %v structure", c.Kind, structure)
	case structure == KindIVF && (c.NList < 1 || c.NProbe < 1 || c.NProbe > c.NList):
		return errorf(ErrCorrupt, "an IVF structure of nlist %d, nprobe %d", c.NList, c.NProbe)
	// An IVF index holds its records flat until it trains.
	case c.Kind != KindAuto && c.Kind != structure && !(c.Kind == KindIVF && structure == KindFlat):
		return errorf(ErrCorrupt, "a %v index stores a %v structure", c.Kind, structure)
	case h.Count > h.Slots:
		return errorf(ErrCorrupt, "%d vectors in %d slots", h.Count, h.Slots)
	}
	if structure == KindIVF {
		switch {
		case h.Slots > maxIVFSlots:
			return errorf(ErrCorrupt, "absurd count: %d IVF slots (at most %d)", h.Slots, uint64(maxIVFSlots))
		case ivfPartitions(h) < 1 || ivfPartitions(h) > MaxNList:
			return errorf(ErrCorrupt, "%d IVF partitions: want 1 to %d", ivfPartitions(h), MaxNList)
		case ivfSplitAt(h) < -1 || ivfSplitAt(h) > math.MaxInt32:
			return errorf(ErrCorrupt, "IVF split size %d", ivfSplitAt(h))
		}
		return nil
	}
	if structure == KindFlat {
		// An untrained IVF index keeps its settings in the graph's fields.
		ivfFields := c.Kind == KindIVF
		switch {
		case h.Slots > maxFlatRecords:
			return errorf(ErrCorrupt, "absurd count: %d vectors (a flat index holds at most %d)", h.Slots, maxFlatRecords)
		case h.Slots != h.Count:
			return errorf(ErrCorrupt, "flat index with %d slots for %d vectors", h.Slots, h.Count)
		case h.Entry != hnsw.NoEntry || h.UpperWords != 0 || !ivfFields && (h.BlockWords != 0 || h.GraphFlags != 0 || h.Seed != 0):
			return errorf(ErrCorrupt, "flat index with graph fields set")
		}
		return nil
	}
	bw := hnsw.BlockWords(int(h.Stride), int(h.M), adjustOf(c.Metric, c.Storage))
	switch {
	case h.Slots > maxGraphNodes:
		return errorf(ErrCorrupt, "absurd count: %d graph nodes (at most %d)", h.Slots, uint64(maxGraphNodes))
	case h.BlockWords != uint32(bw):
		return errorf(ErrCorrupt, "level-0 block of %d words, stride %d and M %d make %d", h.BlockWords, h.Stride, h.M, bw)
	case h.UpperWords < 1 || h.UpperWords > math.MaxUint32:
		return errorf(ErrCorrupt, "absurd count: %d upper-level words", h.UpperWords)
	case h.GraphFlags&^graphKeepPruned != 0:
		return errorf(ErrCorrupt, "unknown graph flags %#x", h.GraphFlags)
	}
	return nil
}

// sectionsNeeded returns the sections the header's structure and rerank
// copy need, with the lengths its counts give.
func sectionsNeeded(h *file.Header) map[file.Kind]uint64 {
	want := map[file.Kind]uint64{}
	adjust := adjustOf(Metric(h.Metric), Storage(h.Storage))
	if Kind(h.Structure) == KindFlat {
		want[secIDs] = h.Count * 8
		want[secRecords] = h.Count * uint64(h.Stride)
		if adjust != score.AdjustNone {
			want[secAdjust] = h.Count * 4
		}
		if adjust == score.AdjustScaleSubtract {
			want[secScales] = h.Count * 4
		}
	} else if Kind(h.Structure) == KindIVF && h.Slotted() {
		nl := ivfPartitions(h)
		want[secCentroids] = nl * uint64(h.Dim) * 4
		want[secIVFDirectory] = (nl + h.Extents) * dirEntryLen
		want[secTombstones] = (h.Slots - h.Count) * 4
	} else if Kind(h.Structure) == KindIVF {
		nl := ivfPartitions(h)
		want[secCentroids] = nl * uint64(h.Dim) * 4
		want[secPartitions] = nl * 8
		want[secIDs] = h.Slots * 8
		want[secRecords] = h.Slots * uint64(h.Stride)
		if adjust != score.AdjustNone {
			want[secAdjust] = h.Slots * 4
		}
		if adjust == score.AdjustScaleSubtract {
			want[secScales] = h.Slots * 4
		}
		want[secTombstones] = (h.Slots - h.Count) * 4
	} else {
		want[secTombstones] = (h.Slots - h.Count) * 4
		want[secLevel0] = h.Slots * uint64(h.BlockWords) * 4
		want[secUpper] = h.UpperWords * 4
	}
	if h.Version >= attrsVersion && !h.Slotted() {
		want[secTags] = h.Slots * 8
		want[secOwners] = h.Slots * 8
	}
	if h.Version >= attrsVersion && h.PayloadBytes != 0 {
		want[secPayloads] = h.PayloadBytes
	}
	if h.Version >= memoryVersion && !h.Slotted() {
		want[secTimes] = h.Slots * 8
		want[secImportances] = h.Slots * 4
	}
	if h.TagNameBytes != 0 {
		want[secTagNames] = uint64(h.TagNameBytes)
	}
	if h.Rerank != 0 {
		want[secRerankIDs] = h.Count * 8
		want[secRerankRecords] = h.Count * uint64(kernel.Stride(int(h.Dim), Storage(h.Rerank)))
		if Metric(h.Metric) != Dot {
			want[secRerankAdjust] = h.Count * 4
		}
	}
	return want
}

// adjustOf is the per-record adjustment a metric uses over records of
// kind s: a per-vector scale multiplies dot products and L2 keys.
func adjustOf(m Metric, s Storage) score.Adjust {
	switch {
	case m == Cosine:
		return score.AdjustScale // 1/|x|, in which the scale cancels
	case m == L2 && s.Scaled():
		return score.AdjustScaleSubtract
	case m == L2:
		return score.AdjustSubtract
	case s.Scaled():
		return score.AdjustScale
	}
	return score.AdjustNone
}
