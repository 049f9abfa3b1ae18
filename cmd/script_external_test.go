package cmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// externalKnown lists the external recordings whose perf script text
// perfstitch does not reproduce yet, with the reason.
var externalKnown = map[string]string{
	"intel_pt-4.14": "perf synthesizes samples from Intel PT AUX data; not supported",
}

// TestScriptExternal runs perfstitch script and script -G on the foreign
// recordings of ../shared/external (other perf versions and
// architectures) that have perf 6.1 goldens. Cases in externalKnown are
// logged, every other case must be byte-identical.
func TestScriptExternal(t *testing.T) {
	shared := testfixture.SharedDir(t)
	dirs, _ := filepath.Glob(filepath.Join(shared, "external", "*", "*", "perf.data"))
	if len(dirs) == 0 {
		t.Skip("no external recordings")
	}
	// The goldens' own isolation (external/README.md): an empty symfs
	// and no kernel symbols.
	isolate := []string{"--compat", "6.1", "--symfs", t.TempDir(), "--kallsyms", os.DevNull}
	identical, total := 0, 0
	for _, data := range dirs {
		dir := filepath.Dir(data)
		name := filepath.Base(dir)
		for _, v := range []struct {
			golden string
			args   []string
		}{{"script.txt", nil}, {"script-G.txt", []string{"-G"}}} {
			want, err := os.ReadFile(filepath.Join(dir, v.golden))
			if err != nil {
				continue // perf 6.1 could not read this file
			}
			total++
			f, out, errOut := testFactory()
			args := append(append([]string{"script"}, isolate...), v.args...)
			code := Run(context.Background(), f, append(args, data))
			d := testfixture.FirstDiff(out.Bytes(), want)
			if code == ExitOK && d == "" {
				identical++
				if why, ok := externalKnown[name]; ok {
					t.Logf("%s/%s now identical; remove it from externalKnown (%s)", name, v.golden, why)
				}
				continue
			}
			if why, ok := externalKnown[name]; ok {
				t.Logf("%s/%s differs (known: %s)", name, v.golden, why)
				continue
			}
			t.Errorf("%s/%s: exit %d, stderr %q, first difference at %s", name, v.golden, code, errOut, d)
		}
	}
	t.Logf("%d of %d external goldens byte-identical", identical, total)
}
