package astral

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOptionZerosAreDefaults: 0 for M, efConstruction, efSearch and the
// rerank factor means the exported default, as the C struct's zeros do.
func TestOptionZerosAreDefaults(t *testing.T) {
	x, err := NewIndex(nil, WithDim(8), WithKind(KindHNSW), WithHNSW(0, 0), WithEfSearch(0), WithRerank(F16, 0))
	require.NoError(t, err)
	c := x.Config()
	require.Equal(t, []int{DefaultM, DefaultEfConstruction, DefaultEfSearch, DefaultRerankFactor},
		[]int{c.M, c.EfConstruction, c.EfSearch, c.RerankFactor})
	x, err = NewIndex(nil, WithDim(8), WithRerank(0, 0))
	require.NoError(t, err, "no rerank copy: the factor stays 0")
	require.Zero(t, x.Config().RerankFactor)
}

// TestSettingErrors: each option out of range names its setting, wraps
// ErrInvalidArgument, and is described in a binding's own names.
func TestSettingErrors(t *testing.T) {
	for _, c := range []struct {
		opt     Option
		setting Setting
		text    string
	}{
		{WithDim(MaxDim + 1), SettingDim, "dimension 4097: want 1 to 4096"},
		{WithMetric(9), SettingMetric, "unknown metric 9"},
		{WithKind(4), SettingKind, "unknown index kind 4"},
		{WithStorage(6), SettingStorage, "unknown storage 6"},
		{WithRerank(Int8, 2), SettingRerank, "rerank storage 3: want 0 (none), f16 (4) or f32 (5)"},
		{WithRerank(0, 2), SettingRerankFactor, "rerank factor 2 without a rerank storage"},
		{WithRerank(F32, MaxRerankFactor+1), SettingRerankFactor, "rerank factor 65: want 1 to 64 (0 for 4)"},
		{WithHNSW(MaxM+1, 0), SettingM, "M 129: want 2 to 128 (0 for 16)"},
		{WithHNSW(32, 16), SettingEfConstruction, "efConstruction 16: want M (32) to 4096 (0 for 200)"},
		{WithEfSearch(MaxEf + 1), SettingEfSearch, "efSearch 4097: want 1 to 4096 (0 for 128)"},
		{WithFlatLimitBytes(-1), SettingFlatLimitBytes, "flat limit bytes -1: want 0 or more"},
	} {
		opts := []Option{WithDim(8), c.opt}
		if c.setting == SettingDim {
			opts = opts[1:]
		}
		_, err := NewIndex(nil, opts...)
		require.ErrorIs(t, err, ErrInvalidArgument, c.text)
		var se *SettingError
		require.True(t, errors.As(err, &se), c.text)
		require.Equal(t, c.setting, se.Setting)
		require.Equal(t, "astral: invalid argument: "+c.text, err.Error())
		named := se.DescribeValue(func(s Setting) string { return "<" + s.String() + ">" }, 7)
		require.Contains(t, named, "<"+c.setting.String()+"> 7", "a binding's names and value")
	}
}

// TestHeaderSharesTheValidator: a header's settings are checked by the
// options' validator (ErrCorrupt, naming the setting), except that
// efConstruction below M, which options refuse, still loads: files from
// before that rule hold it.
func TestHeaderSharesTheValidator(t *testing.T) {
	files := smallFiles(t)
	for _, l := range loaders {
		_, err := l.load(t, nil, forge(files["hnsw"], func(b []byte) { put32(b, 36, 1) }))
		require.ErrorIs(t, err, ErrCorrupt, l.name)
		var se *SettingError
		require.True(t, errors.As(err, &se), "%s: %v", l.name, err)
		require.Equal(t, SettingM, se.Setting)
		require.NotContains(t, err.Error(), "0 for", "a file has no defaults")

		x, err := l.load(t, nil, forge(files["hnsw"], func(b []byte) { put32(b, 40, 2) }))
		require.NoError(t, err, "%s: efConstruction 2 below M 4", l.name)
		require.Equal(t, 2, x.Config().EfConstruction)
	}
}
