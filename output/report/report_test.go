package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/table"
	"github.com/perfstitch/perfstitch/internal/testevents"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

func TestReportGolden(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		format table.Format
		group  bool
	}{
		{"report-group.txt", Options{CallGraphLimit: 5}, table.Perf, true},
		{"report-group-children.txt", Options{Children: true, CallGraph: CallGraphNone}, table.Perf, true},
		{"report-self.txt", Options{CallGraphLimit: 0.5}, table.Perf, false},
		{"report-children.txt", Options{Children: true, CallGraphLimit: 0.5}, table.Perf, false},
		{"report-fractal-callee.txt", Options{Children: true, CallGraph: CallGraphFractal, CallGraphLimit: 10, Order: OrderCallee}, table.Perf, false},
		{"report-flat.txt", Options{CallGraph: CallGraphFlat, CallGraphLimit: 0.5}, table.Perf, false},
		{"report-folded-caller.txt", Options{CallGraph: CallGraphFolded, Order: OrderCaller}, table.Perf, false},
		{"report-sym-pid-limit.txt", Options{Sort: []SortKey{SortSym, SortPID}, PercentLimit: 10, CallGraphLimit: 10}, table.Perf, false},
		{"report-pipe.txt", Options{Children: true, Pipe: true, CallGraph: CallGraphNone}, table.Perf, false},
		{"report-children.table", Options{Children: true}, table.Text, false},
		{"report-dso.table", Options{Sort: []SortKey{SortDSO}, PercentLimit: 1}, table.Text, false},
		{"report-children.json", Options{Children: true, CallGraphLimit: 5}, table.JSON, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// These goldens were made in perf 6.1's dialect: kernel
			// functions of --children rows print "[k]".
			tt.opts.Compat = compat.Perf61
			r := New(tt.opts)
			if tt.group {
				r.SetGroups(GroupsFromMeta([]*decode.EventAttr{testevents.CPUClock, testevents.TaskClock}, []decode.GroupDesc{{Name: "{anon_group}", LeaderIdx: 0, NrMembers: 2}}))
			}
			for _, name := range testevents.DSOOrder {
				r.NoteDSO(name)
			}
			for _, ev := range testevents.Events() {
				if err := r.Add(ev); err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			if err := r.Write(&buf, tt.format); err != nil {
				t.Fatal(err)
			}
			testfixture.Golden(t, filepath.Join("testdata", tt.name), buf.Bytes())
		})
	}
}

// TestReportChildrenDedup checks that a recursive chain counts once per
// function in --children mode, and that an unresolved leaf gets a second
// (absolute-address) entry as in perf.
func TestReportChildrenDedup(t *testing.T) {
	r := New(Options{Children: true})
	r.Add(testevents.Event(testevents.CPUClock, 10, "app", 100, testevents.Leaf2, testevents.Work, testevents.Work, testevents.Main, testevents.Start))
	r.Add(testevents.Event(testevents.CPUClock, 10, "app", 100, testevents.Qsort, testevents.Work, testevents.Main, testevents.Start))
	got := map[string][2]uint64{}
	for _, he := range r.sortedEntries(r.sections[0]) {
		got[he.symText()] = [2]uint64{he.acc, he.self}
	}
	want := map[string][2]uint64{
		"[.] leaf":               {100, 100},
		"[.] work":               {200, 0},
		"[.] main":               {200, 0},
		"[.] 0x00007f000002724a": {200, 0},
		"[.] 0x000000000003fbc2": {100, 100},
		"[.] 0x00007f000003fbc2": {100, 0},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("children/self per row (-want +got):\n%s", d)
	}
}

// TestReportThreadComm checks perf's use of a thread's last command: the
// pid column prints it, and both the comm and pid columns are as wide as
// the longest of them, so a longer command at the sample is cut. Thread 10
// was "app" at its samples and exec'd "a" later; thread 11 became
// "worker-renamed".
func TestReportThreadComm(t *testing.T) {
	last := map[int32]string{10: "a", 11: "worker-renamed"}
	for _, sort := range [][]SortKey{{SortPID}, {SortComm}} {
		r := New(Options{Sort: sort, CallGraph: CallGraphNone, ThreadComm: func(tid int32) string { return last[tid] }})
		r.Add(testevents.Event(testevents.CPUClock, 10, "app", 300, testevents.Leaf, testevents.Main))
		r.Add(testevents.Event(testevents.CPUClock, 11, "app-worker-with-a-long-name", 100, testevents.Work, testevents.Main))
		var buf bytes.Buffer
		if err := r.Write(&buf, table.Perf); err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, l := range strings.Split(buf.String(), "\n") {
			if strings.Contains(l, "%") && !strings.HasPrefix(l, "#") {
				rows = append(rows, l)
			}
		}
		want := map[SortKey][]string{
			SortPID:  {"    75.00%       10:a             ", "    25.00%       11:worker-renamed"},
			SortComm: {"    75.00%  app           ", "    25.00%  app-worker-wit"},
		}[sort[0]]
		if d := cmp.Diff(want, rows); d != "" {
			t.Errorf("sort %v rows (-want +got):\n%s", sort, d)
		}
	}
}

// TestReportHidden checks samples a thread filter hides, as perf counts
// them: in the total (and so the percentages), and in a row they match,
// while a row only they make is not shown. With Only the header names
// the command and the comm column is left out.
func TestReportHidden(t *testing.T) {
	rows := func(r *Report) []string {
		var buf bytes.Buffer
		if err := r.Write(&buf, table.Perf); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(buf.String(), "\n") {
			if strings.HasPrefix(l, "# comm:") || strings.HasPrefix(l, "# Overhead") ||
				strings.HasPrefix(l, "# Samples") || strings.Contains(l, "%") && !strings.HasPrefix(l, "#") {
				out = append(out, strings.TrimRight(l, " "))
			}
		}
		return out
	}
	r := New(Options{Sort: []SortKey{SortDSO}, CallGraph: CallGraphNone})
	r.Add(testevents.Event(testevents.CPUClock, 10, "app", 100, testevents.Leaf, testevents.Main))
	r.AddHidden(testevents.Event(testevents.CPUClock, 11, "other", 100, testevents.Work, testevents.Main)) // same DSO: weighs in
	r.AddHidden(testevents.Event(testevents.CPUClock, 11, "other", 200, testevents.Read, testevents.Main)) // libc: a hidden row
	want := []string{"# Samples: 3  of event 'cpu-clock'", "# Overhead  Shared Object", "    50.00%  app"}
	if d := cmp.Diff(want, rows(r)); d != "" {
		t.Errorf("hidden samples (-want +got):\n%s", d)
	}

	r = New(Options{CallGraph: CallGraphNone, Only: map[SortKey]string{SortComm: "app"}})
	r.Add(testevents.Event(testevents.CPUClock, 10, "app", 100, testevents.Leaf, testevents.Main))
	r.AddHidden(testevents.Event(testevents.CPUClock, 11, "other", 300, testevents.Work, testevents.Main))
	want = []string{"# comm: app", "# Samples: 2  of event 'cpu-clock'", "# Overhead  Shared Object  Symbol", "    25.00%  app            [.] leaf"}
	if d := cmp.Diff(want, rows(r)); d != "" {
		t.Errorf("one comm (-want +got):\n%s", d)
	}
}

func TestParseSortKeys(t *testing.T) {
	tests := []struct {
		in      string
		want    []SortKey
		wantErr bool
	}{
		{"comm,dso,sym", DefaultSortKeys(), false},
		{"pid, sym", []SortKey{SortPID, SortSym}, false},
		{"dso,bogus", nil, true},
		{"", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseSortKeys(tt.in)
		if (err != nil) != tt.wantErr || !cmp.Equal(got, tt.want) {
			t.Errorf("ParseSortKeys(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestConvertUnit(t *testing.T) {
	tests := []struct {
		in   uint64
		want string
	}{{963, "963 "}, {1000, "1000 "}, {1001, "1K"}, {1150, "1K"}, {2_500_000, "2M"}}
	for _, tt := range tests {
		v, u := convertUnit(tt.in)
		if got := strconv.FormatUint(v, 10) + string(u); got != tt.want {
			t.Errorf("convertUnit(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkReportHistogram measures the histogram alone: rows found or
// added by the sort keys, no call graphs (perf report --no-children -g
// none), with the default keys and with the symbol key first (where the
// tree's order is not a total one).
func BenchmarkReportHistogram(b *testing.B) {
	evs := testevents.Events()
	for _, keys := range [][]SortKey{DefaultSortKeys(), {SortSym}, {SortDSO}} {
		b.Run(fmt.Sprint(keys), func(b *testing.B) {
			r := New(Options{Sort: keys, CallGraph: CallGraphNone})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.Add(evs[i%len(evs)])
			}
		})
	}
}

// BenchmarkReportChildren measures --children's cumulative entries: the
// dup check and lookup of every callchain entry's row and the chain added
// under it, in caller order (the default) and callee order.
func BenchmarkReportChildren(b *testing.B) {
	evs := testevents.Events()
	for _, order := range []CallOrder{OrderCaller, OrderCallee} {
		b.Run(map[CallOrder]string{OrderCaller: "caller", OrderCallee: "callee"}[order], func(b *testing.B) {
			r := New(Options{Children: true, Order: order})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.Add(evs[i%len(evs)])
			}
		})
	}
}

func BenchmarkReportAdd(b *testing.B) {
	evs := testevents.Events()
	for _, children := range []bool{false, true} {
		b.Run(map[bool]string{false: "self", true: "children"}[children], func(b *testing.B) {
			r := New(Options{Children: children})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.Add(evs[i%len(evs)])
			}
		})
	}
}

// TestReportCumulativeLevel checks the level mark of --children rows in
// both dialects: the row of a sample's own kernel IP is "[k]"; rows made
// by callchain nodes are "[.]" in perf 7.3.4 even for kernel functions
// ("[k]" in perf 6.1); a node without a map takes the level before it
// (kernel/two-events: "[unknown]  [k] 0x00002e5b00000001").
func TestReportCumulativeLevel(t *testing.T) {
	for _, tc := range []struct {
		dialect compat.Dialect
		want    map[string]bool
	}{
		{compat.Perf73, map[string]bool{"[k] read_zero": true, "[.] do_syscall_64": true, "[.] entry_SYSCALL_64": true, "[.] read": true, "[.] main": true, "[k] 0x00000000deadbeef": true}},
		{compat.Perf61, map[string]bool{"[k] read_zero": true, "[k] do_syscall_64": true, "[k] entry_SYSCALL_64": true, "[.] read": true, "[.] main": true, "[k] 0x00000000deadbeef": true}},
	} {
		r := New(Options{Children: true, Compat: tc.dialect})
		// Callee order: read_zero, do_syscall_64, entry_SYSCALL_64, read,
		// main, an address outside every map. Caller order (--children)
		// visits the unmapped root first, which inherits the sample's
		// level.
		r.Add(testevents.Event(testevents.CPUClock, 10, "app", 100, testevents.Zero, testevents.Sys, testevents.Entry, testevents.Read, testevents.Main, testevents.NoMap))
		got := map[string]bool{}
		for _, he := range r.sortedEntries(r.sections[0]) {
			got[he.symText()] = true
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: rows (-want +got):\n%s", tc.dialect.Version, d)
		}
	}
}
