package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// perf7Run is one perf 7.3.4 golden and the perfstitch script flags that
// reproduce it.
type perf7Run struct {
	golden string   // path in the case folder
	args   []string // flags after "script --symfs S --kallsyms K -i DATA"
	data   string   // input in the case folder; "" is perf.data
	// byTime: the golden is in perf's order and the run in perfstitch's
	// default time order: the output must hold the golden's sample
	// blocks (see sameBlocks) in sample time order.
	byTime bool
	// orElse is the golden to compare with when golden is absent (perf's
	// --no-inline goldens are kept only where they differ from script.txt).
	orElse string
}

// perf7CorpusRuns are the perf7/ goldens of every ../shared/corpus case
// (the commands of corpus/README.md, "perf 7.3.4 goldens").
var perf7CorpusRuns = []perf7Run{
	{golden: "perf7/script.txt"},
	{golden: "perf7/script-nocallchain.txt", args: []string{"-G"}},
	{golden: "perf7/script-F.txt", args: []string{"-F", "comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period"}},
	{golden: "perf7/script-events.txt", args: []string{"-G", "--show-task-events", "--show-mmap-events"}},
	{golden: "perf7/script-noinline.txt", args: []string{"--no-inline"}, orElse: "perf7/script.txt"},
	{golden: "perf7/deferred-upstream.script-nomerge.txt", args: []string{"--no-merge-callchains"}, data: "perf7/deferred-upstream.data"},
	{golden: "perf7/deferred-upstream.script.txt", args: []string{"--ordering", "perf"}, data: "perf7/deferred-upstream.data"},
	{golden: "perf7/deferred-upstream.script.txt", data: "perf7/deferred-upstream.data", byTime: true},
	{golden: "perf7/deferred-upstreamdrop5.script.txt", args: []string{"--ordering", "perf"}, data: "perf7/deferred-upstreamdrop5.data"},
	{golden: "perf7/deferred-upstreamdrop5.script.txt", data: "perf7/deferred-upstreamdrop5.data", byTime: true},
	// perf 7.3.4 cannot read the seed ABI: the truth is the original's.
	{golden: "perf7/script.txt", data: "perf7/deferred-v6.data"},
}

// perf7KernelRuns are the goldens of the real deferred recordings of
// ../shared/kernel (kernel/README.md).
var perf7KernelRuns = []perf7Run{
	{golden: "script.txt", args: []string{"--ordering", "perf"}},
	{golden: "script.txt", byTime: true},
	{golden: "script-G.txt", args: []string{"-G", "--ordering", "perf"}},
	{golden: "script-G.txt", args: []string{"-G"}, byTime: true},
	{golden: "script-nomerge.txt", args: []string{"--no-merge-callchains"}},
	{golden: "script-noinline.txt", args: []string{"--no-inline", "--ordering", "perf"}, orElse: "script.txt"},
	{golden: "script-noinline.txt", args: []string{"--no-inline"}, byTime: true, orElse: "script.txt"},
}

// perf7Pending lists the goldens perfstitch does not reproduce yet for a
// reason outside the script text layout, keyed by "case/golden".
var perf7Pending = map[string]string{}

// perf7KernelPending lists the kernel goldens that are not reproduced
// yet, keyed by "case/golden".
var perf7KernelPending = map[string]string{}

// TestPerf7Script compares perfstitch script, in its default dialect,
// with perf 7.3.4's goldens of the corpus and of the real deferred
// recordings, byte for byte.
func TestPerf7Script(t *testing.T) {
	shared := testfixture.SharedDir(t)
	for _, c := range testfixture.Corpus(t) {
		for _, r := range perf7CorpusRuns {
			if c.Name == "c-pie-so" && r.golden == "perf7/script-F.txt" {
				// The recording has no PERF_SAMPLE_CPU.
				r.args = []string{"-F", "comm,pid,tid,time,event,ip,sym,symoff,dso,period"}
			}
			key := c.Name + "/" + r.golden
			checkPerf7(t, key, c.Dir, c.Symfs, c.Kallsyms, r, perf7Pending[key])
		}
	}
	if testing.Short() {
		return
	}
	root, dirs := kernelCases(shared)
	for _, dir := range dirs {
		name := filepath.Base(dir)
		for _, r := range perf7KernelRuns {
			key := name + "/" + r.golden
			pending, ok := perf7Pending[key]
			if !ok {
				pending = perf7KernelPending[key]
			}
			checkPerf7(t, key, dir, filepath.Join(dir, "symfs"), filepath.Join(root, "kallsyms"), r, pending)
		}
	}
}

// kernelCases returns the folder of the real deferred recordings in the
// shared folder, and the folder of each of its recordings.
func kernelCases(shared string) (root string, dirs []string) {
	root = filepath.Join(shared, "kernel")
	cases, _ := filepath.Glob(filepath.Join(root, "*", "perf.data"))
	for _, data := range cases {
		dirs = append(dirs, filepath.Dir(data))
	}
	return root, dirs
}

// checkPerf7 runs one perf7Run in dir (skipped when its golden is absent
// or pending) and compares with the golden.
func checkPerf7(t *testing.T, key, dir, symfs, kallsyms string, r perf7Run, pending string) {
	name := key
	if r.data != "" {
		name += "<" + filepath.Base(r.data)
	}
	if r.byTime {
		name += "(time order)"
	}
	t.Run(name, func(t *testing.T) {
		want, err := os.ReadFile(filepath.Join(dir, r.golden))
		if os.IsNotExist(err) && r.orElse != "" {
			want, err = os.ReadFile(filepath.Join(dir, r.orElse))
		}
		if os.IsNotExist(err) {
			t.Skip("no such golden")
		}
		if err != nil {
			t.Fatal(err)
		}
		if pending != "" {
			t.Skip("pending: " + pending)
		}
		data := r.data
		if data == "" {
			data = "perf.data"
		} else if _, err := os.Stat(filepath.Join(dir, data)); err != nil {
			t.Skip("no such recording")
		}
		args := append([]string{"script", "--symfs", symfs, "--kallsyms", kallsyms, "-i", filepath.Join(dir, data)}, r.args...)
		f, out, errOut := testFactory()
		if code := Run(context.Background(), f, args); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		got := out.Bytes()
		if r.byTime {
			if d := sameBlocks(got, want); d != "" {
				t.Errorf("%s: %s", r.golden, d)
			}
			return
		}
		if d := testfixture.FirstDiff(got, want); d != "" {
			t.Errorf("%s: first difference at %s", r.golden, d)
		}
	})
}

// blockTime finds the time of a sample block's first line.
var blockTime = regexp.MustCompile(`^[^\n]*? +([0-9]+)\.([0-9]+): `)

// exitedComm matches the comm perf script gives a sample whose thread
// had exited (":TID", then the tid column), and the comm of any block.
var (
	exitedComm = regexp.MustCompile(`^ *:([0-9]+) +([0-9]+) `)
	anyComm    = regexp.MustCompile(`^.*? +([0-9]+) `)
)

// splitBlocks splits script output into its sample blocks: the
// paragraphs of callchain output, the lines of -G output.
func splitBlocks(b []byte) []string {
	sep := "\n\n"
	if !bytes.Contains(b, []byte(sep)) {
		sep = "\n"
	}
	var out []string
	for _, blk := range strings.SplitAfter(string(b), sep) {
		if blk != "" {
			out = append(out, blk)
		}
	}
	return out
}

// sameBlocks reports how got fails to hold want's sample blocks (as a
// multiset) in sample time order, "" if it does. A golden block of an
// exited thread (comm ":TID") matches the block with the thread's
// real name, which perfstitch prints in time order (docs/stitching.md).
func sameBlocks(got, want []byte) string {
	g, w := splitBlocks(got), splitBlocks(want)
	var prev string
	for i, blk := range g {
		m := blockTime.FindStringSubmatch(blk)
		if m == nil {
			return fmt.Sprintf("block %d has no time: %q", i+1, blk)
		}
		ts := fmt.Sprintf("%012s.%s", m[1], m[2])
		if ts < prev {
			return fmt.Sprintf("block %d (time %s) before the previous one's %s: %q", i+1, ts, prev, blk)
		}
		prev = ts
	}
	count := map[string]int{}
	for _, blk := range w {
		count[blk]++
	}
	var extra []string
	for _, blk := range g {
		if count[blk] > 0 {
			count[blk]--
			continue
		}
		extra = append(extra, blk)
	}
	// The exited threads' blocks, with the comm left out.
	exited := map[string]int{}
	var missing []string
	for blk, n := range count {
		for range n {
			if m := exitedComm.FindStringSubmatchIndex(blk); m != nil && blk[m[2]:m[3]] == blk[m[4]:m[5]] {
				exited[blk[m[4]:]]++
				continue
			}
			missing = append(missing, blk)
		}
	}
	var unmatched []string
	for _, blk := range extra {
		if m := anyComm.FindStringSubmatchIndex(blk); m != nil {
			if rest := blk[m[2]:]; exited[rest] > 0 {
				exited[rest]--
				continue
			}
		}
		unmatched = append(unmatched, blk)
	}
	for blk, n := range exited {
		for range n {
			missing = append(missing, ":TID"+blk)
		}
	}
	if len(missing) == 0 && len(unmatched) == 0 {
		return ""
	}
	sort.Strings(missing)
	sort.Strings(unmatched)
	first := func(l []string) string {
		if len(l) == 0 {
			return "(none)"
		}
		return fmt.Sprintf("%q", l[0])
	}
	return fmt.Sprintf("%d golden blocks missing, first %s; %d blocks not in the golden, first %s", len(missing), first(missing), len(unmatched), first(unmatched))
}
