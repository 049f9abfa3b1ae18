package encode

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestRoundTripExternal re-encodes the foreign recordings of
// ../shared/external (perf 3.x to 6.16, several architectures, file and pipe
// mode) that the decoder reads without error, and checks that they decode
// to the same attrs, features and records.
func TestRoundTripExternal(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes and re-encodes 36 recordings")
	}
	for _, path := range testfixture.External(t) {
		if filepath.Base(path) != "perf.data" {
			continue
		}
		rel, _ := filepath.Rel(filepath.Join(testfixture.SharedDir(t), "external"), path)
		t.Run(strings.TrimSuffix(rel, "/perf.data"), func(t *testing.T) {
			f, err := decode.Open(path)
			if err != nil {
				t.Skipf("decoder refuses it: %v", err)
			}
			defer f.Close()
			rs := f.Records(decode.FileOrder)
			var recs []decode.Record
			for rs.Next() {
				if a, ok := rs.Record().(*decode.Auxtrace); ok && a.AuxSize > 0 {
					t.Skip("AUXTRACE data is not kept by the decoder, so it cannot be written again")
				}
				recs = append(recs, rs.Record().Clone())
			}
			if err := rs.Err(); err != nil {
				// e.g. a pipe capture with perf's stderr text appended:
				// the records before the damage are written again.
				t.Logf("decoder stops at %v; re-encoding the %d records before", err, len(recs))
			}
			if len(rs.Stats().Warnings) > 0 {
				t.Skipf("decoder warns: %v", rs.Stats().Warnings[0])
			}
			checkRoundTrip(t, decoded{f: f, recs: recs}, fewVariants...)
		})
	}
}
