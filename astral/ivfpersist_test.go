package astral

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// v5Index is what testdata/v5-KIND.astral holds: main's last version-5
// files, with tag names, attributes, times and importances.
func v5Index(t testing.TB, kind Kind) *Index {
	x := withTagNames(t, withAttrs(t, testIndex(t, nil, kind, Cosine, 0, 8), 40))
	s := newScoped(40, 8, 40)
	require.NoError(t, x.Touch(s.ids[:5], 77))
	require.NoError(t, x.SetImportance(s.ids[2:5], 0.5))
	return x
}
