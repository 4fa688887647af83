package main

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// The progress lines of a sweep whose stderr is not a terminal (a CI log, a pod's log): one line
// every --progress interval, "sweep: D of N seeds (P%), F failed; T elapsed, about R left", and a
// last line when the sweep ends, if any line was printed. The wall clock is read here only: the
// lines go to stderr, never into the summary or the records on stdout.

// defaultProgressEvery is the interval of the progress lines when --progress is not given.
const defaultProgressEvery = 10 * time.Second

// progressTicker makes the ticker of the progress lines: its channel and its stop function. A
// variable so that the tests tick by hand (and never by the clock).
var progressTicker = func(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// progressLines prints progress lines from a goroutine of its own, reading the counts the
// sweep's goroutine adds.
type progressLines struct {
	w            io.Writer
	total        int
	start        time.Time
	done, failed atomic.Int64
	stop         chan struct{}
	finished     chan struct{}
	printed      bool // whether a line was printed (read after finished is closed)
}

// startProgressLines starts the lines of a sweep of total seeds, every d.
func startProgressLines(w io.Writer, total int, d time.Duration) *progressLines {
	p := &progressLines{w: w, total: total, start: time.Now(), stop: make(chan struct{}), finished: make(chan struct{})}
	ticks, stopTicker := progressTicker(d)
	go func() {
		defer close(p.finished)
		defer stopTicker()
		for {
			select {
			case <-p.stop:
				return
			case <-ticks:
				p.line()
			}
		}
	}()
	return p
}

// add counts one seed run, failed or not.
func (p *progressLines) add(failed bool) {
	if failed {
		p.failed.Add(1)
	}
	p.done.Add(1)
}

func (p *progressLines) line() {
	done, failed := p.done.Load(), p.failed.Load()
	elapsed := time.Since(p.start)
	pct := int64(100)
	if p.total > 0 {
		pct = done * 100 / int64(p.total)
	}
	fmt.Fprintf(p.w, "sweep: %d of %d seeds (%d%%), %d failed; %s elapsed", done, p.total, pct, failed, elapsed.Round(time.Second))
	if done > 0 && int(done) < p.total {
		left := time.Duration(float64(elapsed) / float64(done) * float64(int64(p.total)-done))
		fmt.Fprintf(p.w, ", about %s left", left.Round(time.Second))
	}
	fmt.Fprintln(p.w)
	p.printed = true
}

// finish stops the lines; a sweep that printed some ends with a last one.
func (p *progressLines) finish() {
	close(p.stop)
	<-p.finished
	if p.printed {
		p.line()
	}
}
