package cmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// testdataPerf7Run is one perf 7.3.4 golden of a testdata case
// (testdata/goldens-perf7.sh) and the perfstitch command that reproduces
// it in the default dialect.
type testdataPerf7Run struct {
	golden string   // in CASE/perf7/
	args   []string // the command and its flags, before --symfs, --kallsyms and -i
}

// testdataPerf7Runs are the goldens goldens-perf7.sh makes of fp, pipe,
// zstd and two-events.
var testdataPerf7Runs = []testdataPerf7Run{
	{"script.txt", []string{"script"}},
	{"script-G.txt", []string{"script", "-G"}},
	{"script-F.txt", []string{"script", "-F", "comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period"}},
	{"script-events.txt", []string{"script", "-G", "--show-task-events", "--show-mmap-events"}},
	{"collapsed.txt", []string{"script", "--format", "collapsed"}},
	{"report.txt", []string{"report", "--stdio", "--no-children", "--sort", "comm,dso,sym"}},
	{"report-children.txt", []string{"report", "--stdio", "--children"}},
	{"stats.txt", []string{"stats", "--format", "perf"}},
}

// demoPerf7Runs are the goldens goldens-perf7.sh makes of testdata/demo,
// the real deferred recording.
var demoPerf7Runs = []testdataPerf7Run{
	{"script.txt", []string{"script", "--ordering", "perf"}},
	{"script-nomerge.txt", []string{"script", "--no-merge-callchains"}},
	{"script-G.txt", []string{"script", "-G", "--ordering", "perf"}},
	{"collapsed.txt", []string{"script", "--format", "collapsed"}},
	{"report.txt", []string{"report", "--stdio", "--no-children", "--sort", "comm,dso,sym"}},
	{"stats.txt", []string{"stats", "--format", "perf"}},
}

// testdataPerf7Pending lists the testdata goldens perfstitch does not
// reproduce yet, keyed by "CASE/perf7/GOLDEN".
var testdataPerf7Pending = map[string]string{}

// TestPerf7Testdata compares perfstitch, in its default dialect, with the
// perf 7.3.4 goldens of the testdata cases, byte for byte; those in
// testdataPerf7Pending are skipped with their reason.
func TestPerf7Testdata(t *testing.T) {
	cases := []struct {
		name, kallsyms string
		runs           []testdataPerf7Run
	}{
		{"fp", "kallsyms", testdataPerf7Runs},
		{"pipe", "kallsyms", testdataPerf7Runs},
		{"zstd", "kallsyms", testdataPerf7Runs},
		{"two-events", "kallsyms", testdataPerf7Runs},
		{"demo", "demo/kallsyms", demoPerf7Runs},
	}
	for _, c := range cases {
		dir := testfixture.Testdata(t, c.name)
		for _, r := range c.runs {
			key := c.name + "/perf7/" + r.golden
			t.Run(key, func(t *testing.T) {
				want, err := os.ReadFile(filepath.Join(dir, "perf7", r.golden))
				if err != nil {
					t.Fatal(err)
				}
				if reason := testdataPerf7Pending[key]; reason != "" {
					t.Skip("pending: " + reason)
				}
				args := append(append([]string{}, r.args...),
					"--symfs", filepath.Join(dir, "symfs"),
					"--kallsyms", testfixture.Testdata(t, c.kallsyms),
					"-i", filepath.Join(dir, "perf.data"))
				f, out, errOut := testFactory()
				if code := Run(context.Background(), f, args); code != ExitOK {
					t.Fatalf("%q: exit %d: %s", args, code, errOut)
				}
				got := out.Bytes()
				if d := testfixture.FirstDiff(got, want); d != "" {
					t.Errorf("%s: first difference at %s", key, d)
				}
			})
		}
	}
}
