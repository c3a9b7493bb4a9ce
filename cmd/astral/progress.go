package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressOut is where progress is drawn, and isTerminal whether to draw
// it: only on a terminal, so logs and pipes stay free of bars.
var (
	progressOut io.Writer = os.Stderr
	isTerminal            = stderrIsTerminal()
)

func stderrIsTerminal() bool {
	fi, err := os.Stderr.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress draws a bar for work of a known size.
type progress struct {
	label      string
	total      int
	lastFilled int
	start      time.Time
}

func newProgress(label string, total int) *progress {
	return &progress{label: label, total: max(total, 1), lastFilled: -1, start: time.Now()}
}

const barWidth = 30

func (p *progress) set(done int) {
	if !isTerminal {
		return
	}
	filled := barWidth * min(done, p.total) / p.total
	if filled == p.lastFilled {
		return
	}
	p.lastFilled = filled
	fmt.Fprintf(progressOut, "\r%s [%s%s] %3d%%", p.label, strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), 100*min(done, p.total)/p.total)
}

func (p *progress) done() {
	if !isTerminal {
		return
	}
	p.set(p.total)
	fmt.Fprintf(progressOut, " %.1f s\n", time.Since(p.start).Seconds())
}

// ticker shows the seconds spent on work whose size it cannot see.
type ticker struct {
	label string
	stopC chan struct{}
	wg    sync.WaitGroup
	start time.Time
}

func startTicker(label string) *ticker {
	t := &ticker{label: label, stopC: make(chan struct{}), start: time.Now()}
	if !isTerminal {
		return t
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			fmt.Fprintf(progressOut, "\r%s... %.1f s", t.label, time.Since(t.start).Seconds())
			select {
			case <-t.stopC:
				fmt.Fprintf(progressOut, "\r%s: %.1f s\n", t.label, time.Since(t.start).Seconds())
				return
			case <-tick.C:
			}
		}
	}()
	return t
}

func (t *ticker) stop() {
	close(t.stopC)
	t.wg.Wait()
}
