package cmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// demoArgs are the arguments that point perfstitch at testdata/demo, the
// first 200 samples of a real deferred recording by Linux 7.3.4 and perf
// 7.3.4 (../shared/kernel/c-threads; testdata/demo/README.md).
func demoArgs(t *testing.T) []string {
	dir := testfixture.Testdata(t, "demo")
	if _, err := os.Stat(filepath.Join(dir, "perf.data")); err != nil {
		t.Skipf("testdata/demo absent: %v", err)
	}
	return []string{"--symfs", filepath.Join(dir, "symfs"), "--kallsyms", filepath.Join(dir, "kallsyms"), filepath.Join(dir, "perf.data")}
}

// demoUnstitched are the last callchain lines perfstitch prints for the
// demo's samples that have no CALLCHAIN_DEFERRED record of their own
// (stamped at or after them): the record of two never came before the
// cut, and one was taken inside the kernel's own deferred unwind, after
// the record with its cookie was written. Their cookie is printed where
// the user frames would be.
var demoUnstitched = regexp.MustCompile(`(?m)^\t +(4500000002 \(cookie\)|6500000001 \[unknown\]|c500000002 \(cookie\)) \(\[unknown\]\)\n`)

// TestScriptDeferredDemo: in the 6.1 dialect, the stitched demo prints
// what perf 6.1 prints for the same recording with every user callchain
// put back into its sample (testdata/demo/script.txt: perf 6.1 cannot
// read deferred callchains), except for the line of each sample without
// its record, where perf 6.1 has none.
func TestScriptDeferredDemo(t *testing.T) {
	args := demoArgs(t)
	f, out, errOut := testFactory()
	if code := Run(context.Background(), f, append([]string{"script", "--compat", "6.1"}, args...)); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := len(demoUnstitched.FindAll(out.Bytes(), -1)); n != 3 {
		t.Errorf("%d samples print their cookie instead of user frames, want 3", n)
	}
	got := demoUnstitched.ReplaceAll(out.Bytes(), nil)
	want, err := os.ReadFile(testfixture.Testdata(t, "demo", "script.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// perf 6.1 resolved the put-back chains at sample time; a stitched
	// sample is resolved when its record arrived, so the samples that
	// waited across the exec (or a comm change) print the new state.
	events := runCmd(t, append([]string{"script", "--compat", "6.1", "-G", "--show-task-events", "--show-mmap-events"}, args...)...)
	n, err := stateChangedBlocks(string(got), string(want), events)
	if err != nil {
		t.Fatalf("differs from testdata/demo/script.txt: %v", err)
	}
	if n == 0 || n > 10 {
		t.Errorf("%d samples print a state that changed while they waited, want the few around the exec", n)
	}
}

// TestScriptDeferredNoMerge: with --no-merge-callchains the demo prints
// perf 6.19's form: every deferred sample ends in its "(cookie)" line and
// its CALLCHAIN_DEFERRED record follows as a "DEFERRED CALLCHAIN
// [cookie: …]" block with the user frames (the first 150 ms: the exec,
// the threads' start). The golden is perfstitch's reviewed output (perf
// 6.1 cannot read the deferred format; perf 7.3.4's own is
// testdata/demo/perf7/script-nomerge.txt, TestPerf7Testdata).
func TestScriptDeferredNoMerge(t *testing.T) {
	args := demoArgs(t)
	for format, ext := range map[string]string{"text": "txt", "json": "json.jsonl"} {
		f, out, errOut := testFactory()
		if code := Run(context.Background(), f, append([]string{"script", "--compat", "6.1", "--no-merge-callchains", "--time", ",13.15", "--format", format}, args...)); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		golden := filepath.Join("testdata", "demo.no-merge."+ext)
		testfixture.Golden(t, golden, out.Bytes())
		if format == "text" {
			checkCookies(t, out.Bytes())
		}
	}
}

var (
	blockCookie = regexp.MustCompile(`DEFERRED CALLCHAIN \[cookie: ([0-9a-f]+)\]`)
	lineCookie  = regexp.MustCompile(`(?m)^\t +([0-9a-f]+) \(cookie\) \(\[unknown\]\)$`)
	eitherLine  = regexp.MustCompile(`(?m)^\t +[0-9a-f]+ \(cookie\) \(\[unknown\]\)$|DEFERRED CALLCHAIN \[cookie: [0-9a-f]+\]`)
)

// checkCookies checks the unmerged text: there are DEFERRED CALLCHAIN
// blocks, and each one's cookie ends a sample printed before it (a real
// kernel's record may serve several samples, and a sample's record may
// come after the --time range).
func checkCookies(t *testing.T, out []byte) {
	t.Helper()
	seen := map[string]bool{}
	blocks := 0
	for _, m := range eitherLine.FindAll(out, -1) {
		if c := lineCookie.FindSubmatch(m); c != nil {
			seen[string(c[1])] = true
			continue
		}
		blocks++
		if c := blockCookie.FindSubmatch(m)[1]; !seen[string(c)] {
			t.Errorf("DEFERRED CALLCHAIN [cookie: %s] before any sample with that cookie", c)
		}
	}
	if blocks == 0 || len(seen) < blocks {
		t.Errorf("%d DEFERRED CALLCHAIN blocks, %d cookies of samples; want blocks, and no fewer cookies", blocks, len(seen))
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
