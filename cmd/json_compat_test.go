package cmd

import (
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestJSONSameInEveryDialect checks that script --format json does not
// depend on --compat: both dialects carry the full symbol names and the
// inline frames (docs/json.md), where the text output of 6.1 has neither.
func TestJSONSameInEveryDialect(t *testing.T) {
	for _, name := range []string{"cpp-templates", "go-goroutines", "dwarf", "c-nopie"} {
		c := testfixture.CorpusCaseNamed(t, name)
		base := []string{"script", "--format", "json", "-i", c.Data, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms}
		want := runCmd(t, append(base, "--compat", "7.3")...)
		got := runCmd(t, append(base, "--compat", "6.1")...)
		if d := testfixture.FirstDiff([]byte(got), []byte(want)); d != "" {
			t.Errorf("%s: --compat 6.1 JSON differs from 7.3 at %s", name, d)
		}
		// The control: the dialects do symbolize this case differently.
		text := []string{"script", "-i", c.Data, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, "--compat"}
		if runCmd(t, append(text, "7.3")...) == runCmd(t, append(text, "6.1")...) {
			t.Errorf("%s: the text output is the same in both dialects, so this case shows nothing", name)
		}
	}
}
