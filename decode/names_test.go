package decode_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// scriptGRE matches a perf script -G sample line up to the event name:
// "comm pid [cpu] time: period name: ip sym (dso)".
var scriptGRE = regexp.MustCompile(`^.*?\s\d+\.\d{6}:\s+\d+\s+(\S+):\s+[0-9a-f]+ `)

// TestExternalEventNames checks the event name of every sample, in time
// order, against the names perf script -G printed for the foreign
// recordings (EVENT_DESC names, or names derived from type and config).
func TestExternalEventNames(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(testfixture.SharedDir(t), "external", "*", "*", "script-G.txt"))
	for _, p := range paths {
		dir := filepath.Dir(p)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			fh, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			var want []string
			sc := bufio.NewScanner(fh)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				if m := scriptGRE.FindStringSubmatch(sc.Text()); m != nil {
					want = append(want, m[1])
				}
			}
			if len(want) == 0 {
				t.Skip("perf printed no samples")
			}
			f, err := decode.Open(filepath.Join(dir, "perf.data"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// perf synthesizes samples of events not in the file from AUX
			// traces (intel_pt: "branches", "psb", ...); leave those out.
			names := map[string]bool{}
			for _, a := range f.Attrs {
				names[a.Name] = true
			}
			want = slices.DeleteFunc(want, func(n string) bool { return !names[n] })
			rs := f.Records(decode.TimeOrder)
			var got []string
			for rs.Next() {
				if s, ok := rs.Record().(*decode.Sample); ok {
					got = append(got, s.Attr.Name)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d samples, perf script printed %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("sample %d: event %q, perf %q", i, got[i], want[i])
				}
			}
		})
	}
}
