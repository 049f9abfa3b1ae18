package cmd

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestReportTerminal: on a terminal the table fits $COLUMNS (or the
// terminal's width), cutting names with an ellipsis, and goes through
// $PAGER; --stdio on a terminal and a table off one print what they
// always did.
func TestReportTerminal(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skipf("no sh for the pager: %v", err)
	}
	dir := testfixture.Testdata(t, "fp")
	args := []string{"report", "--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms"), filepath.Join(dir, "perf.data")}
	run := func(terminal bool, width int, env map[string]string, extra ...string) string {
		t.Helper()
		f, out, errOut := testFactory()
		f.IO.OutIsTerminal, f.IO.TerminalWidth = terminal, width
		f.Getenv = func(k string) string { return env[k] }
		if code := Run(context.Background(), f, append(append([]string{}, args...), extra...)); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return out.String()
	}
	wide := run(false, 0, nil, "--format", "table")
	if w := maxWidth(wide); w <= 60 {
		t.Fatalf("the unfitted table is %d wide; the test needs one wider than 60", w)
	}
	for _, tt := range []struct {
		name  string
		width int
		env   map[string]string
		want  int
	}{
		{"COLUMNS", 200, map[string]string{"COLUMNS": "60", "PAGER": "cat"}, 60},
		{"terminal width", 70, map[string]string{"PAGER": "cat"}, 70},
		{"bad COLUMNS", 70, map[string]string{"COLUMNS": "x", "PAGER": "cat"}, 70},
	} {
		got := run(true, tt.width, tt.env)
		if w := maxWidth(got); w > tt.want {
			t.Errorf("%s: widest line %d, want at most %d:\n%s", tt.name, w, tt.want, got)
		}
		if strings.Count(got, "\n") != strings.Count(wide, "\n") || !strings.Contains(got, "…") {
			t.Errorf("%s: %d lines, want %d, with cut names:\n%s", tt.name, strings.Count(got, "\n"), strings.Count(wide, "\n"), got)
		}
	}
	paged := run(true, 0, map[string]string{"PAGER": "sed s/^/paged:/"})
	if !strings.HasPrefix(paged, "paged:Event ") || strings.Count(paged, "paged:") != strings.Count(wide, "\n") {
		t.Errorf("the table did not go through $PAGER:\n%s", paged)
	}
	if got := run(true, 0, map[string]string{"PAGER": "cat"}); got != wide {
		t.Errorf("a table on a terminal of unknown width differs from the unfitted one:\n%s", got)
	}
	stdio := run(false, 0, nil)
	for _, extra := range [][]string{{"--stdio"}, {"--format", "perf"}} {
		if got := run(true, 40, map[string]string{"COLUMNS": "40", "PAGER": "sed s/^/paged:/"}, extra...); !bytes.Equal([]byte(got), []byte(stdio)) {
			t.Errorf("%q on a terminal differs from the text off one", extra)
		}
	}
}

func maxWidth(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, utf8.RuneCountInString(l))
	}
	return w
}
