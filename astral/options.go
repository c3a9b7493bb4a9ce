package astral

import (
	"cmp"
	"fmt"

	"github.com/astral-engine/astral/hnsw"
	"github.com/astral-engine/astral/ivf"
	"github.com/astral-engine/astral/kernel"
)

// Metric is how vectors are compared. Values are stored in index files and
// the C ABI: numbered once, never reused.
type Metric uint8

const (
	// Cosine similarity: vectors are normalized before they are stored and
	// queries before they are scored; higher is closer.
	Cosine Metric = 1
	// Dot is the inner product of the stored and query vectors; higher is closer.
	Dot Metric = 2
	// L2 is the squared Euclidean distance; lower is closer.
	L2 Metric = 3
)

func (m Metric) String() string {
	switch m {
	case Cosine:
		return "cosine"
	case Dot:
		return "dot"
	case L2:
		return "l2"
	}
	return "unknown"
}

// Kind is the search structure.
type Kind uint8

const (
	// KindAuto scans flat while the records take at most FlatLimitBytes,
	// walks an HNSW graph above that, and scans IVF partitions once it
	// holds more than IVFLimitRecords records.
	KindAuto Kind = 0
	// KindFlat scans every record: exact.
	KindFlat Kind = 1
	// KindHNSW walks a graph: approximate, for indexes too large to scan
	// within a frame.
	KindHNSW Kind = 2
	// KindIVF scans the NProbe partitions (of NList, k-means) nearest
	// each query: approximate, for indexes too large for HNSW's build
	// time or memory. It needs training data: until TrainSize(NList)
	// records are stored it scans them exactly, then trains on them once.
	KindIVF Kind = 3
)

func (k Kind) String() string {
	switch k {
	case KindAuto:
		return "auto"
	case KindFlat:
		return "flat"
	case KindHNSW:
		return "hnsw"
	case KindIVF:
		return "ivf"
	}
	return "unknown"
}

// Storage is the stored kind of a component.
type Storage = kernel.Storage

// The storage kinds (see the README's "Choosing a storage kind").
const (
	// E5M2 is the default: one byte per component, no scale.
	E5M2 = kernel.E5M2
	// E4M3 is one byte per component with a per-vector scale.
	E4M3 = kernel.E4M3
	// Int8 is one signed byte per component with a per-vector scale: the
	// most accurate one-byte kind, scored with exact integer arithmetic.
	Int8 = kernel.Int8
	// F16 is two bytes per component.
	F16 = kernel.F16
	// F32 is four bytes per component: exact.
	F32 = kernel.F32
)

// DefaultRerankFactor is how many candidates per result a reranking index
// rescores unless WithRerank says otherwise.
const DefaultRerankFactor = 4

// MaxRerankFactor bounds the rerank factor.
const MaxRerankFactor = 64

// DefaultFlatLimitBytes is where an auto index stops scanning exactly: 16 MiB
// of records, about 43,690 vectors of 384 E5M2 components.
const DefaultFlatLimitBytes = 16 << 20

// DefaultIVFLimitRecords is where an auto index leaves HNSW for IVF: the
// size past which a graph's build costs minutes on 2 cores while IVF, with
// its worker, answers as fast at a higher recall (docs/IVF.md, "Choosing").
const DefaultIVFLimitRecords = 500_000

// NeverIVF as IVFLimitRecords keeps an auto index off IVF (any negative
// value does).
const NeverIVF = -1

// Config is an index's configuration, built from Options.
type Config struct {
	Dim            int
	Metric         Metric
	Kind           Kind
	Storage        Storage
	FlatLimitBytes int64
	// IVFLimitRecords is the record count past which an auto index
	// switches to IVF: 0 for DefaultIVFLimitRecords, negative for never.
	// It is not saved: a loaded index uses the default.
	IVFLimitRecords int64
	// Kernel forces one implementation by name ("go", "avx2"); empty picks
	// the fastest this CPU runs.
	Kernel string
	// HNSW: links per node (2·M on level 0), candidates kept while
	// inserting, and while searching (at least k is always used).
	M, EfConstruction, EfSearch int
	// Rerank is the kind of a second copy of every vector (F16 or F32; 0
	// for none): a query then keeps k·RerankFactor candidates from the
	// compact records and returns the k best by their scores against it.
	Rerank       Storage
	RerankFactor int
	// IVF: partitions made by training, partitions each query scans, and
	// the seed of the training sample and first centroids. An auto index
	// that grows into IVF derives what is 0 (AutoNList, DefaultNProbe).
	NList, NProbe int
	IVFSeed       uint64
	// ivfTrainAt overrides TrainSize (tests: smaller indexes that train).
	ivfTrainAt int
}

// The bounds and defaults of the options; 0 in an option that has a
// default means that default.
const (
	// MaxDim bounds the dimension.
	MaxDim = kernel.MaxDim
	// DefaultM and MaxM: links per node on upper levels (2·M on level 0).
	DefaultM = hnsw.DefaultM
	MaxM     = hnsw.MaxM
	// DefaultEfConstruction: candidates kept while inserting.
	DefaultEfConstruction = hnsw.DefaultEfConstruction
	// DefaultEfSearch: the HNSW search breadth unless WithEfSearch says
	// otherwise.
	DefaultEfSearch = 128
	// MaxEf bounds efConstruction and efSearch.
	MaxEf = hnsw.MaxEf
	// DefaultNList: IVF partitions (the 1M-record configuration measured
	// in docs/IVF.md). MaxNList bounds it.
	DefaultNList = 1024
	MaxNList     = ivf.MaxNList
)

// DefaultNProbe is the partitions a query scans unless WithIVF says
// otherwise: 3/64 of nlist, at least 1 (48 of 1024, recall 0.963 at 1M in
// docs/IVF.md).
func DefaultNProbe(nlist int) int { return max(1, nlist*3/64) }

// TrainSize is how many records an IVF index of nlist partitions stores
// before it trains: 39 per partition (k-means needs several points per
// centroid), at least 4096.
func TrainSize(nlist int) int { return max(39*nlist, 4096) }

// WithIVF sets an IVF index's partition count (1 to MaxNList; 0 for
// DefaultNList) and how many a query scans (1 to nlist; 0 for
// DefaultNProbe(nlist)).
func WithIVF(nlist, nprobe int) Option {
	return func(c *Config) { c.NList, c.NProbe = nlist, nprobe }
}

// AutoNList is the partitions of the IVF index an auto index of n records
// grows into, unless WithIVF set them: the power of two nearest sqrt(n)
// (1024 at 1M records, as measured in docs/IVF.md), 256 to MaxNList, but
// never more than n/39, so that k-means has TrainSize's 39 records for
// each centroid (a small limit set in a test or a tool).
func AutoNList(n int) int {
	nl := 1
	for nl*nl*2 < n { // on a log scale, 2·nl is nearer sqrt(n) than nl once n > 2·nl²
		nl *= 2
	}
	return max(1, min(max(nl, 256), MaxNList, n/39))
}

// WithIVFLimitRecords sets the record count past which KindAuto switches to
// IVF (0 for DefaultIVFLimitRecords, NeverIVF for never).
func WithIVFLimitRecords(n int64) Option { return func(c *Config) { c.IVFLimitRecords = n } }

// ivfLimit is the record count past which an auto index switches to IVF;
// false for never.
func (c *Config) ivfLimit() (int64, bool) {
	switch {
	case c.IVFLimitRecords < 0:
		return 0, false
	case c.IVFLimitRecords == 0:
		return DefaultIVFLimitRecords, true
	}
	return c.IVFLimitRecords, true
}

// WithIVFSeed sets the seed of IVF training (sample and first centroids).
func WithIVFSeed(seed uint64) Option { return func(c *Config) { c.IVFSeed = seed } }

// WithHNSW sets the graph's M (2 to MaxM; 0 for DefaultM) and
// efConstruction (M to MaxEf; 0 for DefaultEfConstruction).
func WithHNSW(m, efConstruction int) Option {
	return func(c *Config) { c.M, c.EfConstruction = m, efConstruction }
}

// WithEfSearch sets the default HNSW search breadth (1 to MaxEf; 0 for
// DefaultEfSearch).
func WithEfSearch(ef int) Option { return func(c *Config) { c.EfSearch = ef } }

// Option configures NewIndex.
type Option func(*Config)

// WithDim sets the dimension (1 to MaxDim); required.
func WithDim(d int) Option { return func(c *Config) { c.Dim = d } }

// WithMetric sets the metric; the default is Cosine.
func WithMetric(m Metric) Option { return func(c *Config) { c.Metric = m } }

// WithKind sets the search structure; the default is KindAuto.
func WithKind(k Kind) Option { return func(c *Config) { c.Kind = k } }

// WithStorage sets the stored kind; the default is E5M2.
func WithStorage(s Storage) Option { return func(c *Config) { c.Storage = s } }

// WithRerank keeps a second copy of every vector in s (F16 or F32) and has
// each query rescore its factor·k best candidates against it (factor 1 to
// MaxRerankFactor; 0 means DefaultRerankFactor). Results then carry the
// exact scores of that copy.
func WithRerank(s Storage, factor int) Option {
	return func(c *Config) { c.Rerank, c.RerankFactor = s, factor }
}

// WithFlatLimitBytes sets where KindAuto leaves exact search.
func WithFlatLimitBytes(n int64) Option { return func(c *Config) { c.FlatLimitBytes = n } }

// WithKernel forces a kernel implementation by name (tests, benchmarks).
func WithKernel(name string) Option { return func(c *Config) { c.Kernel = name } }

// Setting names one configured value, as errors report it.
type Setting uint8

// The settings of an index (Config's fields, and the same fields of a file
// header).
const (
	SettingDim Setting = iota + 1
	SettingMetric
	SettingKind
	SettingStorage
	SettingRerank
	SettingRerankFactor
	SettingM
	SettingEfConstruction
	SettingEfSearch
	SettingFlatLimitBytes
	SettingNList
	SettingNProbe
)

func (s Setting) String() string {
	switch s {
	case SettingDim:
		return "dimension"
	case SettingMetric:
		return "metric"
	case SettingKind:
		return "index kind"
	case SettingStorage:
		return "storage"
	case SettingRerank:
		return "rerank storage"
	case SettingRerankFactor:
		return "rerank factor"
	case SettingM:
		return "M"
	case SettingEfConstruction:
		return "efConstruction"
	case SettingEfSearch:
		return "efSearch"
	case SettingFlatLimitBytes:
		return "flat limit bytes"
	case SettingNList:
		return "nlist"
	case SettingNProbe:
		return "nprobe"
	}
	return "unknown setting"
}

// A SettingError is a setting out of range, from options (wrapping
// ErrInvalidArgument) or a file header (wrapping ErrCorrupt). Bindings
// describe it in their own names with Describe.
type SettingError struct {
	Setting Setting
	Value   int64
	// Want is what the setting may be; empty for an unknown enum value.
	Want string
	// Without, when set, is the setting this one needs and lacks.
	Without  Setting
	sentinel error
}

func (e *SettingError) Error() string {
	return e.sentinel.Error() + ": " + e.Describe(Setting.String)
}

func (e *SettingError) Unwrap() error { return e.sentinel }

// Describe says what is wrong, naming settings with name.
func (e *SettingError) Describe(name func(Setting) string) string {
	return e.describe(name, e.Value)
}

// DescribeValue is Describe with the value as the caller gave it, before a
// narrowing conversion.
func (e *SettingError) DescribeValue(name func(Setting) string, value uint64) string {
	return e.describe(name, value)
}

func (e *SettingError) describe(name func(Setting) string, value any) string {
	switch {
	case e.Without != 0:
		return fmt.Sprintf("%s %d without a %s", name(e.Setting), value, name(e.Without))
	case e.Want == "":
		return fmt.Sprintf("unknown %s %d", name(e.Setting), value)
	}
	return fmt.Sprintf("%s %d: want %s", name(e.Setting), value, e.Want)
}

// check is the one validator of a configuration: NewIndex's options
// (fresh, after withDefaults; failures wrap ErrInvalidArgument) and a file
// header's fields (failures wrap ErrCorrupt). Fresh options must also keep
// efConstruction at least M, which files written before that rule may not.
func (c *Config) check(fresh bool) error {
	bad := func(s Setting, v int64, want string, args ...any) error {
		e := &SettingError{Setting: s, Value: v, Want: fmt.Sprintf(want, args...), sentinel: ErrInvalidArgument}
		if !fresh {
			e.sentinel = ErrCorrupt
		}
		return e
	}
	// The defaults that 0 stands for, said only where 0 is accepted.
	or0 := func(def int) string {
		if !fresh {
			return ""
		}
		return fmt.Sprintf(" (0 for %d)", def)
	}
	switch {
	case c.Dim < 1 || c.Dim > MaxDim:
		return bad(SettingDim, int64(c.Dim), "1 to %d", MaxDim)
	case c.Metric != Cosine && c.Metric != Dot && c.Metric != L2:
		return bad(SettingMetric, int64(c.Metric), "")
	case c.Kind > KindIVF:
		return bad(SettingKind, int64(c.Kind), "")
	case !c.Storage.Valid():
		return bad(SettingStorage, int64(c.Storage), "")
	case c.Rerank == 0 && c.RerankFactor != 0:
		e := bad(SettingRerankFactor, int64(c.RerankFactor), "").(*SettingError)
		e.Without = SettingRerank
		return e
	case c.Rerank != 0 && c.Rerank != F16 && c.Rerank != F32:
		return bad(SettingRerank, int64(c.Rerank), "0 (none), %v (%d) or %v (%d)", F16, F16, F32, F32)
	case c.Rerank != 0 && (c.RerankFactor < 1 || c.RerankFactor > MaxRerankFactor):
		return bad(SettingRerankFactor, int64(c.RerankFactor), "1 to %d%s", MaxRerankFactor, or0(DefaultRerankFactor))
	case c.M < 2 || c.M > MaxM:
		return bad(SettingM, int64(c.M), "2 to %d%s", MaxM, or0(DefaultM))
	case fresh && (c.EfConstruction < c.M || c.EfConstruction > MaxEf):
		return bad(SettingEfConstruction, int64(c.EfConstruction), "M (%d) to %d%s", c.M, MaxEf, or0(DefaultEfConstruction))
	case c.EfConstruction < 1 || c.EfConstruction > MaxEf:
		return bad(SettingEfConstruction, int64(c.EfConstruction), "1 to %d", MaxEf)
	case c.EfSearch < 1 || c.EfSearch > MaxEf:
		return bad(SettingEfSearch, int64(c.EfSearch), "1 to %d%s", MaxEf, or0(DefaultEfSearch))
	case c.FlatLimitBytes < 0:
		return bad(SettingFlatLimitBytes, c.FlatLimitBytes, "0 or more")
	case c.Kind == KindIVF && (c.NList < 1 || c.NList > MaxNList):
		return bad(SettingNList, int64(c.NList), "1 to %d%s", MaxNList, or0(DefaultNList))
	case c.Kind == KindIVF && (c.NProbe < 1 || c.NProbe > c.NList):
		return bad(SettingNProbe, int64(c.NProbe), "1 to nlist (%d)%s", c.NList, or0(DefaultNProbe(c.NList)))
	// An auto index keeps its zeros until it grows into IVF.
	case c.Kind == KindAuto && (c.NList < 0 || c.NList > MaxNList):
		return bad(SettingNList, int64(c.NList), "0 (derived) to %d", MaxNList)
	case c.Kind == KindAuto && (c.NProbe < 0 || c.NProbe > cmp.Or(c.NList, MaxNList)):
		return bad(SettingNProbe, int64(c.NProbe), "0 (derived) to nlist (%d)", cmp.Or(c.NList, MaxNList))
	}
	return nil
}

// validate checks options given to NewIndex, zeros already defaulted.
func (c *Config) validate() error { return c.check(true) }

// withDefaults replaces the zeros that stand for defaults.
func (c *Config) withDefaults() {
	if c.M == 0 {
		c.M = DefaultM
	}
	if c.EfConstruction == 0 {
		c.EfConstruction = DefaultEfConstruction
	}
	if c.EfSearch == 0 {
		c.EfSearch = DefaultEfSearch
	}
	if c.Kind == KindIVF && c.NList == 0 {
		c.NList = DefaultNList
	}
	if c.Kind == KindIVF && c.NProbe == 0 {
		c.NProbe = DefaultNProbe(c.NList)
	}
	if c.Rerank != 0 && c.RerankFactor == 0 {
		c.RerankFactor = DefaultRerankFactor
	}
}

// withIVFTrainAt trains an IVF index at n records rather than TrainSize
// (tests: indexes small enough to build many times).
func withIVFTrainAt(n int) Option { return func(c *Config) { c.ivfTrainAt = n } }
