package base

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// ProgressBar draws "[=====>    ] 12/50 epochs  ETA 3s  note" on one line
// of stderr, redrawn in place. It is off unless stderr is a terminal.
type ProgressBar struct {
	w      io.Writer
	on     bool
	total  int
	unit   string
	start  time.Time
	drawn  bool
	lastAt time.Time
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
	fmt.Fprintf(p.w, "\r\033[K[%s] %d/%d %s  ETA %s  %s", bar, done, p.total, p.unit, eta, note)
	p.drawn = true
}

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
