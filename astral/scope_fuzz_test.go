package astral

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzScopedQuery: any filter (tag masks, owner, allow and deny lists of
// any ids, in any order, repeated or not) gives a flat index's exact
// answer under it, the same as an index of just the matches, in every
// plan; an HNSW index's exact plans give it too, and its graph plan only
// matches.
func FuzzScopedQuery(f *testing.F) {
	f.Add(uint64(1), uint64(0), uint64(0), uint64(0), uint8(0), []byte{})
	f.Add(uint64(0), uint64(2|4), uint64(1), uint64(101), uint8(3), []byte{0, 0, 4, 0, 1, 9, 7, 0})
	f.Add(uint64(0), uint64(0), uint64(0), uint64(0), uint8(1), []byte{255, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	s := newScoped(300, 8, 11)
	rt := newRuntime(f, 2)
	flat := s.index(f, rt, WithKind(KindFlat))
	graph := s.index(f, rt, WithKind(KindHNSW))
	f.Fuzz(func(t *testing.T, all, any, none, owner uint64, lists uint8, raw []byte) {
		// Ids come from raw: mostly stored ones, some not.
		var ids []uint64
		for len(raw) >= 2 {
			v := binary.LittleEndian.Uint16(raw)
			raw = raw[2:]
			if v%5 == 4 {
				ids = append(ids, uint64(v)) // rarely stored
				continue
			}
			ids = append(ids, s.ids[int(v)%len(s.ids)])
		}
		half := len(ids) / 2
		fl := Filter{AllTags: all & 0xf, AnyTags: any & 0xf, NoTags: none & 0xf, Owner: owner % 104}
		if lists&1 != 0 {
			fl.Allow = ids[:half]
		}
		if lists&2 != 0 {
			fl.Deny = ids[half:]
		}
		q := s.vecs[int(lists%40)*s.dim : int(lists%40+1)*s.dim]
		want := s.reference(t, fl, q, 10)
		got, _, err := flat.QueryWith(nil, q, QueryOptions{K: 10, Filter: fl})
		require.NoError(t, err)
		require.Equal(t, want, got)
		got, plan, err := graph.QueryWith(nil, q, QueryOptions{K: 10, Filter: fl})
		require.NoError(t, err)
		if plan != PlanGraph {
			require.Equal(t, want, got, "plan %v", plan)
			return
		}
		matches, _ := s.matching(fl)
		for _, r := range got {
			require.Contains(t, matches, r.ID, "the graph plan returned a record outside the filter")
		}
	})
}
