package testsize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSized(t *testing.T) {
	want := 10
	if testing.Short() {
		want = 2
	}
	require.Equal(t, want, Sized(10, 2))
}

func TestEnvironment(t *testing.T) {
	t.Setenv("ASTRAL_TEST_EMULATED", "1")
	t.Setenv("ASTRAL_TEST_LONG", "")
	require.True(t, Emulated())
	require.False(t, Long())
	t.Run("skips", func(t *testing.T) {
		SkipEmulated(t, "proved natively")
		t.Fatal("not skipped under emulation")
	})
	t.Run("skips scores", func(t *testing.T) {
		SkipScoresProven(t)
		t.Fatal("not skipped under emulation")
	})
	t.Setenv("ASTRAL_TEST_EMULATED", "")
	t.Setenv("ASTRAL_TEST_LONG", "1")
	require.False(t, Emulated())
	require.True(t, Long())
	ran := false
	t.Run("runs", func(t *testing.T) {
		SkipEmulated(t, "proved natively")
		ran = true
	})
	require.True(t, ran)
}

func TestRotate(t *testing.T) {
	ran := 0
	for i := range 9 {
		if Rotate(i, 3) {
			ran++
		}
	}
	want := 9
	if Reduced() {
		want = 3
	}
	require.Equal(t, want, ran)
}
