package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// demoArgs are the arguments that point perfstitch at testdata/demo, the
// corpus case c-nopie rewritten by the deferral simulator (cookie ABI).
func demoArgs(t *testing.T) []string {
	dir := testfixture.Testdata(t, "demo")
	if _, err := os.Stat(filepath.Join(dir, "perf.data")); err != nil {
		t.Skipf("testdata/demo absent: %v", err)
	}
	return []string{"--symfs", filepath.Join(dir, "symfs"), "--kallsyms", filepath.Join(dir, "kallsyms"), filepath.Join(dir, "perf.data")}
}

// TestScriptDeferredDemo: the stitched demo prints exactly perf's
// script.txt of the original (not deferred) recording.
func TestScriptDeferredDemo(t *testing.T) {
	args := demoArgs(t)
	f, out, errOut := testFactory()
	if code := Run(context.Background(), f, append([]string{"script", "--compat", "6.1"}, args...)); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	testfixture.MatchFile(t, testfixture.Testdata(t, "demo", "script.txt"), out.Bytes())
}

// TestScriptDeferredNoMerge: with --no-merge-callchains the demo prints
// perf 6.19's form: every deferred sample ends in its "(cookie)" line and
// its CALLCHAIN_DEFERRED record follows as a "DEFERRED CALLCHAIN
// [cookie: …]" block with the user frames (the first 50 ms). The golden is perfstitch's
// reviewed output (perf 6.1, which made the corpus, cannot read the
// deferred format).
func TestScriptDeferredNoMerge(t *testing.T) {
	args := demoArgs(t)
	for format, ext := range map[string]string{"text": "txt", "json": "json.jsonl"} {
		f, out, errOut := testFactory()
		if code := Run(context.Background(), f, append([]string{"script", "--compat", "6.1", "--no-merge-callchains", "--time", ",2274.45", "--format", format}, args...)); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		golden := filepath.Join("testdata", "demo.no-merge."+ext)
		testfixture.Golden(t, golden, out.Bytes())
		if n, m := bytes.Count(out.Bytes(), []byte("DEFERRED CALLCHAIN [cookie: ")), bytes.Count(out.Bytes(), []byte(" (cookie) ([unknown])\n")); format == "text" && (n == 0 || n != m) {
			t.Errorf("%d DEFERRED CALLCHAIN blocks, %d cookie lines; want the same non-zero number", n, m)
		}
	}
}

// TestScriptDeferredCorpus runs the deferral simulator over corpus cases
// in both ABIs and checks that perfstitch script prints the original
// case's script.txt, byte for byte.
func TestScriptDeferredCorpus(t *testing.T) {
	cases := testfixture.Corpus(t)
	for _, c := range cases {
		if _, skip := corpusSkip[c.Name]; skip {
			continue
		}
		if c.Name == "dwarf" {
			// --call-graph dwarf records no user callchain, so there is
			// nothing to defer: the user frames come from the stack copy.
			continue
		}
		for _, abi := range []decode.DeferredABI{decode.DeferredCookie, decode.DeferredSeed} {
			name := c.Name + "/cookie"
			if abi == decode.DeferredSeed {
				name = c.Name + "/seed"
			}
			t.Run(name, func(t *testing.T) {
				if c.Name == "no-callchain" {
					t.Skip("no callchains to defer")
				}
				path := filepath.Join(t.TempDir(), "perf.data")
				fh, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				truth, err := deferralsim.Simulate(c.Data, fh, deferralsim.Options{ABI: abi})
				if cerr := fh.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
				if truth.Records == 0 {
					t.Fatal("the simulator deferred nothing")
				}
				f, out, errOut := testFactory()
				code := Run(context.Background(), f, []string{"script", "--compat", "6.1", "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, path})
				if code != ExitOK {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				testfixture.MatchFile(t, c.Golden("script.txt"), out.Bytes())
			})
		}
	}
}
