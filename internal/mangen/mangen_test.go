package mangen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

func tree() *cobra.Command {
	root := &cobra.Command{Use: "tool <command> [flags]", Short: "A tool", Version: "1.0"}
	root.AddCommand(
		&cobra.Command{Use: "run", Short: "Run it", Run: func(*cobra.Command, []string) {}},
		&cobra.Command{Use: "secret", Short: "Hidden", Hidden: true, Run: func(*cobra.Command, []string) {}},
	)
	return root
}

func TestPages(t *testing.T) {
	pages, err := Pages(tree(), time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range pages {
		names = append(names, name)
	}
	want := []string{"tool-completion-bash.1", "tool-completion-fish.1", "tool-completion-powershell.1",
		"tool-completion-zsh.1", "tool-completion.1", "tool-run.1", "tool.1"}
	if !equalSorted(names, want) {
		t.Errorf("pages %v, want %v", names, want)
	}
	root := string(pages["tool.1"])
	for _, s := range []string{`.TH "TOOL" "1" "Nov 2026" "tool" "tool manual"`, `\fB--version\fP`, `\fBtool-run(1)\fP`, `\fBtool <command> [flags]\fP`} {
		if !strings.Contains(root, s) {
			t.Errorf("tool.1 lacks %q:\n%s", s, root)
		}
	}
	if strings.Contains(root, "Auto generated") {
		t.Errorf("tool.1 has the auto-generated footer:\n%s", root)
	}
}

func TestSameText(t *testing.T) {
	a := []byte(".nh\n.TH \"TOOL\" \"1\" \"Nov 2026\" \"tool\" \"tool manual\"\nbody\n")
	tests := []struct {
		name string
		b    string
		want bool
	}{
		{"identical", string(a), true},
		{"other date", ".nh\n.TH \"TOOL\" \"1\" \"Jan 2027\" \"tool\" \"tool manual\"\nbody\n", true},
		{"other body", ".nh\n.TH \"TOOL\" \"1\" \"Nov 2026\" \"tool\" \"tool manual\"\nbody2\n", false},
		{"other title", ".nh\n.TH \"TOOL2\" \"1\" \"Nov 2026\" \"tool\" \"tool manual\"\nbody\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameText(a, []byte(tt.b)); got != tt.want {
				t.Errorf("SameText = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWriteDiff(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man")
	nov, err := Pages(tree(), time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if stale, err := Diff(dir, nov); err != nil || len(stale) != len(nov) {
		t.Fatalf("Diff on a missing dir = %v, %v; want all %d pages", stale, err, len(nov))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool-old.1"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if stale, _ := Diff(dir, nov); len(stale) != len(nov)+1 || !slices.Contains(stale, "tool-old.1") {
		t.Errorf("Diff = %v, want every page plus tool-old.1", stale)
	}
	if err := Write(dir, nov); err != nil {
		t.Fatal(err)
	}
	if stale, err := Diff(dir, nov); err != nil || len(stale) != 0 {
		t.Errorf("Diff after Write = %v, %v; want none", stale, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tool-old.1")); !os.IsNotExist(err) {
		t.Errorf("tool-old.1 not removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "README")); err != nil {
		t.Errorf("README removed: %v", err)
	}

	// A later month with the same text leaves the files (and their dates) alone.
	jan, err := Pages(tree(), time.Date(2027, 1, 5, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if stale, _ := Diff(dir, jan); len(stale) != 0 {
		t.Errorf("Diff with only the date changed = %v, want none", stale)
	}
	if err := Write(dir, jan); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "tool.1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"Nov 2026"`) {
		t.Errorf("tool.1 was rewritten for a date-only change:\n%s", b)
	}
}

func equalSorted(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
