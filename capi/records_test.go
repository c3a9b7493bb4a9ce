package main

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/astral-engine/astral/astral"
)

func strp(s string) *string { return &s }

// TestRecordCalls: contains, clear, upsert and get_vector through C give
// the Go API's answers, flat and HNSW.
func TestRecordCalls(t *testing.T) {
	lockThread(t)
	withRuntime(t, 1)
	const dim, n = 16, 300
	r := rand.New(rand.NewPCG(31, 32))
	fx := newScopedFixture(r, n, dim)
	for _, o := range []options{{dim: dim, kind: kindFlat, storage: storageF32}, {dim: dim, kind: kindHNSW, m: 8, efc: 64, storage: storageInt8}} {
		h, st := createIndex(o)
		require.Equal(t, stOK, st, lastError())
		x, err := astral.NewIndex(nil, goOptions(o)...)
		require.NoError(t, err)
		require.Equal(t, stOK, addEx(h, fx.ids, fx.base, fx.tags, fx.owners, fx.payloads), lastError())
		require.NoError(t, x.AddWith(fx.ids, fx.base, fx.attributes()))

		in, st := contains(h, fx.ids[3])
		require.Equal(t, stOK, st)
		require.True(t, in)
		in, st = contains(h, 1<<50)
		require.Equal(t, stOK, st)
		require.False(t, in)

		for _, id := range fx.ids[:20] {
			got, st := getVector(h, id, dim)
			require.Equal(t, stOK, st, lastError())
			want, err := x.Vector(id, nil)
			require.NoError(t, err)
			require.Equal(t, want, got, "id %d", id)
		}

		// Upsert: two stored ids replaced, one new, through C and Go alike.
		ids := []uint64{fx.ids[4], fx.ids[5], 1 << 40}
		vecs := randomRows(r, 3, dim)
		tags, owners := []uint64{1 << 30, 0, 7}, []uint64{0, 900, 901}
		payloads := [][]byte{nil, []byte("replaced"), []byte("new")}
		require.Equal(t, stOK, upsert(h, ids, vecs, tags, owners, payloads), lastError())
		attrs := make([]astral.Attributes, 3)
		for i := range attrs {
			attrs[i] = astral.Attributes{Tags: tags[i], Owner: owners[i], Payload: payloads[i]}
		}
		require.NoError(t, x.Upsert(ids, vecs, attrs))
		cnt, _ := count(h)
		require.EqualValues(t, x.Len(), cnt)
		for i, id := range ids {
			gt, gow, st := attributes(h, id)
			require.Equal(t, stOK, st)
			require.Equal(t, tags[i], gt)
			require.Equal(t, owners[i], gow)
			p, _, st := payload(h, id, astral.MaxPayload)
			require.Equal(t, stOK, st)
			require.Equal(t, string(payloads[i]), string(p))
			got, st := getVector(h, id, dim)
			require.Equal(t, stOK, st)
			want, _ := x.Vector(id, nil)
			require.Equal(t, want, got)
		}
		q := fx.base[:dim]
		want, err := x.Query(nil, q, 10)
		require.NoError(t, err)
		got, st := query(h, q, 10, 10)
		require.Equal(t, stOK, st)
		require.Equal(t, want, got)
		// Upsert checks as add_ex does, and changes nothing on failure.
		require.Equal(t, stDuplicateID, upsert(h, []uint64{1, 1}, randomRows(r, 2, dim), nil, nil, nil))
		require.Equal(t, stDimension, upsert(h, []uint64{1}, randomRows(r, 2, dim), nil, nil, nil))
		require.Equal(t, stInvalid, upsert(h, []uint64{1}, randomRows(r, 1, dim), nil, nil, [][]byte{make([]byte, astral.MaxPayload+1)}))
		cnt, _ = count(h)
		require.EqualValues(t, x.Len(), cnt)

		// Clear keeps the tag names; the index takes the same ids again.
		require.Equal(t, stOK, setTagName(h, 9, strp("Ally")))
		require.Equal(t, stOK, clearIndex(h), lastError())
		cnt, _ = count(h)
		require.Zero(t, cnt)
		in, _ = contains(h, fx.ids[3])
		require.False(t, in)
		name, _, st := tagName(h, 9, 16)
		require.Equal(t, stOK, st)
		require.Equal(t, "Ally", name)
		require.Equal(t, stOK, addEx(h, fx.ids, fx.base, fx.tags, fx.owners, fx.payloads), lastError())
		require.Equal(t, stOK, destroyIndex(h))
	}
}

func TestRecordCallsBadInput(t *testing.T) {
	lockThread(t)
	withRuntime(t, 1)
	h, st := createIndex(options{dim: 8})
	require.Equal(t, stOK, st)
	defer destroyIndex(h)
	require.Equal(t, stOK, addVectors(h, []uint64{1}, make([]float32, 8)))

	require.Equal(t, stInvalid, containsNil(h, 1))
	require.Contains(t, lastError(), "out_contains is NULL")
	_, st = getVector(h, 1, -1)
	require.Equal(t, stInvalid, st)
	_, st = getVector(h, 1, 7)
	require.Equal(t, stDimension, st)
	require.Contains(t, lastError(), "value_count 7")
	_, st = getVector(h, 2, 8)
	require.Equal(t, stNotFound, st)

	for _, c := range []struct {
		bit  uint32
		name string
		why  string
	}{
		{64, "x", "bit 64"},
		{1 << 31, "x", "bit"},
		{0, strings.Repeat("n", astral.MaxTagName+1), "longer than 64"},
		{0, "a\xffb", "UTF-8"},
		{0, "tab\there", "control"},
	} {
		require.Equal(t, stInvalid, setTagName(h, c.bit, &c.name), c.name)
		require.Contains(t, lastError(), c.why)
	}
	// A name far past the limit is refused after reading 65 bytes of it.
	require.Equal(t, stInvalid, rawTagName(h, 0, []byte(strings.Repeat("z", 10000))))
	require.Equal(t, stOK, setTagName(h, 1, strp("Friend")))
	require.Equal(t, stInvalid, setTagName(h, 2, strp("Friend")))
	require.Contains(t, lastError(), "already bit 1")

	_, size, st := tagName(h, 1, 6) // no room for the NUL
	require.Equal(t, stBufferTooSmall, st)
	require.Equal(t, 6, size)
	_, size, st = tagName(h, 1, 0)
	require.Equal(t, stBufferTooSmall, st)
	require.Equal(t, 6, size)
	name, size, st := tagName(h, 1, 7)
	require.Equal(t, stOK, st)
	require.Equal(t, "Friend", name)
	require.Equal(t, 6, size)
	name, size, st = tagName(h, 2, 1)
	require.Equal(t, stOK, st, "an unnamed bit: size 0")
	require.Equal(t, "", name)
	require.Zero(t, size)
	_, size, st = tagName(h, 64, 8)
	require.Equal(t, stInvalid, st)
	require.Zero(t, size)
	require.Equal(t, stInvalid, tagNameNilSize(h))

	bit, st := findTag(h, strp("Friend"))
	require.Equal(t, stOK, st)
	require.EqualValues(t, 1, bit)
	bit, st = findTag(h, strp("Foe"))
	require.Equal(t, stNotFound, st)
	require.Zero(t, bit)
	_, st = findTag(h, strp(""))
	require.Equal(t, stNotFound, st)
	_, st = findTag(h, strp(strings.Repeat("q", 100)))
	require.Equal(t, stNotFound, st)
	_, st = findTag(h, nil)
	require.Equal(t, stInvalid, st)

	n, st := tagNameCount(h)
	require.Equal(t, stOK, st)
	require.EqualValues(t, 1, n)
	require.Equal(t, stOK, setTagName(h, 1, nil), "NULL clears")
	require.Equal(t, stOK, setTagName(h, 3, strp("")), "\"\" clears")
	n, _ = tagNameCount(h)
	require.Zero(t, n)

	// A stale handle: every call says so.
	require.Equal(t, stOK, destroyIndex(h))
	_, st = contains(h, 1)
	require.Equal(t, stStale, st)
	require.Equal(t, stStale, clearIndex(h))
	require.Equal(t, stStale, upsert(h, []uint64{1}, make([]float32, 8), nil, nil, nil))
	_, st = getVector(h, 1, 8)
	require.Equal(t, stStale, st)
	require.Equal(t, stStale, setTagName(h, 0, strp("x")))
	_, _, st = tagName(h, 0, 8)
	require.Equal(t, stStale, st)
	_, st = findTag(h, strp("x"))
	require.Equal(t, stStale, st)
}
