package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// scriptGolden is a perfstitch script run, its arguments and its golden.
type scriptGolden struct{ golden, args string }

// checkScriptDialects runs perfstitch script on testdata/NAME in both
// dialects and matches the goldens of perf 6.1 (in the folder) and perf
// 7.3.4 (in its perf7/).
func checkScriptDialects(t *testing.T, name string, runs []scriptGolden) {
	t.Helper()
	dir := testfixture.Testdata(t, name)
	g := []string{"--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms"), filepath.Join(dir, "perf.data")}
	for _, r := range runs {
		for _, d := range []struct{ compat, dir string }{{"6.1", dir}, {"7.3", filepath.Join(dir, "perf7")}} {
			t.Run(d.compat+"/"+r.golden, func(t *testing.T) {
				f, out, errOut := testFactory()
				args := append(append([]string{"script", "--compat", d.compat}, splitArgs(r.args)...), g...)
				if code := Run(context.Background(), f, args); code != ExitOK {
					t.Fatalf("%q: exit %d: %s", args, code, errOut)
				}
				testfixture.MatchFile(t, filepath.Join(d.dir, r.golden), out.Bytes())
			})
		}
	}
}

// TestScriptSwitchEvents: --show-switch-events on testdata/switch (perf
// record --switch-events) against perf 6.1 and perf 7.3.4; without the
// flag the SWITCH records print nothing.
func TestScriptSwitchEvents(t *testing.T) {
	checkScriptDialects(t, "switch", []scriptGolden{
		{"script-G.txt", "-G"},
		{"script-switch.txt", "-G --show-switch-events"},
		{"script-switch-task.txt", "--show-switch-events --show-task-events"},
	})
}

// TestScriptNamespaceCgroupEvents: --show-namespace-events and
// --show-cgroup-events on testdata/namespaces (perf record --namespaces
// --all-cgroups) against perf 6.1 and perf 7.3.4, and the default output
// of a file whose samples carry PERF_SAMPLE_CGROUP.
func TestScriptNamespaceCgroupEvents(t *testing.T) {
	checkScriptDialects(t, "namespaces", []scriptGolden{
		{"script.txt", ""},
		{"script-ns.txt", "-G --show-namespace-events --show-cgroup-events --show-task-events"},
	})
}

// TestScriptMisc: -F +misc (cpumode letters, E on exec COMMs, S/Sp on
// switch-outs) against perf 6.1 and perf 7.3.4.
func TestScriptMisc(t *testing.T) {
	for _, r := range []struct{ c, args string }{
		{"fp", "-F +misc -G --show-task-events --show-mmap-events"},
		{"switch", "-F +misc -G --show-switch-events"},
	} {
		dir := testfixture.Testdata(t, r.c)
		for _, d := range []struct{ compat, dir string }{{"6.1", dir}, {"7.3", filepath.Join(dir, "perf7")}} {
			t.Run(r.c+"/"+d.compat, func(t *testing.T) {
				args := []string{"--compat", d.compat, "--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms")}
				args = append(append(args, splitArgs(r.args)...), filepath.Join(dir, "perf.data"))
				testfixture.MatchFile(t, filepath.Join(d.dir, "script-misc.txt"), runScriptArgs(t, args...))
			})
		}
	}
}

// TestScriptTodWithoutClockData: -F tod on a recording without
// CLOCK_DATA fails with perf's message, as perf 6.1 and 7.3.4 do.
func TestScriptTodWithoutClockData(t *testing.T) {
	f, _, errOut := testFactory()
	code := Run(context.Background(), f, []string{"script", "-F", "+tod", filepath.Join(testfixture.Testdata(t, "fp"), "perf.data")})
	const want = "Can't provide 'tod' time, missing clock data. Please record with -k/--clockid option."
	if code == ExitOK || !strings.Contains(errOut.String(), want) {
		t.Errorf("exit %d, stderr %q; want a failure saying %q", code, errOut, want)
	}
}

// TestScriptShowKernelPath: with kallsyms, perf 6.1 and 7.3.4 print
// --show-kernel-path output byte for byte as without it (checked on fp).
func TestScriptShowKernelPath(t *testing.T) {
	dir := testfixture.Testdata(t, "fp")
	for _, d := range []struct{ compat, dir string }{{"6.1", dir}, {"7.3", filepath.Join(dir, "perf7")}} {
		got := runScriptArgs(t, "--compat", d.compat, "--show-kernel-path", "--symfs", filepath.Join(dir, "symfs"),
			"--kallsyms", testfixture.Testdata(t, "kallsyms"), filepath.Join(dir, "perf.data"))
		testfixture.MatchFile(t, filepath.Join(d.dir, "script.txt"), got)
	}
}

// TestScriptUnsupportedFlags: perf options perfstitch cannot honour fail
// as usage errors naming the option and why, never as "unknown flag".
func TestScriptUnsupportedFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--itrace"}, {"--itrace=i100us"}, {"-s", "x.py"}, {"-g", "python"},
		{"--xed"},
	} {
		f, _, errOut := testFactory()
		code := Run(context.Background(), f, append([]string{"script"}, args...))
		if code != ExitUsage || !strings.Contains(errOut.String(), "is not supported: ") || strings.Contains(errOut.String(), "unknown") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error saying why it is not supported", args, code, errOut)
		}
	}
	// -k/--vmlinux and --demangle-kernel are supported now (TestVmlinux).
	for _, name := range []string{"vmlinux", "demangle-kernel"} {
		for _, u := range unsupportedScriptFlags {
			if u.name == name {
				t.Errorf("--%s is still in the unsupported list", name)
			}
		}
	}
}
