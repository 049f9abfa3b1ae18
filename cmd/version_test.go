package cmd

import (
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/buildinfo"
	"github.com/perfstitch/perfstitch/internal/iostreams"
)

func TestVersion(t *testing.T) {
	want := buildinfo.Get().String() + "\n"
	tests := []struct {
		name     string
		args     []string
		wantCode ExitCode
		wantOut  string
		wantErr  string
	}{
		{name: "command", args: []string{"version"}, wantOut: want},
		{name: "flag", args: []string{"--version"}, wantOut: want},
		{name: "short flag", args: []string{"-v"}, wantOut: want},
		{name: "extra argument", args: []string{"version", "x"}, wantCode: ExitUsage, wantErr: "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			io, _, out, errOut := iostreams.Test()
			code := Run(t.Context(), &Factory{IO: io}, tt.args)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.wantCode, errOut)
			}
			if got := out.String(); got != tt.wantOut {
				t.Errorf("stdout:\n\thave %q\n\twant %q", got, tt.wantOut)
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.wantErr)
			}
		})
	}
}

func TestCompletion(t *testing.T) {
	tests := []struct {
		shell string
		want  string // a line only that shell's script has
	}{
		{"bash", "complete -o default -F __start_perfstitch perfstitch"},
		{"zsh", "#compdef perfstitch"},
		{"fish", "complete -c perfstitch"},
		{"powershell", "Register-ArgumentCompleter"},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			io, _, out, errOut := iostreams.Test()
			if code := Run(t.Context(), &Factory{IO: io}, []string{"completion", tt.shell}); code != ExitOK {
				t.Fatalf("exit code %d, stderr %q", code, errOut)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("completion %s output lacks %q", tt.shell, tt.want)
			}
		})
	}
}

// TestCompletionCandidates asks the completion machinery what the shell
// scripts ask it (the hidden __complete command) and checks the answers.
func TestCompletionCandidates(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // candidates that must be offered
		not  []string // candidates that must not be
	}{
		{name: "commands", args: []string{"__complete", ""}, want: []string{"script", "report", "stats", "version", "completion"}, not: []string{"gen-man"}},
		{name: "prefix", args: []string{"__complete", "sta"}, want: []string{"stats"}, not: []string{"script"}},
		{name: "script format", args: []string{"__complete", "script", "--format", ""}, want: []string{"text", "json", "collapsed"}},
		{name: "completion shells", args: []string{"__complete", "completion", ""}, want: []string{"bash", "zsh", "fish", "powershell"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			io, _, out, errOut := iostreams.Test()
			if code := Run(t.Context(), &Factory{IO: io}, tt.args); code != ExitOK {
				t.Fatalf("exit code %d, stderr %q", code, errOut)
			}
			got := map[string]bool{}
			for _, l := range strings.Split(out.String(), "\n") {
				if l == "" || strings.HasPrefix(l, ":") {
					continue // the directive line
				}
				name, _, _ := strings.Cut(l, "\t")
				got[name] = true
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("%v: %q not offered; got %q", tt.args, w, out)
				}
			}
			for _, n := range tt.not {
				if got[n] {
					t.Errorf("%v: %q offered", tt.args, n)
				}
			}
		})
	}
}
