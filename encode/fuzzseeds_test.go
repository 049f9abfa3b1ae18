package encode

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

var fuzzSeeds = flag.Bool("fuzzseeds", false, "rewrite the fuzz seeds of decode and encode")

// TestFuzzSeeds makes the seeds of decode's FuzzFile and FuzzPipe and of
// FuzzRoundTrip: each testdata recording cut to its first record of each
// of eight types (without the build-id records), written by this package
// in file and pipe format, with a few small feature sections for fp, zstd
// compressed for zstd and big-endian for two-events. They are under 1.5 KB
// so that fuzzing mutates them rather than minimising. With -fuzzseeds it
// rewrites them; without, it checks that they are what it would write.
func TestFuzzSeeds(t *testing.T) {
	out := testfixture.ModuleRoot(t)
	for _, c := range []string{"fp", "pipe", "zstd", "two-events"} {
		for _, pipe := range []bool{false, true} {
			f, err := decode.Open(testfixture.Testdata(t, c, "perf.data"))
			if err != nil {
				t.Fatal(err)
			}
			rs := f.Records(decode.FileOrder)
			var recs []decode.Record
			kinds := map[decode.RecordType]int{}
			for rs.Next() {
				r := rs.Record()
				if kinds[r.Type()] >= 1 || r.Type() == decode.RecordTypeHeaderBuildID || len(recs) >= 8 {
					continue
				}
				kinds[r.Type()]++
				recs = append(recs, r.Clone())
			}
			var buf bytes.Buffer
			opts := Options{Attrs: f.Attrs, Pipe: pipe}
			if c == "fp" {
				m := f.Meta
				m.Features = nil
				for _, ft := range f.Meta.Features {
					switch ft {
					case decode.FeatureHostname, decode.FeatureOSRelease, decode.FeatureArch, decode.FeatureNrCPUs,
						decode.FeatureEventDesc, decode.FeatureSampleTime:
						m.Features = append(m.Features, ft)
					}
				}
				opts.Meta = &m
			}
			if c == "zstd" {
				opts.Compress = decode.RecordTypeCompressed
			}
			if c == "two-events" {
				opts.ByteOrder = binary.BigEndian
			}
			w, err := NewWriter(&buf, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				_ = w.WriteRecord(r)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			name := c + map[bool]string{false: "-file", true: "-pipe"}[pipe]
			q := "[]byte(" + strconv.Quote(buf.String()) + ")\n"
			write := func(dir, body string) {
				path := filepath.Join(out, dir, name)
				want := []byte("go test fuzz v1\n" + body)
				if !*fuzzSeeds {
					if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
						t.Errorf("%s is not the seed this test makes (err %v): rerun with -fuzzseeds", path, err)
					}
					return
				}
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if pipe {
				write("decode/testdata/fuzz/FuzzPipe", q)
			} else {
				write("decode/testdata/fuzz/FuzzFile", q)
				write("encode/testdata/fuzz/FuzzRoundTrip", q+"bool("+strconv.FormatBool(c == "fp")+")\n")
			}
		}
	}
}
