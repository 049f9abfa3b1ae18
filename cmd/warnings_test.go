package cmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPerfWarningGoldens: the warnings perf itself prints on stderr (a
// recording with LOST records; kernel addresses without kernel symbols)
// are printed in perf's words, byte for byte against the stderr of perf
// 6.1 (NAME.txt) and perf 7.3.4 (perf7/NAME.txt) made by
// testdata/lost/goldens.sh, and -q silences them.
func TestPerfWarningGoldens(t *testing.T) {
	lost := []string{"-i", "../testdata/lost/perf.data", "--symfs", "../testdata/lost", "--kallsyms", "/dev/null"}
	fp := []string{"-i", "../testdata/fp/perf.data"}
	warn := []string{"-i", "../testdata/warnings/perf.data", "--symfs", "../testdata/fp/symfs", "--kallsyms", "../testdata/kallsyms"}
	runs := []struct {
		golden string // under ../testdata
		args   []string
	}{
		{"lost/stderr-script.txt", append([]string{"script"}, lost...)},
		{"lost/stderr-report.txt", append([]string{"report", "--stdio"}, lost...)},
		{"lost/stderr-report-q.txt", append([]string{"report", "-q", "--stdio"}, lost...)},
		{"fp/stderr-nokallsyms-script.txt", append([]string{"script"}, fp...)},
		{"fp/stderr-nokallsyms-report.txt", append([]string{"report", "--stdio"}, fp...)},
		{"lost/stderr-script-show-lost.txt", append([]string{"script", "--show-lost-events"}, lost...)},
		{"warnings/stderr-script.txt", append([]string{"script"}, warn...)},
		{"warnings/stderr-report.txt", append([]string{"report", "--stdio"}, warn...)},
		{"warnings/stderr-report-q.txt", append([]string{"report", "-q", "--stdio"}, warn...)},
	}
	for _, r := range runs {
		for _, d := range []struct{ compat, dir string }{{"7.3", "perf7"}, {"6.1", "."}} {
			dir, file := filepath.Split(r.golden)
			golden := filepath.Join("../testdata", dir, d.dir, file)
			t.Run(golden, func(t *testing.T) {
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				f, _, errOut := testFactory()
				args := append(append([]string{}, r.args...), "--compat", d.compat)
				if code := Run(context.Background(), f, args); code != ExitOK {
					t.Fatalf("exit %d, stderr:\n%s", code, errOut)
				}
				if errOut.String() != string(want) {
					t.Errorf("stderr\n%q\nwant (perf's)\n%q", errOut.String(), want)
				}
			})
		}
	}
	for _, args := range [][]string{append([]string{"script", "-q"}, lost...), append([]string{"script", "-q", "--compat", "6.1"}, fp...),
		append([]string{"script", "-q"}, warn...)} {
		f, _, errOut := testFactory()
		if code := Run(context.Background(), f, args); code != ExitOK || errOut.Len() != 0 {
			t.Errorf("%s: exit %d, stderr %q; want 0 and nothing", strings.Join(args, " "), code, errOut)
		}
	}
}

// TestLostWarningAgreesWithStats: the numbers of the LOST warning are the
// TOTAL and LOST counts of stats, and stats counts the warning.
func TestLostWarningAgreesWithStats(t *testing.T) {
	args := []string{"-i", "../testdata/lost/perf.data", "--symfs", "../testdata/lost", "--kallsyms", "/dev/null"}
	stats := runCmd(t, append([]string{"stats", "--format", "perf"}, args...)...)
	count := func(name string) string {
		m := regexp.MustCompile(`(?m)^ *` + name + ` events: +(\d+)`).FindStringSubmatch(stats)
		if m == nil {
			t.Fatalf("no %s events in stats:\n%s", name, stats)
		}
		return m[1]
	}
	f, _, errOut := testFactory()
	if code := Run(context.Background(), f, append([]string{"script"}, args...)); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	want := "Processed " + count("TOTAL") + " events and lost " + count("LOST") + " chunks!"
	if !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q lacks %q (from stats)", errOut, want)
	}
	f, _, errOut = testFactory()
	if code := Run(context.Background(), f, append([]string{"script", "--strict"}, args...)); code == ExitOK {
		t.Errorf("--strict: exit 0 with the LOST warning; stderr %q", errOut)
	}
}

// TestPerfWarningsRecording: warnings/perf.data (testdata/warnings/gen.go)
// prints perf's own samples, the two out-of-order ones where perf puts
// them, in both dialects, and stats counts its two perf warnings; a
// recording losing fewer than 5% of its samples (lost/) has no drop-rate
// warning (TestPerfWarningGoldens).
func TestPerfWarningsRecording(t *testing.T) {
	args := []string{"--symfs", "../testdata/fp/symfs", "--kallsyms", "../testdata/kallsyms", "../testdata/warnings/perf.data"}
	for _, d := range []struct{ compat, golden string }{{"6.1", "../testdata/warnings/script.txt"}, {"7.3", "../testdata/warnings/perf7/script.txt"}} {
		want, err := os.ReadFile(d.golden)
		if err != nil {
			t.Fatal(err)
		}
		if got := runCmd(t, append([]string{"script", "--compat", d.compat}, args...)...); got != string(want) {
			t.Errorf("%s: script differs from perf's %s", d.compat, d.golden)
		}
	}
	stats := runCmd(t, append([]string{"stats", "--format", "json"}, args...)...)
	if !strings.Contains(stats, `"warnings":2`) && !strings.Contains(stats, `"warnings": 2`) {
		t.Errorf("stats counts other than 2 warnings:\n%s", stats)
	}
}
