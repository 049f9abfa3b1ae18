package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/iostreams"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/symbolize"
)

// testFactory returns a Factory on test streams whose environment is
// empty (no $HOME, so no build-id cache).
func testFactory() (*Factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := iostreams.Test()
	return &Factory{IO: ios, Getenv: func(string) string { return "" }}, out, errOut
}

// parseOptions builds a command with newCmd on a test factory, runs it on
// the space-separated args with a run function that only keeps its
// options, and returns them. With wantErr set it checks that the command
// fails with an error containing wantErr instead and returns nil.
func parseOptions[T any](t *testing.T, newCmd func(*Factory, func(*T) error) *cobra.Command, args, wantErr string) *T {
	t.Helper()
	f, _, _ := testFactory()
	var got *T
	cmd := newCmd(f, func(o *T) error { got = o; return nil })
	cmd.SetArgs(strings.Fields(args))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want one containing %q", err, wantErr)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatalf("%q: the run function was not called", args)
	}
	return got
}

func TestNewCmdScript(t *testing.T) {
	fields, _ := output.ParseFields("comm,tid,ip")
	var cpus CPUList
	_ = cpus.Set("0,2-3")
	var tr TimeRanges
	_ = tr.Set("10.5,")
	tests := []struct {
		name    string
		args    string
		want    ScriptOptions
		wantErr string
	}{
		{name: "positional input", args: "perf.data", want: ScriptOptions{CommonOptions: CommonOptions{Input: "perf.data"}, MaxStack: 127}},
		{name: "-i", args: "-i x.data --symfs s --kallsyms k --maps m", want: ScriptOptions{CommonOptions: CommonOptions{Input: "x.data", Symfs: "s", Kallsyms: "k", Maps: "m"}, MaxStack: 127}},
		{name: "stdin", args: "-i -", want: ScriptOptions{CommonOptions: CommonOptions{Input: "-"}, MaxStack: 127}},
		{name: "text flags", args: "-F comm,tid,ip -G --ns --reltime --max-stack 5 --show-task-events --show-mmap-events --show-lost-events",
			want: ScriptOptions{Fields: fields, HideCallchain: true, NS: true, RelTime: true, MaxStack: 5, ShowTaskEvents: true, ShowMmapEvents: true, ShowLostEvents: true}},
		{name: "filters", args: "--pid 1,2 --tid 3 -c a,b -C 0,2-3 --time 10.5, --event cpu-clock --no-merge-callchains --no-demangle",
			want: ScriptOptions{CommonOptions: CommonOptions{NoMergeCallchains: true, NoDemangle: true,
				Filter: Filter{PIDs: IntList{1, 2}, TIDs: IntList{3}, Comms: StringList{"a", "b"}, CPUs: cpus, Time: tr, Event: "cpu-clock"}}, MaxStack: 127}},
		{name: "collapsed", args: "--format collapsed --collapse-tid --all --addrs --event-filter task-clock",
			want: ScriptOptions{Format: output.FormatCollapsed, MaxStack: 127, Collapsed: output.CollapsedOptions{TID: true, All: true, Addrs: true, EventFilter: "task-clock"}}},
		{name: "max-pending", args: "--max-pending 64", want: ScriptOptions{CommonOptions: CommonOptions{MaxPending: 64}, MaxStack: 127}},
		{name: "bad max-pending", args: "--max-pending -1", wantErr: "--max-pending"},
		{name: "json", args: "--format json -G", want: ScriptOptions{Format: output.FormatJSON, HideCallchain: true, MaxStack: 127}},
		{name: "bad format", args: "--format xml", wantErr: "unknown format"},
		{name: "bad field", args: "-F comm,bogus", wantErr: "invalid field"},
		{name: "mixed fields", args: "-F comm,+tid", wantErr: "cannot mix"},
		{name: "bad pid", args: "--pid x", wantErr: "not an integer"},
		{name: "bad cpu", args: "-C 3-1", wantErr: "bad CPU range"},
		{name: "bad time", args: "--time 12", wantErr: "bad time range"},
		{name: "bad percent", args: "--time 10%/11", wantErr: "bad percent"},
		{name: "two inputs", args: "a b", wantErr: "accepts at most 1 arg"},
		{name: "input twice", args: "-i a b", wantErr: "input given twice"},
		{name: "collapsed flag on text", args: "--kernel", wantErr: "only to --format collapsed"},
		{name: "text flag on json", args: "--format json -F comm", wantErr: "only to --format text"},
		{name: "max-stack 0", args: "--max-stack 0", wantErr: "at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseOptions(t, NewCmdScript, tt.args, tt.wantErr)
			if got == nil {
				return
			}
			opt := cmpopts.IgnoreFields(CommonOptions{}, "IO", "Getenv")
			if diff := cmp.Diff(tt.want, *got, opt); diff != "" {
				t.Errorf("options mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScriptExitCodes checks usage errors exit 2, runtime errors 1, both
// with one line on stderr.
func TestScriptExitCodes(t *testing.T) {
	tests := []struct {
		args    []string
		code    ExitCode
		errLine string
	}{
		{[]string{"script", "--format", "xml"}, ExitUsage, "unknown format"},
		{[]string{"script", "--nope"}, ExitUsage, "unknown flag"},
		{[]string{"script", "--compat", "5.4"}, ExitUsage, `unknown --compat version "5.4" (known: 7.3, 6.1)`},
		{[]string{"report", "--compat", "6.10"}, ExitUsage, "known: 7.3, 6.1"},
		{[]string{"stats", "--compat", "7"}, ExitUsage, "known: 7.3, 6.1"},
		{[]string{"script", filepath.Join(t.TempDir(), "missing.data")}, ExitError, "no such file"},
		{[]string{"script", "-F", "comm,cpu,ip", testfixture.Testdata(t, "fp", "perf.data"), "--time", "5%/3"}, ExitOK, ""},
	}
	for _, tt := range tests {
		f, _, errOut := testFactory()
		code := Run(context.Background(), f, tt.args)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tt.args, code, tt.code, errOut)
		}
		if tt.errLine != "" && !strings.Contains(errOut.String(), tt.errLine) {
			t.Errorf("%v: stderr %q, want it to mention %q", tt.args, errOut, tt.errLine)
		}
	}
}

// fixtureRuns are the perf script invocations with goldens in each
// testdata case (and, for collapsed, in cmd/testdata).
var fixtureRuns = []struct {
	golden string // in the case folder, or cmd/testdata/CASE.NAME when prefixed by "cmd:"
	args   []string
}{
	{"script.txt", nil},
	{"script-F.txt", []string{"-F", "comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period"}},
	{"script-G.txt", []string{"-G"}},
	{"script-events.txt", []string{"-G", "--show-task-events", "--show-mmap-events"}},
	{"cmd:collapsed.txt", []string{"--format", "collapsed"}},
	{"cmd:collapsed-all.txt", []string{"--format", "collapsed", "--all"}},
	{"cmd:json.jsonl", []string{"--format", "json", "--show-task-events", "--show-mmap-events"}},
}

// TestScriptRun runs perfstitch script on the testdata recordings and
// compares with perf 6.1's goldens (collapsed: stackcollapse-perf.pl run
// on perf's script.txt; JSON: reviewed perfstitch output), as a TTY and
// not.
func TestScriptRun(t *testing.T) {
	for _, c := range []string{"fp", "pipe", "zstd", "two-events"} {
		dir := testfixture.Testdata(t, c)
		for _, r := range fixtureRuns {
			for _, tty := range []bool{false, true} {
				name := c + "/" + strings.TrimPrefix(r.golden, "cmd:")
				if tty {
					name += "/tty"
				}
				t.Run(name, func(t *testing.T) {
					f, out, errOut := testFactory()
					f.IO.OutIsTerminal, f.IO.ErrIsTerminal = tty, tty
					var opts *ScriptOptions
					cmd := NewCmdScript(f, func(o *ScriptOptions) error { opts = o; return nil })
					cmd.SetArgs(append([]string{"--compat", "6.1", "-i", filepath.Join(dir, "perf.data"), "--symfs", filepath.Join(dir, "symfs"),
						"--kallsyms", testfixture.Testdata(t, "kallsyms")}, r.args...))
					if err := cmd.Execute(); err != nil {
						t.Fatal(err)
					}
					if err := scriptRun(context.Background(), opts); err != nil {
						t.Fatal(err)
					}
					path := filepath.Join(dir, r.golden)
					if g, ok := strings.CutPrefix(r.golden, "cmd:"); ok {
						path = filepath.Join("testdata", c+"."+g)
						if testfixture.Update() && !tty && strings.HasSuffix(g, ".jsonl") {
							if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
								t.Fatal(err)
							}
						}
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					if d := testfixture.FirstDiff(out.Bytes(), want); d != "" {
						t.Errorf("%s differs at %s", path, d)
					}
					wantErr := ""
					if c == "two-events" && strings.HasPrefix(r.golden, "cmd:collapsed") {
						// stackcollapse-perf.pl's note, naming the event it drops.
						wantErr = "Filtering for events of type: task-clock\n"
					}
					if errOut.String() != wantErr {
						t.Errorf("stderr: %q, want %q", errOut, wantErr)
					}
				})
			}
		}
	}
}

// TestScriptJSONSchema checks the JSON goldens of TestScriptRun against
// docs/json.schema.json.
func TestScriptJSONSchema(t *testing.T) {
	sch := testfixture.JSONSchema(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json.jsonl"))
	if len(files) == 0 {
		t.Fatal("no JSON goldens")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
			if err != nil {
				t.Fatalf("%s:%d: %v", name, i+1, err)
			}
			if err := sch.Validate(v); err != nil {
				t.Errorf("%s:%d: %v", name, i+1, err)
			}
		}
	}
}

// epipeWriter accepts n bytes, then fails like a closed pipe.
type epipeWriter struct{ n int }

func (w *epipeWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, syscall.EPIPE
	}
	w.n -= len(p)
	return len(p), nil
}

// TestScriptClosedStdout: `perfstitch script | head` ends quietly with
// status 0 when the reader goes away.
func TestScriptClosedStdout(t *testing.T) {
	f, _, errOut := testFactory()
	f.IO.Out = &epipeWriter{n: 100}
	dir := testfixture.Testdata(t, "fp")
	code := Run(context.Background(), f, []string{"script", "--compat", "6.1", "--symfs", filepath.Join(dir, "symfs"), "--max-stack", "2", filepath.Join(dir, "perf.data")})
	if code != ExitOK || errOut.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errOut)
	}
}

// TestScriptProgress: the progress bar goes to stderr only when stderr is
// a terminal (and the input is big enough), never into the data.
func TestScriptProgress(t *testing.T) {
	dir := testfixture.Testdata(t, "fp")
	want, err := os.ReadFile(filepath.Join(dir, "script.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tty := range []bool{false, true} {
		f, out, errOut := testFactory()
		f.IO.ErrIsTerminal = tty
		opts := &ScriptOptions{CommonOptions: CommonOptions{IO: f.IO, Getenv: f.Getenv, ProgressThreshold: 1,
			Input: filepath.Join(dir, "perf.data"), Symfs: filepath.Join(dir, "symfs"), Kallsyms: testfixture.Testdata(t, "kallsyms"), Compat: compat.Perf61},
			MaxStack: symbolize.DefaultMaxStack}
		if err := scriptRun(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		if d := testfixture.FirstDiff(out.Bytes(), want); d != "" {
			t.Errorf("tty=%v: output differs at %s", tty, d)
		}
		if got := errOut.Len() > 0; got != tty {
			t.Errorf("tty=%v: stderr %q", tty, errOut)
		}
	}
}
