package base

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// ProgressBar draws "[=====>    ] 12/50 epochs  ETA 3s  note" (or, for
// the unit "%", "[=====>    ]  24%  ETA 3s  note") on one line of
// stderr, redrawn in place. It is off unless stderr is a terminal.
type ProgressBar struct {
	w      io.Writer
	on     bool
	total  int
	unit   string
	start  time.Time
	drawn  bool
	lastAt time.Time
	done   int
	note   string
}

// NewProgress returns a bar over total steps, drawn on w when w is a
// terminal and quiet is false.
func NewProgress(w io.Writer, total int, unit string, quiet bool) *ProgressBar {
	p := &ProgressBar{w: w, total: total, unit: unit, start: time.Now()}
	if f, ok := w.(*os.File); ok && !quiet && total > 0 {
		p.on = IsTerminal(f.Fd())
	}
	return p
}

// Update redraws the bar after done steps.
func (p *ProgressBar) Update(done int, note string) {
	if !p.on {
		return
	}
	now := time.Now()
	if done < p.total && now.Sub(p.lastAt) < 100*time.Millisecond {
		return
	}
	p.lastAt = now
	const width = 30
	done = min(max(done, 0), p.total)
	fill := width * done / p.total
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	eta := "?"
	if done > 0 {
		el := now.Sub(p.start)
		rest := time.Duration(float64(el) / float64(done) * float64(p.total-done))
		eta = RoundDur(rest).String()
	}
	count := fmt.Sprintf("%d/%d %s", done, p.total, p.unit)
	if p.unit == "%" {
		count = fmt.Sprintf("%3d%%", done*100/p.total)
	}
	p.note = note
	fmt.Fprintf(p.w, "\r\033[K[%s] %s  ETA %s  %s", bar, count, eta, note)
	p.drawn = true
	p.done = done
}

// Redraw draws the bar again as it was (after other output cleared it).
func (p *ProgressBar) Redraw() {
	if p.on && p.done > 0 {
		p.lastAt = time.Time{}
		p.Update(p.done, p.note)
	}
}

// NewPercent returns a bar in percent, for a library's Progress callback
// (Update: done of total units, whatever the total), labelled note.
func NewPercent(w io.Writer, note string, quiet bool) *Percent {
	return &Percent{bar: NewProgress(w, 1000, "%", quiet), note: note}
}

// Percent is a progress bar that counts in percent.
type Percent struct {
	bar  *ProgressBar
	note string
}

// Update draws the bar at done of total (a library's Progress).
func (p *Percent) Update(done, total int) {
	if total > 0 {
		p.bar.Update(int(int64(min(done, total))*1000/int64(total)), p.note)
	}
}

// Clear erases the bar.
func (p *Percent) Clear() { p.bar.Clear() }

// Redraw draws the bar again after other output.
func (p *Percent) Redraw() { p.bar.Redraw() }

// Clear erases the bar so that normal output can follow.
func (p *ProgressBar) Clear() {
	if p.on && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// RoundDur rounds a duration for display.
func RoundDur(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	default:
		return d.Round(10 * time.Microsecond)
	}
}
