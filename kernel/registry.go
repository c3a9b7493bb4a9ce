package kernel

import (
	"errors"
	"fmt"
	"slices"
)

// Impl is one implementation of the kernels (pure Go, AVX2, NEON, ...).
type Impl struct {
	Name string
	// rank orders implementations by speed; Best takes the highest.
	rank int
	// readSum reads p (len a multiple of 256) as fast as the CPU allows,
	// with or without software prefetch.
	readSum func(p []byte, prefetch bool) uint64
	// kinds holds the kernels of each storage kind, indexed by Storage;
	// nil where the implementation has none.
	kinds [F32 + 1]*Funcs
}

var impls []*Impl

// Funcs are one implementation's kernels for one storage kind. dim is
// padded to a multiple of GroupLen and records are zero-padded to it (only
// E5M2's scan also takes any dim >= 1 and reads no byte past it). A nil
// scan384 means the generic scan serves dim 384; a nil batch loops over
// scan; a nil gather scans one record per id (gather.go).
type Funcs struct {
	// scan scores len(out) records of dim components, stride bytes apart.
	scan func(qp []float32, dim int, recs []byte, stride int, out []float32)
	// scan384 is the fixed-384 form (stride the kind's 384-record size).
	scan384 func(qp []float32, recs []byte, out []float32)
	// batch scores len(out)/nq records against nq queries; out is
	// query-major.
	batch func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32)
	// gather scores the records at base[id*stride:].
	gather func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32)
}

// funcs returns impl's kernels for s, nil when it has none.
func (i *Impl) funcs(s Storage) *Funcs {
	if !s.Valid() {
		return nil
	}
	return i.kinds[s]
}

// Supports reports whether impl has kernels for storage kind s.
func (i *Impl) Supports(s Storage) bool { return i.funcs(s) != nil }

// register adds an implementation, keeping impls ordered by rank (init
// order between files is by file name, not by speed).
func register(i *Impl) {
	impls = append(impls, i)
	slices.SortStableFunc(impls, func(a, b *Impl) int { return a.rank - b.rank })
}

func init() {
	impl := &Impl{Name: "go", readSum: readSumGo}
	for _, s := range Storages {
		impl.kinds[s] = goFuncs(s)
	}
	register(impl)
}

// All returns every implementation this CPU can run, pure Go first.
func All() []*Impl { return impls }

// Best returns the fastest implementation this CPU can run.
func Best() *Impl { return impls[len(impls)-1] }

// Lookup finds an implementation by name.
func Lookup(name string) (*Impl, error) {
	for _, i := range impls {
		if i.Name == name {
			return i, nil
		}
	}
	return nil, fmt.Errorf("kernel: no implementation %q on this CPU", name)
}

// ErrDimension reports a dimension the kernels do not take.
var ErrDimension = errors.New("kernel: dimension must be 1 to 4096")

// MaxDim is the largest dimension an index takes.
const MaxDim = 4096

// Kernel scores records of one dimension and storage kind with one
// implementation, chosen once when an index is created. Records are stored
// Stride bytes apart, zero-padded, so the record loop never handles a tail.
type Kernel struct {
	name   string
	kind   Storage
	dim    int // padded to GroupLen
	qlen   int
	stride int
	scan   func(qp []float32, recs []byte, out []float32)
	batch  func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32)
	gather func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32)
}

// New returns the kernel of impl for records of dimension dim and kind s;
// a nil impl means the fastest implementation that has kernels for s.
func New(impl *Impl, dim int, s Storage) (*Kernel, error) {
	if dim < 1 || dim > MaxDim {
		return nil, ErrDimension
	}
	if !s.Valid() {
		return nil, fmt.Errorf("kernel: storage %d not supported", s)
	}
	if impl == nil {
		for _, i := range impls {
			if i.Supports(s) {
				impl = i
			}
		}
	}
	f := impl.funcs(s)
	if f == nil {
		return nil, fmt.Errorf("kernel: %s has no %v kernels", impl.Name, s)
	}
	pdim := LayoutLen(dim)
	k := &Kernel{kind: s, dim: pdim, qlen: queryLen(s, pdim), stride: Stride(dim, s), batch: f.batch, gather: f.gather}
	prefix := impl.Name + "/"
	if s != E5M2 {
		prefix += s.String() + "/"
	}
	if dim == 384 && f.scan384 != nil {
		k.name = prefix + "fixed384"
		k.scan = f.scan384
	} else {
		k.name = prefix + "generic"
		scan, stride := f.scan, k.stride
		k.scan = func(qp []float32, recs []byte, out []float32) { scan(qp, pdim, recs, stride, out) }
	}
	if k.batch == nil {
		k.batch = k.batchByScan
	}
	return k, nil
}

// batchByScan is the batch form of an implementation without one: each
// query scans the records on its own.
func (k *Kernel) batchByScan(qps []float32, nq, _ int, recs []byte, _ int, _, out []float32) {
	n := len(out) / nq
	for q := 0; q < nq; q++ {
		k.scan(qps[q*k.qlen:(q+1)*k.qlen], recs, out[q*n:(q+1)*n])
	}
}

// Storage is the kind of the records the kernel scores.
func (k *Kernel) Storage() Storage { return k.kind }

// PrepareQuery prepares q (the index's dimension) as this kernel reads it
// into dst, which holds QueryLen values, and returns dst[:QueryLen]: the
// canonical lane order (LayoutQuery) for the float kinds, int16 values and
// their scale for Int8.
func (k *Kernel) PrepareQuery(dst, q []float32) []float32 { return prepareQuery(k.kind, dst, q) }

// Name says which implementation and form the kernel uses, e.g. "avx2/fixed384".
func (k *Kernel) Name() string { return k.name }

// Stride is the byte distance between records.
func (k *Kernel) Stride() int { return k.stride }

// QueryLen is the length of a laid-out query and of batch scratch.
func (k *Kernel) QueryLen() int { return k.qlen }

// Scan scores len(out) consecutive records against the laid-out query qp.
func (k *Kernel) Scan(qp []float32, recs []byte, out []float32) {
	if len(out) == 0 {
		return
	}
	if len(qp) < k.qlen || len(recs) < len(out)*k.stride {
		panic("kernel: Scan buffers too short")
	}
	k.scan(qp, recs, out)
}

// ScanBatch scores len(out)/nq consecutive records against nq laid-out
// queries stored QueryLen apart in qps; out is query-major (out[q*n+r], so
// each query's scores are contiguous);
// scratch holds QueryLen values. Scores are bit-identical to Scan's.
func (k *Kernel) ScanBatch(qps []float32, nq int, recs []byte, scratch, out []float32) {
	if len(out) == 0 {
		return
	}
	n := len(out) / nq
	if nq < 1 || len(out) != n*nq || len(qps) < nq*k.qlen || len(scratch) < k.qlen || len(recs) < n*k.stride {
		panic("kernel: ScanBatch buffers too short")
	}
	k.batch(qps, nq, k.dim, recs, k.stride, scratch, out)
}

// ReadSum reads p as fast as the best implementation can (with or without
// software prefetch, whichever is faster on the machine) and returns a sum
// of its words, so the read cannot be optimised away. It is the memory-read
// ceiling a scan is compared with.
func ReadSum(p []byte, prefetch bool) uint64 {
	whole := len(p) &^ 255
	var s uint64
	if whole > 0 {
		s = Best().readSum(p[:whole], prefetch)
	}
	for _, b := range p[whole:] {
		s += uint64(b)
	}
	return s
}

func readSumGo(p []byte, _ bool) uint64 {
	var s0, s1, s2, s3 uint64
	for i := 0; i+32 <= len(p); i += 32 {
		s0 += le64(p[i:])
		s1 += le64(p[i+8:])
		s2 += le64(p[i+16:])
		s3 += le64(p[i+24:])
	}
	return s0 + s1 + s2 + s3
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
