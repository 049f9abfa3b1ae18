package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// dwarfFlagRuns are the flag combinations of testdata/dwarf-flags/gen.sh,
// whose goldens perf 6.1 printed for the corpus case dwarf.
var dwarfFlagRuns = []struct{ name, args string }{
	{"ip-dso-max-stack-4", "-F ip,dso --max-stack 4"},
	{"ip-sym-symoff-max-stack-1", "-F ip,sym,symoff --max-stack 1"},
	{"ip-dso-no-inline-max-stack-6", "-F ip,dso --no-inline --max-stack 6"},
}

// TestScriptDwarfFlags checks --max-stack and --no-inline on a
// --call-graph dwarf recording against perf 6.1: the kernel entries and the
// unwound user addresses are limited separately, and inline frames come
// on top of the unwound addresses.
func TestScriptDwarfFlags(t *testing.T) {
	c := testfixture.CorpusCaseNamed(t, "dwarf")
	checkFlagRuns(t, "script", c, dwarfFlagRuns, "dwarf-flags")
}

// checkFlagRuns runs perfstitch command on corpus case c with each run's
// flags and compares with testdata/dir/NAME.txt.
func checkFlagRuns(t *testing.T, command string, c *testfixture.CorpusCase, runs []struct{ name, args string }, dir string) {
	t.Helper()
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			f, out, errOut := testFactory()
			args := append([]string{command, "--compat", "6.1", "--symfs", c.Symfs, "--kallsyms", c.Kallsyms}, strings.Fields(r.args)...)
			if code := Run(context.Background(), f, append(args, c.Data)); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			testfixture.MatchFile(t, filepath.Join("testdata", dir, r.name+".txt"), out.Bytes())
		})
	}
}
