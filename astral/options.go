package astral

import (
	"fmt"

	"github.com/astral-engine/astral/hnsw"
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
	// KindAuto picks flat while the records take at most FlatLimitBytes.
	KindAuto Kind = 0
	// KindFlat scans every record: exact.
	KindFlat Kind = 1
	// KindHNSW walks a graph: approximate, for indexes too large to scan
	// within a frame.
	KindHNSW Kind = 2
)

func (k Kind) String() string {
	switch k {
	case KindAuto:
		return "auto"
	case KindFlat:
		return "flat"
	case KindHNSW:
		return "hnsw"
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

// Config is an index's configuration, built from Options.
type Config struct {
	Dim            int
	Metric         Metric
	Kind           Kind
	Storage        Storage
	FlatLimitBytes int64
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
}

// DefaultEfSearch is the HNSW search breadth unless WithEfSearch says otherwise.
const DefaultEfSearch = 128

// WithHNSW sets the graph's M (2 to 128, default 16) and efConstruction
// (default 200, never below M).
func WithHNSW(m, efConstruction int) Option {
	return func(c *Config) { c.M, c.EfConstruction = m, efConstruction }
}

// WithEfSearch sets the default HNSW search breadth (1 to 4096).
func WithEfSearch(ef int) Option { return func(c *Config) { c.EfSearch = ef } }

// Option configures NewIndex.
type Option func(*Config)

// WithDim sets the dimension (1 to 4096); required.
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
	return func(c *Config) {
		if factor == 0 {
			factor = DefaultRerankFactor
		}
		c.Rerank, c.RerankFactor = s, factor
	}
}

// WithFlatLimitBytes sets where KindAuto leaves exact search.
func WithFlatLimitBytes(n int64) Option { return func(c *Config) { c.FlatLimitBytes = n } }

// WithKernel forces a kernel implementation by name (tests, benchmarks).
func WithKernel(name string) Option { return func(c *Config) { c.Kernel = name } }

// storageProblem says what is wrong with a storage kind and rerank copy
// (options or a file header), or "".
func storageProblem(s, rerank Storage, factor int64) string {
	switch {
	case !s.Valid():
		return fmt.Sprintf("unknown storage %d", s)
	case rerank == 0 && factor != 0:
		return fmt.Sprintf("rerank factor %d without a rerank copy", factor)
	case rerank != 0 && rerank != F16 && rerank != F32:
		return fmt.Sprintf("rerank storage %d: want f16 (%d) or f32 (%d)", rerank, F16, F32)
	case rerank != 0 && (factor < 1 || factor > MaxRerankFactor):
		return fmt.Sprintf("rerank factor %d: want 1 to %d", factor, MaxRerankFactor)
	}
	return ""
}

func (c *Config) validate() error {
	if c.Dim < 1 || c.Dim > kernel.MaxDim {
		return errorf(ErrInvalidArgument, "dimension %d: want 1 to %d", c.Dim, kernel.MaxDim)
	}
	switch c.Metric {
	case Cosine, Dot, L2:
	default:
		return errorf(ErrInvalidArgument, "unknown metric %d", c.Metric)
	}
	switch c.Kind {
	case KindAuto, KindFlat, KindHNSW:
	default:
		return errorf(ErrInvalidArgument, "unknown index kind %d", c.Kind)
	}
	if msg := storageProblem(c.Storage, c.Rerank, int64(c.RerankFactor)); msg != "" {
		return errorf(ErrInvalidArgument, "%s", msg)
	}
	if c.M < 2 || c.M > hnsw.MaxM {
		return errorf(ErrInvalidArgument, "M %d: want 2 to %d", c.M, hnsw.MaxM)
	}
	if c.EfConstruction < 1 || c.EfConstruction > hnsw.MaxEf {
		return errorf(ErrInvalidArgument, "efConstruction %d: want 1 to %d", c.EfConstruction, hnsw.MaxEf)
	}
	if c.EfSearch < 1 || c.EfSearch > hnsw.MaxEf {
		return errorf(ErrInvalidArgument, "efSearch %d: want 1 to %d", c.EfSearch, hnsw.MaxEf)
	}
	if c.FlatLimitBytes < 0 {
		return errorf(ErrInvalidArgument, "flat limit %d bytes is negative", c.FlatLimitBytes)
	}
	return nil
}
