package cmd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// runJobs runs perfstitch with args and -j jobs, and returns its stdout
// and stderr.
func runJobs(t *testing.T, jobs string, args ...string) (string, string) {
	t.Helper()
	f, out, errOut := testFactory()
	args = append([]string{args[0], "-j", jobs}, args[1:]...)
	if code := Run(context.Background(), f, args); code != ExitOK {
		t.Fatalf("perfstitch %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, errOut)
	}
	return out.String(), errOut.String()
}

// TestJobsCorpusGoldens: perf 6.1's script text of every corpus case,
// byte for byte, whatever -j: 1 (one goroutine symbolizes and formats),
// 2 (symbolization on a goroutine of its own) and 5 (three formatting
// workers writing batches in order).
func TestJobsCorpusGoldens(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			if why, ok := corpusSkip[c.Name]; ok {
				t.Skip(why)
			}
			want, err := os.ReadFile(c.Golden("script.txt"))
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range []string{"1", "2", "5"} {
				got, _ := runJobs(t, j, "script", "--compat", "6.1", "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, c.Data)
				if d := testfixture.FirstDiff([]byte(got), want); d != "" {
					t.Errorf("-j %s: script differs from %s at %s", j, c.Golden("script.txt"), d)
				}
			}
		})
	}
}

// jobsRuns are the commands TestJobsSame runs with each -j.
var jobsRuns = [][]string{
	{"script"},
	{"script", "--compat", "6.1"},
	{"script", "--ordering", "perf"},
	{"script", "--show-task-events", "--show-mmap-events", "-F", "comm,tid,time,event,ip,sym,dso"},
	{"script", "--no-merge-callchains"},
	{"script", "--format", "json"},
	{"script", "--format", "collapsed"},
	{"report", "--no-children", "-s", "comm,dso,sym"},
	{"report"},
	{"report", "--no-children", "-s", "dso,sym,symbol_size"}, // on the symbolizer's goroutine
	{"stats"},
}

// TestJobsSame: on real deferred recordings (two threads renamed while
// their samples wait, two events, and a pipe-mode stream), every
// command prints the same stdout and stderr with -j 4 (formatting
// workers) as with -j 1.
func TestJobsSame(t *testing.T) {
	root, _ := kernelCases(testfixture.SharedDir(t))
	for _, name := range []string{"c-threads", "two-events", "pipe"} {
		dir := filepath.Join(root, name)
		if _, err := os.Stat(filepath.Join(dir, "perf.data")); err != nil {
			t.Skipf("kernel/%s absent", name)
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			files := []string{"--symfs", filepath.Join(dir, "symfs"), "--kallsyms", filepath.Join(root, "kallsyms"), filepath.Join(dir, "perf.data")}
			for _, r := range jobsRuns {
				args := append(slices.Clone(r), files...)
				want, wantErr := runJobs(t, "1", args...)
				for _, j := range []string{"4"} { // -j 2 is every other test's on two CPUs
					got, gotErr := runJobs(t, j, args...)
					if d := testfixture.FirstDiff([]byte(got), []byte(want)); d != "" {
						t.Errorf("%s -j %s: stdout differs from -j 1's at %s", strings.Join(r, " "), j, d)
					}
					if gotErr != wantErr {
						t.Errorf("%s -j %s: stderr %q, -j 1 %q", strings.Join(r, " "), j, gotErr, wantErr)
					}
				}
			}
		})
	}
}

// TestJobsFlag: -j is validated and reaches the options.
func TestJobsFlag(t *testing.T) {
	if o := parseOptions(t, NewCmdScript, "-j 3 perf.data", ""); o.Jobs != 3 {
		t.Errorf("script -j 3: Jobs %d", o.Jobs)
	}
	if o := parseOptions(t, NewCmdReport, "--jobs 1", ""); o.Common.Jobs != 1 {
		t.Errorf("report --jobs 1: Jobs %d", o.Common.Jobs)
	}
	if o := parseOptions(t, NewCmdStats, "", ""); o.Common.Jobs != 0 || o.Common.jobs() < 1 {
		t.Errorf("stats: Jobs %d (%d)", o.Common.Jobs, o.Common.jobs())
	}
	parseOptions(t, NewCmdStats, "-j -1", "--jobs must not be negative")
}
