package cmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// perf7Run is one perf 7.3.4 golden and the perfstitch script flags that
// reproduce it.
type perf7Run struct {
	golden string   // path in the case folder
	args   []string // flags after "script --symfs S --kallsyms K -i DATA"
	data   string   // input in the case folder; "" is perf.data
}

// perf7CorpusRuns are the perf7/ goldens of every ../shared/corpus case
// (the commands of corpus/README.md, "perf 7.3.4 goldens").
var perf7CorpusRuns = []perf7Run{
	{golden: "perf7/script.txt"},
	{golden: "perf7/script-nocallchain.txt", args: []string{"-G"}},
	{golden: "perf7/script-F.txt", args: []string{"-F", "comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period"}},
	{golden: "perf7/script-events.txt", args: []string{"-G", "--show-task-events", "--show-mmap-events"}},
	{golden: "perf7/deferred-upstream.script-nomerge.txt", args: []string{"--no-merge-callchains"}, data: "perf7/deferred-upstream.data"},
}

// perf7KernelRuns are the goldens of the real deferred recordings of
// ../shared/kernel (kernel/README.md).
var perf7KernelRuns = []perf7Run{
	{golden: "script.txt"},
	{golden: "script-G.txt", args: []string{"-G"}},
	{golden: "script-nomerge.txt", args: []string{"--no-merge-callchains"}},
}

// perf7Symbols marks the goldens that differ from perfstitch only in the
// symbol-name column (perf 7.3.4 demangles C++ names with their
// parameters and return types and names PLT entries "sym@plt"): they are
// compared through normaliseSymbols until the symbolizer prints those
// names. Keyed by "case/golden".
var perf7Symbols = map[string]bool{}

// perf7Pending lists the goldens perfstitch does not reproduce yet for a
// reason outside the script text layout, keyed by "case/golden".
var perf7Pending = map[string]string{}

// perf7MergedPending is why the merged kernel goldens differ: perf 7.3.4
// prints a merged sample where its CALLCHAIN_DEFERRED record arrives,
// with the thread's comm and maps of that moment (stitch, symbolize).
const perf7MergedPending = "merged samples at their record's position, with comm and maps of that time (stitch/symbolize)"

// perf7KernelPending lists the kernel goldens that are not reproduced
// yet; the merged script.txt of every deferred recording is
// perf7MergedPending.
var perf7KernelPending = map[string]string{
	"c-threads/script-G.txt":  perf7MergedPending,
	"cpp/script-G.txt":        perf7MergedPending,
	"go/script-G.txt":         perf7MergedPending,
	"two-events/script-G.txt": "a sample left waiting at the end prints its exited thread as \":TID\" (stitch/symbolize)",
}

// symbolColumn matches the symbol of a callchain line ("\tADDR SYM
// (DSO)") and of a sample line without callchain ("...: ADDR SYM
// (DSO)"): the text between the address and the last parenthesised
// DSO, or "(inlined)".
var (
	chainSymbol  = regexp.MustCompile(`(?m)^(\t *[0-9a-f]+ ).*?( \([^()\n]*\))$`)
	sampleSymbol = regexp.MustCompile(`(?m)^([^\t\n].*[a-z-]+: +[0-9a-f]+ ).*?( \([^()\n]*\))$`)
)

// normaliseSymbols replaces every symbol name of script output by "SYM",
// so that output whose symbols the symbolizer does not print as perf
// 7.3.4 yet can be compared in every other column.
func normaliseSymbols(b []byte) []byte {
	b = chainSymbol.ReplaceAll(b, []byte("${1}SYM${2}"))
	return sampleSymbol.ReplaceAll(b, []byte("${1}SYM${2}"))
}

// TestPerf7Script compares perfstitch script, in its default dialect,
// with perf 7.3.4's goldens of the corpus and of the real deferred
// recordings: byte for byte, or through normaliseSymbols for the goldens
// in perf7Symbols.
func TestPerf7Script(t *testing.T) {
	shared := testfixture.SharedDir(t)
	for _, c := range testfixture.Corpus(t) {
		for _, r := range perf7CorpusRuns {
			if c.Name == "c-pie-so" && r.golden == "perf7/script-F.txt" {
				// The recording has no PERF_SAMPLE_CPU.
				r.args = []string{"-F", "comm,pid,tid,time,event,ip,sym,symoff,dso,period"}
			}
			key := c.Name + "/" + r.golden
			checkPerf7(t, key, c.Dir, c.Symfs, c.Kallsyms, r, perf7Symbols[key], perf7Pending[key])
		}
	}
	if testing.Short() {
		return
	}
	root := filepath.Join(shared, "kernel")
	cases, _ := filepath.Glob(filepath.Join(root, "*", "perf.data"))
	for _, data := range cases {
		dir := filepath.Dir(data)
		name := filepath.Base(dir)
		for _, r := range perf7KernelRuns {
			key := name + "/" + r.golden
			pending, ok := perf7Pending[key]
			if !ok {
				pending = perf7KernelPending[key]
			}
			if !ok && pending == "" && r.golden == "script.txt" && name != "c-threads-nodefer" {
				pending = perf7MergedPending
			}
			checkPerf7(t, key, dir, filepath.Join(dir, "symfs"), filepath.Join(root, "kallsyms"), r, perf7Symbols[key], pending)
		}
	}
}

// checkPerf7 runs one perf7Run in dir (skipped when its golden is absent
// or pending) and compares with the golden.
func checkPerf7(t *testing.T, key, dir, symfs, kallsyms string, r perf7Run, normalise bool, pending string) {
	t.Run(key, func(t *testing.T) {
		want, err := os.ReadFile(filepath.Join(dir, r.golden))
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
		}
		args := append([]string{"script", "--symfs", symfs, "--kallsyms", kallsyms, "-i", filepath.Join(dir, data)}, r.args...)
		f, out, errOut := testFactory()
		if code := Run(context.Background(), f, args); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		got := out.Bytes()
		if normalise {
			got, want = normaliseSymbols(got), normaliseSymbols(want)
		}
		if d := testfixture.FirstDiff(got, want); d != "" {
			t.Errorf("%s: first difference at %s", r.golden, d)
		}
	})
}
