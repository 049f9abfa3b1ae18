package testfixture

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Update reports whether the tests run with -update, which rewrites the
// goldens perfstitch made (never those perf made).
func Update() bool { return *update }

// Golden compares got with the golden file at path; with -update it
// rewrites the file (creating its folder) instead. Use it only for goldens
// perfstitch made; compare with perf's own output with [MatchFile].
func Golden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	MatchFile(tb, path, got)
}

// MatchFile reports the first line where got differs from the file at
// path, which -update leaves alone.
func MatchFile(tb testing.TB, path string, got []byte) {
	tb.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Errorf("golden: %v (run go test -update to create a golden perfstitch makes)", err)
		return
	}
	if d := FirstDiff(got, want); d != "" {
		tb.Errorf("%s: first difference at %s", path, d)
	}
}

// FirstDiff describes the first line where got and want differ, "" if
// they are equal.
func FirstDiff(got, want []byte) string {
	if bytes.Equal(got, want) {
		return ""
	}
	g := strings.SplitAfter(string(got), "\n")
	w := strings.SplitAfter(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n\thave " + quote(gl) + "\n\twant " + quote(wl)
		}
	}
	return "outputs differ"
}

func quote(s string) string {
	if s == "" {
		return "(end of output)"
	}
	return "\"" + strings.TrimSuffix(strings.ReplaceAll(s, "\t", "\\t"), "\n") + "\""
}
