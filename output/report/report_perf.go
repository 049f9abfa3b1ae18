package report

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/internal/table"
)

// This file prints a Report as perf report --stdio does (perf 6.1:
// builtin-report.c evlist__tty_browse_hists and
// hists__fprintf_nr_sample_events, ui/stdio/hist.c hists__fprintf, sort.c
// for the column texts and widths, hist.c hists__calc_col_len).

// perfTip is the line perf prints last when it cannot read its tips file,
// which is what a perf without its documentation folder prints every time.
const perfTip = "Cannot load tips.txt file, please install perf!"

// convertUnit is perf's convert_unit: 1K above 1000, and so on.
func convertUnit(v uint64) (uint64, byte) {
	unit := byte(' ')
	for _, u := range []byte{'K', 'M', 'G'} {
		if v > 1000 {
			v /= 1000
			unit = u
		}
	}
	return v, unit
}

// pidHeader is perf's header of the pid sort key, spaces included.
const pidHeader = "    Pid:Command"

// column is one column of the perf text layout.
type column struct {
	header string
	width  int
	text   func(he *histEntry) string
	right  bool // right-aligned header (percent columns)
	// pad: perf pads the text to the width even in the last column
	// (every sort key's text but the symbol's).
	pad bool
}

// columns returns the columns of a section with perf's widths: at least
// the header, at least every row's text (symbols count 4 for the "[k] "
// prefix, unresolved ones 22; an unresolved symbol widens the DSO column
// to 16).
func (r *Report) columns(s *reportSection, rows []*histEntry) []column {
	var cols []column
	total := s.totalPeriod
	pct := func(f func(*histEntry) uint64) func(*histEntry) string {
		return func(he *histEntry) string {
			return padLeft(strconv.FormatFloat(table.Percent(f(he), total), 'f', 2, 64), 7) + "%"
		}
	}
	if r.children() {
		cols = append(cols,
			column{header: "Children", width: 8, right: true, text: pct(func(he *histEntry) uint64 { return he.acc })},
			column{header: "Self", width: 8, right: true, text: pct(func(he *histEntry) uint64 { return he.self })})
	} else {
		cols = append(cols, column{header: "Overhead", width: 8, right: true, text: pct(func(he *histEntry) uint64 { return he.self })})
	}
	if r.opts.ShowNrSamples {
		cols = append(cols, samplesColumn())
	}
	if r.opts.ShowTotalPeriod {
		cols = append(cols, periodColumn())
	}
	commW, pidW, dsoW, symW := len("Command"), len(pidHeader), len("Shared Object"), len("Symbol")
	unresolved := false
	for _, he := range rows {
		// perf sizes both columns by the thread's command at the end
		// (thread__comm_len), not by the row's own.
		n := len(r.threadComm(he))
		commW = max(commW, n)
		pidW = max(pidW, n+8)
		if he.dso != "" {
			dsoW = max(dsoW, len(he.dso))
		}
		if he.resolved {
			symW = max(symW, len(he.sym)+4)
		} else {
			symW = max(symW, 22)
			unresolved = true
		}
	}
	if unresolved && dsoW < 16 && !r.opts.DSOFilter {
		dsoW = 16
	}
	for _, k := range r.opts.Sort {
		if r.elided(k) {
			continue
		}
		switch k {
		case SortComm:
			cols = append(cols, column{header: "Command", width: commW, pad: true, text: func(he *histEntry) string {
				// perf prints at most the column's width ("%-*.*s").
				return he.comm[:min(len(he.comm), commW)]
			}})
		case SortPID:
			cols = append(cols, column{header: pidHeader, width: pidW, pad: true, text: func(he *histEntry) string {
				return padLeft(strconv.Itoa(int(he.tid)), 7) + ":" + r.threadComm(he)
			}})
		case SortDSO:
			cols = append(cols, column{header: "Shared Object", width: dsoW, pad: true, text: (*histEntry).dsoText})
		case SortSym:
			cols = append(cols, column{header: "Symbol", width: symW, text: (*histEntry).symText})
		default:
			cols = append(cols, r.extraColumn(k, rows))
		}
	}
	if r.opts.IPC {
		cols = append(cols, column{header: "IPC   [IPC Coverage]", width: 20, pad: true, text: func(*histEntry) string { return "-      -" }})
	}
	return cols
}

// elided reports whether sort key k's column is left out because a filter
// names a single value for it (Options.Only).
func (r *Report) elided(k SortKey) bool {
	return r.filterNamesOne(k) && !r.allElided()
}

// filterNamesOne reports whether a filter names a single value for sort
// key k, which perf then prints in the header (Options.Only).
func (r *Report) filterNamesOne(k SortKey) bool {
	_, ok := r.opts.Only[k]
	return ok && slices.Contains(r.opts.Sort, k)
}

// allElided reports whether every sort key would be elided; perf then
// shows them all again ("it makes no sense to elide all of sort
// entries"), though it has printed their header lines.
func (r *Report) allElided() bool {
	for _, k := range r.opts.Sort {
		if !r.filterNamesOne(k) {
			return false
		}
	}
	return true
}

// elideNames are the names perf's sort__setup_elide prints the single
// filter value under.
var elideNames = map[SortKey]string{SortComm: "comm", SortDSO: "dso", SortSym: "symbol"}

// threadComm is the command of he's thread at the end of the input, as
// perf prints it for the pid key (Options.ThreadComm), else the
// row's own.
func (r *Report) threadComm(he *histEntry) string {
	if r.opts.ThreadComm != nil {
		return r.opts.ThreadComm(he.tid)
	}
	return he.comm
}

func padLeft(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return strings.Repeat(" ", w-len(s)) + s
}

func padRight(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return s + strings.Repeat(" ", w-len(s))
}

// perfBufLen is the size of the buffers perf formats a column header
// (hists__fprintf_headers) and a call-graph entry's name
// (ipchain__fprintf_graph and the other callchain printers) into: char
// bf[1024], so either text is cut after 1023 bytes (scnprintf), however
// wide the column.
const perfBufLen = 1024

// clip cuts s as perf's scnprintf into a perfBufLen buffer does.
func clip(s string) string { return s[:min(len(s), perfBufLen-1)] }

// WritePerf prints the report as perf report --stdio prints it.
func (r *Report) WritePerf(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	// -q: perf leaves out every comment line, the column headers included.
	out := bw
	if r.opts.Quiet {
		out = bufio.NewWriter(io.Discard)
	}
	out.WriteString("# To display the perf.data header info, please use --header/--header-only options.\n#\n")
	for _, k := range r.opts.Sort {
		if r.filterNamesOne(k) {
			out.WriteString("# " + elideNames[k] + ": " + r.opts.Only[k] + "\n")
		}
	}
	out.WriteString("#\n# Total Lost Samples: " + strconv.FormatUint(r.LostSamples, 10) + "\n#\n")
	for _, s := range r.sections {
		if s.nrSamples == 0 {
			continue
		}
		r.settle(s) // after: a section whose samples are all hidden is printed
		switch g, member := r.groupOf(s.attr); {
		case member:
			continue // printed in its leader's section
		case g != nil:
			r.writePerfGroup(bw, g)
		default:
			n, unit := convertUnit(s.nrSamples)
			out.WriteString("# Samples: " + strconv.FormatUint(n, 10) + string(unit))
			out.WriteString(" of event '" + s.name + "'\n")
			out.WriteString("# Event count (approx.): " + strconv.FormatUint(s.totalPeriod, 10) + "\n#\n")
			rows := r.sortedEntries(s)
			if r.opts.Hierarchy {
				r.writeHierarchy(bw, s, rows)
			} else {
				r.writeRows(bw, s, rows, r.columns(s, rows))
			}
		}
		bw.WriteString("\n\n")
	}
	out.WriteString("#\n# (" + perfTip + ")\n#\n")
	if r.opts.ShowThreads {
		// perf's per-thread table of PERF_SAMPLE_READ values: its
		// header alone for a recording without them (-q keeps it).
		bw.WriteString("# PID  TID\n")
	}
	return bw.Flush()
}

// writeRows prints the column headers, then each row and its call graph.
func (r *Report) writeRows(bw *bufio.Writer, s *reportSection, rows []*histEntry, cols []column) {
	r.writeHeaders(bw, cols)
	r.writeBody(bw, s, rows, cols)
}

// writeHeaders prints the column headers (none with -q).
func (r *Report) writeHeaders(bw *bufio.Writer, cols []column) {
	if r.opts.Quiet {
		return
	}
	sep := "  "
	if r.opts.FieldSep != "" {
		sep = r.opts.FieldSep
	}
	bw.WriteString("# ")
	for i, c := range cols {
		if i > 0 {
			bw.WriteString(sep)
		}
		h := padRight(c.header, c.width)
		if c.right {
			h = padLeft(c.header, c.width)
		}
		bw.WriteString(clip(h))
	}
	if r.opts.FieldSep != "" {
		bw.WriteByte('\n') // no dotted line with a separator
		return
	}
	bw.WriteString("\n# ")
	for i, c := range cols {
		if i > 0 {
			bw.WriteString("  ")
		}
		bw.WriteString(strings.Repeat(".", c.width))
	}
	bw.WriteString("\n#\n")
}

// writeBody prints each row and its call graph.
func (r *Report) writeBody(bw *bufio.Writer, s *reportSection, rows []*histEntry, cols []column) {
	gp := r.graphPrinter(bw, s)
	for _, he := range rows {
		if r.rowPercent(he, s.totalPeriod) < r.opts.PercentLimit {
			continue
		}
		for i, c := range cols {
			if r.opts.FieldSep != "" {
				if i > 0 {
					bw.WriteString(r.opts.FieldSep)
				}
				bw.WriteString(r.sepText(c, he, i == len(cols)-1))
				continue
			}
			bw.WriteString("  ")
			t := c.text(he)
			if i < len(cols)-1 || c.pad {
				t = padRight(t, c.width)
			}
			bw.WriteString(t)
		}
		bw.WriteByte('\n')
		if gp != nil {
			parent := he.self
			if r.children() {
				parent = he.acc
			}
			gp.print(&he.chain, parent)
		}
	}
}

// graphPrinter returns the printer for a section's call graphs, nil when
// none are printed.
func (r *Report) graphPrinter(bw *bufio.Writer, s *reportSection) *graphPrinter {
	if r.opts.CallGraph == CallGraphNone || !s.chains {
		return nil
	}
	limit := r.opts.CallGraphLimit
	return &graphPrinter{
		value:      r.opts.CallGraphValue,
		remInlined: r.opts.Compat.RemainderInlined,
		w:          bw,
		mode:       r.opts.CallGraph,
		total:      s.totalPeriod,
		minHit:     uint64(float64(s.totalPeriod) * (limit / 100)),
		minFrac:    limit / 100,
		skipHead:   len(r.opts.Sort) > 0 && r.opts.Sort[0] == SortSym,
	}
}
