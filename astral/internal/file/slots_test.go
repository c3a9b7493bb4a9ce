package file

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// slotFormat is an engine of two kinds, any length in version 7 (the
// engine checks them); version 6 needs kind 1 of one byte.
var slotFormat = &Format{
	Library:     "test",
	Names:       map[Kind]string{1: "one", 2: "many"},
	Structures:  map[uint8]string{0: "test"},
	CheckFields: func(*Header) error { return nil },
	Needs: func(h *Header) map[Kind]uint64 {
		if h.Slotted() {
			return map[Kind]uint64{}
		}
		return map[Kind]uint64{1: 1}
	},
	Repeated: map[Kind]bool{1: true, 2: true},
}

func writeSlotted(t *testing.T, path string, parts []Part) {
	t.Helper()
	var buf bytes.Buffer
	_, err := Write(&Header{Version: SlotVersion}, parts, nil, func(int64) (io.Writer, error) { return &buf, nil })
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// TestAppendSwapsSlots: an append writes after the end and puts the new
// table in the other slot; a reader takes the larger generation, and a
// torn slot (bad CRC) falls back to the other, whichever it is.
func TestAppendSwapsSlots(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	writeSlotted(t, path, []Part{{Kind: 2, Bytes: []byte("segment zero")}, {Kind: 1, Bytes: []byte("first")}})
	old, err := os.ReadFile(path)
	require.NoError(t, err)
	a, err := slotFormat.OpenAppend(path)
	require.NoError(t, err)
	require.EqualValues(t, 1, a.Header.Generation)
	require.Equal(t, 0, a.Header.Slot)
	keep := a.Header.Sections[0]
	n, err := a.Append(&Header{Version: SlotVersion}, []Part{{Keep: &keep}, {Kind: 2, Bytes: []byte("segment one")}, {Kind: 1, Bytes: []byte("second")}}, nil)
	require.NoError(t, err)
	require.NoError(t, a.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, int64(len(b)-len(old))+SlotSize, n, "bytes written: the appended sections and one slot")
	require.Equal(t, old[:SlotSize], b[:SlotSize], "slot 0 untouched")
	require.Equal(t, old[DataStart:], b[DataStart:len(old)], "nothing the old table names is written")
	h, bufs, err := slotFormat.FromBytes(b, false)
	require.NoError(t, err)
	require.EqualValues(t, 2, h.Generation)
	require.Equal(t, 1, h.Slot)
	require.Equal(t, "segment zero", string(bufs[0]))
	require.Equal(t, "second", string(bufs[2]))
	// A torn slot 1: back to generation 1.
	torn := append([]byte{}, b...)
	torn[SlotSize+HeaderLen+40] ^= 1
	h, bufs, err = slotFormat.FromBytes(torn, false)
	require.NoError(t, err)
	require.EqualValues(t, 1, h.Generation)
	require.Equal(t, "first", string(bufs[1]))
	// A torn slot 0: generation 2, read through a stream as well.
	torn = append([]byte{}, b...)
	torn[3] ^= 1
	for _, read := range []func([]byte) (*Header, [][]byte, error){
		func(b []byte) (*Header, [][]byte, error) { return slotFormat.FromBytes(b, true) },
		func(b []byte) (*Header, [][]byte, error) { return slotFormat.Read(bytes.NewReader(b)) },
	} {
		h, bufs, err = read(torn)
		require.NoError(t, err)
		require.EqualValues(t, 2, h.Generation)
		require.Equal(t, "segment one", string(bufs[1]))
	}
	// Both torn: slot 0's error.
	torn[SlotSize+HeaderLen+40] ^= 1
	_, _, err = slotFormat.FromBytes(torn, false)
	require.ErrorIs(t, err, ErrCorrupt)
	// Truncated into the appended sections: the current table's bytes are
	// missing.
	_, _, err = slotFormat.FromBytes(b[:len(b)-1], false)
	require.ErrorIs(t, err, ErrCorrupt)
	// A second append goes back to slot 0.
	a, err = slotFormat.OpenAppend(path)
	require.NoError(t, err)
	require.Equal(t, 1, a.Header.Slot)
	_, err = a.Append(&Header{Version: SlotVersion}, []Part{{Kind: 1, Bytes: []byte("third")}}, nil)
	require.NoError(t, err)
	require.NoError(t, a.Close())
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	h, bufs, err = slotFormat.FromBytes(b, false)
	require.NoError(t, err)
	require.EqualValues(t, 3, h.Generation)
	require.Equal(t, 0, h.Slot)
	require.Equal(t, "third", string(bufs[0]))
	info, err := slotFormat.Inspect(path)
	require.NoError(t, err)
	require.EqualValues(t, 3, info.Header.Generation)
	require.Equal(t, int64(len(b))-SlotSize-int64(AlignUp(5)), info.Dead)
}

// TestAppendRefusesVersion6: only a version-7 file takes appends.
func TestAppendRefusesVersion6(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	var buf bytes.Buffer
	_, err := Write(&Header{Version: 6}, []Part{{Kind: 1, Bytes: []byte("x")}}, nil, func(int64) (io.Writer, error) { return &buf, nil })
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	_, err = slotFormat.OpenAppend(path)
	require.ErrorIs(t, err, ErrVersion)
}
