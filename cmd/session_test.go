package cmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestTruncatedInput: a perf.data cut short fails every command with an
// error that names the file, where it ends and how big it is.
func TestTruncatedInput(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testfixture.Testdata(t, "fp"), "perf.data"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		size int
		want string
	}{
		{"in a sample", 3000, `^perfstitch: \S+/cut\.data: truncated at byte 2952 \(file is 3000 bytes\): SAMPLE record at 0xb88: size\n$`},
		{"in the attrs", 200, `^perfstitch: \S+/cut\.data: truncated at byte 120 \(file is 200 bytes\): header at 0x78: attrs: .*\n$`},
		{"in the header", 50, `^perfstitch: \S+/cut\.data: truncated at byte 16 \(file is 50 bytes\): header at 0x10: header\n$`},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "cut.data")
		if err := os.WriteFile(path, src[:tt.size], 0o644); err != nil {
			t.Fatal(err)
		}
		for _, command := range []string{"script", "report", "stats"} {
			f, _, errOut := testFactory()
			code := Run(context.Background(), f, []string{command, "-q", path})
			if code != ExitError || !regexp.MustCompile(tt.want).Match(errOut.Bytes()) {
				t.Errorf("%s: %s: exit %d, stderr %q; want exit %d and %s", tt.name, command, code, errOut, ExitError, tt.want)
			}
		}
	}
}

func TestInputName(t *testing.T) {
	tests := []struct {
		input string
		size  int64
		want  string
	}{
		{"-", -1, "stdin"},
		{"", -1, "stdin"},
		{"", 100, "perf.data"},
		{"x.data", 100, "x.data"},
		{"fifo", -1, "fifo"},
	}
	for _, tt := range tests {
		if got := inputName(tt.input, tt.size); got != tt.want {
			t.Errorf("inputName(%q, %d) = %q, want %q", tt.input, tt.size, got, tt.want)
		}
	}
}
