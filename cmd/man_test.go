package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfstitch/perfstitch/internal/iostreams"
	"github.com/perfstitch/perfstitch/internal/mangen"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestManPagesCurrent fails when docs/man no longer matches the command
// tree: a command, flag or help text changed without `go generate ./cmd`.
func TestManPagesCurrent(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	pages, err := mangen.Pages(NewCmdRoot(&Factory{IO: io}), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	stale, err := mangen.Diff(filepath.Join("..", "docs", "man"), pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range stale {
		t.Errorf("docs/man/%s is stale", name)
	}
	if len(stale) > 0 {
		t.Log("regenerate the man pages with: go generate ./cmd")
	}
}

// TestGenMan runs the hidden gen-man command into an empty directory and
// checks that it writes the pages the staleness test expects.
func TestGenMan(t *testing.T) {
	dir := t.TempDir()
	io, _, out, errOut := iostreams.Test()
	f := &Factory{IO: io}
	if code := Run(t.Context(), f, []string{"gen-man", dir}); code != ExitOK {
		t.Fatalf("gen-man exit code %d, stderr %q", code, errOut)
	}
	if out.Len() != 0 {
		t.Errorf("gen-man wrote to stdout: %q", out)
	}
	pages, err := mangen.Pages(NewCmdRoot(f), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	stale, err := mangen.Diff(dir, pages)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 {
		t.Errorf("gen-man output differs from mangen.Pages: %v", stale)
	}
	for _, name := range []string{"perfstitch.1", "perfstitch-script.1", "perfstitch-version.1", "perfstitch-completion-bash.1"} {
		if _, ok := pages[name]; !ok {
			t.Errorf("no page %s", name)
		}
	}
	if _, ok := pages["perfstitch-gen-man.1"]; ok {
		t.Error("the hidden gen-man command has a page")
	}
}

// TestManPagesPackaged: nfpm expands no globs for the RPM's doc files, so
// .goreleaser.yaml lists every man page by name; a page missing there
// would be left out of the RPM (release-check.sh would catch it, but
// only when it is run).
func TestManPagesPackaged(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join(testfixture.ModuleRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(testfixture.ModuleRoot(t), "docs", "man", "*.1"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no man pages: %v", err)
	}
	for _, p := range pages {
		if entry := "src: manpages/" + filepath.Base(p) + ".gz"; !strings.Contains(string(cfg), entry) {
			t.Errorf(".goreleaser.yaml lacks %q (the RPM's man page list)", entry)
		}
	}
}
