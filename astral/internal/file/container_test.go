package file

import (
	"bytes"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/astral-engine/astral/internal/pool"
	"github.com/stretchr/testify/require"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// writeLog records the writes that reach it.
type writeLog struct {
	data []byte
	offs []int
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.offs = append(w.offs, len(w.data))
	w.data = append(w.data, p...)
	return len(p), nil
}

// TestChunkWriter: SaveFile's writer passes the bytes on unchanged, in
// writes that start on a saveChunk boundary and, but for the last, cover
// whole chunks, whatever the sizes written to it.
func TestChunkWriter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sizes := range [][]int{
		{10},
		{saveChunk},
		{saveChunk - 1, 2, 5*saveChunk + 3, 64, saveChunk},
		{3*saveChunk + 17, saveChunk - 17, 1},
	} {
		log := &writeLog{}
		c := &chunkWriter{w: log, buf: make([]byte, 0, saveChunk)}
		var want []byte
		for _, n := range sizes {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(r.Uint32())
			}
			k, err := c.Write(p)
			require.NoError(t, err)
			require.Equal(t, n, k)
			want = append(want, p...)
		}
		require.NoError(t, c.Flush())
		require.Equal(t, want, log.data, "sizes %v", sizes)
		for i, off := range log.offs {
			require.Zero(t, off%saveChunk, "sizes %v: write %d at %d", sizes, i, off)
			if i < len(log.offs)-1 {
				require.Zero(t, (log.offs[i+1]-off)%saveChunk, "sizes %v: write %d is not whole chunks", sizes, i)
			}
		}
	}
}

// TestChecksumPieces: checksums in pieces on workers, combined, equal the
// CRC-32C of the whole; so do chunks visited out of order (ChunkSums).
func TestChecksumPieces(t *testing.T) {
	p, err := pool.New(pool.Options{Workers: 2})
	require.NoError(t, err)
	defer p.Close()
	r := rand.New(rand.NewPCG(3, 3))
	var bufs [][]byte
	for _, n := range []int{0, 1, 63, piece - 1, piece, piece + 1, 3*piece + 17} {
		bufs = append(bufs, randBytes(r, n))
	}
	for _, w := range []Workers{nil, p} {
		for i, c := range Checksums(w, bufs) {
			require.Equal(t, crc32.Checksum(bufs[i], castagnoli), c, "length %d", len(bufs[i]))
		}
	}
	whole := bufs[6]
	sums := NewChunkSums(4)
	_, ok := sums.Sum()
	require.False(t, ok, "no chunk visited yet")
	for _, i := range []int{2, 0, 3, 1} {
		sums.Visit(i, whole[i*piece:min((i+1)*piece, len(whole))])
	}
	got, ok := sums.Sum()
	require.True(t, ok)
	require.Equal(t, crc32.Checksum(whole, castagnoli), got)
}

// testFormat is an engine of two sections, kinds 1 and 2, whose lengths
// are the header's Count and Slots: the container needs no more.
var testFormat = &Format{
	Library:     "test",
	Names:       map[Kind]string{1: "one", 2: "two"},
	Structures:  map[uint8]string{1: "test"},
	CheckFields: func(h *Header) error { return nil },
	Needs: func(h *Header) map[Kind]uint64 {
		return map[Kind]uint64{1: h.Count, 2: h.Slots}
	},
}

// TestWriteRead: a file written from bytes and from pieces is the same
// file, and every reader gives the sections back, padded and checked.
func TestWriteRead(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	one, two, meta := randBytes(r, 100), randBytes(r, 3*piece+5), []byte("k=v\n")
	h := &Header{Version: Version, Dim: 7, Structure: 1, Count: uint64(len(one)), Slots: uint64(len(two))}
	write := func(parts []Part) []byte {
		var out bytes.Buffer
		n, err := Write(h, parts, nil, func(size int64) (io.Writer, error) {
			out.Grow(int(size))
			return &out, nil
		})
		require.NoError(t, err)
		require.Equal(t, int64(out.Len()), n)
		require.Zero(t, n%Align)
		return out.Bytes()
	}
	file := write([]Part{{Kind: 1, Bytes: one}, {Kind: 2, Bytes: two}, {Kind: KindMetadata, Flags: Optional, Bytes: meta}})
	inPieces := write([]Part{{Kind: 1, Bytes: one}, {Kind: 2, Length: uint64(len(two)), Pieces: func(each func([]byte)) {
		for lo := 0; lo < len(two); lo += 1000 {
			each(two[lo:min(lo+1000, len(two))])
		}
	}}, {Kind: KindMetadata, Flags: Optional, Bytes: meta}})
	require.Equal(t, file, inPieces)

	want := [][]byte{one, two, meta}
	for _, alias := range []bool{false, true} {
		got, bufs, err := testFormat.FromBytes(file, alias)
		require.NoError(t, err)
		require.NoError(t, testFormat.CheckCRCs(nil, got, bufs, func(Kind) bool { return false }))
		require.Equal(t, want, bufs)
		require.Equal(t, uint64(len(file)), got.FileLen())
	}
	got, bufs, err := testFormat.Read(bytes.NewReader(append(file, "more"...)))
	require.NoError(t, err)
	require.Equal(t, want, bufs)
	require.Equal(t, h.Sections, got.Sections)

	// A bit flipped in section two: FromBytes leaves it to CheckCRCs,
	// Read finds it, and both name the section.
	bad := bytes.Clone(file)
	bad[got.Find(2).Offset+17] ^= 4
	hb, bufs, err := testFormat.FromBytes(bad, true)
	require.NoError(t, err)
	require.ErrorContains(t, testFormat.CheckCRCs(nil, hb, bufs, func(Kind) bool { return false }), "section two: checksum")
	_, _, err = testFormat.Read(bytes.NewReader(bad))
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "section two: checksum")

	// A section the engine does not know is refused unless optional.
	for _, flags := range []uint32{0, Optional} {
		var out bytes.Buffer
		_, err = Write(&Header{Version: Version, Structure: 1}, []Part{{Kind: 1}, {Kind: 2}, {Kind: 9, Flags: flags, Bytes: one}}, nil,
			func(int64) (io.Writer, error) { return &out, nil })
		require.NoError(t, err)
		_, _, err = testFormat.FromBytes(out.Bytes(), true)
		if flags == 0 {
			require.ErrorIs(t, err, ErrCorrupt)
			require.ErrorContains(t, err, "section unknown-9 does not belong in a test index file")
		} else {
			require.NoError(t, err)
		}
	}

	path := filepath.Join(t.TempDir(), "f.idx")
	require.NoError(t, WriteFile(path, 0o600, func() error { return nil }, func(w io.Writer) error { _, err := w.Write(file); return err }))
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, file, onDisk)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	fd, err := os.Open(path)
	require.NoError(t, err)
	m, err := Map(fd, path)
	require.NoError(t, fd.Close())
	require.NoError(t, err)
	require.Equal(t, file, m.Data)
	require.NoError(t, m.Release())
	require.NoError(t, m.Release(), "a second release does nothing")
	info, err := testFormat.Inspect(path)
	require.NoError(t, err)
	require.Equal(t, "k=v\n", info.Metadata)
	require.Len(t, info.Sections, 3)
	for _, s := range info.Sections {
		require.True(t, s.OK(), s.Name)
	}
}
