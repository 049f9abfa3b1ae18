package report

import (
	"bufio"
	"strconv"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/symbolize"
)

// This file tests the aggregation rules in which perf 6.1 and perf 7.3.4
// differ, and the buffer limits both share, apart from the goldens.

// TestMergedChainsUnresolved checks that a chain merged into a histogram
// entry (collapse of two equal entries) keeps its symbols in perf 6.1's
// dialect, and in perf 7.3.4's loses them: its entries print as addresses
// and match the survivor's entries by address only.
func TestMergedChainsUnresolved(t *testing.T) {
	main := chainEntry{entryKey: entryKey{name: "main", resolved: true, dsoRank: 1, start: 0x100, ip: 0x110}}
	mainOther := chainEntry{entryKey: entryKey{name: "main", resolved: true, dsoRank: 1, start: 0x100, ip: 0x120}}
	work := chainEntry{entryKey: entryKey{name: "work", resolved: true, dsoRank: 1, start: 0x200, ip: 0x210}}
	tests := []struct {
		name       string
		unresolved bool
		src        []chainEntry // the chain of the entry merged in
		want       string       // the survivor's graph, one "label:weight" per root and child
	}{
		{"6.1 same call site", false, []chainEntry{main, work}, "main:3[work:3]"},
		{"6.1 other call site", false, []chainEntry{mainOther, work}, "main:3[work:3]"},
		// Same addresses: the symless entries match the survivor's.
		{"7.3 same call site", true, []chainEntry{main, work}, "main:3[work:3]"},
		// Another address in main: a branch of its own, by address.
		{"7.3 other call site", true, []chainEntry{mainOther, work}, "0x120:2[0x210:2] main:1[work:1]"},
	}
	for _, tt := range tests {
		dst, src := &chainNode{}, &chainNode{}
		dst.appendChain([]chainEntry{main, work}, 1)
		src.appendChain(tt.src, 2)
		dst.merge(src, tt.unresolved)
		if got := graphString(dst); got != tt.want {
			t.Errorf("%s: graph %q, want %q", tt.name, got, tt.want)
		}
	}
}

// graphString renders the children of n as "label:weight[children]".
func graphString(n *chainNode) string {
	var parts []string
	for _, c := range n.kids() {
		s := c.val[0].label() + ":" + strconv.FormatUint(c.cumulHits(), 10)
		rest := &chainNode{children: c.children}
		if len(c.val) > 1 {
			rest = &chainNode{}
			rest.addChild(&chainNode{val: c.val[1:], hit: c.hit, children: c.children, childrenHit: c.childrenHit})
		}
		if inner := graphString(rest); inner != "" {
			s += "[" + inner + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// TestSymComparesDSO checks when the symbol key compares DSOs: always in
// perf 6.1, only without a dso key in perf 7.3.4.
func TestSymComparesDSO(t *testing.T) {
	tests := []struct {
		d    compat.Dialect
		keys []SortKey
		want bool
	}{
		{compat.Perf61, []SortKey{SortComm, SortDSO, SortSym}, true},
		{compat.Perf61, []SortKey{SortSym}, true},
		{compat.Perf73, []SortKey{SortComm, SortDSO, SortSym}, false},
		{compat.Perf73, []SortKey{SortSym, SortDSO}, false},
		{compat.Perf73, []SortKey{SortComm, SortSym}, true},
	}
	for _, tt := range tests {
		if got := symComparesDSO(tt.keys, tt.d); got != tt.want {
			t.Errorf("%s %v: %v, want %v", tt.d.Version, tt.keys, got, tt.want)
		}
	}
	// Two resolved entries of different DSOs, the same symbol start: the
	// symbol key alone calls them equal when it does not look at DSOs.
	a := &histEntry{dso: "liba.so", resolved: true, sym: "f", start: 0x10}
	b := &histEntry{dso: "libb.so", resolved: true, sym: "f", start: 0x10}
	if c := compareSym(a, b, true); c == 0 {
		t.Errorf("compareSym with DSOs: %d, want nonzero", c)
	}
	if c := compareSym(a, b, false); c != 0 {
		t.Errorf("compareSym without DSOs: %d, want 0", c)
	}
}

// TestCookieEntry checks that the cookie of a deferred sample whose user
// callchain never came is a callchain entry without a map, as perf 7.3.4's
// report has it ("[unknown] [k] 0x…" under --children).
func TestCookieEntry(t *testing.T) {
	r := New(Options{Children: true})
	cookie := symbolize.Frame{Addr: 0xc500000002, MapAddr: 0xc500000002, DSO: "[unknown]", DSOShort: "[unknown]", Reason: symbolize.Special, Cookie: true}
	e, x := r.entryOf(&cookie, 0, false, false)
	if x.dso != "" || x.mapped || e.dsoRank != -1 || e.resolved || e.label() != "0xc500000002" {
		t.Errorf("cookie entry %+v %+v (label %q), want no map, unresolved, label 0xc500000002", e, x, e.label())
	}
	kernel := symbolize.Frame{Addr: 0xffffffff81000000, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Symbol: "do_syscall_64", Reason: symbolize.Resolved, Kernel: true}
	if e, x := r.entryOf(&kernel, 0, false, false); x.dso != "[kernel.kallsyms]" || !x.kernel || !e.resolved {
		t.Errorf("kernel entry %+v %+v, want resolved in [kernel.kallsyms]", e, x)
	}
}

// TestPerfBufferClip checks that column headers and call-graph names are
// cut after 1023 bytes, as perf's char bf[1024] buffers cut them.
func TestPerfBufferClip(t *testing.T) {
	long := strings.Repeat("x", 2000)
	tests := []struct {
		name string
		e    chainEntry
		want int
	}{
		{"short", chainEntry{entryKey: entryKey{name: "main", resolved: true}}, 4},
		{"exactly 1023", chainEntry{entryKey: entryKey{name: long[:1023], resolved: true}}, 1023},
		{"long", chainEntry{entryKey: entryKey{name: long, resolved: true}}, 1023},
		{"long inlined", chainEntry{entryKey: entryKey{name: long[:1020], resolved: true, inlined: true}}, 1023},
		{"address", chainEntry{entryKey: entryKey{ip: 0x44d125}}, len("0x44d125")},
	}
	for _, tt := range tests {
		if got := len(tt.e.label()); got != tt.want {
			t.Errorf("%s: label of %d bytes, want %d", tt.name, got, tt.want)
		}
	}
	var sb strings.Builder
	bw := bufio.NewWriter(&sb)
	r := New(Options{})
	r.writeRows(bw, &reportSection{}, nil, []column{{header: "Symbol", width: 2046}})
	bw.Flush()
	lines := strings.Split(sb.String(), "\n")
	if got := len(lines[0]); got != len("# ")+1023 {
		t.Errorf("header line of %d bytes, want %d", got, len("# ")+1023)
	}
	if got := len(lines[1]); got != len("# ")+2046 {
		t.Errorf("ruler line of %d bytes, want %d (not cut)", got, len("# ")+2046)
	}
}
