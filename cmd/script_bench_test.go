package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/internal/iostreams"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// benchInput returns the recording to benchmark: $PERFSTITCH_BENCH_DATA
// (e.g. the file scripts/bench-script.sh records), else the corpus case
// c-nopie.
func benchInput(b *testing.B) []string {
	if p := os.Getenv("PERFSTITCH_BENCH_DATA"); p != "" {
		return []string{p}
	}
	for _, c := range testfixture.Corpus(b) {
		if c.Name == "c-nopie" {
			return []string{"--symfs", c.Symfs, "--kallsyms", c.Kallsyms, c.Data}
		}
	}
	b.Skip("corpus case c-nopie absent")
	return nil
}

// benchmarkRun runs perfstitch with args in a loop, output discarded.
func benchmarkRun(b *testing.B, args []string) {
	b.ReportAllocs()
	for b.Loop() {
		ios := &iostreams.IOStreams{In: nil, Out: io.Discard, ErrOut: io.Discard}
		f := &Factory{IO: ios, Getenv: func(string) string { return "" }}
		if code := Run(context.Background(), f, args); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

func benchmarkScript(b *testing.B, extra ...string) {
	args := append(append([]string{"script"}, extra...), benchInput(b)...)
	benchmarkRun(b, args)
}

func BenchmarkScriptText(b *testing.B)      { benchmarkScript(b) }
func BenchmarkScriptCollapsed(b *testing.B) { benchmarkScript(b, "--format", "collapsed") }
func BenchmarkScriptJSON(b *testing.B)      { benchmarkScript(b, "--format", "json") }

// benchmarkDeferred runs script over the real deferred recording
// ../shared/kernel/c-threads (threads whose merged samples perf prints
// out of time order) with extra flags.
func benchmarkDeferred(b *testing.B, extra ...string) {
	dir := filepath.Join(testfixture.SharedDir(b), "kernel")
	if _, err := os.Stat(filepath.Join(dir, "c-threads", "perf.data")); err != nil {
		b.Skip("kernel/c-threads absent")
	}
	args := append([]string{"script", "--symfs", filepath.Join(dir, "c-threads", "symfs"), "--kallsyms", filepath.Join(dir, "kallsyms"),
		filepath.Join(dir, "c-threads", "perf.data")}, extra...)
	benchmarkRun(b, args)
}

func BenchmarkScriptDeferredTime(b *testing.B) { benchmarkDeferred(b) }
func BenchmarkScriptDeferredPerf(b *testing.B) { benchmarkDeferred(b, "--ordering", "perf") }
