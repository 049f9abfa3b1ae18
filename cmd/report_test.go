package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/table"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/output/report"
	"github.com/perfstitch/perfstitch/symbolize"
)

// runCmd runs perfstitch with args and returns stdout, failing on a
// non-zero exit.
func runCmd(tb testing.TB, args ...string) string {
	tb.Helper()
	f, out, errOut := testFactory()
	if code := Run(context.Background(), f, args); code != ExitOK {
		tb.Fatalf("perfstitch %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, errOut)
	}
	return out.String()
}

func TestNewCmdReport(t *testing.T) {
	tests := []struct {
		args    string
		want    ReportOptions
		wantErr string
	}{
		{args: "", want: ReportOptions{Children: true, MaxStack: symbolize.DefaultMaxStack, GraphLimit: 0.5, Sort: report.DefaultSortKeys()}},
		{args: "x.data --no-children --sort comm,dso,sym --format perf",
			want: ReportOptions{Common: CommonOptions{Input: "x.data"}, Format: table.Perf, FormatSet: true, MaxStack: symbolize.DefaultMaxStack, GraphLimit: 0.5, Sort: report.DefaultSortKeys()}},
		{args: "--stdio -s sym,pid -g folded,2,callee",
			want: ReportOptions{Format: table.Perf, FormatSet: true, Children: true, CallGraph: report.CallGraphFolded, MaxStack: symbolize.DefaultMaxStack, GraphLimit: 2, Order: report.OrderCallee, Sort: []report.SortKey{report.SortSym, report.SortPID}, CallGraphSet: true}},
		{args: "-G --percent-limit 5 -g none --format json",
			want: ReportOptions{Format: table.JSON, FormatSet: true, Children: true, CallGraph: report.CallGraphNone, MaxStack: symbolize.DefaultMaxStack, GraphLimit: 5, PercentLimit: 5, Order: report.OrderCaller, Sort: report.DefaultSortKeys()}},
		// --children and --no-children are one option: the last wins.
		{args: "--no-children --children", want: ReportOptions{Children: true, MaxStack: symbolize.DefaultMaxStack, GraphLimit: 0.5, Sort: report.DefaultSortKeys()}},
		{args: "--children --no-children", want: ReportOptions{MaxStack: symbolize.DefaultMaxStack, GraphLimit: 0.5, Sort: report.DefaultSortKeys()}},
		{args: "--no-children=false", want: ReportOptions{Children: true, MaxStack: symbolize.DefaultMaxStack, GraphLimit: 0.5, Sort: report.DefaultSortKeys()}},
		{args: "--sort bogus", wantErr: `--sort: unknown sort key "bogus"`},
		{args: "--sort tid", wantErr: `--sort: unknown sort key "tid"`}, // perf has none either
		{args: "--sort socket", wantErr: `--sort: sort key "socket" (perf's socket) is not supported`},
		{args: "-s symbol,srcl,SAMP -n -q", want: ReportOptions{Children: true, MaxStack: symbolize.DefaultMaxStack, GraphLimit: 0.5,
			Sort: []report.SortKey{report.SortSym, report.SortSrcline, report.SortSample}, IPC: true, ShowNrSamples: true}},
		{args: "-s sym -g graph,0.5,caller,function,percent", want: ReportOptions{Children: true, MaxStack: symbolize.DefaultMaxStack, GraphLimit: 0.5,
			Sort: []report.SortKey{report.SortSym}, Order: report.OrderCaller, CallGraphSet: true}},
		{args: "-g graph,0.5,callee,branch", wantErr: `--call-graph: "branch" is not supported`},
		{args: "-g graph,0.5,20", wantErr: `--call-graph: print limit "20" is not supported`},
		{args: "--percentage most", wantErr: `--percentage: "most" is not relative or absolute`},
		{args: "--max-stack 0", wantErr: "--max-stack must be at least 1"},
		{args: "-t ab", wantErr: "--field-separator: perf uses one character"},
		{args: "-g wiggly", wantErr: `--call-graph: unknown call-graph mode "wiggly"`},
		{args: "--percent-limit lots", wantErr: `--percent-limit: "lots" is not a percentage`},
		{args: "--format csv", wantErr: `unknown format "csv"`},
		{args: "--stdio --format json", wantErr: "--stdio conflicts with --format json"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got := parseOptions(t, NewCmdReport, tt.args, tt.wantErr)
			if got == nil {
				return
			}
			if got.Common.Input != tt.want.Common.Input {
				t.Errorf("input %q, want %q", got.Common.Input, tt.want.Common.Input)
			}
			if d := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(ReportOptions{}, "Common")); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

// knownReportDiffs are the corpus goldens perfstitch does not reproduce,
// with the reason.
var knownReportDiffs = map[string]string{}

// TestReportCorpus runs report on every corpus recording and compares
// the perf format with perf report --stdio, --no-children --sort
// comm,dso,sym (report.txt) and --children (report-children.txt), byte
// for byte.
func TestReportCorpus(t *testing.T) {
	identical, total := 0, 0
	for _, c := range testfixture.Corpus(t) {
		for _, g := range []struct{ golden, flags string }{
			{"report.txt", "--no-children --sort comm,dso,sym"},
			{"report-children.txt", "--children"},
		} {
			want, err := os.ReadFile(c.Golden(g.golden))
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{"report", "--compat", "6.1", "--format", "perf", "-i", c.Data, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms}, strings.Fields(g.flags)...)
			have := runCmd(t, args...)
			total++
			if have == string(want) {
				identical++
				continue
			}
			d := testfixture.FirstDiff([]byte(have), want)
			if why, ok := knownReportDiffs[c.Name]; ok {
				t.Logf("%s/%s differs (known: %s) at %s", c.Name, g.golden, why, d)
				continue
			}
			t.Errorf("%s/%s differs at %s", c.Name, g.golden, d)
		}
	}
	t.Logf("%d/%d report goldens byte-identical", identical, total)
}

// TestReportFormats checks that the table and JSON formats carry the same
// rows as the perf text on one recording.
func TestReportFormats(t *testing.T) {
	c := testfixture.Corpus(t)[0]
	base := []string{"report", "-i", c.Data, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, "--no-children"}
	perf := runCmd(t, append(base, "--format", "perf")...)
	table := runCmd(t, append(base, "--format", "table")...)
	js := runCmd(t, append(base, "--format", "json", "-g", "none")...)
	var rows int
	for _, line := range strings.Split(perf, "\n") {
		if !strings.HasPrefix(line, "  ") || !strings.HasSuffix(strings.Fields(line)[0], "%") {
			continue
		}
		rows++
		fs := strings.Fields(line)
		sym := strings.Join(fs[4:], " ")
		if !strings.Contains(table, sym) {
			t.Errorf("table lacks row %q", line)
		}
	}
	if rows == 0 {
		t.Fatal("no rows in the perf text")
	}
	if n := strings.Count(js, `"self_percent"`); n != rows {
		t.Errorf("JSON has %d rows, perf text %d", n, rows)
	}
}

// TestReportDeferredSimulated checks that stitching restores the profile:
// the report of a recording rewritten with deferred user callchains (cookie
// and seed ABI, duplicated records) is perf's report of the original.
func TestReportDeferredSimulated(t *testing.T) {
	c := corpusCase(t, "c-pie-so")
	want, err := os.ReadFile(c.Golden("report-children.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []deferralsim.Options{
		{ABI: decode.DeferredCookie, Duplicate: true},
		{ABI: decode.DeferredSeed},
	} {
		path := filepath.Join(t.TempDir(), "deferred.data")
		w, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		truth, err := deferralsim.Simulate(c.Data, w, opts)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		if truth.Deferred() == 0 {
			t.Fatal("the simulator deferred nothing")
		}
		have := runCmd(t, "report", "--compat", "6.1", "--format", "perf", "-i", path, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms)
		if have != string(want) {
			t.Errorf("%+v: report of the deferred file differs from perf's report of the original at %s", opts, testfixture.FirstDiff([]byte(have), want))
		}
	}
}

// TestReportNoCallchainError checks that, as in perf, asking for call
// graphs with -g on a recording without callchains is an error, while the
// default call-graph setting and -G are not.
func TestReportNoCallchainError(t *testing.T) {
	c := corpusCase(t, "no-callchain")
	base := []string{"report", "--format", "perf", "-i", c.Data, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms}
	runCmd(t, base...)
	runCmd(t, append(base, "-G")...)
	for _, extra := range [][]string{{"-g", "flat"}, {"-g", "graph,1,caller"}} {
		f, _, errOut := testFactory()
		if code := Run(context.Background(), f, append(base, extra...)); code != ExitError || !strings.Contains(errOut.String(), "no callchains") {
			t.Errorf("%v: exit %d, stderr %q; want an error about missing callchains", extra, code, errOut)
		}
	}
}

// TestReportDefaultFormat checks the default format: a table on a
// terminal, perf's text otherwise.
func TestReportDefaultFormat(t *testing.T) {
	c := corpusCase(t, "c-nopie")
	for _, tty := range []bool{true, false} {
		f, out, errOut := testFactory()
		f.IO.OutIsTerminal = tty
		args := []string{"report", "-i", c.Data, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, "-g", "none"}
		if code := Run(context.Background(), f, args); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		table := strings.Contains(out.String(), "┌")
		perf := strings.HasPrefix(out.String(), "# To display the perf.data header info")
		if table != tty || perf == tty {
			t.Errorf("terminal %v: table %v, perf text %v", tty, table, perf)
		}
	}
}

// reportRows returns the histogram rows of perf report --stdio text
// (overheads, command, DSO, symbol), without the call graphs.
func reportRows(text string) []string {
	var rows []string
	for _, line := range strings.Split(text, "\n") {
		fs := strings.Fields(line)
		if len(fs) > 0 && strings.HasSuffix(fs[0], "%") && line[0] == ' ' {
			rows = append(rows, strings.Join(fs, " "))
		}
	}
	return rows
}

// TestReportCorpusRows compares only the rows (same overhead to 0.01%,
// same order, same symbol text) with perf report's, so that recordings
// whose call graphs differ are still checked row by row: the dwarf case
// without --children, where only the call graphs need DWARF unwinding.
func TestReportCorpusRows(t *testing.T) {
	c := corpusCase(t, "dwarf")
	want, err := os.ReadFile(c.Golden("report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	have := runCmd(t, "report", "--compat", "6.1", "--format", "perf", "--no-children", "-i", c.Data, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms)
	hr, wr := reportRows(have), reportRows(string(want))
	if len(wr) == 0 {
		t.Fatal("no rows in the golden")
	}
	if d := cmp.Diff(wr, hr); d != "" {
		t.Errorf("rows (-perf +perfstitch):\n%s", d)
	}
}

// TestReportTruncated checks that a damaged recording yields the report of
// the samples before the damage, and exit status 1 with the error.
func TestReportTruncated(t *testing.T) {
	c := corpusCase(t, "c-nopie")
	data, err := os.ReadFile(c.Data)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.data")
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmdName := range []string{"report", "stats"} {
		f, out, errOut := testFactory()
		code := Run(context.Background(), f, []string{cmdName, "--format", "perf", "-i", path, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms})
		if code != ExitError || errOut.Len() == 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 with an error", cmdName, code, errOut)
		}
		if !strings.Contains(out.String(), "SAMPLE events:") && !strings.Contains(out.String(), "# Samples:") {
			t.Errorf("%s: no partial output:\n%s", cmdName, out)
		}
	}
}

// TestReportGroups checks perf's group view (one section per event group,
// one overhead value per member, rows matched across members) on the
// external recordings with a GROUP_DESC feature, against the SHA-256 of
// perf 6.1's perf report --stdio output (no symbols available: an empty
// --symfs and kallsyms for perfstitch, foreign build-ids for perf).
func TestReportGroups(t *testing.T) {
	root := filepath.Join(testfixture.SharedDir(t), "external", "quipper")
	want := map[string]string{
		"lost_samples-4.4": "9d8e23c6b6aaca89385f021fcb6a2b76939ebed6d1587e9c9a29d0d033885793",
		"group_desc-4.14":  "b5cf181c78645389f452ab9d9ae8e128b32de9b56e6b12c35fd4e0c863ae59be",
	}
	for name, sum := range want {
		data := filepath.Join(root, name, "perf.data")
		if _, err := os.Stat(data); err != nil {
			t.Skipf("external recording absent: %v", err)
		}
		out := runCmd(t, "report", "--compat", "6.1", "--format", "perf", "-i", data, "--symfs", t.TempDir(), "--kallsyms", os.DevNull)
		if !strings.Contains(out, "of events 'anon group {") {
			t.Errorf("%s: no group section:\n%s", name, out[:min(len(out), 600)])
		}
		h := sha256.Sum256([]byte(out))
		if got := hex.EncodeToString(h[:]); got != sum {
			t.Errorf("%s: output differs from perf's (sha256 %s)", name, got)
		}
	}
}
