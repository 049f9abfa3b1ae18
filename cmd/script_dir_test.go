package cmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestDirectoryFormat reads testdata/threads, a perf record --threads
// directory (data, data.0, data.1), as one recording: script, side-band
// events, report, --stats and the header against perf 6.1's and perf
// 7.3.4's output.
func TestDirectoryFormat(t *testing.T) {
	dir := testfixture.Testdata(t, "threads")
	data := filepath.Join(dir, "perf.data")
	g := []string{"--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms"), "-i", data}
	runs := []struct{ golden, command, args string }{
		{"script.txt", "script", ""},
		{"script-events.txt", "script", "-G --show-task-events --show-mmap-events"},
		{"report.txt", "report", "--no-children --sort comm,dso,sym"},
		{"stats.txt", "stats", "--format perf"},
	}
	for _, d := range []struct{ compat, dir string }{{"6.1", dir}, {"7.3", filepath.Join(dir, "perf7")}} {
		for _, r := range runs {
			t.Run(d.compat+"/"+r.golden, func(t *testing.T) {
				f, out, errOut := testFactory()
				args := append(append([]string{r.command, "--compat", d.compat}, g...), splitArgs(r.args)...)
				if code := Run(context.Background(), f, args); code != ExitOK {
					t.Fatalf("%q: exit %d: %s", args, code, errOut)
				}
				testfixture.MatchFile(t, filepath.Join(d.dir, r.golden), out.Bytes())
			})
		}
	}
	t.Run("header", func(t *testing.T) {
		// perf prints the mtime of DIR/data as "# captured on".
		cp := filepath.Join(t.TempDir(), "thr.data")
		if err := os.Mkdir(cp, 0o755); err != nil {
			t.Fatal(err)
		}
		mt := time.Unix(testdataEpoch, 0)
		if _, off := mt.In(time.Local).Zone(); off != 0 {
			t.Skip("local time zone is not UTC; the goldens print UTC")
		}
		for _, n := range []string{"data", "data.0", "data.1"} {
			b, err := os.ReadFile(filepath.Join(data, n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cp, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(filepath.Join(cp, "data"), mt, mt); err != nil {
			t.Fatal(err)
		}
		testfixture.MatchFile(t, filepath.Join(dir, "header.txt"), runScriptArgs(t, "--compat", "6.1", "--header-only", "-i", cp))
		testfixture.MatchFile(t, filepath.Join(dir, "perf7", "header.txt"), runScriptArgs(t, "--header-only", "-i", cp))
	})
}
