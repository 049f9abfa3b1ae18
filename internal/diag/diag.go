// Package diag is perfstitch's one warnings facility: everything that is
// skipped, repaired or distrusted (a record, a sample's field, a line of a
// symbol source, a cap that acted) becomes a [Warning], printed on stderr
// in one form, deduplicated by kind with a count, and summarised at the
// end of the run.
//
//	perfstitch: warning: perf.data: SAMPLE record at 0x1a0: callchain: nr 1152921504606846976 exceeds the record (chain cut)
//	perfstitch: warning: … and 3,000 more like this
package diag

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Warning is one problem met and what was done about it.
type Warning struct {
	// Source is the file the problem is in ("perf.data", a kallsyms or
	// maps file); "" if none.
	Source string
	// Offset is the byte offset in Source, -1 if it has none (a line
	// number belongs in Where).
	Offset int64
	// Where locates the problem when it is not a byte offset: a record
	// type ("SAMPLE record"), a line ("line 12").
	Where string
	// Field is the field at fault ("callchain"), "" if the whole thing.
	Field string
	// Msg says what was wrong and what was done ("skipped", "cut").
	Msg string
}

// String formats w as one line without the "perfstitch: warning: "
// prefix: "SOURCE: WHERE at 0xOFF: FIELD: MSG".
func (w Warning) String() string {
	var b strings.Builder
	if w.Source != "" {
		b.WriteString(w.Source)
		b.WriteString(": ")
	}
	if w.Where != "" {
		b.WriteString(w.Where)
	}
	if w.Offset >= 0 {
		if w.Where != "" {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "at 0x%x", w.Offset)
	}
	if w.Where != "" || w.Offset >= 0 {
		b.WriteString(": ")
	}
	if w.Field != "" {
		b.WriteString(w.Field)
		b.WriteString(": ")
	}
	b.WriteString(w.Msg)
	return b.String()
}

// kind returns the deduplication key of w: its source, place and field,
// and its message with every number replaced, so that the same problem
// at another offset or with another value is one kind.
func (w Warning) kind() string {
	return w.Source + "\x00" + shape(w.Where) + "\x00" + w.Field + "\x00" + shape(w.Msg)
}

// shape replaces each number (decimal, or hex after 0x) in s with '#'.
func shape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c < '0' || c > '9' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		if c == '0' && j < len(s) && (s[j] == 'x' || s[j] == 'X') {
			j++
		}
		for j < len(s) && isHex(s[j]) {
			j++
		}
		b.WriteByte('#')
		i = j
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// DefaultShow is how many warnings of one kind are printed before the
// rest are only counted.
const DefaultShow = 1

// Log prints and counts warnings. The zero value is not usable; make one
// with [New]. A Log is not safe for concurrent use.
type Log struct {
	w     io.Writer
	quiet bool
	show  int
	kinds map[string]*kindCount
	order []*kindCount
	total uint64
	perf  uint64 // of total, the warnings printed in perf's words (Perf)
}

type kindCount struct {
	first Warning
	n     uint64
}

// New returns a Log that prints on w; quiet counts without printing.
func New(w io.Writer, quiet bool) *Log {
	return &Log{w: w, quiet: quiet, show: DefaultShow, kinds: map[string]*kindCount{}}
}

// Add records one warning, printing it if it is among the first of its
// kind.
func (l *Log) Add(w Warning) { l.AddN(w, 1) }

// AddN records n warnings like w (n-1 of them known only by count).
func (l *Log) AddN(w Warning, n uint64) {
	if n == 0 {
		return
	}
	l.total += n
	k := w.kind()
	kc := l.kinds[k]
	if kc == nil {
		kc = &kindCount{first: w}
		l.kinds[k] = kc
		l.order = append(l.order, kc)
	}
	before := kc.n
	kc.n += n
	if !l.quiet && before < uint64(l.show) {
		fmt.Fprintf(l.w, "perfstitch: warning: %s\n", w)
	}
}

// Perf records one warning that perf itself prints, and prints it as
// perf does: text verbatim (it carries its own newlines), with no
// "perfstitch:" prefix, so that stderr matches perf's byte for byte. It
// counts in [Log.Count] but is left out of the summary, which perf does
// not print.
func (l *Log) Perf(text string) {
	l.total++
	l.perf++
	if !l.quiet {
		io.WriteString(l.w, text)
	}
}

// Count is the number of warnings recorded.
func (l *Log) Count() uint64 { return l.total }

// Kinds is the number of distinct kinds of warning recorded.
func (l *Log) Kinds() int { return len(l.order) }

// Summary prints, for each kind seen more often than printed, "… and N
// more like this" after its first warning, then the total of perfstitch's
// own warnings; nothing when there were none (those in perf's words
// alone make no summary) or the log is quiet.
func (l *Log) Summary() {
	own := l.total - l.perf
	if l.quiet || own == 0 {
		return
	}
	for _, kc := range l.order {
		if kc.n > uint64(l.show) {
			fmt.Fprintf(l.w, "perfstitch: warning: %s\nperfstitch: warning: … and %s more like this\n",
				kc.first, Group(kc.n-uint64(l.show)))
		}
	}
	noun := "warnings"
	if own == 1 {
		noun = "warning"
	}
	fmt.Fprintf(l.w, "perfstitch: %s %s (-q silences them, --strict makes them errors)\n", Group(own), noun)
}

// Group formats n with thousands separators: 3000 is "3,000".
func Group(n uint64) string {
	s := strconv.FormatUint(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	head := len(s) % 3
	if head > 0 {
		b.WriteString(s[:head])
	}
	for i := head; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
