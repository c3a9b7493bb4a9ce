package astral

import (
	"bufio"
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/astral-engine/astral/internal/testsize"
	"github.com/stretchr/testify/require"
)

// crashChildEnv, when set, makes TestKillDuringSave the child: it saves
// two indexes to one path in turn until it is killed.
const crashChildEnv = "ASTRAL_CRASH_CHILD"

// TestKillDuringSave kills a child process with SIGKILL at random moments
// while it saves, over and over, one of three indexes (a graph, a flat
// index, an IVF index) to the same path; each time the path must hold one
// of them, whole: the same bytes, checksums that pass, the same answers.
// 200 rounds (30 with -short).
func TestKillDuringSave(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		crashChild(t)
		return
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("needs SIGKILL and a child process")
	}
	testsize.SkipNoAsm(t, "crash safety is the file code's (write, fsync, rename), not the kernels'")
	// Before building its indexes: under qemu-user the binary cannot exec
	// itself, which the check below finds only after them.
	testsize.SkipEmulated(t, "crash safety is the file code's (write, fsync, rename), not the kernels'; qemu-user cannot re-execute the test binary")
	rounds := sized(100, 30)
	dir := t.TempDir()
	// Indexes of different kinds and sizes, so a torn file could not pass
	// for another.
	a := testIndex(t, nil, KindHNSW, Cosine, 1500, 32)
	b := testIndex(t, nil, KindFlat, L2, 3000, 24)
	c := testIndex(t, nil, KindIVF, Dot, 3000, 16, WithIVF(8, 2), withIVFTrainAt(1500))
	files := [][]byte{saved(t, a), saved(t, b), saved(t, c)}
	want := [][]Result{answers(t, a, 4), answers(t, b, 4), answers(t, c, 4)}
	srcs := []string{filepath.Join(dir, "a.src"), filepath.Join(dir, "b.src"), filepath.Join(dir, "c.src")}
	for i, f := range files {
		require.NoError(t, os.WriteFile(srcs[i], f, 0o644))
	}
	work := filepath.Join(dir, "work")
	path := filepath.Join(work, "save.idx")
	r := rand.New(rand.NewPCG(2024, 11))
	var seen [3]int
	torn := 0    // rounds killed with a temporary file written but not renamed
	changed := 0 // rounds in which at least one save completed
	start := time.Now()
	for round := range rounds {
		require.NoError(t, os.RemoveAll(work))
		require.NoError(t, os.Mkdir(work, 0o755))
		first := round % 3 // the path starts out holding one of the three
		require.NoError(t, os.WriteFile(path, files[first], 0o644))

		order := []string{path, srcs[(first+1)%3], srcs[(first+2)%3], srcs[first]}
		killChild(t, "TestKillDuringSave", crashChildEnv+"="+strings.Join(order, string(os.PathListSeparator)),
			time.Duration(r.Int64N(int64(25*time.Millisecond))), round)

		got, err := os.ReadFile(path)
		require.NoError(t, err, "round %d", round)
		which := -1
		for i, f := range files {
			if bytes.Equal(got, f) {
				which = i
			}
		}
		require.GreaterOrEqual(t, which, 0, "round %d: the file is none of the indexes (%d bytes)", round, len(got))
		seen[which]++
		if which != first {
			changed++
		}
		x, err := OpenFile(nil, path)
		require.NoError(t, err, "round %d", round)
		require.Equal(t, want[which], answers(t, x, 4), "round %d", round)
		require.NoError(t, x.Close())
		entries, err := os.ReadDir(work)
		require.NoError(t, err)
		if len(entries) > 1 {
			torn++
		}
	}
	t.Logf("%d rounds in %v: the path held index A %d times, B %d times, C (IVF) %d times; %d rounds replaced the file at least once; %d kills left a temporary file behind",
		rounds, time.Since(start).Round(time.Millisecond), seen[0], seen[1], seen[2], changed, torn)
	require.Positive(t, seen[0]+seen[1]+seen[2])
}

// crashChild loads the source files and saves them to the path in turn,
// first those the path does not hold, until it is killed (or 20 s
// pass, should the parent be gone).
func crashChild(t *testing.T) {
	parts := strings.Split(os.Getenv(crashChildEnv), string(os.PathListSeparator))
	path, srcs := parts[0], parts[1:]
	var xs []*Index
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		x, err := LoadBytes(nil, b)
		require.NoError(t, err)
		xs = append(xs, x)
	}
	os.Stdout.WriteString("ready\n")
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		require.NoError(t, xs[i%len(xs)].SaveFile(path))
	}
}

// killChild runs the test binary's test in a child with env set, waits
// for its "ready" line, lets it run for delay and kills it (SIGKILL). It
// skips the test where the binary cannot run itself (qemu-user).
func killChild(t *testing.T, test, env string, delay time.Duration, round int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("cannot re-execute the test binary here: %v", err)
	} else {
		require.NoError(t, err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "round %d: child did not start", round)
	require.Equal(t, "ready\n", line)
	time.Sleep(delay)
	require.NoError(t, cmd.Process.Kill())
	cmd.Wait()
}
