package cmd

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// This file compares report's sort keys and options with the goldens of
// testdata/srcline (a C program built with -g, so srcline has DWARF):
// perf 6.1's report-NAME.txt with --compat 6.1, perf 7.3.4's
// perf7/report-NAME.txt in the default dialect, byte for byte. The
// variants are the ones testdata/srcline/goldens.sh makes them with.

// srclinePending are the goldens not matched yet, with the reason.
var srclinePending = map[string]string{}

// goldenVariants reads the NAME OPTIONS lines of a goldens.sh.
func goldenVariants(t *testing.T, script string) [][]string {
	t.Helper()
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "cat <<'LIST'":
			in = true
		case line == "LIST":
			in = false
		case in && line != "":
			out = append(out, strings.Fields(line))
		}
	}
	if len(out) == 0 {
		t.Fatal("no variants in goldens.sh")
	}
	return out
}

func TestReportSrclineGoldens(t *testing.T) {
	dir := testfixture.Testdata(t, "srcline")
	for _, v := range goldenVariants(t, filepath.Join(dir, "goldens.sh")) {
		for _, dialect := range []struct{ golden, compat string }{
			{"report-" + v[0] + ".txt", "6.1"},
			{"perf7/report-" + v[0] + ".txt", "7.3"},
		} {
			t.Run(dialect.golden, func(t *testing.T) {
				if reason := srclinePending[dialect.golden]; reason != "" {
					t.Skip("pending: " + reason)
				}
				want, err := os.ReadFile(filepath.Join(dir, dialect.golden))
				if err != nil {
					t.Fatal(err)
				}
				args := append([]string{"report", "--format", "perf", "--compat", dialect.compat}, v[1:]...)
				args = append(args, "--symfs", filepath.Join(dir, "symfs"),
					"--kallsyms", filepath.Join(dir, "kallsyms"), "-i", filepath.Join(dir, "perf.data"))
				f, out, errOut := testFactory()
				if code := Run(context.Background(), f, args); code != ExitOK {
					t.Fatalf("%q: exit %d: %s", args, code, errOut)
				}
				if d := testfixture.FirstDiff(out.Bytes(), want); d != "" {
					t.Errorf("%q: first difference at %s", args, d)
				}
			})
		}
	}
}

// reportCorpusPending are the corpus goldens of testdata/report-corpus
// not matched yet, with the reason.
var reportCorpusPending = map[string]string{}

// TestReportCorpusOptions compares the report options that need no DWARF
// with perf's goldens of three corpus cases (cmd/testdata/report-corpus,
// made by its goldens.sh), in both dialects, byte for byte.
func TestReportCorpusOptions(t *testing.T) {
	gdir := filepath.Join("testdata", "report-corpus")
	variants := goldenVariants(t, filepath.Join(gdir, "goldens.sh"))
	for _, c := range testfixture.Corpus(t) {
		if _, err := os.Stat(filepath.Join(gdir, c.Name)); err != nil {
			continue
		}
		for _, v := range variants {
			for _, dialect := range []struct{ golden, compat string }{
				{c.Name + "/report-" + v[0] + ".txt", "6.1"},
				{c.Name + "/perf7/report-" + v[0] + ".txt", "7.3"},
			} {
				t.Run(dialect.golden, func(t *testing.T) {
					if reason := reportCorpusPending[dialect.golden]; reason != "" {
						t.Skip("pending: " + reason)
					}
					want, err := os.ReadFile(filepath.Join(gdir, dialect.golden))
					if err != nil {
						t.Fatal(err)
					}
					args := append([]string{"report", "--format", "perf", "--compat", dialect.compat}, v[1:]...)
					args = append(args, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, "-i", c.Data)
					f, out, errOut := testFactory()
					if code := Run(context.Background(), f, args); code != ExitOK {
						t.Fatalf("%q: exit %d: %s", args, code, errOut)
					}
					if d := testfixture.FirstDiff(out.Bytes(), want); d != "" {
						t.Errorf("%q: first difference at %s", args, d)
					}
				})
			}
		}
	}
}
