package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestInterruptBlockedStdin: a run blocked reading a stdin pipe that
// never delivers stops when its context is cancelled, with exit 130 and
// "interrupted" (sleep 20 | perfstitch script -i -).
func TestInterruptBlockedStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	f, _, errOut := testFactory()
	f.IO.In = r
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	code := Run(ctx, f, []string{"script", "-i", "-"})
	if code != ExitInterrupted || errOut.String() != "perfstitch: interrupted\n" {
		t.Errorf("exit %d, stderr %q; want %d, \"perfstitch: interrupted\"", code, errOut, ExitInterrupted)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v to stop", d)
	}
}

// TestMainSignals: SIGTERM gives 143, SIGINT 130, and the run's own code
// stands when no signal came.
func TestMainSignals(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		want ExitCode
	}{{syscall.SIGINT, ExitInterrupted}, {syscall.SIGTERM, ExitTerminated}, {0, ExitError}} {
		code := mainSignals(os.Stderr, func(ctx context.Context) ExitCode {
			if c.sig == 0 {
				return ExitError
			}
			if err := syscall.Kill(os.Getpid(), c.sig); err != nil {
				t.Error(err)
			}
			select {
			case <-ctx.Done():
				return ExitInterrupted
			case <-time.After(5 * time.Second):
				return ExitOK
			}
		}, func(int) { t.Error("hard exit") })
		if code != c.want {
			t.Errorf("signal %v: exit %d, want %d", c.sig, code, c.want)
		}
	}
}

// TestStdinFileMode: a file-mode perf.data on stdin is read as a file,
// whether stdin is the file itself (-i - < perf.data) or a pipe (cat
// perf.data | perfstitch script -i -).
func TestStdinFileMode(t *testing.T) {
	dir := testfixture.Testdata(t, "zstd")
	data := filepath.Join(dir, "perf.data")
	args := []string{"script", "--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms")}
	want := runCmd(t, append(args, "-i", data)...)
	file, err := os.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		src, err := os.Open(data)
		if err == nil {
			_, _ = io.Copy(w, src)
			src.Close()
		}
		w.Close()
	}()
	for name, in := range map[string]*os.File{"file": file, "pipe": r} {
		f, out, errOut := testFactory()
		f.IO.In = in
		if code := Run(context.Background(), f, append(args, "-i", "-")); code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		if out.String() != want || !strings.Contains(want, "cpu-clock") {
			t.Errorf("%s: stdin output differs from -i %s", name, data)
		}
	}
}
