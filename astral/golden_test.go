package astral

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldenPath holds the answers of goldenIndexes as the amd64 build gives
// them: ASTRAL_WRITE_GOLDEN=1 go test -run TestGoldenAnswers ./astral/
// rewrites it after a change that is meant to change answers.
const goldenPath = "testdata/golden-answers.txt"

// TestGoldenAnswers: every storage, index kind and metric answers plain,
// filtered and ranked queries with the ids and score bits written down in
// goldenPath. Any CPU must give them: the kernels' own tests prove each
// kernel equal to the pure-Go reference, and this proves the Go code
// around them (quantizing, norms, k-means, graph building, ranking) rounds
// the same way on each architecture, where Go may fuse a multiply and an
// add into one instruction. scripts/test-arm64.sh runs it under qemu.
func TestGoldenAnswers(t *testing.T) {
	got := goldenAnswers(t)
	if os.Getenv("ASTRAL_WRITE_GOLDEN") == "1" {
		var b strings.Builder
		b.WriteString("# name sha256(ids and score bits of each query), written by TestGoldenAnswers on amd64\n")
		for _, line := range got {
			b.WriteString(line + "\n")
		}
		require.NoError(t, os.WriteFile(goldenPath, []byte(b.String()), 0o644))
		t.Skip("wrote " + goldenPath)
	}
	f, err := os.Open(goldenPath)
	require.NoError(t, err)
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	require.NoError(t, sc.Err())
	require.Equal(t, want, got)
}

// goldenAnswers builds the indexes and digests their answers, one line per
// index. The data are small integers over powers of two, exact in float32
// and produced without math functions, so they are the same bits on every
// CPU before the engine sees them.
func goldenAnswers(t *testing.T) []string {
	const dim, n, nq, k = 40, 400, 3, 10
	r := rand.New(rand.NewPCG(2026, 12))
	grid := func(count int) []float32 {
		v := make([]float32, count)
		for i := range v {
			v[i] = float32(r.IntN(2001)-1000) / 256
		}
		return v
	}
	vecs, qs := grid(n*dim), grid(nq*dim)
	attrs := make([]Attributes, n)
	for i := range attrs {
		attrs[i] = Attributes{Tags: uint64(r.IntN(4)), Owner: uint64(1 + i%5), Time: int64(r.IntN(5000)), Importance: float32(r.IntN(100)) / 64}
	}
	ids := seqIDs(7, n)
	queries := []struct {
		name string
		opts QueryOptions
	}{
		{"plain", QueryOptions{K: k}},
		{"filtered", QueryOptions{K: k, Filter: Filter{AnyTags: 1, Deny: ids[:40]}}},
		{"owner", QueryOptions{K: k, Filter: Filter{Owner: 3}}},
		{"ranked", QueryOptions{K: k, Rank: Rank{Relevance: 1, Recency: 0.5, Importance: 0.25, Decay: 0.999, Now: 5000}}},
	}
	var lines []string
	for ci, c := range storageCases {
		for ki, kind := range []Kind{KindFlat, KindHNSW, KindIVF} {
			for mi, m := range []Metric{Cosine, Dot, L2} {
				if (ci+ki+mi)%3 != 0 {
					continue
				}
				opts := []Option{WithDim(dim), WithMetric(m), WithKind(kind), WithStorage(c.storage), WithHNSW(8, 40), WithIVF(8, 3), withIVFTrainAt(n / 2)}
				if c.rerank != 0 {
					opts = append(opts, WithRerank(c.rerank, 3))
				}
				x, err := NewIndex(nil, opts...)
				require.NoError(t, err)
				require.NoError(t, x.AddWith(ids, vecs, attrs))
				sum := sha256.New()
				for _, q := range queries {
					ranked := q.opts.Rank != (Rank{})
					if ranked && m == L2 {
						continue // refused: ranking needs a similarity
					}
					for i := range nq {
						res, _, err := x.QueryWith(nil, qs[i*dim:(i+1)*dim], q.opts)
						require.NoError(t, err, q.name)
						for _, h := range res {
							sum.Write(binary.LittleEndian.AppendUint64(nil, h.ID))
							sum.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(h.Score)))
						}
					}
				}
				lines = append(lines, fmt.Sprintf("%s/%v/%v %s", storageName(c.storage, c.rerank), kind, m, hex.EncodeToString(sum.Sum(nil))))
			}
		}
	}
	return lines
}
