package cmd

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

func TestNewCmdInject(t *testing.T) {
	tests := []struct {
		args    string
		want    InjectOptions
		wantErr string
	}{
		{args: "", want: InjectOptions{}},
		{args: "-i in.data -o out.data", want: InjectOptions{Input: "in.data", Output: "out.data"}},
		{args: "-i - -o - --max-pending 100 --drop-unstitched --compress --stats",
			want: InjectOptions{Input: "-", Output: "-", MaxPending: 100, DropUnstitched: true, Compress: true, Stats: true}},
		{args: "--max-pending -1", wantErr: "--max-pending must not be negative"},
		{args: "-i x.data -o x.data", wantErr: "input and output are the same file"},
		{args: "extra", wantErr: "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got := parseOptions(t, NewCmdInject, tt.args, tt.wantErr)
			if got == nil {
				return
			}
			got.IO = nil
			if *got != tt.want {
				t.Errorf("options %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// injectDemo runs perfstitch inject on the demo with extra arguments and
// returns the output file, stdout and stderr.
func injectDemo(t *testing.T, stdin []byte, args ...string) (string, []byte, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "stitched.data")
	for i, a := range args {
		if a == "OUT" {
			args[i] = out
		}
	}
	f, stdout, errOut := testFactory()
	f.IO.In = bytes.NewReader(stdin)
	if code := Run(context.Background(), f, append([]string{"inject"}, args...)); code != ExitOK {
		t.Fatalf("inject %q: exit %d: %s", args, code, errOut)
	}
	return out, stdout.Bytes(), errOut.String()
}

// TestInjectDemo: perfstitch script of the injected demo, read from a file
// or as a pipe-mode stream, with the input given by name or on stdin in
// either mode, prints what it prints for the demo itself: perf's
// script.txt of the original recording. The summary counts the samples.
func TestInjectDemo(t *testing.T) {
	args := demoArgs(t) // --symfs S --kallsyms K DATA
	data := args[len(args)-1]
	sym := args[:len(args)-1]
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	golden := testfixture.Testdata(t, "demo", "script.txt")
	script := func(t *testing.T, in string, stdin []byte) {
		t.Helper()
		f, out, errOut := testFactory()
		f.IO.In = bytes.NewReader(stdin)
		if code := Run(context.Background(), f, append(append([]string{"script", "--compat", "6.1"}, sym...), "-i", in)); code != ExitOK {
			t.Fatalf("script: exit %d: %s", code, errOut)
		}
		testfixture.MatchFile(t, golden, out.Bytes())
	}
	const summary = "perfstitch inject: 200 samples: 197 stitched, 0 not deferred, 3 unstitched kept as recorded (2 no record, 1 cookie mismatch)\n"

	t.Run("file", func(t *testing.T) {
		out, stdout, errOut := injectDemo(t, nil, "-i", data, "-o", "OUT")
		if len(stdout) != 0 || errOut != summary {
			t.Errorf("stdout %d bytes, stderr %q; want none and %q", len(stdout), errOut, summary)
		}
		script(t, out, nil)
	})
	t.Run("stdin-file-to-pipe", func(t *testing.T) {
		_, stdout, _ := injectDemo(t, raw)
		if f, err := decode.NewPipe(bytes.NewReader(stdout)); err != nil || !f.Header.Pipe {
			t.Fatalf("stdout is not a pipe-mode stream: %v", err)
		}
		script(t, "-", stdout)
		// and the pipe-mode stream on stdin, into a file
		out, _, _ := injectDemo(t, stdout, "-o", "OUT")
		script(t, out, nil)
	})
	t.Run("compress", func(t *testing.T) {
		out, _, _ := injectDemo(t, nil, "-i", data, "-o", "OUT", "--compress")
		f, err := decode.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rs := f.Records(decode.FileOrder)
		for rs.Next() {
		}
		if n := rs.Stats().Counts[decode.RecordTypeCompressed2]; n == 0 {
			t.Error("no COMPRESSED2 record")
		}
		script(t, out, nil)
	})
	t.Run("stats", func(t *testing.T) {
		_, _, errOut := injectDemo(t, nil, "-i", data, "-o", "OUT", "--stats")
		for _, want := range []string{summary, "Stitching", "stitched", "197"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
		}
	})
}

// TestInjectRoundTripCorpus: perfstitch script of the injected version of
// every deferred corpus recording and of every real deferred recording
// (../shared/kernel) prints what it prints for the deferred
// recording itself (the text shows no provenance), and with
// --drop-unstitched without the samples that lost their user part.
func TestInjectRoundTripCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every deferred corpus recording")
	}
	type input struct{ name, data, symfs, kallsyms string }
	var inputs []input
	for _, c := range testfixture.Corpus(t) {
		files, _ := filepath.Glob(filepath.Join(c.Dir, "perf7", "deferred-*.data"))
		for _, data := range files {
			inputs = append(inputs, input{c.Name + "/" + filepath.Base(data), data, c.Symfs, c.Kallsyms})
		}
	}
	// The real deferred recordings of Linux 7.3.4 (kernel/README.md).
	kernel := filepath.Join(testfixture.SharedDir(t), "kernel")
	files, _ := filepath.Glob(filepath.Join(kernel, "*", "perf.data"))
	for _, data := range files {
		dir := filepath.Dir(data)
		inputs = append(inputs, input{"kernel/" + filepath.Base(dir), data, filepath.Join(dir, "symfs"), filepath.Join(kernel, "kallsyms")})
	}
	for _, in := range inputs {
		data := in.data
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			sym := []string{"--symfs", in.symfs, "--kallsyms", in.kallsyms}
			want := runCmd(t, append(append([]string{"script", "--compat", "6.1"}, sym...), data)...)
			out, _, errOut := injectDemo(t, nil, "-i", data, "-o", "OUT")
			got := runCmd(t, append(append([]string{"script", "--compat", "6.1"}, sym...), out)...)
			if !strings.Contains(errOut, " 0 unstitched") {
				// Unstitched samples keep their kernel part only: the
				// deferred file prints their cookie line, the
				// injected one does not. (Lines of unknown addresses
				// in unknown DSOs are dropped from both.)
				want = cookieLine.ReplaceAllString(want, "")
				got = cookieLine.ReplaceAllString(got, "")
			}
			if got == want {
				return
			}
			// A stitched sample is resolved with the process state when
			// its record arrived (an exec, mmap or comm change while it
			// waited shows); a tool reading the injected file can only
			// resolve it at its own time. Only such samples may differ.
			events := runCmd(t, append(append([]string{"script", "--compat", "6.1", "-G", "--show-task-events", "--show-mmap-events"}, sym...), data)...)
			if n, err := stateChangedBlocks(got, want, events); err != nil {
				t.Errorf("script of the injected file differs from script of %s: %v", data, err)
			} else {
				t.Logf("%d samples differ, each waited across an exec, mmap or comm change of its thread", n)
			}
		})
	}
}

// stateChangedBlocks compares the sample blocks of two perf script
// outputs and returns how many differ; a block may differ only when its
// thread has a COMM or MMAP side-band record (in events, perf script -G
// --show-task-events --show-mmap-events of the deferred file) after the
// sample and before the thread's next sample that is printed alike.
func stateChangedBlocks(got, want, events string) (int, error) {
	gb, wb := strings.Split(got, "\n\n"), strings.Split(want, "\n\n")
	if len(gb) != len(wb) {
		return 0, fmt.Errorf("%d blocks, want %d", len(gb), len(wb))
	}
	type ev struct {
		tid  string
		time float64
	}
	head := func(line string) (ev, bool) {
		m := sampleHead.FindStringSubmatch(line)
		if m == nil {
			return ev{}, false
		}
		tm, _ := strconv.ParseFloat(m[2], 64)
		return ev{m[1], tm}, true
	}
	changes := map[string][]float64{}
	for _, line := range strings.Split(events, "\n") {
		if !strings.Contains(line, "PERF_RECORD_COMM") && !strings.Contains(line, "PERF_RECORD_MMAP") {
			continue
		}
		if e, ok := head(line); ok {
			changes[e.tid] = append(changes[e.tid], e.time)
		}
	}
	n := 0
	for i := range gb {
		if gb[i] == wb[i] {
			continue
		}
		n++
		e, ok := head(wb[i])
		if !ok {
			return n, fmt.Errorf("block %d differs: %q", i, gb[i])
		}
		next := math.Inf(1)
		for j := i + 1; j < len(wb); j++ {
			if f, ok := head(wb[j]); ok && f.tid == e.tid && gb[j] == wb[j] {
				next = f.time
				break
			}
		}
		changed := false
		for _, tm := range changes[e.tid] {
			changed = changed || (tm > e.time && tm <= next)
		}
		if !changed {
			return n, fmt.Errorf("block %d differs with no state change of its thread:\n%s\nwant\n%s", i, gb[i], wb[i])
		}
	}
	return n, nil
}

// sampleHead takes the tid and time of a perf script line (6.1 layout).
var sampleHead = regexp.MustCompile(`^ *\S.*? +(\d+) +(?:\[\d+\] +)?(\d+\.\d+): `)

// cookieLine is the callchain line of a deferred sample's cookie: an
// unknown address in no DSO (perf 7.3: "(cookie)").
var cookieLine = regexp.MustCompile(`(?m)^\t +[0-9a-f]+ (\(cookie\)|\[unknown\]) \(\[unknown\]\)\n`)

// TestInjectDamaged: a truncated recording is written up to the damage
// and kept; the exit code says the input was damaged.
func TestInjectDamaged(t *testing.T) {
	raw, err := os.ReadFile(testfixture.Testdata(t, "pipe", "perf.data"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "stitched.data")
	f, _, errOut := testFactory()
	f.IO.In = bytes.NewReader(raw[:len(raw)/2])
	if code := Run(context.Background(), f, []string{"inject", "-o", out}); code != ExitError {
		t.Fatalf("exit %d, want %d: %s", code, ExitError, errOut)
	}
	if !strings.Contains(errOut.String(), "perfstitch inject: ") {
		t.Errorf("no summary on stderr: %q", errOut)
	}
	d, err := decode.Open(out)
	if err != nil {
		t.Fatalf("the output of a damaged input: %v", err)
	}
	d.Close()
}

// TestInjectDemoPerf61: the demo, a real recording by perf 7.3.4 (its
// attrs are 144 bytes, which perf 6.1 refuses), injected, is read by perf
// 6.1 and prints the demo's perf 6.1 truth, testdata/demo/script.txt.
func TestInjectDemoPerf61(t *testing.T) {
	perf := testfixture.Tool(t, "perf")
	demo := testfixture.Testdata(t, "demo")
	out := filepath.Join(t.TempDir(), "stitched.data")
	f, _, errOut := testFactory()
	if code := Run(context.Background(), f, []string{"inject", "-i", filepath.Join(demo, "perf.data"), "-o", out}); code != ExitOK {
		t.Fatalf("inject: exit %d: %s", code, errOut)
	}
	got := testfixture.RunPerf(t, perf, "", "script", "-i", out, "--symfs", filepath.Join(demo, "symfs"), "--kallsyms", filepath.Join(demo, "kallsyms"))
	testfixture.MatchFile(t, filepath.Join(demo, "script.txt"), got)
}
