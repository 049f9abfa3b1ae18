package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// perfFlagRuns are the flag combinations of testdata/perf-flags/gen.sh,
// whose goldens perf 6.1 printed for testdata/fp.
var perfFlagRuns = []struct{ name, args string }{
	{"ns-max-stack-2", "--ns --max-stack 2"},
	{"max-stack-3", "--max-stack 3"},
	{"reltime-events", "--reltime -G --show-task-events --show-mmap-events"},
	{"task-events", "--show-task-events --max-stack 1"},
	{"time-percent-slice", "--time 10%/2"},
	{"time-percent-ranges", "--time 0%-5%,50%-55%"},
	{"time-abs", "--time 603.8,603.85"},
	{"fields-plus-pid-G", "-F +pid -G"},
	{"fields-minus-dso-cpu", "-F -dso,-cpu --max-stack 1"},
	{"fields-ip-sym-symoff", "-F ip,sym,symoff --max-stack 2"},
	{"fields-G", "-F comm,pid,tid,ip,sym,dso -G"},
	{"tid", "--tid 15809 -G"},
	{"comm-none", "-c nosuchcomm"},
	{"dsos-kernel", "--dsos [kernel.kallsyms] -G"},
	{"symbols-leaf", "-S leaf_mmap,0x4011c4 --max-stack 2"}, // 0x4011c4: a sampled address in leaf_compute
}

// TestScriptPerfFlags checks perf script's options (--ns, --reltime,
// --max-stack, --time ranges and slices, -F with and without +/-, filters,
// side-band events) against perf 6.1's own output on testdata/fp.
func TestScriptPerfFlags(t *testing.T) {
	dir := testfixture.Testdata(t, "fp")
	for _, r := range perfFlagRuns {
		t.Run(r.name, func(t *testing.T) {
			f, out, errOut := testFactory()
			args := append([]string{"script", "--compat", "6.1", "--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms")},
				strings.Fields(r.args)...)
			if code := Run(context.Background(), f, append(args, filepath.Join(dir, "perf.data"))); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			testfixture.MatchFile(t, filepath.Join("testdata", "perf-flags", r.name+".txt"), out.Bytes())
		})
	}
}

// TestScriptCollapsedFlags checks the stackcollapse-perf.pl options
// against goldens made by stackcollapse-perf.pl (FlameGraph 41fee1f9) from
// perf 6.1's script.txt of testdata/fp and testdata/two-events.
func TestScriptCollapsedFlags(t *testing.T) {
	for _, c := range []string{"fp", "two-events"} {
		dir := testfixture.Testdata(t, c)
		for _, r := range []struct{ name, args string }{
			{"addrs", "--addrs"},
			{"kernel", "--kernel"},
			{"all-addrs", "--all --addrs"},
			{"event-task-clock", "--event-filter task-clock"},
		} {
			t.Run(c+"/"+r.name, func(t *testing.T) {
				f, out, errOut := testFactory()
				args := append([]string{"script", "--compat", "6.1", "--format", "collapsed", "--symfs", filepath.Join(dir, "symfs"),
					"--kallsyms", testfixture.Testdata(t, "kallsyms")}, strings.Fields(r.args)...)
				if code := Run(context.Background(), f, append(args, filepath.Join(dir, "perf.data"))); code != ExitOK {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				testfixture.MatchFile(t, filepath.Join("testdata", "collapsed-flags", c+"."+r.name+".txt"), out.Bytes())
			})
		}
	}
}
