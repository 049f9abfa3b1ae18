package cmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// This file compares report, stats and collapsed output in the default
// dialect with perf 7.3.4's goldens, as TestPerf7Script does for script:
// byte for byte, through a symbol-normalising function for the goldens
// whose only difference is in symbol names, or skipped as pending.

// perf7Summary is one perf 7.3.4 report, stats or collapsed golden and
// the perfstitch command that reproduces it.
type perf7Summary struct {
	golden string   // path in the case folder
	args   []string // command and flags; "--symfs S --kallsyms K -i DATA" follow
	data   string   // input in the case folder; "" is perf.data
}

var (
	reportSelfArgs     = []string{"report", "--format", "perf", "--no-children", "--sort", "comm,dso,sym"}
	reportChildrenArgs = []string{"report", "--format", "perf", "--children"}
	statsArgs          = []string{"stats", "--format", "perf"}
	collapsedArgs      = []string{"script", "--format", "collapsed"}
)

// perf7CorpusSummaries are the report, stats and collapsed goldens of a
// corpus case's perf7/ folder (corpus/README.md, "perf 7.3.4 goldens").
var perf7CorpusSummaries = []perf7Summary{
	{golden: "perf7/report.txt", args: reportSelfArgs},
	{golden: "perf7/report-children.txt", args: reportChildrenArgs},
	{golden: "perf7/deferred-upstream.report.txt", args: reportSelfArgs, data: "perf7/deferred-upstream.data"},
	{golden: "perf7/stats.txt", args: statsArgs},
	{golden: "perf7/deferred-upstream.stats.txt", args: statsArgs, data: "perf7/deferred-upstream.data"},
	{golden: "perf7/deferred-upstreamdrop5.stats.txt", args: statsArgs, data: "perf7/deferred-upstreamdrop5.data"},
	{golden: "perf7/collapsed.txt", args: collapsedArgs},
}

// perf7KernelSummaries are the same goldens of the real deferred
// recordings (kernel/README.md).
var perf7KernelSummaries = []perf7Summary{
	{golden: "report.txt", args: reportSelfArgs},
	{golden: "report-children.txt", args: reportChildrenArgs},
	{golden: "stats.txt", args: statsArgs},
	{golden: "collapsed.txt", args: collapsedArgs},
}

// perf7SummarySymbols marks the goldens that differ from perfstitch only
// in symbol names (C++ names with parameters and return types, "sym@plt"
// PLT names, vDSO frames perf 7.3.4 leaves unresolved in files without a
// build-id table): they are compared through normaliseReport or
// normaliseCollapsed until the symbolizer prints those names. Keyed by
// "case/golden".
var perf7SummarySymbols = map[string]bool{}

// perf7SummaryPending lists the goldens perfstitch does not reproduce yet
// for a reason outside report, stats and collapsed, keyed by
// "case/golden".
var perf7SummaryPending = map[string]string{}

// TestPerf7Summaries compares perfstitch report (--no-children and
// --children), stats --format perf and script --format collapsed, in the
// default dialect, with perf 7.3.4's goldens of the corpus and of the real
// deferred recordings.
func TestPerf7Summaries(t *testing.T) {
	shared := testfixture.SharedDir(t)
	for _, c := range testfixture.Corpus(t) {
		for _, r := range perf7CorpusSummaries {
			key := c.Name + "/" + r.golden
			checkPerf7Summary(t, key, c.Dir, c.Symfs, c.Kallsyms, r)
		}
	}
	if testing.Short() {
		return
	}
	root, dirs := kernelCases(shared)
	for _, dir := range dirs {
		for _, r := range perf7KernelSummaries {
			key := filepath.Base(dir) + "/" + r.golden
			checkPerf7Summary(t, key, dir, filepath.Join(dir, "symfs"), filepath.Join(root, "kallsyms"), r)
		}
	}
}

// checkPerf7Summary runs one perf7Summary in dir (skipped when its golden
// is absent or pending) and compares with the golden.
func checkPerf7Summary(t *testing.T, key, dir, symfs, kallsyms string, r perf7Summary) {
	t.Run(key, func(t *testing.T) {
		want, err := os.ReadFile(filepath.Join(dir, r.golden))
		if os.IsNotExist(err) {
			t.Skip("no such golden")
		}
		if err != nil {
			t.Fatal(err)
		}
		if why := perf7SummaryPending[key]; why != "" {
			t.Skip("pending: " + why)
		}
		data := r.data
		if data == "" {
			data = "perf.data"
		}
		args := append(slices.Clone(r.args), "--symfs", symfs, "--kallsyms", kallsyms, "-i", filepath.Join(dir, data))
		f, out, errOut := testFactory()
		if code := Run(context.Background(), f, args); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		got := out.Bytes()
		if perf7SummarySymbols[key] {
			normalise := normaliseReport
			if r.args[0] == "script" {
				normalise = normaliseCollapsed
			}
			got, want = normalise(got), normalise(want)
		}
		if d := testfixture.FirstDiff(got, want); d != "" {
			t.Errorf("%s: first difference at %s", r.golden, d)
		}
	})
}

var (
	// reportRow is a histogram row: the symbol is everything after the
	// "[level] " mark.
	reportRow = regexp.MustCompile(`^( +[0-9.]+%.*?\[.\] ).*$`)
	// reportBranch is a call-graph line that starts a branch
	// ("---name", "|--12.34%--name").
	reportBranch = regexp.MustCompile(`^([ |]*(?:---|--[0-9.]+%--)).*$`)
	// reportChained is a call-graph line that continues a branch.
	reportChained = regexp.MustCompile(`^([ |]*)[^ |].*$`)
	// reportRuler is the dotted line under the column titles, whose last
	// run of dots is as wide as the longest symbol.
	reportRuler = regexp.MustCompile(`\.+$`)
)

// normaliseReport replaces every symbol name of perf report --stdio text
// by "SYM", drops the padding that the longest name decides, and sorts
// the lines, since rows and branches of equal weight are ordered by name:
// output whose symbols the symbolizer does not print as perf 7.3.4 yet is
// compared in every other column, as a multiset of lines.
func normaliseReport(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		switch {
		case strings.HasPrefix(l, "#"):
			l = reportRuler.ReplaceAllString(l, "...")
		case reportRow.MatchString(l):
			l = reportRow.ReplaceAllString(l, "${1}SYM")
		case reportBranch.MatchString(l):
			l = reportBranch.ReplaceAllString(l, "${1}SYM")
		case reportChained.MatchString(l):
			l = reportChained.ReplaceAllString(l, "${1}SYM")
		}
		lines[i] = l
	}
	slices.Sort(lines)
	return []byte(strings.Join(lines, "\n"))
}

// normaliseCollapsed replaces every frame of folded stacks but the
// process name by "SYM" and sums the counts of stacks that become equal.
func normaliseCollapsed(b []byte) []byte {
	counts := map[string]uint64{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		i := strings.LastIndexByte(l, ' ')
		if i < 0 {
			counts[l]++
			continue
		}
		n, _ := strconv.ParseUint(l[i+1:], 10, 64)
		frames := strings.Split(l[:i], ";")
		for j := 1; j < len(frames); j++ {
			frames[j] = "SYM"
		}
		counts[strings.Join(frames, ";")] += n
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out strings.Builder
	for _, k := range keys {
		out.WriteString(k + " " + strconv.FormatUint(counts[k], 10) + "\n")
	}
	return []byte(out.String())
}

// TestNormaliseSummaries checks that the normalising functions hide
// symbol names and nothing else.
func TestNormaliseSummaries(t *testing.T) {
	const report = "# Overhead  Command  Shared Object  Symbol\n" +
		"# ........  .......  .............  ..........\n" +
		"    50.00%  prog     libc.so.6      [.] memcpy@plt\n" +
		"            |\n" +
		"            ---memcpy@plt\n" +
		"               main\n"
	for _, tc := range []struct {
		name, other string
		equal       bool
	}{
		{"names", strings.NewReplacer("memcpy@plt", "@plt", "main", "int main(int, char**)", "  ..........\n", "  ....\n").Replace(report), true},
		{"level", strings.Replace(report, "[.]", "[k]", 1), false},
		{"overhead", strings.Replace(report, "50.00%", "50.01%", 1), false},
		{"dso", strings.Replace(report, "libc.so.6 ", "libm.so.6 ", 1), false},
		{"graph", strings.Replace(report, "---", "--50.00%--", 1), false},
	} {
		if eq := string(normaliseReport([]byte(report))) == string(normaliseReport([]byte(tc.other))); eq != tc.equal {
			t.Errorf("report %s: normalised equal = %v, want %v", tc.name, eq, tc.equal)
		}
	}
	const folded = "prog;main;a 1\nprog;main;b 2\nprog;x 3\n"
	for _, tc := range []struct {
		name, other string
		equal       bool
	}{
		{"names", "prog;int main(int);b 3\nprog;y 3\n", true},
		{"count", "prog;main;a 1\nprog;main;b 2\nprog;x 4\n", false},
		{"depth", "prog;main;a;b 3\nprog;x 3\n", false},
		{"comm", "other;main;a 1\nprog;main;b 2\nprog;x 3\n", false},
	} {
		if eq := string(normaliseCollapsed([]byte(folded))) == string(normaliseCollapsed([]byte(tc.other))); eq != tc.equal {
			t.Errorf("collapsed %s: normalised equal = %v, want %v", tc.name, eq, tc.equal)
		}
	}
}
