package cmd

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfstitch/perfstitch/internal/hostile"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// scriptSamples counts the samples in perf script text (the lines that
// do not start with a tab and are not empty).
func scriptSamples(out string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if l != "" && l[0] != '\t' {
			n++
		}
	}
	return n
}

// sampleCounter is a writer that counts the samples of perf script
// text as it comes, keeping none of it.
type sampleCounter struct {
	n       int
	midLine bool
}

func (c *sampleCounter) Write(p []byte) (int, error) {
	for _, b := range p {
		if !c.midLine && b != '\t' && b != '\n' {
			c.n++
		}
		c.midLine = b != '\n'
	}
	return len(p), nil
}

// peakHeap runs fn and returns the largest heap (HeapAlloc) seen while it
// ran, above the heap before it.
func peakHeap(fn func()) uint64 {
	// Collect at 25% growth, so that HeapAlloc follows what the run
	// keeps rather than how much garbage the default GOGC lets pile up.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapAlloc)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-done
	mu.Lock()
	defer mu.Unlock()
	if peak < base {
		return 0
	}
	return peak - base
}

// runHostile runs perfstitch script on data with args and returns the
// exit code, stdout and stderr.
func runHostile(t testing.TB, data []byte, args ...string) (ExitCode, string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "perf.data")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := testFactory()
	code := Run(context.Background(), f, append([]string{"script", "-i", path}, args...))
	return code, out.String(), errOut.String()
}

// inputHeapCap is issue 16's memory cap for an input of n bytes: 64 MiB
// under 1 MB, 128 MiB under 10 MB (and for anything larger).
func inputHeapCap(n int) uint64 {
	if n < 1e6 {
		return 64 << 20
	}
	return 128 << 20
}

// TestHostileMalformed: each malformed sample or record is reported on
// stderr, and every readable sample is still printed, within the heap cap
// of its size; with --strict the run fails, with -q nothing is printed on
// stderr.
func TestHostileMalformed(t *testing.T) {
	cases, err := hostile.Malformed()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var code ExitCode
			var out, errOut string
			heap := peakHeap(func() { code, out, errOut = runHostile(t, c.Data, c.Args...) })
			if code != ExitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			if limit := inputHeapCap(len(c.Data)); heap > limit {
				t.Errorf("%d bytes in: peak heap %d MiB, cap %d MiB", len(c.Data), heap>>20, limit>>20)
			}
			if n := scriptSamples(out); n != c.Samples {
				t.Errorf("%d samples printed, want %d:\n%s", n, c.Samples, out)
			}
			if !strings.Contains(errOut, "perfstitch: warning: ") || !strings.Contains(errOut, c.Stderr) {
				t.Errorf("stderr lacks a warning with %q:\n%s", c.Stderr, errOut)
			}
			if code, _, errOut := runHostile(t, c.Data, "--strict"); code != ExitError || !strings.Contains(errOut, "(--strict)") {
				t.Errorf("--strict: exit %d, stderr:\n%s", code, errOut)
			}
			if code, _, errOut := runHostile(t, c.Data, "-q"); code != ExitOK || errOut != "" {
				t.Errorf("-q: exit %d, stderr %q", code, errOut)
			}
		})
	}
}

// TestHostileBombs: inputs that cost memory out of proportion to their
// size stay under their caps, and say so.
func TestHostileBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	const n = 300_000
	noRounds, err := hostile.NoRounds(n, true, false)
	if err != nil {
		t.Fatal(err)
	}
	bomb, err := hostile.NoRounds(n, true, true)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		data    []byte
		args    []string
		code    ExitCode
		stderr  string
		samples int // -1: some, fewer than n
		maxHeap uint64
	}{
		// The caps leave room for what every run holds (the producer's
		// batches, the zstd window: 12-15 MiB); without the queue limit
		// the first case peaks above 100 MiB.
		// 300,000 records (21 MB) wait for a FINISHED_ROUND that never
		// comes: the queue flushes its oldest past 2 MiB.
		{"no rounds", noRounds, []string{"--queue-limit", "2M", "--max-decompress-ratio", "100000"}, ExitOK,
			"time-order queue passed its budget of 2097152 bytes", n, 20 << 20},
		// The same stream with one time for all: a zstd bomb thousands
		// of times smaller than its records, refused past 200 times its
		// size; the samples before the cut are printed.
		{"decompression bomb", bomb, nil, ExitError,
			"COMPRESSED record at 0x", -1, 20 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "perf.data")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, _, errBuf := testFactory()
			var cnt sampleCounter
			f.IO.Out = &cnt
			var code ExitCode
			heap := peakHeap(func() {
				code = Run(context.Background(), f, append([]string{"script", "-i", path, "-F", "tid,time"}, tt.args...))
			})
			errOut := errBuf.String()
			t.Logf("%d bytes in, peak heap %.1f MiB", len(tt.data), float64(heap)/(1<<20))
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errOut)
			}
			got := cnt.n
			if tt.samples >= 0 && got != tt.samples || tt.samples < 0 && (got == 0 || got >= n) {
				t.Errorf("%d samples printed, want %d", got, tt.samples)
			}
			if heap > tt.maxHeap {
				t.Errorf("peak heap %d MiB, cap %d MiB", heap>>20, tt.maxHeap>>20)
			}
		})
	}
}

// BenchmarkHostileBombs reports the time and memory of the bombs with
// the default limits (and for the file without rounds, a 2 MiB queue).
func BenchmarkHostileBombs(b *testing.B) {
	const n = 300_000
	for _, c := range []struct {
		name     string
		sameTime bool
		args     []string
	}{{"no-rounds", false, []string{"--queue-limit", "2M", "--max-decompress-ratio", "100000"}}, {"decompression-bomb", true, nil}} {
		data, err := hostile.NoRounds(n, true, c.sameTime)
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "perf.data")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var heap uint64
			for b.Loop() {
				f, _, _ := testFactory()
				f.IO.Out = &sampleCounter{}
				heap = max(heap, peakHeap(func() {
					Run(context.Background(), f, append([]string{"script", "-i", path, "-F", "tid,time"}, c.args...))
				}))
			}
			b.ReportMetric(float64(heap)/(1<<20), "peak-MiB")
		})
	}
}

// TestHostileSources: missing paths and the wrong kinds of file for
// --kallsyms, --symfs and --maps fail at start-up; a kallsyms copy or a
// maps snapshot with a bad line is used all the same, with a warning;
// /dev/zero as kallsyms is cut at its limit.
func TestHostileSources(t *testing.T) {
	dir := testfixture.Testdata(t, "fp")
	data := filepath.Join(dir, "perf.data")
	symfs := filepath.Join(dir, "symfs")
	kallsyms := testfixture.Testdata(t, "kallsyms")
	tmp := t.TempDir()
	good, err := os.ReadFile(kallsyms)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(tmp, "kallsyms")
	if err := os.WriteFile(bad, append([]byte("this is no kallsyms line\n"), good...), 0o644); err != nil {
		t.Fatal(err)
	}
	want := runCmd(t, "script", "-i", data, "--symfs", symfs, "--kallsyms", kallsyms)
	tests := []struct {
		name   string
		args   []string
		code   ExitCode
		stderr string
		same   bool // stdout equals the run with the good kallsyms
	}{
		{"missing kallsyms", []string{"--kallsyms", filepath.Join(tmp, "nope")}, ExitError, "--kallsyms: invalid file: stat ", false},
		{"kallsyms directory", []string{"--kallsyms", tmp}, ExitError, "not a regular file", false},
		{"symfs a file", []string{"--symfs", bad, "--kallsyms", kallsyms}, ExitError, "--symfs: invalid directory: ", false},
		{"missing maps", []string{"--symfs", symfs, "--kallsyms", kallsyms, "--maps", filepath.Join(tmp, "nope")}, ExitError, "--maps: invalid directory: ", false},
		{"kallsyms bad line", []string{"--symfs", symfs, "--kallsyms", bad}, ExitOK, "kallsyms:1: malformed kallsyms line \"this is no kallsyms line\" (1 bad line skipped)", true},
		{"kallsyms /dev/zero", []string{"--symfs", symfs, "--kallsyms", "/dev/zero"}, ExitOK, "/dev/zero: file too large (1 MiB at most) (kernel symbols not resolved)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, out, errOut := testFactory()
			code := Run(context.Background(), f, append([]string{"script", "-i", data}, tt.args...))
			if code != tt.code || !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, tt.code, tt.stderr, errOut)
			}
			if tt.same && out.String() != want {
				t.Errorf("output differs from the run with the good kallsyms")
			}
		})
	}
}

// TestHostileStatsCount: stats counts the warnings of a run, in its text
// and its JSON.
func TestHostileStatsCount(t *testing.T) {
	data, err := hostile.File(hostile.Sample(10, 2), hostile.Sample(11, 1<<60), hostile.Sample(12, 1), hostile.Round())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "perf.data")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ format, want string }{{"table", "\nwarnings: 2 ("}, {"json", `"warnings":2`}} {
		f, out, errOut := testFactory()
		if code := Run(context.Background(), f, []string{"stats", "-i", path, "--format", c.format}); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(strings.ReplaceAll(out.String(), " ", ""), strings.ReplaceAll(c.want, " ", "")) {
			t.Errorf("stats --format %s lacks %q:\n%s", c.format, c.want, out)
		}
	}
}
