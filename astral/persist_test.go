package astral

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	container "github.com/astral-engine/astral/astral/internal/file"
	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// castagnoli is the standard library's CRC-32C table: the tests check the
// library's own CRC code against it.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sized picks a test size: the short one under -short, which make test
// gives the slow configurations (-race, -tags noasm, qemu); see
// internal/testsize.
func sized(normal, short int) int { return testsize.Sized(normal, short) }

// testIndex builds an index of n random vectors (ids 10+i) and removes
// every 23rd, so a graph keeps tombstones (too few to compact).
func testIndex(t testing.TB, rt *Runtime, kind Kind, metric Metric, n, dim int, opts ...Option) *Index {
	t.Helper()
	x, err := NewIndex(rt, append([]Option{WithDim(dim), WithKind(kind), WithMetric(metric), WithHNSW(8, 40)}, opts...)...)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
	if n > 0 {
		require.NoError(t, x.Add(seqIDs(10, n), randomVectors(r, n, dim)))
	}
	for i := 0; i < n; i += 23 {
		require.NoError(t, x.Remove(uint64(10+i)))
	}
	x.Wait()
	return x
}

// saved is x's index file.
func saved(t testing.TB, x *Index) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, x.Save(&b))
	return b.Bytes()
}

// answers is the top 10 of nq fixed queries, one at a time and batched.
func answers(t testing.TB, x *Index, nq int) []Result {
	t.Helper()
	dim := x.Config().Dim
	qs := randomVectors(rand.New(rand.NewPCG(77, uint64(dim))), nq, dim)
	var out []Result
	for i := range nq {
		res, err := x.Query(nil, qs[i*dim:(i+1)*dim], 10)
		require.NoError(t, err)
		out = append(out, res...)
	}
	counts := make([]int, nq)
	batch, err := x.QueryBatch(nil, counts, qs, 10)
	require.NoError(t, err)
	for i := range nq {
		out = append(out, batch[i*10:i*10+counts[i]]...)
	}
	return out
}

// writeTemp writes b to a new file and returns its path.
func writeTemp(t testing.TB, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "index.astral")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// onlyReader hides every method but Read (no io.Seeker), so Load cannot
// learn the stream's length.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// loaders are the ways to load a file's bytes.
var loaders = []struct {
	name string
	load func(t testing.TB, rt *Runtime, b []byte) (*Index, error)
}{
	{"LoadBytes", func(_ testing.TB, rt *Runtime, b []byte) (*Index, error) { return LoadBytes(rt, b) }},
	{"Load/seeker", func(_ testing.TB, rt *Runtime, b []byte) (*Index, error) { return Load(rt, bytes.NewReader(b)) }},
	{"Load/stream", func(_ testing.TB, rt *Runtime, b []byte) (*Index, error) {
		return Load(rt, onlyReader{bytes.NewReader(b)})
	}},
	{"OpenFile", func(t testing.TB, rt *Runtime, b []byte) (*Index, error) { return OpenFile(rt, writeTemp(t, b)) }},
	{"OpenFile/background", openInBackground},
}

// openInBackground opens b's file with VerifyInBackground and queries it
// before its check ends (which must not crash, whatever b holds, and must
// answer as afterwards), then returns the check's error, if any, after
// checking that the index then refuses queries, writes and saves with it.
func openInBackground(t testing.TB, rt *Runtime, b []byte) (*Index, error) {
	x, err := OpenFile(rt, writeTemp(t, b), VerifyInBackground())
	if err != nil {
		return nil, err
	}
	q := make([]float32, x.Config().Dim)
	for i := range q {
		q[i] = float32(i%7) - 3
	}
	early, earlyErr := x.Query(nil, q, 10)
	if err := x.Verify(); err != nil {
		require.ErrorIs(t, err, ErrCorrupt)
		if earlyErr != nil {
			require.Equal(t, err, earlyErr)
		}
		_, qerr := x.Query(nil, q, 10)
		require.Equal(t, err, qerr, "queries after a failed check")
		_, qerr = x.QueryBatch(nil, make([]int, 1), q, 10)
		require.Equal(t, err, qerr)
		require.Equal(t, err, x.Add([]uint64{1 << 50}, q), "writes after a failed check")
		require.Equal(t, err, x.Remove(1))
		require.ErrorIs(t, x.Save(io.Discard), ErrCorrupt, "saves after a failed check")
		require.NoError(t, x.Close())
		return nil, err
	}
	require.NoError(t, earlyErr)
	late, err := x.Query(nil, q, 10)
	require.NoError(t, err)
	require.Equal(t, late, early, "answers before the check ends")
	return x, nil
}

// TestSaveLoadRoundTrip: every kind and metric, saved and loaded every
// way, answers every query with the same bits and saves to the same bytes.
func TestSaveLoadRoundTrip(t *testing.T) {
	rt := newRuntime(t, 1)
	n := sized(2000, 600)
	for _, kind := range []Kind{KindFlat, KindHNSW, KindAuto} {
		for _, metric := range []Metric{Cosine, Dot, L2} {
			for _, size := range []int{n, 1, 0} {
				t.Run(fmt.Sprintf("%v/%v/n=%d", kind, metric, size), func(t *testing.T) {
					x := testIndex(t, rt, kind, metric, size, 48, WithEfSearch(60))
					want, file := answers(t, x, 12), saved(t, x)
					for _, l := range loaders {
						y, err := l.load(t, rt, file)
						require.NoError(t, err, l.name)
						require.Equal(t, want, answers(t, y, 12), "%s: answers differ", l.name)
						require.Equal(t, x.Stats().Len, y.Stats().Len)
						require.Equal(t, x.Stats().Kind, y.Stats().Kind)
						require.Equal(t, x.Config(), y.Config(), l.name)
						require.Equal(t, file, saved(t, y), "%s: saved again, different bytes", l.name)
						if xg, ok := x.live.(graphStructure); ok {
							yg := y.live.(graphStructure)
							require.Equal(t, xg.Digest(), yg.Digest(), l.name)
							require.Equal(t, xg.Deleted(), yg.Deleted(), l.name)
						}
						require.NoError(t, y.Close())
					}
				})
			}
		}
	}
}

// TestRoundTripAfterSwitchAndCompaction: an auto index past its flat limit
// (a graph) after a compaction round-trips too; efSearch set at run time
// is saved.
func TestRoundTripAfterSwitchAndCompaction(t *testing.T) {
	rt := newRuntime(t, 1)
	n := sized(3000, 800)
	x := testIndex(t, rt, KindAuto, Cosine, n, 32, WithFlatLimitBytes(int64(n/2*64)))
	require.Equal(t, KindHNSW, x.Stats().Kind)
	var gone []uint64
	for i := 1; i < n; i += 3 {
		if i%23 != 0 { // testIndex removed those
			gone = append(gone, uint64(10+i))
		}
	}
	require.NoError(t, x.Remove(gone...))
	x.Wait()
	require.NoError(t, x.SetEfSearch(77))
	y, err := LoadBytes(rt, saved(t, x))
	require.NoError(t, err)
	require.Equal(t, answers(t, x, 10), answers(t, y, 10))
	require.Equal(t, x.live.(graphStructure).Digest(), y.live.(graphStructure).Digest())
	require.Equal(t, int32(77), y.efSearch.Load())
}

// TestLoadedIndexTakesWrites: adds and removes on a loaded index (the first
// copying a mapped file) give what they give on the original.
func TestLoadedIndexTakesWrites(t *testing.T) {
	rt := newRuntime(t, 1)
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		for _, l := range loaders {
			t.Run(fmt.Sprintf("%v/%s", kind, l.name), func(t *testing.T) {
				x := testIndex(t, rt, kind, L2, 500, 32)
				y, err := l.load(t, rt, saved(t, x))
				require.NoError(t, err)
				require.Equal(t, strings.HasPrefix(l.name, "OpenFile"), y.Mapped())
				r := rand.New(rand.NewPCG(5, 5))
				for step := range 20 {
					v := randomVectors(r, 3, 32)
					ids := seqIDs(10000+3*step, 3)
					require.NoError(t, x.Add(ids, v))
					require.NoError(t, y.Add(ids, v))
					require.False(t, y.Mapped())
					if step%2 == 0 {
						require.NoError(t, x.Remove(uint64(10+step*7+1)))
						require.NoError(t, y.Remove(uint64(10+step*7+1)))
					}
				}
				require.ErrorIs(t, y.Add([]uint64{10001}, make([]float32, 32)), ErrDuplicateID)
				require.Equal(t, answers(t, x, 8), answers(t, y, 8))
				require.Equal(t, saved(t, x), saved(t, y))
			})
		}
	}
}

// TestMappedCopyOnWriteUnderQueries: queries keep running, never reading
// an unmapped page, while the first write copies a mapped index (opened
// whole, or checked in the background meanwhile).
func TestMappedCopyOnWriteUnderQueries(t *testing.T) {
	rt := newRuntime(t, 1)
	for _, c := range []struct {
		kind Kind
		opts []OpenOption
	}{{KindFlat, nil}, {KindHNSW, nil}, {KindFlat, []OpenOption{VerifyInBackground()}}, {KindHNSW, []OpenOption{VerifyInBackground()}}} {
		kind := c.kind
		t.Run(fmt.Sprintf("%v/%d", kind, len(c.opts)), func(t *testing.T) {
			x := testIndex(t, rt, kind, Cosine, sized(3000, 800), 32)
			want := answers(t, x, 4)
			// With VerifyInBackground the queries start while the check
			// runs, and the first write waits for it.
			y, err := OpenFile(rt, writeTemp(t, saved(t, x)), c.opts...)
			require.NoError(t, err)
			var stop atomic.Bool
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for g := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					q := randomVectors(rand.New(rand.NewPCG(uint64(g), 1)), 1, 32)
					for !stop.Load() {
						res, err := y.Query(nil, q, 5)
						if err != nil || len(res) != 5 {
							errs <- fmt.Errorf("query: %v, %d results", err, len(res))
							return
						}
					}
				}()
			}
			r := rand.New(rand.NewPCG(9, 9))
			for i := range 10 {
				require.NoError(t, y.Add([]uint64{uint64(50000 + i)}, randomVectors(r, 1, 32)))
			}
			stop.Store(true)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			require.False(t, y.Mapped())
			require.NoError(t, y.Remove(seqIDs(50000, 10)...))
			if kind == KindFlat {
				require.Equal(t, want, answers(t, y, 4))
			}
		})
	}
}

// TestClose: Close unmaps and empties the index, which stays usable.
func TestClose(t *testing.T) {
	for _, kind := range []Kind{KindFlat, KindHNSW} {
		x := testIndex(t, nil, kind, Cosine, 300, 16)
		y, err := OpenFile(nil, writeTemp(t, saved(t, x)))
		require.NoError(t, err)
		require.True(t, y.Mapped())
		require.NoError(t, y.Close())
		require.False(t, y.Mapped())
		require.Equal(t, 0, y.Len())
		res, err := y.Query(nil, make([]float32, 16), 3)
		require.NoError(t, err)
		require.Empty(t, res)
		require.NoError(t, y.Close())
		require.NoError(t, y.Add([]uint64{1}, randomVectors(rand.New(rand.NewPCG(1, 1)), 1, 16)))
		require.Equal(t, 1, y.Len())
	}
}

// TestSaveBuffer: too short a buffer reports the length needed; the bytes
// are Save's.
func TestSaveBuffer(t *testing.T) {
	x := testIndex(t, nil, KindHNSW, Cosine, 200, 16)
	file := saved(t, x)
	n, err := x.SaveBuffer(nil)
	require.ErrorIs(t, err, ErrBufferTooSmall)
	require.Equal(t, len(file), n)
	buf := make([]byte, len(file)+100)
	n, err = x.SaveBuffer(buf[:len(file)-1])
	require.ErrorIs(t, err, ErrBufferTooSmall)
	require.Equal(t, len(file), n)
	require.Equal(t, make([]byte, len(buf)), buf, "nothing written")
	n, err = x.SaveBuffer(buf)
	require.NoError(t, err)
	require.Equal(t, file, buf[:n])
}

// TestSaveFile: no temporary file is left behind; failures are ErrIO;
// replacing the file a mapped index reads leaves that index whole.
func TestSaveFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "memories.idx")
	a := testIndex(t, nil, KindHNSW, Cosine, 300, 16)
	b := testIndex(t, nil, KindFlat, Dot, 200, 24)
	require.NoError(t, a.SaveFile(path))
	m, err := OpenFile(nil, path)
	require.NoError(t, err)
	require.NoError(t, b.SaveFile(path))
	require.Equal(t, answers(t, a, 5), answers(t, m, 5), "the mapping keeps the old file")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, saved(t, b), got)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "temporary files left: %v", entries)
	require.ErrorIs(t, a.SaveFile(filepath.Join(dir, "missing", "x.idx")), ErrIO)
	_, err = OpenFile(nil, filepath.Join(dir, "missing.idx"))
	require.ErrorIs(t, err, ErrIO)
	_, err = OpenFile(nil, dir)
	require.ErrorIs(t, err, ErrIO)
}

// reseal recomputes every section's checksum that lies inside b and the
// header's, so forged fields reach the checks behind the checksums.
func reseal(b []byte) {
	resealAt(b, 0)
	// A version-7 file's slot 1, when it holds a header.
	if len(b) >= container.DataStart && string(b[container.SlotSize:container.SlotSize+8]) == "ASTRALIX" {
		resealAt(b, container.SlotSize)
	}
}

// resealAt reseals the header at base and its sections.
func resealAt(b []byte, base int) {
	le := binary.LittleEndian
	if len(b) < base+container.HeaderLen {
		return
	}
	h := b[base:]
	hl := int(le.Uint32(h[16:]))
	if hl < container.HeaderLen || hl > len(h) {
		return
	}
	fixed := container.HeaderLen
	if le.Uint32(h[8:]) >= container.SlotVersion {
		fixed += 32
	}
	nsec := int(le.Uint32(h[20:]))
	for i := 0; i < nsec && fixed+container.SectionEntryLen*(i+1) <= hl; i++ {
		e := h[fixed+container.SectionEntryLen*i:]
		off, n := le.Uint64(e[8:]), le.Uint64(e[16:])
		if off <= uint64(len(b)) && n <= uint64(len(b))-off {
			le.PutUint32(e[24:], crc32.Checksum(b[off:off+n], castagnoli))
		}
	}
	le.PutUint32(h[container.HeaderCRCOff:], container.HeaderCRC(h[:hl]))
}

// mustFail loads b every way and wants an error wrapping want each time.
func mustFail(t *testing.T, b []byte, want error, why string) {
	t.Helper()
	for _, l := range loaders {
		x, err := l.load(t, nil, b)
		require.ErrorIs(t, err, want, "%s: %s", l.name, why)
		require.Nil(t, x)
	}
}

// small files for the corruption tests: a flat and a graph index, both
// with every section.
func smallFiles(t testing.TB) map[string][]byte {
	return map[string][]byte{
		"flat": saved(t, testIndex(t, nil, KindFlat, Cosine, 40, 8)),
		"hnsw": saved(t, testIndex(t, nil, KindHNSW, L2, 60, 8, WithHNSW(4, 20))),
		// The version-2 sections: scales, rerank copy, a block multiplier.
		"flat-int8-l2-rerank": saved(t, testIndex(t, nil, KindFlat, L2, 30, 8, WithStorage(Int8), WithRerank(F16, 2))),
		"hnsw-e4m3-l2-rerank": saved(t, testIndex(t, nil, KindHNSW, L2, 40, 8, WithHNSW(4, 20), WithStorage(E4M3), WithRerank(F32, 3))),
		// The version-3 sections: tags, owners, payloads.
		"flat-attrs": saved(t, withAttrs(t, testIndex(t, nil, KindFlat, Cosine, 0, 8), 40)),
		"hnsw-attrs": saved(t, withAttrs(t, testIndex(t, nil, KindHNSW, Dot, 0, 8, WithHNSW(4, 20)), 50)),
		// Version 6: a trained IVF index's sections.
		"ivf": saved(t, smallIVF(t)),
	}
}

// TestCorruptTruncated: a file cut anywhere is ErrCorrupt, every way.
func TestCorruptTruncated(t *testing.T) {
	testsize.SkipNoAsm(t, "length checks are kernel-independent; internal/crc32c tests its pure-Go CRC under noasm")
	for name, file := range smallFiles(t) {
		t.Run(name, func(t *testing.T) {
			step := sized(3, 7)
			for n := 0; n < len(file); n += step {
				for _, l := range loaders[:3] {
					_, err := l.load(t, nil, file[:n])
					require.ErrorIs(t, err, ErrCorrupt, "%s, %d of %d bytes", l.name, n, len(file))
				}
			}
			for _, n := range []int{0, 1, 127, 128, 200, len(file) / 2, len(file) - 64, len(file) - 1} {
				_, err := OpenFile(nil, writeTemp(t, file[:n]))
				require.ErrorIs(t, err, ErrCorrupt, "OpenFile, %d of %d bytes", n, len(file))
			}
			_, err := LoadBytes(nil, append(append([]byte{}, file...), make([]byte, 64)...))
			if binary.LittleEndian.Uint32(file[8:]) >= container.SlotVersion {
				// Version 7: bytes past the table's end are an interrupted append.
				require.NoError(t, err, "trailing bytes")
			} else {
				require.ErrorIs(t, err, ErrCorrupt, "trailing bytes")
			}
		})
	}
}

// regions names the parts of a file: header, section table, each section
// and the padding after each.
func regions(t testing.TB, file []byte) []struct {
	name   string
	lo, hi int
} {
	h, err := decodeHeader(file[:binary.LittleEndian.Uint32(file[16:])])
	require.NoError(t, err)
	type region = struct {
		name   string
		lo, hi int
	}
	out := []region{{"header", 0, container.HeaderLen}, {"section table", container.HeaderLen, int(h.HeaderLen)},
		{"padding after the table", int(h.HeaderLen), int(container.AlignUp(uint64(h.HeaderLen)))}}
	if h.Slotted() {
		// The rest of a version-7 slot, and the other slot, are not
		// checked: a crash may tear what a save writes there, and the
		// reader then takes the other slot.
		out = out[:2]
	}
	for _, s := range h.Sections {
		end := int(s.Offset + s.Length)
		out = append(out, region{"section " + fileFormat.Name(s.Kind), int(s.Offset), end},
			region{"padding after " + fileFormat.Name(s.Kind), end, int(container.AlignUp(uint64(end)))})
	}
	return out
}

// TestCorruptBitFlipEverySection: a flipped bit anywhere (every bit of
// every section, header, table and padding) is ErrCorrupt.
func TestCorruptBitFlipEverySection(t *testing.T) {
	testsize.SkipNoAsm(t, "checksums catch flips whatever the kernel; internal/crc32c tests its pure-Go CRC under noasm")
	testsize.SkipEmulated(t, "file handling, the same Go code natively; arm64 uses the pure-Go CRC, which -tags noasm tests")
	for name, file := range smallFiles(t) {
		for _, r := range regions(t, file) {
			if r.lo == r.hi {
				continue
			}
			t.Run(name+"/"+r.name, func(t *testing.T) {
				bad := append([]byte{}, file...)
				// A CRC-32C catches every single-bit flip by construction:
				// the stride shows every region is under a checksum, the
				// flip in the middle below covers regions shorter than it,
				// and make test-long flips every bit.
				step := sized(7, 13)
				if testsize.Long() {
					step = 1
				}
				for bit := r.lo * 8; bit < r.hi*8; bit += step {
					bad[bit/8] ^= 1 << (bit % 8)
					_, err := LoadBytes(nil, bad)
					require.ErrorIs(t, err, ErrCorrupt, "bit %d (byte %d)", bit, bit/8)
					bad[bit/8] ^= 1 << (bit % 8)
				}
				// Every loader, on one flip in the middle of the region.
				mid := (r.lo + r.hi) / 2
				bad[mid] ^= 0x20
				mustFail(t, bad, ErrCorrupt, r.name)
			})
		}
	}
}

// forge edits a copy of file, reseals it and returns it.
func forge(file []byte, edit func(b []byte)) []byte {
	b := append([]byte{}, file...)
	edit(b)
	reseal(b)
	return b
}

func put32(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
func put64(b []byte, off int, v uint64) { binary.LittleEndian.PutUint64(b[off:], v) }

// TestCorruptAbsurdCounts: forged counts and lengths with valid checksums
// are ErrCorrupt, and cost no memory in proportion to what they claim.
func TestCorruptAbsurdCounts(t *testing.T) {
	files := smallFiles(t)
	cases := []struct {
		name, file string
		edit       func(b []byte)
	}{
		{"count 2^40", "flat", func(b []byte) { put64(b, 56, 1<<40); put64(b, 64, 1<<40) }},
		{"count above slots", "hnsw", func(b []byte) { put64(b, 56, 61) }},
		{"slots 2^33", "hnsw", func(b []byte) { put64(b, 64, 1<<33) }},
		{"upper words 2^40", "hnsw", func(b []byte) { put64(b, 80, 1<<40) }},
		{"upper words 0", "hnsw", func(b []byte) { put64(b, 80, 0) }},
		{"block words", "hnsw", func(b []byte) { put32(b, 88, 1000) }},
		{"dimension 0", "flat", func(b []byte) { put32(b, 24, 0) }},
		{"dimension 2^31", "flat", func(b []byte) { put32(b, 24, 1<<31) }},
		{"stride", "flat", func(b []byte) { put32(b, 32, 128) }},
		{"M 1000", "hnsw", func(b []byte) { put32(b, 36, 1000) }},
		{"efSearch 0", "flat", func(b []byte) { put32(b, 44, 0) }},
		{"metric 9", "flat", func(b []byte) { b[28] = 9 }},
		{"structure 7", "flat", func(b []byte) { b[30] = 7 }},
		{"flat kind holding a graph", "hnsw", func(b []byte) { b[29] = byte(KindFlat) }},
		{"sections 200", "flat", func(b []byte) { put32(b, 20, 200) }},
		{"header length 1 MiB", "flat", func(b []byte) { put32(b, 16, 1<<20) }},
		{"section length 2^50", "flat", func(b []byte) { put64(b, container.HeaderLen+16, 1<<50) }},
		{"section offset", "flat", func(b []byte) { put64(b, container.HeaderLen+8, 1<<20) }},
		{"section kind 99", "flat", func(b []byte) { put32(b, container.HeaderLen, 99) }},
		{"section repeated", "flat", func(b []byte) { put32(b, container.HeaderLen+container.SectionEntryLen, uint32(secIDs)) }},
		{"reserved bytes", "flat", func(b []byte) { b[110] = 1 }},
		{"flat with a graph entry", "flat", func(b []byte) { put64(b, 72, 0) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mustFail(t, forge(files[c.file], c.edit), ErrCorrupt, c.name)
		})
	}
	// Counts, lengths and offsets that agree with each other, in a tiny
	// file: a graph of 2^31 nodes (110 GiB of blocks, claimed).
	huge := forge(files["hnsw"], func(b []byte) {
		h, _ := decodeHeader(b[:binary.LittleEndian.Uint32(b[16:])])
		slots := uint64(1) << 31
		put64(b, 64, slots)
		put64(b, 56, slots-uint64(h.Slots-h.Count))
		off := container.AlignUp(uint64(h.HeaderLen))
		for i, s := range h.Sections {
			e := container.HeaderLen + container.SectionEntryLen*i
			n := s.Length
			if s.Kind == secLevel0 {
				n = slots * uint64(h.BlockWords) * 4
			}
			put64(b, e+8, off)
			put64(b, e+16, n)
			off = container.AlignUp(off + n)
		}
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	mustFail(t, huge, ErrCorrupt, "2^31 nodes in a small file")
	runtime.ReadMemStats(&after)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "memory spent on a claimed 110 GiB")
}

// TestCorruptNeighbourIDs: graph words that would lead a search astray,
// with valid checksums, are ErrCorrupt with a reason.
func TestCorruptNeighbourIDs(t *testing.T) {
	x := testIndex(t, nil, KindHNSW, Cosine, 60, 8, WithHNSW(4, 20))
	file := saved(t, x)
	h, err := decodeHeader(file[:binary.LittleEndian.Uint32(file[16:])])
	require.NoError(t, err)
	l0, up := int(h.Find(secLevel0).Offset), int(h.Find(secUpper).Offset)
	bw, rec := int(h.BlockWords)*4, int(h.Stride)
	word := func(slot, w int) int { return l0 + slot*bw + rec + 4*w } // header word w of slot
	le := binary.LittleEndian
	// A node above level 0, and its upper offset.
	hi := -1
	for s := range int(h.Slots) {
		if le.Uint32(file[word(s, 4):]) != 0 {
			hi = s
			break
		}
	}
	require.GreaterOrEqual(t, hi, 0)
	u := int(le.Uint32(file[word(hi, 4):]))
	count0 := func(slot int) uint32 { return le.Uint32(file[word(slot, 1):]) & 1023 }
	require.Positive(t, count0(0))
	var live []int // live slots
	for s := range int(h.Slots) {
		if le.Uint32(file[word(s, 1):])&(1<<10) == 0 {
			live = append(live, s)
		}
	}
	cases := []struct {
		name, why string
		edit      func(b []byte)
	}{
		{"level-0 link = nodes", "level-0 link to 60", func(b []byte) { put32(b, word(0, 5), 60) }},
		{"level-0 link = 2^32-1", "level-0 link to 4294967295", func(b []byte) { put32(b, word(0, 5), 1<<32-1) }},
		{"level-0 count 2M+1", "9 level-0 links", func(b []byte) { put32(b, word(0, 1), le.Uint32(b[word(0, 1):])&^1023|9) }},
		{"level-0 count 1023", "1023 level-0 links", func(b []byte) { put32(b, word(0, 1), le.Uint32(b[word(0, 1):])|1023) }},
		{"list version set", "list version", func(b []byte) { put32(b, word(0, 1), le.Uint32(b[word(0, 1):])|1<<16) }},
		{"upper link out of range", "level-1 link to 1000", func(b []byte) {
			put32(b, up+4*(u+1), 1)
			put32(b, up+4*(u+2), 1000)
		}},
		{"upper count above M", "5 links on level 1", func(b []byte) { put32(b, up+4*(u+1), 5) }},
		{"upper offset past the end", "past the", func(b []byte) { put32(b, word(hi, 4), uint32(h.UpperWords)) }},
		{"upper offset 0", "without upper offset", func(b []byte) { put32(b, word(hi, 4), 0) }},
		{"upper version word", "upper version word", func(b []byte) { put32(b, up+4*u, 2) }},
		{"level 0 with upper offset", "level 0 with upper offset", func(b []byte) {
			for s := range int(h.Slots) {
				if le.Uint32(b[word(s, 4):]) == 0 {
					put32(b, word(s, 4), 1)
					return
				}
			}
		}},
		{"level raised", "", func(b []byte) { put32(b, word(0, 1), le.Uint32(b[word(0, 1):])+(5<<11)) }},
		{"entry slot out of range", "entry point", func(b []byte) { put64(b, 72, 3<<32|60) }},
		{"entry level wrong", "entry point", func(b []byte) { put64(b, 72, h.Entry+1<<32) }},
		{"no entry", "entry point", func(b []byte) { put64(b, 72, NoEntry) }},
		{"duplicate live id", "is live in slots", func(b []byte) {
			copy(b[word(live[1], 2):word(live[1], 4)], b[word(live[0], 2):word(live[0], 4)])
		}},
		{"tombstone not deleted", "tombstone", func(b []byte) {
			put32(b, word(int(le.Uint32(b[h.Find(secTombstones).Offset:])), 1),
				le.Uint32(b[word(int(le.Uint32(b[h.Find(secTombstones).Offset:])), 1):])&^(1<<10))
		}},
		{"tombstone out of range", "tombstone", func(b []byte) { put32(b, int(h.Find(secTombstones).Offset), 1000) }},
		{"upper word 0", "upper word 0", func(b []byte) { put32(b, up, 7) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := forge(file, c.edit)
			mustFail(t, bad, ErrCorrupt, c.name)
			_, err := LoadBytes(nil, bad)
			require.ErrorContains(t, err, c.why)
		})
	}
	// Flat: the same id twice.
	f := saved(t, testIndex(t, nil, KindFlat, Cosine, 40, 8))
	fh, err := decodeHeader(f[:binary.LittleEndian.Uint32(f[16:])])
	require.NoError(t, err)
	ids := int(fh.Find(secIDs).Offset)
	bad := forge(f, func(b []byte) { copy(b[ids+8:ids+16], b[ids:ids+8]) })
	mustFail(t, bad, ErrCorrupt, "flat duplicate id")
	_, err = LoadBytes(nil, bad)
	require.ErrorContains(t, err, "stored twice")
}

// TestWrongVersion: another format version, with a valid checksum, or a
// big-endian file is ErrVersion, every way and for InspectFile.
func TestWrongVersion(t *testing.T) {
	for name, file := range smallFiles(t) {
		for _, v := range []uint32{0, FormatVersion + 1, 1 << 31} {
			t.Run(fmt.Sprintf("%s/version %d", name, v), func(t *testing.T) {
				bad := forge(file, func(b []byte) { put32(b, 8, v) })
				mustFail(t, bad, ErrVersion, "version")
				_, err := LoadBytes(nil, bad)
				require.ErrorContains(t, err, fmt.Sprintf("version %d", v))
				_, err = InspectFile(writeTemp(t, bad))
				require.ErrorIs(t, err, ErrVersion)
			})
		}
		t.Run(name+"/big-endian", func(t *testing.T) {
			bad := forge(file, func(b []byte) { binary.BigEndian.PutUint32(b[12:], container.EndianMark) })
			mustFail(t, bad, ErrVersion, "big-endian")
		})
		t.Run(name+"/newer header, another layout", func(t *testing.T) {
			// A future version may grow the header: still ErrVersion.
			bad := forge(file, func(b []byte) { put32(b, 8, FormatVersion+1); put32(b, 20, 40) })
			mustFail(t, bad, ErrVersion, "grown header")
		})
	}
}

// TestLoadReadErrors: a failing reader is ErrIO; a short one ErrCorrupt.
func TestLoadReadErrors(t *testing.T) {
	file := smallFiles(t)["flat"]
	boom := errors.New("disk on fire")
	_, err := Load(nil, io.MultiReader(bytes.NewReader(file[:300]), iotestErr{boom}))
	require.ErrorIs(t, err, ErrIO)
	require.ErrorContains(t, err, "disk on fire")
	_, err = Load(nil, onlyReader{bytes.NewReader(file[:300])})
	require.ErrorIs(t, err, ErrCorrupt)
	// A file followed by more data: Load reads exactly the file.
	r := bytes.NewReader(append(append([]byte{}, file...), "trailer"...))
	_, err = Load(nil, r)
	require.NoError(t, err)
	rest, _ := io.ReadAll(r)
	require.Equal(t, "trailer", string(rest))
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }

// TestInspectFile reports every section and the first problem.
func TestInspectFile(t *testing.T) {
	x := testIndex(t, nil, KindHNSW, Cosine, 300, 16)
	file := saved(t, x)
	info, err := InspectFile(writeTemp(t, file))
	require.NoError(t, err)
	require.Equal(t, uint32(ivfVersion), info.Version, "a graph is written as version 6")
	require.Equal(t, KindHNSW, info.Structure)
	require.Equal(t, uint64(x.Len()), info.Count)
	require.Len(t, info.Sections, 8) // graph, tags, owners, times, importances, metadata
	for _, s := range info.Sections {
		require.True(t, s.OK(), s.Name)
	}
	require.Contains(t, info.Metadata, "writer=astral "+Version)

	bad := append([]byte{}, file...)
	bad[len(bad)/2] ^= 8
	info, err = InspectFile(writeTemp(t, bad))
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "graph-level0: checksum")
	require.False(t, info.Sections[1].OK())
	require.True(t, info.Sections[2].OK())
	_, err = InspectFile(writeTemp(t, bad[:100]))
	require.ErrorIs(t, err, ErrCorrupt)
	info, err = InspectFile(writeTemp(t, file[:len(file)/2]))
	require.ErrorIs(t, err, ErrCorrupt)
	require.False(t, info.Sections[2].Checked)
}
