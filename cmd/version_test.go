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
