package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestVmlinux: kernel symbols from a vmlinux (-k/--vmlinux) with and
// without --demangle-kernel, --show-kernel-path, a vmlinux without the
// recorded build id, and --kallsyms winning over -k, for script and
// report, against perf 6.1 and perf 7.3.4 on fp with
// testdata/vmlinux/vmlinux (make-vmlinux.sh; goldens.sh). The commands
// run in testdata/vmlinux, with the relative paths perf was given.
func TestVmlinux(t *testing.T) {
	dir := testfixture.Testdata(t, "vmlinux")
	t.Chdir(dir)
	const r = "report --stdio --no-children --sort comm,dso,sym"
	for _, s := range []struct{ name, args string }{
		{"script", "script -k vmlinux"},
		{"script-demangle", "script -k vmlinux --demangle-kernel --time 603.7,603.8 -F comm,tid,ip,sym,symoff"},
		{"script-kernel-path", "script -k vmlinux --show-kernel-path --time 603.7,603.8 -F comm,tid,ip,sym,dso"},
		{"script-nobuildid", "script -k vmlinux-nobuildid --time 603.7,603.8 -F tid,ip,sym,dso"},
		{"script-kallsyms-wins", "script -k vmlinux --kallsyms ../kallsyms --time 603.7,603.8 -F tid,ip,sym"},
		{"report", r + " -k vmlinux"},
		{"report-demangle", r + " -k vmlinux --demangle-kernel"},
		{"report-children", "report --stdio --children -g none -k vmlinux --demangle-kernel"},
	} {
		for _, d := range []struct{ compat, dir string }{{"6.1", "."}, {"7.3", "perf7"}} {
			t.Run(s.name+"/"+d.compat, func(t *testing.T) {
				args := append(splitArgs(s.args), "-i", "../fp/perf.data", "--symfs", ".", "--compat", d.compat)
				want, err := os.ReadFile(filepath.Join(d.dir, s.name+".txt"))
				if err != nil {
					t.Fatal(err)
				}
				if got := runCmd(t, args...); got != string(want) {
					t.Errorf("perfstitch %s differs from perf's %s", strings.Join(args, " "), filepath.Join(d.dir, s.name+".txt"))
				}
			})
		}
	}
}

// TestVmlinuxMissing: a -k file that does not exist fails at start, as
// perf's "Invalid file".
func TestVmlinuxMissing(t *testing.T) {
	f, _, errOut := testFactory()
	fp := filepath.Join(testfixture.Testdata(t, "fp"), "perf.data")
	if code := Run(t.Context(), f, []string{"script", "-k", filepath.Join(t.TempDir(), "vmlinux"), fp}); code == ExitOK ||
		!strings.Contains(errOut.String(), "--vmlinux: invalid file") {
		t.Errorf("exit %d, stderr %q; want a failure naming --vmlinux", code, errOut)
	}
}
