// Package testsize sizes the tests for the configuration they run in, so
// each test states its sizes once and every package follows the same rule.
// What make test runs:
//
//   - plain (go test): the normal size;
//   - -short, which make test gives the slow configurations (-race,
//     -tags noasm, arm64 under qemu): the short size, chosen so the test
//     still proves what it states (determinism with fewer vectors is still
//     determinism);
//   - noasm: tests whose outcome no kernel choice can change (file
//     handling, crash safety, locking) skip with SkipNoAsm: the default
//     build proves them on the same code, and the pure-Go kernels' and
//     CRC-32C's agreement with the assembly is their packages' own tests,
//     which -tags noasm runs in full;
//   - emulated: scripts/test-arm64.sh sets ASTRAL_TEST_EMULATED=1 for its
//     qemu runs. Tests that prove nothing arm64-specific skip there with
//     SkipEmulated: concurrency stress (qemu on an x86 host keeps x86's
//     memory order, so it cannot show arm64's reorderings; -race proves
//     the locking natively) and file handling the native runs prove on the
//     same Go code. The kernels, and everything that reaches scores through
//     them, run; where a test's other repeats (thread counts, sizes) only
//     prove the same Go code again, it takes a smaller emulated size
//     (Emulated), still large enough to reach the same code paths.
//
// make test-long sets ASTRAL_TEST_LONG=1 for the sizes no configuration of
// make test can afford (Long).
//
// Only tests import this package.
package testsize

import (
	"os"
	"testing"
)

// Sized is normal, or short under -short.
func Sized(normal, short int) int {
	if testing.Short() {
		return short
	}
	return normal
}

// Emulated reports whether the tests run under an emulator (qemu), where
// they run tens of times slower and timing says nothing.
func Emulated() bool { return os.Getenv("ASTRAL_TEST_EMULATED") == "1" }

// Long reports whether make test-long asked for the full sizes.
func Long() bool { return os.Getenv("ASTRAL_TEST_LONG") == "1" }

// SkipNoAsm skips t when built with -tags noasm. why says what proves
// t's claim in the default build and why the kernels cannot change it.
func SkipNoAsm(t testing.TB, why string) {
	t.Helper()
	if NoAsm {
		t.Skip("-tags noasm: " + why)
	}
}

// SkipScoresProven skips t under noasm and under emulation, where only the
// kernels differ from the default build: for tests whose outcome follows
// from the scores alone (recall), since every kernel's own tests, run in
// full in both, prove its scores bit for bit equal to the pure-Go
// reference's, and so to the assembly's the default build uses.
func SkipScoresProven(t testing.TB) {
	t.Helper()
	SkipNoAsm(t, "the outcome follows from the scores, which the kernel tests prove bit-identical")
	SkipEmulated(t, "the outcome follows from the scores, which the kernel tests prove bit-identical")
}

// SkipSerialUnderRace skips t under -race: for tests that start no
// goroutine (no runtime, no workers), where the race detector has nothing
// to find and only slows what the plain run proves.
func SkipSerialUnderRace(t testing.TB) {
	t.Helper()
	if Race {
		t.Skip("-race: serial, nothing for the race detector; the plain run proves it")
	}
}

// SkipEmulated skips t under emulation. why says which native run proves
// what t proves, and why the emulated CPU adds nothing to it.
func SkipEmulated(t testing.TB, why string) {
	t.Helper()
	if Emulated() {
		t.Skip("under emulation: " + why)
	}
}

// Reduced reports a slow configuration of make test: -short under -race,
// -tags noasm or emulation. There the engine's large tables (every storage
// × kind × metric × thread count) keep each value of each dimension but not
// every combination (Rotate), and graphs are built just big enough to reach
// their code paths: the default build runs the whole tables and proves the
// combinations, and what a slow configuration adds (the race detector, the
// pure-Go or arm64 kernels) shows on any combination that runs the code.
func Reduced() bool {
	return testing.Short() && (Race || NoAsm || Emulated())
}

// Rotate reports whether case i of a table runs, where i is the sum of the
// case's indexes along each dimension and n the length of the dimension
// that rotates: every case normally, one in n under Reduced, so that with
// i = storage + kind + metric each (storage, kind) runs one metric and
// each metric runs with every storage and kind in turn.
func Rotate(i, n int) bool {
	return !Reduced() || i%n == 0
}

// SkipUnderRace skips t under -race. why names what proves t's claim: for
// claims the race detector cannot bear on, such as allocation counts,
// whose code the other tests run under -race.
func SkipUnderRace(t testing.TB, why string) {
	t.Helper()
	if Race {
		t.Skip("-race: " + why)
	}
}
