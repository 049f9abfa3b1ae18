package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"go/build"
	"go/format"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/perfstitch/perfstitch"

// layers ranks the top-level packages along the pipeline. A package may
// depend, directly or through any chain of imports, only on packages of its
// own rank or lower (and not on a package it is kept apart from).
// Subpackages take the rank of their top-level directory. internal/* has
// no rank: any package may import it, but what it imports counts against
// the importer.
var layers = map[string]int{
	"decode":    0,
	"encode":    0, // the writer: the inverse of decode (used by the simulate command)
	"stitch":    1,
	"symbolize": 2,
	"session":   3, // the run loop: decode, stitch, symbolize and filter, for any consumer
	"inject":    3, // the rewriter: decode, stitch and encode, without symbolizing
	"output":    3, // the sinks (with output/report and output/stats): what a session yields
	"cmd":       4,
	".":         5, // main
}

// apart lists pairs of top-level packages of one rank that must not
// depend on each other either: a session yields events that cmd hands to
// output's sinks, so neither knows the other.
var apart = [][2]string{{"session", "output"}}

// isApart reports whether the packages a and b (module-relative) belong
// to top-level packages kept apart.
func isApart(a, b string) bool {
	ta, _, _ := strings.Cut(a, "/")
	tb, _, _ := strings.Cut(b, "/")
	for _, p := range apart {
		if ta == p[0] && tb == p[1] || ta == p[1] && tb == p[0] {
			return true
		}
	}
	return false
}

// toolRank is the rank of any other top-level directory (tools,
// generators): such a package may import every layer, and no layer may
// import it.
const toolRank = 6

// rank returns the rank of the module-relative package directory rel, and
// false for internal packages.
func rank(rel string) (int, bool) {
	top, _, _ := strings.Cut(rel, "/")
	if top == "internal" {
		return 0, false
	}
	if r, ok := layers[top]; ok {
		return r, true
	}
	return toolRank, true
}

// modulePackages returns the non-test imports of every package in the
// module, keyed by module-relative directory ("." for the root), with
// imports outside the module dropped.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := make(map[string][]string)
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
			return filepath.SkipDir
		}
		bp, err := build.Default.ImportDir(p, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(p)
		var imports []string
		for _, imp := range bp.Imports {
			if imp == module {
				imports = append(imports, ".")
			} else if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, r)
			}
		}
		pkgs[rel] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestLayering enforces decode → stitch → symbolize → session, output →
// cmd → main:
// no package reaches, through any chain of imports, a package further
// right than itself.
func TestLayering(t *testing.T) {
	pkgs := modulePackages(t)
	for _, want := range []string{".", "cmd", "decode", "session", "stitch", "symbolize"} {
		if _, ok := pkgs[want]; !ok {
			t.Fatalf("package %q not found; is the test running at the module root?", want)
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestViolations checks the rule itself on made-up import graphs.
func TestViolations(t *testing.T) {
	tests := []struct {
		name string
		pkgs map[string][]string
		want []string
	}{
		{
			name: "pipeline order",
			pkgs: map[string][]string{
				".": {"cmd"}, "cmd": {"output", "internal/iostreams"}, "output": {"symbolize"},
				"symbolize": {"stitch"}, "stitch": {"decode"}, "decode": {"decode/layout"}, "decode/layout": nil,
				"internal/iostreams": nil, "tools/gen": {"decode", "cmd"},
			},
		},
		{
			name: "direct backward import",
			pkgs: map[string][]string{"decode": {"stitch"}, "stitch": nil},
			want: []string{"decode → stitch"},
		},
		{
			name: "through internal",
			pkgs: map[string][]string{"stitch": {"internal/x"}, "internal/x": {"output/text"}, "output/text": nil},
			want: []string{"stitch → internal/x → output/text"},
		},
		{
			name: "layer imports a tool",
			pkgs: map[string][]string{"cmd": {"tools/gen"}, "tools/gen": nil},
			want: []string{"cmd → tools/gen"},
		},
		{
			name: "session and output apart",
			pkgs: map[string][]string{"session": {"symbolize"}, "output/report": {"symbolize", "internal/x"}, "internal/x": {"session"}, "symbolize": nil},
			want: []string{"output/report → internal/x → session"},
		},
		{
			name: "main from a layer",
			pkgs: map[string][]string{"output": {"."}, ".": nil},
			want: []string{"output → ."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violations(tt.pkgs)
			if len(got) != len(tt.want) {
				t.Fatalf("violations = %q, want %d containing %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.Contains(got[i], "(import chain "+tt.want[i]+")") {
					t.Errorf("violation %q does not show chain %q", got[i], tt.want[i])
				}
			}
		})
	}
}

// violations returns one message for each package that depends on a
// package of a higher rank (or one it is kept apart from), naming the
// shortest import chain.
func violations(pkgs map[string][]string) []string {
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	var out []string
	for _, p := range names {
		pr, ok := rank(p)
		if !ok {
			continue
		}
		// Breadth-first over the import graph, remembering how each
		// package was reached so a violation can show the chain.
		via := map[string]string{p: ""}
		queue := []string{p}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			for _, imp := range pkgs[cur] {
				if _, seen := via[imp]; seen {
					continue
				}
				via[imp] = cur
				queue = append(queue, imp)
				if ir, ok := rank(imp); ok && (ir > pr || isApart(p, imp)) {
					chain := []string{imp}
					for c := cur; c != ""; c = via[c] {
						chain = append(chain, c)
					}
					slices.Reverse(chain)
					out = append(out, fmt.Sprintf("%s must not depend on %s (import chain %s): the pipeline is decode → stitch → symbolize → session, output → cmd",
						pkgPath(p), pkgPath(imp), strings.Join(chain, " → ")))
				}
			}
		}
	}
	return out
}

func pkgPath(rel string) string {
	if rel == "." {
		return module
	}
	return path.Join(module, rel)
}

// TestGofmt fails for every Go file in the module that gofmt would change.
func TestGofmt(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		formatted, err := format.Source(src)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if !bytes.Equal(src, formatted) {
			t.Errorf("%s is not gofmt-ed; run gofmt -w %s", p, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
