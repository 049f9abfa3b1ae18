package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// Hand-made resolved samples: a program "app" (pid 10, threads 10 and 11)
// calling through libc into the kernel, with unresolved libc frames, an
// address outside every map, and a second event.

var (
	cpuClock  = &decode.EventAttr{Name: "cpu-clock", Index: 0, SampleType: decode.SampleTID | decode.SamplePeriod | decode.SampleCallchain}
	taskClock = &decode.EventAttr{Name: "task-clock", Index: 1, SampleType: decode.SampleTID | decode.SamplePeriod | decode.SampleCallchain}
)

func repKFrame(sym string, addr, off uint64) symbolize.Frame {
	return symbolize.Frame{Addr: addr, MapAddr: addr, Symbol: sym, Offset: off, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Kernel: true}
}

func repUFrame(dso, sym string, base, rel, off uint64) symbolize.Frame {
	f := symbolize.Frame{Addr: base + rel, MapAddr: rel, Symbol: sym, Offset: off, DSO: dso, DSOShort: filepath.Base(dso)}
	if sym == "" {
		f.Reason = symbolize.NoSymbols
	}
	return f
}

const (
	appPath  = "/usr/bin/app"
	libcPath = "/usr/lib/libc.so.6"
	libcBase = 0x7f0000000000
)

var (
	fMain    = repUFrame(appPath, "main", 0, 0x1100, 0x20)
	fWork    = repUFrame(appPath, "work", 0, 0x1200, 0x10)
	fLeaf    = repUFrame(appPath, "leaf", 0, 0x1300, 0x8)
	fLeaf2   = repUFrame(appPath, "leaf", 0, 0x1310, 0x18)
	fStart   = repUFrame(libcPath, "", libcBase, 0x2724a, 0)
	fRead    = repUFrame(libcPath, "read", libcBase, 0x11000, 0x12)
	fQsort   = repUFrame(libcPath, "", libcBase, 0x3fbc2, 0)
	fSys     = repKFrame("do_syscall_64", 0xffffffff81000100, 0x40)
	fEntry   = repKFrame("entry_SYSCALL_64", 0xffffffff81000200, 0x30)
	fZero    = repKFrame("read_zero", 0xffffffff81000300, 0x77)
	fNoMap   = symbolize.Frame{Addr: 0xdeadbeef, MapAddr: 0xdeadbeef, DSO: "[unknown]", DSOShort: "[unknown]", Reason: symbolize.NoMap}
	testMmap = []string{"[kernel.kallsyms]_text", appPath, libcPath}
)

func testEvent(attr *decode.EventAttr, tid int32, comm string, period uint64, frames ...symbolize.Frame) *symbolize.Event {
	s := &decode.Sample{Period: period}
	s.Attr = attr
	s.PID, s.TID = 10, tid
	s.Format = attr.SampleType
	s.Misc = uint16(decode.CPUModeUser)
	if frames[0].Kernel {
		s.Misc = uint16(decode.CPUModeKernel)
	}
	return &symbolize.Event{Sample: &stitch.Sample{Sample: s}, Comm: comm, IP: frames[0], Frames: frames}
}

func testEvents() []*symbolize.Event {
	var evs []*symbolize.Event
	add := func(n int, ev *symbolize.Event) {
		for range n {
			evs = append(evs, ev)
		}
	}
	add(30, testEvent(cpuClock, 10, "app", 1000, fLeaf, fWork, fMain, fStart))
	add(10, testEvent(cpuClock, 10, "app", 1000, fLeaf2, fWork, fWork, fMain, fStart))
	add(25, testEvent(cpuClock, 10, "app", 1000, fZero, fSys, fEntry, fRead, fWork, fMain, fStart))
	add(20, testEvent(cpuClock, 11, "app-worker", 1000, fQsort, fWork, fMain, fStart))
	add(12, testEvent(cpuClock, 11, "app-worker", 1000, fSys, fEntry, fRead, fLeaf, fWork, fMain, fStart))
	add(2, testEvent(cpuClock, 11, "app-worker", 1000, fNoMap, fWork, fMain, fStart))
	add(1, testEvent(cpuClock, 10, "app", 1000, fMain, fStart))
	add(5, testEvent(taskClock, 10, "app", 2000, fLeaf, fWork, fMain, fStart))
	add(3, testEvent(taskClock, 11, "app-worker", 2000, fZero, fSys, fEntry, fRead, fLeaf, fMain, fStart))
	return evs
}

func checkGolden(t *testing.T, name string, have []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, have, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(have)); d != "" {
		t.Errorf("%s mismatch (-want +have):\n%s", path, d)
	}
}

func TestReportGolden(t *testing.T) {
	tests := []struct {
		name   string
		opts   ReportOptions
		format TableFormat
		group  bool
	}{
		{"report-group.txt", ReportOptions{CallGraphLimit: 5}, TablePerf, true},
		{"report-group-children.txt", ReportOptions{Children: true, CallGraph: CallGraphNone}, TablePerf, true},
		{"report-self.txt", ReportOptions{CallGraphLimit: 0.5}, TablePerf, false},
		{"report-children.txt", ReportOptions{Children: true, CallGraphLimit: 0.5}, TablePerf, false},
		{"report-fractal-callee.txt", ReportOptions{Children: true, CallGraph: CallGraphFractal, CallGraphLimit: 10, Order: OrderCallee}, TablePerf, false},
		{"report-flat.txt", ReportOptions{CallGraph: CallGraphFlat, CallGraphLimit: 0.5}, TablePerf, false},
		{"report-folded-caller.txt", ReportOptions{CallGraph: CallGraphFolded, Order: OrderCaller}, TablePerf, false},
		{"report-sym-pid-limit.txt", ReportOptions{Sort: []SortKey{SortSym, SortPID}, PercentLimit: 10, CallGraphLimit: 10}, TablePerf, false},
		{"report-pipe.txt", ReportOptions{Children: true, Pipe: true, CallGraph: CallGraphNone}, TablePerf, false},
		{"report-children.table", ReportOptions{Children: true}, TableText, false},
		{"report-dso.table", ReportOptions{Sort: []SortKey{SortDSO}, PercentLimit: 1}, TableText, false},
		{"report-children.json", ReportOptions{Children: true, CallGraphLimit: 5}, TableJSON, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReport(tt.opts)
			if tt.group {
				r.SetGroups(GroupsFromMeta([]*decode.EventAttr{cpuClock, taskClock}, []decode.GroupDesc{{Name: "{anon_group}", LeaderIdx: 0, NrMembers: 2}}))
			}
			for _, name := range testMmap {
				r.NoteDSO(name)
			}
			for _, ev := range testEvents() {
				if err := r.Add(ev); err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			if err := r.Write(&buf, tt.format); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name, buf.Bytes())
		})
	}
}

// TestReportChildrenDedup checks that a recursive chain counts once per
// function in --children mode, and that an unresolved leaf gets a second
// (absolute-address) entry as in perf.
func TestReportChildrenDedup(t *testing.T) {
	r := NewReport(ReportOptions{Children: true})
	r.Add(testEvent(cpuClock, 10, "app", 100, fLeaf2, fWork, fWork, fMain, fStart))
	r.Add(testEvent(cpuClock, 10, "app", 100, fQsort, fWork, fMain, fStart))
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
		r := NewReport(ReportOptions{Sort: sort, CallGraph: CallGraphNone, ThreadComm: func(tid int32) string { return last[tid] }})
		r.Add(testEvent(cpuClock, 10, "app", 300, fLeaf, fMain))
		r.Add(testEvent(cpuClock, 11, "app-worker-with-a-long-name", 100, fWork, fMain))
		var buf bytes.Buffer
		if err := r.Write(&buf, TablePerf); err != nil {
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
		if err := r.Write(&buf, TablePerf); err != nil {
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
	r := NewReport(ReportOptions{Sort: []SortKey{SortDSO}, CallGraph: CallGraphNone})
	r.Add(testEvent(cpuClock, 10, "app", 100, fLeaf, fMain))
	r.AddHidden(testEvent(cpuClock, 11, "other", 100, fWork, fMain)) // same DSO: weighs in
	r.AddHidden(testEvent(cpuClock, 11, "other", 200, fRead, fMain)) // libc: a hidden row
	want := []string{"# Samples: 3  of event 'cpu-clock'", "# Overhead  Shared Object", "    50.00%  app"}
	if d := cmp.Diff(want, rows(r)); d != "" {
		t.Errorf("hidden samples (-want +got):\n%s", d)
	}

	r = NewReport(ReportOptions{CallGraph: CallGraphNone, Only: map[SortKey]string{SortComm: "app"}})
	r.Add(testEvent(cpuClock, 10, "app", 100, fLeaf, fMain))
	r.AddHidden(testEvent(cpuClock, 11, "other", 300, fWork, fMain))
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

// TestRBOrder checks the red-black insertion order against a plain stable
// sort for a consistent comparison.
func TestRBOrder(t *testing.T) {
	in := []int{5, 3, 9, 1, 3, 7, 2, 8, 5, 0, 6, 4}
	got := rbOrder(in, func(a, b int) bool { return a > b })
	want := []int{9, 8, 7, 6, 5, 5, 4, 3, 3, 2, 1, 0}
	if !cmp.Equal(got, want) {
		t.Errorf("rbOrder = %v, want %v", got, want)
	}
}

func BenchmarkReportAdd(b *testing.B) {
	evs := testEvents()
	for _, children := range []bool{false, true} {
		b.Run(map[bool]string{false: "self", true: "children"}[children], func(b *testing.B) {
			r := NewReport(ReportOptions{Children: children})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.Add(evs[i%len(evs)])
			}
		})
	}
}
