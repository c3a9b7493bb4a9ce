package astral

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	container "github.com/astral-engine/astral/astral/internal/file"
)

// fuzzSeeds are small index files, valid and damaged: the committed
// corpus in testdata/fuzz/FuzzLoad holds the same (TestWriteFuzzSeeds).
func fuzzSeeds(t testing.TB) map[string][]byte {
	flatFile := saved(t, testIndex(t, nil, KindFlat, Cosine, 12, 8))
	dotFile := saved(t, testIndex(t, nil, KindAuto, Dot, 5, 4))
	graphFile := saved(t, testIndex(t, nil, KindHNSW, L2, 30, 8, WithHNSW(2, 8)))
	emptyGraph := saved(t, testIndex(t, nil, KindHNSW, Cosine, 0, 4, WithHNSW(2, 8)))
	int8File := saved(t, testIndex(t, nil, KindFlat, L2, 9, 8, WithStorage(Int8), WithRerank(F16, 2)))
	e4m3Graph := saved(t, testIndex(t, nil, KindHNSW, L2, 20, 8, WithHNSW(2, 8), WithStorage(E4M3), WithRerank(F32, 3)))
	ivfFile := saved(t, smallIVF(t, WithMetric(L2), WithStorage(Int8)))
	seeds := map[string][]byte{
		"flat-cosine": flatFile, "auto-dot": dotFile, "hnsw-l2": graphFile, "hnsw-empty": emptyGraph,
		"flat-int8-l2-rerank": int8File, "hnsw-e4m3-l2-rerank": e4m3Graph,
		"flat-truncated":  flatFile[:len(flatFile)/2],
		"hnsw-truncated":  graphFile[:len(graphFile)-100],
		"hnsw-bitflip":    flipped(graphFile, len(graphFile)/2),
		"flat-version-99": forge(flatFile, func(b []byte) { put32(b, 8, 99) }),
		"hnsw-big-endian": forge(graphFile, func(b []byte) { binary.BigEndian.PutUint32(b[12:], container.EndianMark) }),
		"hnsw-bad-link": forge(graphFile, func(b []byte) {
			h, _ := decodeHeader(b[:binary.LittleEndian.Uint32(b[16:])])
			put32(b, int(h.Find(secLevel0).Offset)+int(h.Stride)+4*5, 1000)
		}),
		"flat-huge-count": forge(flatFile, func(b []byte) { put64(b, 56, 1<<40); put64(b, 64, 1<<40) }),
		// Version 3: tags, owners and payloads.
		"flat-attrs": saved(t, withAttrs(t, testIndex(t, nil, KindFlat, Cosine, 0, 4), 12)),
		"hnsw-attrs": saved(t, withAttrs(t, testIndex(t, nil, KindHNSW, Dot, 0, 4, WithHNSW(2, 8)), 15)),
		// Version 3 as v0.2.0 wrote it (TestVersion3FileLoads).
		"flat-version-3": readFixture(t, "testdata/v3-flat.astral"),
		// Version 4: tag names.
		"flat-tag-names": saved(t, withTagNames(t, withAttrs(t, testIndex(t, nil, KindFlat, Cosine, 0, 4), 12))),
		// Version 4 as main wrote it before times (TestVersion4FileLoads).
		"hnsw-version-4": readFixture(t, "testdata/v4-hnsw.astral"),
		// Version 5: times and importances.
		"flat-memories": saved(t, withMemoryValues(t, withAttrs(t, testIndex(t, nil, KindFlat, Cosine, 0, 4), 12))),
		"hnsw-memories": saved(t, withMemoryValues(t, withAttrs(t, testIndex(t, nil, KindHNSW, Dot, 0, 4, WithHNSW(2, 8)), 15))),
		// Version 5 as main wrote it before the IVF sections.
		"flat-version-5": readFixture(t, "testdata/v5-flat.astral"),
		// Version 6: IVF, trained (L2 over int8: adjust and scales) and not.
		"ivf-trained":   ivfFile,
		"ivf-untrained": saved(t, testIndex(t, nil, KindIVF, Dot, 6, 4, WithIVF(2, 1))),
		"ivf-bad-partitions": forge(ivfFile, func(b []byte) {
			h, _ := decodeHeader(b[:binary.LittleEndian.Uint32(b[16:])])
			put32(b, int(h.Find(secIVFDirectory).Offset), 3)
		}),
		// Version 7: an IVF file after appending saves (two slots, two
		// segments), and one with a torn slot 0.
		"ivf-appended":      appendedIVF(t),
		"ivf-appended-torn": flipped(appendedIVF(t), 130),
		// Version 6 as main wrote IVF files before the segments.
		"ivf-version-6": readFixture(t, "testdata/v6-ivf.astral"),
		"ivf-version-7": readFixture(t, "testdata/v7-ivf.astral"),
	}
	return seeds
}

func readFixture(t testing.TB, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func flipped(b []byte, at int) []byte {
	c := append([]byte{}, b...)
	c[at] ^= 4
	return c
}

// TestWriteFuzzSeeds rewrites the committed FuzzLoad corpus when
// ASTRAL_WRITE_FUZZ_SEEDS is set (after a format change).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("ASTRAL_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set ASTRAL_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzLoad")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzLoad")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range fuzzSeeds(t) {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFuzzSeedsCommitted: the committed corpus is what fuzzSeeds makes, so
// it stays current with the format.
func TestFuzzSeedsCommitted(t *testing.T) {
	for name, b := range fuzzSeeds(t) {
		got, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzLoad", name))
		if err != nil {
			t.Fatalf("%v (rewrite with ASTRAL_WRITE_FUZZ_SEEDS=1 go test -run TestWriteFuzzSeeds ./astral/)", err)
		}
		want := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if string(got) != want {
			t.Errorf("testdata/fuzz/FuzzLoad/%s is stale (rewrite with ASTRAL_WRITE_FUZZ_SEEDS=1)", name)
		}
	}
}

// FuzzLoad feeds arbitrary bytes to the loaders, as they are and with
// their checksums recomputed (so the checks behind the checksums are
// reached too). Every failure must be ErrCorrupt or ErrVersion, never a
// panic or a hang; every success must answer queries, take writes, and
// save to a file that loads again.
func FuzzLoad(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzLoadOne(t, data)
		sealed := append([]byte{}, data...)
		reseal(sealed)
		fuzzLoadOne(t, sealed)
	})
}

func fuzzLoadOne(t *testing.T, data []byte) {
	x, err := LoadBytes(nil, data)
	y, err2 := Load(nil, onlyReader{bytes.NewReader(data)})
	// VerifyInBackground's way: queries before its check are safe on any
	// bytes, and the check then agrees with the whole one.
	if w, later, err3 := decodeBytes(nil, data, true, true); err3 == nil {
		q := make([]float32, w.Config().Dim)
		q[len(q)-1] = -1
		if _, err := w.Query(nil, q, 7); err != nil {
			t.Fatal(err)
		}
		if later != nil {
			err3 = later()
		}
		if (err3 == nil) != (err == nil) {
			t.Fatalf("LoadBytes: %v; the background check: %v", err, err3)
		}
	} else if err == nil {
		t.Fatalf("LoadBytes loads what a background open refuses: %v", err3)
	}
	// They agree, but that a stream may go on past the file.
	if (err == nil) != (err2 == nil) && !(err2 == nil && strings.Contains(err.Error(), "after the end")) {
		t.Fatalf("LoadBytes: %v; Load: %v", err, err2)
	}
	if err != nil {
		for _, e := range []error{err, err2} {
			if e != nil && !errors.Is(e, ErrCorrupt) && !errors.Is(e, ErrVersion) {
				t.Fatalf("untyped error: %v", e)
			}
		}
		return
	}
	dim := x.Config().Dim
	q := make([]float32, dim)
	q[0] = 1
	a, err := x.Query(nil, q, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := y.Query(nil, q, 5)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("LoadBytes answers %v, Load %v", a, b)
	}
	var again bytes.Buffer
	if err := x.Save(&again); err != nil {
		t.Fatal(err)
	}
	z, err := LoadBytes(nil, again.Bytes())
	if err != nil {
		t.Fatalf("a loaded index saved a file that does not load: %v", err)
	}
	var third bytes.Buffer
	if err := z.Save(&third); err != nil || !bytes.Equal(again.Bytes(), third.Bytes()) {
		t.Fatalf("save, load, save: different bytes (%v)", err)
	}
	// Writes on whatever graph passed the checks.
	if err := x.Add([]uint64{1 << 62, 1<<62 + 1}, append(q, q...)); err == nil {
		if err := x.Remove(1 << 62); err != nil {
			t.Fatal(err)
		}
	} else if !errors.Is(err, ErrDuplicateID) {
		t.Fatal(err)
	}
	if _, err := x.Query(nil, q, 3); err != nil {
		t.Fatal(err)
	}
	x.Wait()
}

// FuzzRoundTrip is the codec's fuzz: an index built and edited as the
// input says saves and loads to the same answers, and saves again to the
// same bytes.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint16(40), uint8(16), uint64(1), []byte{3, 9, 200})
	f.Add(uint8(2), uint8(3), uint16(120), uint8(33), uint64(2), []byte{1, 1, 2, 3, 5, 8, 13})
	f.Add(uint8(1), uint8(2), uint16(0), uint8(1), uint64(3), []byte{})
	f.Fuzz(func(t *testing.T, kind, metric uint8, n uint16, dim uint8, seed uint64, ops []byte) {
		d := 1 + int(dim)%48
		x, err := NewIndex(nil, WithDim(d), WithKind(Kind(kind%3)), WithMetric(Metric(1+metric%3)),
			WithHNSW(2+int(seed%7), 16), WithFlatLimitBytes(int64(64*(1+int(n)%200))))
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, uint64(n)))
		count := int(n) % 300
		if count > 0 {
			if err := x.Add(seqIDs(0, count), randomVectors(r, count, d)); err != nil {
				t.Fatal(err)
			}
		}
		for i, op := range ops {
			id := uint64(op) % uint64(max(count, 1))
			if op%2 == 0 && x.has(id) {
				x.Remove(id)
			} else {
				x.Add([]uint64{uint64(1000 + i)}, randomVectors(r, 1, d))
			}
		}
		x.Wait()
		want := answers(t, x, 3)
		file := saved(t, x)
		for _, l := range loaders[:3] {
			y, err := l.load(t, nil, file)
			if err != nil {
				t.Fatalf("%s: %v", l.name, err)
			}
			if got := answers(t, y, 3); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: answers %v, want %v", l.name, got, want)
			}
			if !bytes.Equal(file, saved(t, y)) {
				t.Fatalf("%s: saved again, different bytes", l.name)
			}
		}
	})
}
