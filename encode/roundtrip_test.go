package encode

import (
	"bytes"
	"encoding/binary"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// decoded is a whole file read in file order.
type decoded struct {
	f    *decode.File
	recs []decode.Record
}

// decodeFile reads every record of the file at path (cloned) in file order.
func decodeFile(tb testing.TB, path string) decoded {
	tb.Helper()
	f, err := decode.Open(path)
	if err != nil {
		tb.Fatalf("decode.Open(%s): %v", path, err)
	}
	tb.Cleanup(func() { f.Close() })
	return decodeAll(tb, f)
}

// decodeBytes reads every record of data in file order.
func decodeBytes(tb testing.TB, data []byte) decoded {
	tb.Helper()
	f, err := decode.NewFile(bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("decode.NewFile: %v", err)
	}
	return decodeAll(tb, f)
}

func decodeAll(tb testing.TB, f *decode.File) decoded {
	tb.Helper()
	rs := f.Records(decode.FileOrder)
	var recs []decode.Record
	for rs.Next() {
		recs = append(recs, rs.Record().Clone())
	}
	if err := rs.Err(); err != nil {
		tb.Fatalf("records: %v (after %d)", err, len(recs))
	}
	if w := rs.Stats().Warnings; len(w) > 0 {
		tb.Errorf("decode warnings: %v", w)
	}
	return decoded{f: f, recs: recs}
}

// dataRecords returns the records a Writer writes itself or drops
// filtered out (HEADER_ATTR, HEADER_FEATURE, COMPRESSED containers), in a
// form comparable across files: no offsets or sizes, the attr reduced to
// its index.
func dataRecords(recs []decode.Record) []decode.Record {
	var out []decode.Record
	for _, r := range recs {
		switch r.(type) {
		case *decode.HeaderAttr, *decode.HeaderFeature, *decode.Compressed:
			continue
		}
		r = r.Clone()
		c := r.Common()
		c.Offset, c.InnerOffset, c.Size = 0, 0, 0
		if c.Attr != nil {
			c.Attr = &decode.EventAttr{Index: c.Attr.Index}
		}
		if a, ok := r.(*decode.Auxtrace); ok {
			a.DataOffset = 0 // where the AUX data would be in the file
		}
		out = append(out, r)
	}
	return out
}

// encodeFile writes recs with attrs and meta into a perf.data image.
func encodeFile(tb testing.TB, opts Options, recs []decode.Record) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts)
	if err != nil {
		tb.Fatalf("NewWriter: %v", err)
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			tb.Fatalf("WriteRecord(%v at %#x): %v", r.Type(), r.Common().Offset, err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatalf("Close: %v", err)
	}
	return buf.Bytes()
}

// attrsForCompare strips what differs legitimately between an attr read
// from a file and the same attr written again.
var attrOpts = cmp.Options{
	cmpopts.IgnoreFields(decode.EventAttr{}, "Index"),
	cmpopts.EquateEmpty(),
}

// variants are the ways a recording is re-encoded.
var variants = []struct {
	name string
	opts Options
}{
	{"file-le", Options{}},
	{"file-be", Options{ByteOrder: binary.BigEndian}},
	{"pipe-le", Options{Pipe: true}},
	{"pipe-be", Options{Pipe: true, ByteOrder: binary.BigEndian}},
	{"file-z81", Options{Compress: decode.RecordTypeCompressed}},
	{"file-z83-be", Options{Compress: decode.RecordTypeCompressed2, ByteOrder: binary.BigEndian}},
	{"pipe-z81", Options{Pipe: true, Compress: decode.RecordTypeCompressed}},
	{"file-z81-init", Options{Compress: decode.RecordTypeCompressed, CompressAfterInit: true}},
}

// checkRoundTrip re-encodes d in every variant and checks that the new
// file decodes to the same attrs, meta and records.
// Only the variants named in only are run, when only is not empty.
func checkRoundTrip(t *testing.T, d decoded, only ...string) {
	want := dataRecords(d.recs)
	for _, v := range variants {
		if len(only) > 0 && !contains(only, v.name) {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			opts := v.opts
			opts.Attrs = d.f.Attrs
			opts.Meta = &d.f.Meta
			img := encodeFile(t, opts, d.recs)
			got := decodeBytes(t, img)
			if diff := cmp.Diff(d.f.Attrs, got.f.Attrs, attrOpts); diff != "" {
				t.Errorf("attrs differ (-orig +re-encoded):\n%s", diff)
			}
			checkMeta(t, &d.f.Meta, &got.f.Meta, opts)
			compareRecords(t, want, dataRecords(got.recs))
		})
	}
}

// compareRecords reports the first few records that differ. It compares
// with reflect.DeepEqual after turning empty slices into nil (fast, also
// for the 4 KiB user stacks of the dwarf case) and uses cmp only to show a
// difference.
func compareRecords(t *testing.T, want, got []decode.Record) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%d records, want %d", len(got), len(want))
	}
	bad := 0
	for i := range min(len(want), len(got)) {
		w, g := canon(want[i]), canon(got[i])
		if reflect.DeepEqual(w, g) {
			continue
		}
		t.Errorf("record %d (%v) differs (-orig +re-encoded):\n%s", i, w.Type(), cmp.Diff(w, g))
		if bad++; bad == 3 {
			t.Fatal("too many differences")
		}
	}
}

// canon returns a copy of r in which every empty slice is nil.
func canon(r decode.Record) decode.Record {
	r = r.Clone()
	nilEmpty(reflect.ValueOf(r).Elem())
	return r
}

func nilEmpty(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				nilEmpty(f)
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.SetZero()
			return
		}
		if k := v.Type().Elem().Kind(); k == reflect.Struct {
			for i := range v.Len() {
				nilEmpty(v.Index(i))
			}
		}
	}
}

// checkMeta compares the feature data of two files; the COMPRESSED feature
// may be added by the writer.
func checkMeta(t *testing.T, want, got *decode.Meta, opts Options) {
	t.Helper()
	w, g := dropEndMarker(*want), dropEndMarker(*got)
	rawFeatures := maps.Clone(w.Raw) // before the pipe's oversized ones go
	if opts.Compress != 0 && w.Compressed == nil {
		g.Compressed = nil
		g.Features = removeFeature(g.Features, decode.FeatureCompressed)
	}
	if opts.Pipe {
		// Sections too large for a HEADER_FEATURE record are left out.
		for _, f := range features(binary.LittleEndian, &w, nil, DefaultFeatureEnd) {
			if len(f.data) > maxPipeFeature {
				w.Raw = maps.Clone(w.Raw)
				delete(w.Raw, f.feat)
				w.Features = removeFeature(w.Features, f.feat)
			}
		}
	}
	// The encoder writes PMU_MAPPINGS by type (PMUMappings compares the
	// content); the file's own order is not kept.
	w.PMUOrder, g.PMUOrder = nil, nil
	// The sections decode parses and also keeps raw are written back raw
	// (Raw wins), byte for byte in the source's byte order: Raw is what
	// is compared for them, not the fields parsed from it (which are
	// garbage when the re-encoded file's byte order differs).
	for _, m := range []*decode.Meta{&w, &g} {
		for f, clear := range map[decode.Feature]func(){
			decode.FeatureNUMATopology:   func() { m.NUMANodes = nil },
			decode.FeatureCache:          func() { m.Caches = nil },
			decode.FeatureMemTopology:    func() { m.MemTopology = nil },
			decode.FeatureCPUPMUCaps:     func() { m.CPUPMUCaps, m.HasCPUPMUCaps = nil, false },
			decode.FeaturePMUCaps:        func() { m.PMUCaps = nil },
			decode.FeatureHybridTopology: func() { m.HybridNodes = nil },
		} {
			if _, raw := rawFeatures[f]; raw {
				clear()
			}
		}
	}
	// Fast path first: cmp walks big raw sections byte by byte.
	w.Errors, g.Errors = nil, nil
	for _, m := range []*decode.Meta{&w, &g} {
		m.EventDesc = slices.Clone(m.EventDesc)
		for i := range m.EventDesc {
			m.EventDesc[i].Attr.Index = 0
		}
		nilEmpty(reflect.ValueOf(m).Elem())
	}
	if reflect.DeepEqual(w, g) {
		return
	}
	if diff := cmp.Diff(w, g, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("meta differs (-orig +re-encoded):\n%s", diff)
	}
}

// dropEndMarker removes the pipe-mode end-of-features marker (an empty
// feature 32) that the decoder keeps as a raw feature of pipe files.
func dropEndMarker(m decode.Meta) decode.Meta {
	if raw, ok := m.Raw[DefaultFeatureEnd]; ok && len(raw) == 0 {
		m.Raw = maps.Clone(m.Raw)
		delete(m.Raw, DefaultFeatureEnd)
		m.Features = removeFeature(m.Features, DefaultFeatureEnd)
	}
	return m
}

func removeFeature(fs []decode.Feature, f decode.Feature) []decode.Feature {
	var out []decode.Feature
	for _, x := range fs {
		if x != f {
			out = append(out, x)
		}
	}
	return out
}

// fewVariants keep the loops over the corpus and the external files short:
// one variant per byte order and one per compression type.
var fewVariants = []string{"file-le", "pipe-be", "file-z83-be", "pipe-z81"}

// testdataCases are the recordings of testdata/ (see its README).
var testdataCases = []string{"fp", "pipe", "zstd", "two-events"}

func TestRoundTripTestdata(t *testing.T) {
	for _, c := range testdataCases {
		t.Run(c, func(t *testing.T) {
			checkRoundTrip(t, decodeFile(t, testfixture.Testdata(t, c, "perf.data")))
		})
	}
}

func TestRoundTripCorpus(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			checkRoundTrip(t, decodeFile(t, c.Data), fewVariants...)
		})
	}
}

func writeTemp(tb testing.TB, img []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "perf.data")
	if err := os.WriteFile(p, img, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}
