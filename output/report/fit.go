package report

import (
	"io"
	"unicode/utf8"
)

// ellipsis ends a cell or line cut to fit the terminal.
const ellipsis = "…"

// minFitWidth is the narrowest a shrinkable column gets, so that a cut
// name still shows its start.
const minFitWidth = 8

// fitTable cuts cells of rows so that the table that internal/table draws
// from headers and rows is at most width columns wide, shortening the
// columns in shrink (indexes, most expendable first: the symbol, then the
// shared object, then the command) one after another, never below their
// header or minFitWidth. A cut cell ends in an ellipsis, as perf's TUI
// cuts symbol names, so that no row wraps. Width 0 means no limit. Widths
// are counted in runes, which is the terminal width for the ASCII names
// that perf writes.
func fitTable(headers []string, rows [][]string, width int, shrink []int) {
	if width <= 0 {
		return
	}
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	// "│ a │ b │": one border, then per column the cell, two spaces of
	// padding and a border.
	total := 1
	for _, w := range widths {
		total += w + 3
	}
	for _, i := range shrink {
		if total <= width {
			break
		}
		floor := max(utf8.RuneCountInString(headers[i]), minFitWidth)
		if widths[i] <= floor {
			continue
		}
		cut := min(total-width, widths[i]-floor)
		widths[i] -= cut
		total -= cut
		for _, row := range rows {
			row[i] = fitCell(row[i], widths[i])
		}
	}
}

// fitCell cuts s to at most n runes, the last one an ellipsis.
func fitCell(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + ellipsis
}

// clipLines returns a writer that passes lines to w cut to width runes,
// the last one an ellipsis: the last resort for a table whose columns
// cannot shrink enough. Width 0 means no limit (w itself).
func clipLines(w io.Writer, width int) io.Writer {
	if width <= 0 {
		return w
	}
	return &lineClipper{w: w, width: width}
}

// lineClipper is the writer of clipLines. It holds back the rune that
// would be the line's width-th until it knows whether the line ends there.
type lineClipper struct {
	w     io.Writer
	width int
	col   int    // runes of the current line so far
	held  []byte // the width-th rune, not yet written
	buf   []byte
}

// Write writes p, cut into lines of at most width runes.
func (c *lineClipper) Write(p []byte) (int, error) {
	c.buf = c.buf[:0]
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		b := p[i : i+size]
		i += size
		switch {
		case r == '\n':
			c.buf = append(c.buf, c.held...)
			c.buf = append(c.buf, '\n')
			c.col, c.held = 0, nil
		case c.col < c.width-1:
			c.buf = append(c.buf, b...)
			c.col++
		case c.col == c.width-1:
			c.held = append([]byte(nil), b...)
			c.col++
		case c.col == c.width:
			c.buf = append(c.buf, ellipsis...)
			c.held = nil
			c.col++
		}
	}
	if _, err := c.w.Write(c.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fitOrder returns the indexes of the columns of headers that fitTable
// may shorten, most expendable first.
func fitOrder(headers []string) []int {
	var order []int
	for _, name := range []string{"Symbol", "Shared Object", "Command"} {
		for i, h := range headers {
			if h == name {
				order = append(order, i)
			}
		}
	}
	return order
}
