package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestScriptZstdLevels prints the recordings perf 6.1 made with -z at the
// default level (1), 19 and the "ultra" level 22, whose zstd window
// (128 MiB) is the largest perf accepts: every sample, byte for byte as
// perf 6.1 and perf 7.3.4 print them.
func TestScriptZstdLevels(t *testing.T) {
	runs := []struct {
		dir, golden, compat string
	}{
		{"zstd", "script.txt", "6.1"},
		{"zstd19", "script.txt", "6.1"},
		{"zstd19", "perf7/script.txt", "7.3"},
		{"zstd22", "script.txt", "6.1"},
		{"zstd22", "perf7/script.txt", "7.3"},
	}
	for _, r := range runs {
		t.Run(r.dir+"/"+r.golden, func(t *testing.T) {
			dir := testfixture.Testdata(t, r.dir)
			got := runCmd(t, "script", "--compat", r.compat, "-i", filepath.Join(dir, "perf.data"),
				"--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms"))
			want, err := os.ReadFile(filepath.Join(dir, r.golden))
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("script differs from %s (%d bytes, want %d)", r.golden, len(got), len(want))
			}
		})
	}
}
