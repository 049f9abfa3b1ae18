package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
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
			f, _, _ := testFactory()
			var got *InjectOptions
			cmd := NewCmdInject(f, func(o *InjectOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tt.args))
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
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
			if d := testfixture.FirstDiff([]byte(got), []byte(want)); d != "" {
				t.Errorf("script of the injected file differs from script of %s: %s", data, d)
			}
		})
	}
}

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
