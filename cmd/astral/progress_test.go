package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// withProgress sends progress to a buffer, drawn as on a terminal or not.
func withProgress(t *testing.T, terminal bool) *bytes.Buffer {
	var buf bytes.Buffer
	oldOut, oldTerm := progressOut, isTerminal
	progressOut, isTerminal = &buf, terminal
	t.Cleanup(func() { progressOut, isTerminal = oldOut, oldTerm })
	return &buf
}

// TestProgressQuietOffTerminal: no bars or tickers when stderr is not a
// terminal, so logs stay clean.
func TestProgressQuietOffTerminal(t *testing.T) {
	buf := withProgress(t, false)
	p := newProgress("ground truth", 10)
	for i := range 11 {
		p.set(i)
	}
	p.done()
	tk := startTicker("generating")
	time.Sleep(10 * time.Millisecond)
	tk.stop()
	_, err := generate("random", 50, 2, 8)
	require.NoError(t, err)
	require.Empty(t, buf.String())
}

// TestProgressOnTerminal: the bar redraws in place up to 100 % and ends its
// line; the ticker names its work and ends its line.
func TestProgressOnTerminal(t *testing.T) {
	buf := withProgress(t, true)
	p := newProgress("ground truth", 4)
	for i := range 5 {
		p.set(i)
	}
	p.done()
	out := buf.String()
	require.Equal(t, 5, strings.Count(out, "\rground truth ["), out)
	require.Contains(t, out, "] 100% ")
	require.True(t, strings.HasSuffix(out, " s\n"), out)
	require.Equal(t, 1, strings.Count(out, "\n"))

	buf.Reset()
	tk := startTicker("generating random")
	tk.stop()
	out = buf.String()
	require.True(t, strings.HasPrefix(out, "\rgenerating random... "), out)
	require.True(t, strings.HasSuffix(out, " s\n"), out)

	// The bench's phases draw: ground truth, build, timing (the streamed
	// bench generates the rows as it reads them).
	buf.Reset()
	captured(t, func() error {
		return runBench([]string{"--data", "random", "--n", "300", "--nq", "4", "--dim", "8", "--threads", "0", "--runs", "2", "--run-seconds", "0.001"})
	})
	out = buf.String()
	for _, want := range []string{"\rground truth, 4 queries over 300 vectors [", "\rbuilding flat e5m2, 300 × 8 [", "\rtiming flat e5m2, 0 worker(s), batch 1 ["} {
		require.Contains(t, out, want)
	}
}
