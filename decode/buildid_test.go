package decode_test

import (
	"encoding/hex"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// TestCorpusBuildIDs compares the BUILD_ID feature with perf buildid-list
// for the recordings that have a build-id table.
func TestCorpusBuildIDs(t *testing.T) {
	for _, c := range recordings(t) {
		t.Run(c.Name, func(t *testing.T) {
			golden, err := os.ReadFile(c.Golden("buildid-list.txt"))
			if err != nil {
				t.Skip(err)
			}
			f, err := decode.Open(c.Data())
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if len(f.Meta.BuildIDs) == 0 {
				t.Skip("no build-id table")
			}
			var got []string
			for _, b := range f.Meta.BuildIDs {
				got = append(got, hex.EncodeToString(b.ID)+" "+b.Filename)
			}
			want := strings.Split(strings.TrimSpace(string(golden)), "\n")
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("build ids:\n%s\nperf buildid-list:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
