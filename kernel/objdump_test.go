package kernel

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	// wordRe matches `WORD $0x0e217b1a /* FCVTL V26.4S, V24.4H */` (or a //
	// comment): the instruction Go's assembler lacks, spelled out.
	wordRe = regexp.MustCompile(`WORD\s+\$0x([0-9a-fA-F]{8})\s*(?:/\*\s*([^*]*?)\s*\*/|//\s*(.*))?`)
	textRe = regexp.MustCompile(`(?m)^TEXT\s+·(\w+)\(SB\)`)
	// An objdump line: address, instruction word, disassembly.
	disRe = regexp.MustCompile(`^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s+(.+)$`)
)

// normInsn lowercases an instruction and collapses its spacing, so the
// comment "FCVTL V26.4S, V24.4H" compares with objdump's "fcvtl\tv26.4s, v24.4h".
func normInsn(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, " ,", ",")
}

// TestNEONWordsDecode builds this package for arm64, disassembles its asm
// kernels with binutils and checks that every WORD in the arm64 .s files
// decodes to the instruction its comment names. It runs on the build host
// (any GOARCH): the words are only executed on arm64.
func TestNEONWordsDecode(t *testing.T) {
	objdump, err := exec.LookPath("aarch64-linux-gnu-objdump")
	if err != nil {
		t.Skip("aarch64-linux-gnu-objdump not installed (Debian: binutils-aarch64-linux-gnu)")
	}
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "the go command must be on PATH (go test puts GOROOT/bin there)")

	files, err := filepath.Glob("*_arm64.s")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	want := map[string]string{} // word -> instruction
	var syms []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range wordRe.FindAllStringSubmatch(string(src), -1) {
			insn := m[2] + m[3]
			require.NotEmpty(t, insn, "%s: WORD $0x%s has no instruction comment", f, m[1])
			w := strings.ToLower(m[1])
			if prev, ok := want[w]; ok {
				require.Equal(t, normInsn(prev), normInsn(insn), "word %s commented two ways", w)
			}
			want[w] = insn
		}
		for _, m := range textRe.FindAllStringSubmatch(string(src), -1) {
			syms = append(syms, m[1])
		}
	}
	require.NotEmpty(t, want)

	// A linked arm64 test binary is an ELF file objdump reads; the package
	// archive is not.
	bin := filepath.Join(t.TempDir(), "kernel_arm64.test")
	build := exec.Command(goTool, "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "arm64 build: %s", out)

	got := map[string]string{}
	funcs := 0
	for _, s := range syms {
		// One symbol per run: objdump keeps only the last --disassemble=.
		dis, err := exec.Command(objdump, "-d", "--disassemble=github.com/astral-engine/astral/kernel."+s+".abi0", bin).Output()
		require.NoError(t, err)
		for _, line := range strings.Split(string(dis), "\n") {
			if strings.HasSuffix(line, ">:") {
				funcs++
			}
			if m := disRe.FindStringSubmatch(line); m != nil {
				got[m[1]] = m[2]
			}
		}
	}
	require.Equal(t, len(syms), funcs, "every TEXT symbol disassembled: %v", syms)
	for w, insn := range want {
		dec, ok := got[w]
		if !ok {
			t.Errorf("WORD $0x%s (%s) not found in the arm64 kernels", w, insn)
			continue
		}
		if normInsn(dec) != normInsn(insn) {
			t.Errorf("WORD $0x%s: objdump decodes %q, the comment says %q", w, dec, insn)
		}
	}
	t.Logf("%d distinct words checked in %d functions", len(want), funcs)
}
