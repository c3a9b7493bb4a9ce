package main

import (
	"fmt"
	"os"
	"strings"
)

// progress draws a bar on stderr while an index builds; without a terminal
// it prints one line at the end, so logs stay readable.
type progress struct {
	label      string
	total      int
	tty        bool
	lastFilled int
}

func newProgress(label string, total int) *progress {
	fi, err := os.Stderr.Stat()
	tty := err == nil && fi.Mode()&os.ModeCharDevice != 0
	return &progress{label: label, total: max(total, 1), tty: tty, lastFilled: -1}
}

const barWidth = 40

func (p *progress) set(done int) {
	if !p.tty {
		return
	}
	filled := barWidth * done / p.total
	if filled == p.lastFilled {
		return
	}
	p.lastFilled = filled
	fmt.Fprintf(os.Stderr, "\r%s [%s%s] %3d%%", p.label, strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), 100*done/p.total)
}

func (p *progress) done() {
	if p.tty {
		p.set(p.total)
		fmt.Fprintln(os.Stderr)
		return
	}
	fmt.Fprintf(os.Stderr, "%s: done\n", p.label)
}
