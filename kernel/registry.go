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
	// scan scores len(out) records of dim components (any dim >= 1), stride
	// bytes apart.
	scan func(qp []float32, dim int, recs []byte, stride int, out []float32)
	// scan384 is the fixed-384 form (stride 384), nil when absent.
	scan384 func(qp []float32, recs []byte, out []float32)
	// batch scores len(out)/nq records against nq queries; dim is a
	// multiple of GroupLen; out is query-major.
	batch func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32)
	// readSum reads p (len a multiple of 256) as fast as the CPU allows,
	// with or without software prefetch.
	readSum func(p []byte, prefetch bool) uint64
	// gather scores the records at base[id*stride:] (dim a multiple of
	// GroupLen); nil means ScanIDs loops over scan (gather.go).
	gather func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32)
}

var impls []*Impl

// register adds an implementation, keeping impls ordered by rank (init
// order between files is by file name, not by speed).
func register(i *Impl) {
	impls = append(impls, i)
	slices.SortStableFunc(impls, func(a, b *Impl) int { return a.rank - b.rank })
}

func init() {
	register(&Impl{Name: "go", scan: scanE5M2Go, batch: batchE5M2Go, readSum: readSumGo})
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
	dim    int // padded to GroupLen
	stride int
	scan   func(qp []float32, recs []byte, out []float32)
	batch  func(qps []float32, nq, dim int, recs []byte, stride int, scratch, out []float32)
	gather func(qp []float32, dim int, base []byte, stride int, ids []uint32, out []float32)
}

// New returns the kernel of impl for records of dimension dim; a nil impl
// means Best.
func New(impl *Impl, dim int, s Storage) (*Kernel, error) {
	if dim < 1 || dim > MaxDim {
		return nil, ErrDimension
	}
	if s != E5M2 {
		return nil, fmt.Errorf("kernel: storage %v not supported", s)
	}
	if impl == nil {
		impl = Best()
	}
	k := &Kernel{dim: LayoutLen(dim), stride: Stride(dim, s), batch: impl.batch, gather: impl.gather}
	if dim == 384 && impl.scan384 != nil {
		k.name = impl.Name + "/fixed384"
		k.scan = impl.scan384
	} else {
		k.name = impl.Name + "/generic"
		scan, pdim, stride := impl.scan, k.dim, k.stride
		k.scan = func(qp []float32, recs []byte, out []float32) { scan(qp, pdim, recs, stride, out) }
	}
	return k, nil
}

// Name says which implementation and form the kernel uses, e.g. "avx2/fixed384".
func (k *Kernel) Name() string { return k.name }

// Stride is the byte distance between records.
func (k *Kernel) Stride() int { return k.stride }

// QueryLen is the length of a laid-out query and of batch scratch.
func (k *Kernel) QueryLen() int { return k.dim }

// Scan scores len(out) consecutive records against the laid-out query qp.
func (k *Kernel) Scan(qp []float32, recs []byte, out []float32) {
	if len(out) == 0 {
		return
	}
	if len(qp) < k.dim || len(recs) < len(out)*k.stride {
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
	if nq < 1 || len(out) != n*nq || len(qps) < nq*k.dim || len(scratch) < k.dim || len(recs) < n*k.stride {
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
