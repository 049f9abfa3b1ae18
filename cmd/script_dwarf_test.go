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
	var dwarf *testfixture.CorpusCase
	for _, c := range testfixture.Corpus(t) {
		if c.Name == "dwarf" {
			dwarf = &c
		}
	}
	if dwarf == nil {
		t.Skip("corpus case dwarf not found")
	}
	for _, r := range dwarfFlagRuns {
		t.Run(r.name, func(t *testing.T) {
			f, out, errOut := testFactory()
			args := append([]string{"script", "--symfs", dwarf.Symfs, "--kallsyms", dwarf.Kallsyms},
				strings.Fields(r.args)...)
			if code := Run(context.Background(), f, append(args, dwarf.Data)); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			check(t, filepath.Join("testdata", "dwarf-flags", r.name+".txt"), out.Bytes())
		})
	}
}
