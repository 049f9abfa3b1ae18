package report

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/symbolize"
)

// This file holds the sort keys beyond comm, pid, dso and sym: their
// names as perf's --sort parses them (tools/perf/util/sort.c:
// sort_dimension__add, which takes any prefix of a key's name and the
// first key it fits), the values they compare and their column texts.

// More sort keys (perf report --sort).
const (
	SortParent  SortKey = iota + SortSym + 1 // first caller matching the parent pattern (-p)
	SortCPU                                  // CPU of the sample
	SortSrcline                              // file:line of the address, or sym+offset
	SortSrcfile                              // source file of the address
	SortSymSize                              // size of the symbol
	SortDSOSize                              // size of the DSO's mapping
	SortTime                                 // sample time, in slices of 100 ms
	SortSample                               // sample count column (perf's hpp "sample")
	SortPeriod                               // period column (perf's hpp "period")
)

// perfSortNames are perf's sort key names in the order its parser tries
// them (perf 7.3.4's lists; perf 6.1's are a subset in the same order):
// the common keys, then the output columns usable as keys. A name that
// maps to -1 is perf's but not supported here.
var perfSortNames = []struct {
	name string
	key  SortKey
}{
	{"pid", SortPID}, {"comm", SortComm}, {"comm_nodigit", -1}, {"dso", SortDSO}, {"symbol", SortSym},
	{"parent", SortParent}, {"cpu", SortCPU}, {"socket", -1}, {"srcline", SortSrcline},
	{"srcfile", SortSrcfile}, {"local_weight", -1}, {"weight", -1}, {"transaction", -1},
	{"trace", -1}, {"symbol_size", SortSymSize}, {"dso_size", SortDSOSize}, {"cgroup", -1},
	{"cgroup_id", -1}, {"ipc_null", -1}, {"time", SortTime}, {"code_page_size", -1},
	{"local_ins_lat", -1}, {"ins_lat", -1}, {"local_p_stage_cyc", -1}, {"p_stage_cyc", -1},
	{"addr", -1}, {"local_retire_lat", -1}, {"retire_lat", -1}, {"simd", -1},
	{"overhead", -1}, {"latency", -1}, {"overhead_sys", -1}, {"overhead_us", -1},
	{"overhead_guest_sys", -1}, {"overhead_guest_us", -1}, {"overhead_children", -1},
	{"latency_children", -1}, {"sample", SortSample}, {"period", SortPeriod},
}

// lookupSortKey finds the sort key a --sort token names, as perf does: the
// first key whose name the token is a prefix of, case-insensitively.
func lookupSortKey(tok string) (SortKey, error) {
	low := strings.ToLower(tok)
	for _, n := range perfSortNames {
		if !strings.HasPrefix(n.name, low) {
			continue
		}
		if n.key < 0 {
			return 0, fmt.Errorf("sort key %q (perf's %s) is not supported", tok, n.name)
		}
		return n.key, nil
	}
	var names []string
	for _, n := range perfSortNames {
		if n.key >= 0 {
			names = append(names, n.name)
		}
	}
	return 0, fmt.Errorf("unknown sort key %q (want one of %s)", tok, strings.Join(names, ", "))
}

// IPCColumn reports whether perf adds its IPC column for a --sort value
// given on the command line: it does when the value contains "symbol"
// (and there are no branch stacks), printing "-" for want of LBR data.
func IPCColumn(sortOrder string) bool { return strings.Contains(sortOrder, "symbol") }

// hpp reports whether k is an output column used as a sort key: such keys
// do not tell rows apart (perf's hpp__nop_cmp), but order the output.
func (k SortKey) hpp() bool { return k == SortSample || k == SortPeriod }

// keyInfo are the values of the address-derived sort keys of a row or a
// callchain entry, filled only when a sort key needs them.
type keyInfo struct {
	srcline, srcfile string
	symSize          uint64
	hasSymSize       bool
	dsoSize          uint64
}

// srclineUnknown is perf's SRCLINE_UNKNOWN.
const srclineUnknown = "??:0"

// needsKeyInfo reports whether a sort key reads keyInfo.
func (r *Report) needsKeyInfo() bool {
	return slices.ContainsFunc(r.opts.Sort, func(k SortKey) bool {
		return k == SortSrcline || k == SortSrcfile || k == SortSymSize || k == SortDSOSize
	})
}

// keyInfoOf computes the keyInfo of frame f of a sample of process pid,
// as perf's map__srcline (sym+offset where the line table has nothing,
// DSO[address] without a symbol, SRCLINE_UNKNOWN without a map), srcfile
// (the file part of a "file:line", else empty), symbol and map sizes.
func (r *Report) keyInfoOf(f *symbolize.Frame, pid int32, caller bool) keyInfo {
	var ki keyInfo
	if f.Reason == symbolize.NoMap {
		ki.srcline = srclineUnknown
		return ki
	}
	file, line := "", 0
	if r.opts.SourceLine != nil {
		file, line = r.opts.SourceLine(f, caller)
	}
	switch {
	case file != "":
		if !r.opts.FullSourcePath {
			file = path.Base(file)
		}
		ki.srcline = file + ":" + strconv.Itoa(line)
		ki.srcfile = file
	case f.Reason == symbolize.Resolved && f.Symbol != "":
		ki.srcline = f.Symbol + "+" + strconv.FormatUint(f.Offset, 10)
	default:
		ki.srcline = f.DSOShort + "[" + strconv.FormatUint(f.MapAddr, 16) + "]"
	}
	if r.opts.SymbolSize != nil {
		ki.symSize, ki.hasSymSize = r.opts.SymbolSize(f)
	}
	if r.opts.MapSize != nil {
		ki.dsoSize = r.opts.MapSize(f, pid)
	}
	return ki
}

// timeQuantum is perf's default --time-quantum, 100 ms.
const timeQuantum = 100_000_000

// timeText is the Time column: seconds with microseconds (nanoseconds
// with --ns), as perf's timestamp__scnprintf_usec/nsec print them.
func (r *Report) timeText(t uint64) string {
	const ns = 1_000_000_000
	if r.opts.Nanoseconds {
		return strconv.FormatUint(t/ns, 10) + "." + fmt.Sprintf("%09d", t%ns)
	}
	return strconv.FormatUint(t/ns, 10) + "." + fmt.Sprintf("%06d", t%ns/1000)
}

// compareExtra compares by one of the keys of this file; ok is false for
// the others. Like compareKeys it is the negation of perf's compare
// functions (negative: a sorts first).
func compareExtra(a, b *histEntry, k SortKey) (c int, ok bool) {
	switch k {
	case SortParent:
		if a.parent == "" || b.parent == "" {
			return -cmpNull(a.parent == "", b.parent == ""), true
		}
		return strings.Compare(a.parent, b.parent), true
	case SortCPU:
		return int(a.cpu) - int(b.cpu), true
	case SortSrcline:
		a.srclineSeen, b.srclineSeen = true, true
		return strings.Compare(a.srcline, b.srcline), true
	case SortSrcfile:
		a.srcfileSeen, b.srcfileSeen = true, true
		return strings.Compare(a.srcfile, b.srcfile), true
	case SortSymSize:
		return cmpU64(a.symSize, b.symSize), true
	case SortDSOSize:
		return cmpU64(a.dsoSize, b.dsoSize), true
	case SortTime:
		return cmpU64(a.time, b.time), true
	case SortSample, SortPeriod:
		return 0, true
	}
	return 0, false
}

// sortExtra is the output order of the keys of this file: as the
// comparison, but for the output columns, which put heavier rows first.
func sortExtra(a, b *histEntry, k SortKey) int {
	switch k {
	case SortSample:
		return cmpU64(b.nrSelf, a.nrSelf)
	case SortPeriod:
		return cmpU64(b.self, a.self)
	}
	c, _ := compareExtra(a, b, k)
	return c
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// defaultParent is perf's default parent pattern.
var defaultParent = regexp.MustCompile("^sys_|^do_page_fault")

func (r *Report) parentRE() *regexp.Regexp {
	if r.opts.Parent != nil {
		return r.opts.Parent
	}
	return defaultParent
}

// wantParent reports whether rows need their parent symbol.
func (r *Report) wantParent() bool {
	return r.opts.ExcludeOther || slices.Contains(r.opts.Sort, SortParent)
}

// cpuOf is the sample's CPU, -1 when the file has none.
func (r *Report) cpuOf(s *decode.Sample) int32 {
	if s.Format&decode.SampleCPU == 0 {
		return -1
	}
	return int32(s.CPU)
}

// timeOf is the sample's time cut to the time quantum, where the time key
// is used (perf's hist_time).
func (r *Report) timeOf(s *decode.Sample) uint64 {
	if !slices.Contains(r.opts.Sort, SortTime) {
		return 0
	}
	q := r.opts.TimeQuantum
	if q == 0 {
		q = timeQuantum
	}
	return s.Time / q * q
}

// ParseTimeQuantum parses a --time-quantum value as perf does: a
// positive number of nanoseconds, or of seconds, milliseconds or
// microseconds with the suffix s, ms or us ("ns" is allowed too).
func ParseTimeQuantum(v string) (uint64, error) {
	num := strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz ")
	unit := strings.TrimSpace(v[len(num):])
	n, err := strconv.ParseUint(num, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a time (ns, us, ms or s)", v)
	}
	if n == 0 {
		return 0, fmt.Errorf("time quantum cannot be 0")
	}
	mult := map[string]uint64{"": 1, "ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("%q is not a time (ns, us, ms or s)", v)
	}
	return n * mult, nil
}

func samplesColumn() column {
	return column{header: "Samples", width: 12, right: true, pad: true, text: func(he *histEntry) string {
		return padLeft(strconv.FormatUint(he.nrSelf, 10), 12)
	}}
}

func periodColumn() column {
	return column{header: "Period", width: 12, right: true, pad: true, text: func(he *histEntry) string {
		return padLeft(strconv.FormatUint(he.self, 10), 12)
	}}
}

// extraColumn is the column of one of this file's keys, with perf's
// header and width (at least the header's, at least every row's text).
func (r *Report) extraColumn(k SortKey, rows []*histEntry) column {
	var c column
	// counts says whether a row's text widens the column (perf 6.1's
	// lazily computed srcline: [compat.Dialect.SrclineAtCreation]).
	counts := func(*histEntry) bool { return true }
	switch k {
	case SortSample:
		return samplesColumn()
	case SortPeriod:
		return periodColumn()
	case SortParent:
		c = column{header: "Parent symbol", text: func(he *histEntry) string {
			if he.parent == "" {
				return "[other]"
			}
			return he.parent
		}}
	case SortCPU:
		return column{header: "CPU", width: 3, pad: true, text: func(he *histEntry) string {
			return fmt.Sprintf("%3.3d", he.cpu)
		}}
	case SortSrcline:
		c = column{header: "Source:Line", text: func(he *histEntry) string { return he.srcline }}
		counts = func(he *histEntry) bool { return he.srclineCounted }
	case SortSrcfile:
		c = column{header: "Source File", text: func(he *histEntry) string { return he.srcfile }}
		counts = func(he *histEntry) bool { return he.srcfileCounted }
	case SortSymSize:
		return column{header: "Symbol size", width: 11, pad: true, text: func(he *histEntry) string {
			if !he.hasSymSize {
				return padLeft("unknown", 11)
			}
			return padLeft(strconv.FormatUint(he.symSize, 10), 11)
		}}
	case SortDSOSize:
		return column{header: "DSO size", width: 8, pad: true, text: func(he *histEntry) string {
			if he.dso == "" {
				return padLeft("unknown", 8)
			}
			return padLeft(strconv.FormatUint(he.dsoSize, 10), 8)
		}}
	case SortTime:
		w := 12
		if r.opts.Nanoseconds {
			w = 16
		}
		return column{header: "Time", width: w, text: func(he *histEntry) string { return r.timeText(he.time) }}
	}
	// perf pads the parent's text to the width; srcline and srcfile only
	// where another column follows.
	c.pad = k == SortParent
	c.width = len(c.header)
	full := c.text
	if !r.opts.Compat.SrclineAtCreation {
		for _, he := range rows {
			if counts(he) {
				c.width = max(c.width, len(full(he)))
			}
		}
		// perf 6.1 prints at most the width ("%-.*s").
		w := c.width
		c.text = func(he *histEntry) string {
			t := full(he)
			return t[:min(len(t), w)]
		}
		return c
	}
	for _, he := range rows {
		c.width = max(c.width, len(full(he)))
	}
	return c
}

// sepText is a column's text with a field separator (-t): numbers after
// one space, left-aligned in the rest of the width; other texts padded
// as without a separator, every separator character in them replaced by
// a dot (perf's repsep_snprintf).
func (r *Report) sepText(c column, he *histEntry, last bool) string {
	t := c.text(he)
	if c.right {
		return " " + padRight(strings.TrimSpace(t), c.width-1)
	}
	if last && !c.pad {
		return strings.ReplaceAll(t, r.opts.FieldSep[:1], ".")
	}
	return padRight(strings.ReplaceAll(t, r.opts.FieldSep[:1], "."), c.width)
}

// chainSrcline is a call-graph entry's srcline with -g address: perf's
// map__srcline without the symbol name ("+OFFSET" where the line table
// has nothing).
func (r *Report) chainSrcline(f *symbolize.Frame) string {
	if f.Reason == symbolize.NoMap {
		return srclineUnknown
	}
	if r.opts.SourceLine != nil {
		if file, line := r.opts.SourceLine(f, false); file != "" {
			if !r.opts.FullSourcePath {
				file = path.Base(file)
			}
			return file + ":" + strconv.Itoa(line)
		}
	}
	if f.Reason == symbolize.Resolved && f.Symbol != "" {
		return "+" + strconv.FormatUint(f.Offset, 10)
	}
	return f.DSOShort + "[" + strconv.FormatUint(f.MapAddr, 16) + "]"
}
