// Package progress draws a one-line progress bar for reading a large input
// on a terminal: the fraction done, a bar and the bytes read so far,
// redrawn in place and cleared at the end. It needs nothing but io and
// time, so the binary stays free of network code.
package progress

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// barWidth is the number of cells of the bar itself.
const barWidth = 30

// Bar is a progress bar over total bytes, drawn on w. Its zero value is not
// usable; make one with [New]. A Bar is not safe for concurrent use.
type Bar struct {
	w        io.Writer
	desc     string
	total    int64
	throttle time.Duration
	now      func() time.Time
	last     time.Time // when the bar was last drawn
	drawn    int       // width of the last line drawn, to clear it
	cur      int64
	done     bool
}

// Options configure a [Bar]. The zero value draws at most every 200ms by
// the wall clock.
type Options struct {
	// Throttle is the least time between two redraws; 0 means 200ms.
	Throttle time.Duration
	// Now returns the current time; nil means time.Now. Tests set it.
	Now func() time.Time
}

// New returns a bar over total bytes labelled desc and draws it at 0%.
func New(w io.Writer, total int64, desc string, opts Options) *Bar {
	b := &Bar{w: w, desc: desc, total: total, throttle: opts.Throttle, now: opts.Now}
	if b.throttle <= 0 {
		b.throttle = 200 * time.Millisecond
	}
	if b.now == nil {
		b.now = time.Now
	}
	b.draw()
	return b
}

// Set records that off bytes have been read and redraws the bar unless it
// was drawn less than the throttle interval ago.
func (b *Bar) Set(off int64) error {
	if b.done {
		return nil
	}
	b.cur = max(0, min(off, b.total))
	if b.now().Sub(b.last) < b.throttle {
		return nil
	}
	return b.draw()
}

// Finish erases the bar, leaving the cursor at the start of an empty line.
// Later calls to Set and Finish do nothing.
func (b *Bar) Finish() error {
	if b.done {
		return nil
	}
	b.done = true
	if b.drawn == 0 {
		return nil
	}
	_, err := fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", b.drawn))
	return err
}

// Line returns the text of the bar for cur of total bytes, without the
// carriage return that places it:
//
//	reading  42% |████████████▋                 | (42 MB/100 MB)
func Line(desc string, cur, total int64) string {
	frac := 1.0
	if total > 0 {
		frac = float64(cur) / float64(total)
	}
	full := int(frac * barWidth)
	bar := strings.Repeat("█", full) + strings.Repeat(" ", barWidth-full)
	return fmt.Sprintf("%s %3d%% |%s| (%s/%s)", desc, int(frac*100), bar, Bytes(cur), Bytes(total))
}

func (b *Bar) draw() error {
	b.last = b.now()
	line := Line(b.desc, b.cur, b.total)
	n := len([]rune(line))
	pad := ""
	if n < b.drawn {
		pad = strings.Repeat(" ", b.drawn-n)
	}
	b.drawn = max(n, b.drawn)
	_, err := fmt.Fprintf(b.w, "\r%s%s", line, pad)
	return err
}

// Bytes formats n bytes in decimal units, as "512 B", "1.5 kB" or "64 MB".
func Bytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, u := range []string{"kB", "MB", "GB", "TB", "PB"} {
		f /= unit
		if f < unit || u == "PB" {
			if f < 10 {
				return fmt.Sprintf("%.1f %s", f, u)
			}
			return fmt.Sprintf("%.0f %s", f, u)
		}
	}
	return "" // not reached
}
