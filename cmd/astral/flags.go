package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/astral-engine/astral/astral"
	"github.com/astral-engine/astral/kernel"
)

// stdout is where help and results go; tests swap it.
var stdout io.Writer = os.Stdout

// A usageError is a command line the command cannot run: main exits 2 and
// points at -h. Failures of the work itself exit 1.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef is fmt.Errorf (%w included) as a usageError.
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// command is one subcommand's flags with a description and an example for
// each, so -h can explain every one.
type command struct {
	fs       *flag.FlagSet
	name     string
	synopsis string // "astral bench [flags]"
	about    string // what the command does, a few lines
	examples []string
	flagEx   map[string]string
	// operands is how many arguments may follow the flags.
	operands int
}

func newCommand(name, synopsis, about string, examples ...string) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Parse errors and help are printed by parse, once, in our words.
	fs.SetOutput(io.Discard)
	return &command{fs: fs, name: name, synopsis: synopsis, about: about, examples: examples, flagEx: map[string]string{}}
}

func (c *command) str(p *string, name, def, usage, example string) {
	c.fs.StringVar(p, name, def, usage)
	c.flagEx[name] = example
}

func (c *command) num(p *int, name string, def int, usage, example string) {
	c.fs.IntVar(p, name, def, usage)
	c.flagEx[name] = example
}

func (c *command) float(p *float64, name string, def float64, usage, example string) {
	c.fs.Float64Var(p, name, def, usage)
	c.flagEx[name] = example
}

// parse parses args; -h prints the help on stdout and returns flag.ErrHelp.
func (c *command) parse(args []string) error {
	err := c.fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		c.help(stdout)
		return err
	}
	if err != nil {
		return usagef("%s", strings.Replace(err.Error(), " -", " --", 1))
	}
	if c.fs.NArg() > c.operands {
		return usagef("unexpected argument %q (flags go before other arguments)", c.fs.Arg(c.operands))
	}
	return nil
}

// given reports whether the user set the flag.
func (c *command) given(name string) bool {
	set := false
	c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// refuse fails when any of the flags is given: the reason says why it
// does not apply.
func (c *command) refuse(reason string, names ...string) error {
	for _, n := range names {
		if c.given(n) {
			return usagef("--%s does not apply %s", n, reason)
		}
	}
	return nil
}

func (c *command) help(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.synopsis, strings.TrimSpace(c.about))
	if len(c.examples) > 0 {
		fmt.Fprintln(w, "\nexamples:")
		for _, e := range c.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	hasFlags := false
	c.fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nflags:")
	}
	c.fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		if name, ok := map[string]string{"string": "VALUE", "int": "N", "float": "X"}[kind]; ok {
			kind = name
		}
		if f.Name == "data" {
			kind = "NAME|FILE" // a fixture or a file: one word cannot say both
		}
		fmt.Fprintf(w, "  --%s %s\n", f.Name, kind)
		fmt.Fprintf(w, "        %s", usage)
		if f.DefValue != "" && f.DefValue != "0" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "\n        e.g. %s\n", c.flagEx[f.Name])
	})
}

// output is an output path and the flag that named it.
type output struct{ flag, path string }

// checkOutputs refuses output paths that cannot be written, before any
// work starts, naming each as the user gave it: a missing directory, a
// directory or other non-regular file in the way, a directory we cannot
// create files in, a read-only file, and the same path given twice or
// naming an input.
func checkOutputs(inputs []output, outs ...output) error {
	var seen []output
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := checkOutput(o); err != nil {
			return err
		}
		for _, other := range slices.Concat(seen, inputs) {
			if other.path != "" && samePath(o.path, other.path) {
				return usagef("--%s %s: the same file as --%s %s", o.flag, o.path, other.flag, other.path)
			}
		}
		seen = append(seen, o)
	}
	return nil
}

func checkOutput(o output) error {
	fi, err := os.Lstat(o.path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return usagef("--%s %s: %s; only a regular file is replaced by a save", o.flag, o.path, modeName(fi.Mode()))
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return usagef("--%s %s: %v", o.flag, o.path, pathErr(err))
	}
	dir := filepath.Dir(o.path)
	if di, err := os.Stat(dir); err != nil || !di.IsDir() {
		return usagef("--%s %s: no directory %s", o.flag, o.path, dir)
	}
	// Saves write a temporary file beside the output and rename it.
	probe, err := os.CreateTemp(dir, ".astral-probe-*")
	if err != nil {
		return usagef("--%s %s: cannot create files in %s: %v", o.flag, o.path, dir, pathErr(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	if fi != nil {
		f, err := os.OpenFile(o.path, os.O_WRONLY, 0)
		if err != nil {
			return usagef("--%s %s: cannot write it: %v", o.flag, o.path, pathErr(err))
		}
		f.Close()
	}
	return nil
}

// checkOutputDir refuses a folder output that is in the way or cannot be
// made: an existing non-directory, or a missing parent.
func checkOutputDir(o output) error {
	if o.path == "" {
		return nil
	}
	fi, err := os.Stat(o.path)
	switch {
	case err == nil && !fi.IsDir():
		return usagef("--%s %s: not a directory", o.flag, o.path)
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return usagef("--%s %s: %v", o.flag, o.path, pathErr(err))
	}
	parent := filepath.Dir(filepath.Clean(o.path))
	if pi, err := os.Stat(parent); err != nil || !pi.IsDir() {
		return usagef("--%s %s: no directory %s to create it in", o.flag, o.path, parent)
	}
	return nil
}

// pathErr drops the path from an *os.PathError: messages name the path
// the user gave, not one the check made.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func modeName(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// samePath reports whether a and b name one file: equal once made
// absolute, or the same existing file by another name.
func samePath(a, b string) bool {
	aa, errA := filepath.Abs(a)
	bb, errB := filepath.Abs(b)
	if errA == nil && errB == nil && aa == bb {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// intList parses a comma list of integers for the flag name.
func intList(name, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, usagef("--%s %s: %q is not a whole number", name, s, strings.TrimSpace(f))
		}
		out = append(out, v)
	}
	return out, nil
}

// inRange checks every value of a flag against [lo, hi].
func inRange(name string, vals []int, lo, hi int, want string) error {
	for _, v := range vals {
		if v < lo || v > hi {
			return usagef("--%s %d: want %s", name, v, want)
		}
	}
	return nil
}

func storageList(name, s string) ([]astral.Storage, error) {
	var out []astral.Storage
	for _, f := range strings.Split(s, ",") {
		st, err := kernel.ParseStorage(strings.TrimSpace(f))
		if err != nil {
			return nil, usagef("--%s %q: want e5m2, e4m3, int8, f16 or f32 (a comma list where several are measured)", name, strings.TrimSpace(f))
		}
		out = append(out, st)
	}
	return out, nil
}

func rerankStorageOf(s string) (astral.Storage, error) {
	st, err := kernel.ParseStorage(s)
	if err != nil || (st != astral.F16 && st != astral.F32) {
		return 0, usagef("--rerank-storage %q: want f16 or f32", s)
	}
	return st, nil
}

// kindOf parses --index.
func kindOf(s string) (astral.Kind, error) {
	kinds := map[string]astral.Kind{"flat": astral.KindFlat, "auto": astral.KindAuto, "hnsw": astral.KindHNSW, "ivf": astral.KindIVF}
	k, ok := kinds[s]
	if !ok {
		return 0, usagef("--index %q: want flat, hnsw, ivf or auto", s)
	}
	return k, nil
}

func metricOf(s string) (astral.Metric, error) {
	switch s {
	case "cosine":
		return astral.Cosine, nil
	case "dot":
		return astral.Dot, nil
	case "l2":
		return astral.L2, nil
	}
	return 0, usagef("--metric %q: want cosine, dot or l2", s)
}

// checkKernel refuses a kernel this CPU does not run, listing those it does.
func checkKernel(name string) error {
	if name == "" {
		return nil
	}
	if _, err := kernel.Lookup(name); err != nil {
		var names []string
		for _, impl := range kernel.All() {
			names = append(names, impl.Name)
		}
		return usagef("--kernel %q: this CPU runs %s", name, strings.Join(names, ", "))
	}
	return nil
}

// threadsWant is what --threads takes, said in flag terms.
var threadsWant = fmt.Sprintf("-1 (the default: usable CPUs - 1) or 0 (serial) to %d", astral.MaxThreads)

// settingFlags names an index setting by the flag that sets it, so a
// library error reads in the user's terms.
func settingFlags(s astral.Setting) string {
	switch s {
	case astral.SettingDim:
		return "--dim"
	case astral.SettingMetric:
		return "--metric"
	case astral.SettingKind:
		return "--index"
	case astral.SettingStorage:
		return "--storage"
	case astral.SettingRerank:
		return "--rerank-storage"
	case astral.SettingRerankFactor:
		return "--rerank"
	case astral.SettingM:
		return "--m"
	case astral.SettingEfConstruction:
		return "--ef-construction"
	case astral.SettingEfSearch:
		return "--ef"
	}
	return s.String()
}

// message is an error as the user reads it: one "astral" prefix (main adds
// it), settings named by their flags.
func message(err error) string {
	var se *astral.SettingError
	if errors.As(err, &se) && errors.Is(err, astral.ErrInvalidArgument) {
		return se.Describe(settingFlags)
	}
	msg := err.Error()
	for _, p := range []string{"astral: ", "kernel: ", "fixture: "} {
		msg = strings.ReplaceAll(msg, ": "+p, ": ")
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}
