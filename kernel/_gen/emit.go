package main

import (
	"fmt"
	"strings"
)

// file collects one generated .s file and the Go declarations of its
// functions.
type file struct {
	name  string // e.g. "e5m2_amd64.s"
	doc   string // file comment, lines without "// "
	body  strings.Builder
	decls []string // "func name(args)" signatures, in order
}

// asm is the function being written; it emits into its file.
type asm struct{ f *file }

// text starts a function: doc lines, then TEXT with its frame (e.g.
// "$0-48"). sig is the Go signature without "func ".
func (f *file) text(sig, frame string, doc ...string) *asm {
	name := sig[:strings.IndexByte(sig, '(')]
	f.decls = append(f.decls, sig)
	fmt.Fprintf(&f.body, "\n// func %s\n", sig)
	for _, d := range doc {
		fmt.Fprintf(&f.body, "// %s\n", d)
	}
	fmt.Fprintf(&f.body, "TEXT ·%s(SB), NOSPLIT, %s\n", name, frame)
	return &asm{f}
}

// i emits one instruction.
func (a *asm) i(format string, args ...any) {
	fmt.Fprintf(&a.f.body, "\t"+format+"\n", args...)
}

// for4 emits format four times, its verbs filled by args(j), j = 0..3.
func (a *asm) for4(format string, args func(j int) []any) {
	for j := 0; j < 4; j++ {
		a.i(format, args(j)...)
	}
}

// label emits a jump target, set off by a blank line as hand-written asm
// puts it.
func (a *asm) label(name string) { fmt.Fprintf(&a.f.body, "\n%s:\n", name) }

// comment emits a line comment inside a function.
func (a *asm) comment(s string) { fmt.Fprintf(&a.f.body, "\t// %s\n", s) }

// done ends a function: the upper YMM state is cleared before returning
// to Go (no AVX-SSE transition penalty in the caller).
func (a *asm) done(label string) {
	a.label(label)
	a.i("VZEROUPPER")
	a.i("RET")
}

// m formats a memory operand off(reg).
func m(off int, reg string) string { return fmt.Sprintf("%d(%s)", off, reg) }

// fmtReg names register number n of a class ("Y", 3 → "Y3").
func fmtReg(class string, n int) string { return fmt.Sprintf("%s%d", class, n) }
