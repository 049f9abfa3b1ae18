package encode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestWriteSeekerSameBytes: writing through an *os.File (header rewritten in
// place, at a non-zero start position) gives the same bytes as writing to a
// plain io.Writer (data staged in a temporary file).
func TestWriteSeekerSameBytes(t *testing.T) {
	d := decodeFile(t, testfixture.Testdata(t, "two-events", "perf.data"))
	for _, opts := range []Options{{}, {ByteOrder: binary.BigEndian, Compress: decode.RecordTypeCompressed2}} {
		opts.Attrs, opts.Meta = d.f.Attrs, &d.f.Meta
		want := encodeFile(t, opts, d.recs)

		f, err := os.Create(filepath.Join(t.TempDir(), "out.data"))
		if err != nil {
			t.Fatal(err)
		}
		prefix := []byte("leading bytes that are not part of the file")
		if _, err := f.Write(prefix); err != nil {
			t.Fatal(err)
		}
		w, err := NewWriter(f, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range d.recs {
			if err := w.WriteRecord(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("tail")); err != nil { // the position is the file end
			t.Fatal(err)
		}
		f.Close()
		got, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		got = bytes.TrimPrefix(got, prefix)
		got = bytes.TrimSuffix(got, []byte("tail"))
		if !bytes.Equal(got, want) {
			t.Errorf("file written through a WriteSeeker differs from the staged one (%d vs %d bytes)", len(got), len(want))
		}
	}
}

// TestSkippedRecords: header records and compressed containers of a
// decoded file are not written again.
func TestSkippedRecords(t *testing.T) {
	a := &decode.EventAttr{Size: 128, SampleType: decode.SampleIP, IDs: []uint64{1}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Options{Pipe: true, Attrs: []*decode.EventAttr{a}, Meta: &decode.Meta{}})
	if err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	for _, r := range []decode.Record{&decode.HeaderAttr{Attr: a}, &decode.HeaderFeature{Feature: 3}, &decode.Compressed{Data: []byte{1}}} {
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != n {
		t.Errorf("%d bytes written for skipped records", buf.Len()-n)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestWriteErrorSticks: a failed write is reported, and again by Close.
func TestWriteErrorSticks(t *testing.T) {
	d := decodeFile(t, testfixture.Testdata(t, "fp", "perf.data"))
	w, err := NewWriter(&failWriter{n: 1000}, Options{Pipe: true, Attrs: d.f.Attrs})
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for _, r := range d.recs {
		if werr = w.WriteRecord(r); werr != nil {
			break
		}
	}
	cerr := w.Close()
	if werr == nil && cerr == nil {
		t.Fatal("no error writing 23 KB into a 1000-byte writer")
	}
	if cerr == nil {
		t.Error("Close after a failed write returned nil")
	}
	if err := w.WriteRecord(&decode.FinishedRound{}); err == nil {
		t.Error("WriteRecord after Close returned nil")
	}
}

// TestOptionErrors: bad options are refused by NewWriter.
func TestOptionErrors(t *testing.T) {
	for _, opts := range []Options{
		{Compress: 82},
		{Attrs: []*decode.EventAttr{nil}},
		{Attrs: []*decode.EventAttr{{Size: 70000}}},
	} {
		if _, err := NewWriter(io.Discard, opts); err == nil {
			t.Errorf("NewWriter(%+v) succeeded", opts)
		}
	}
}

// TestWriteRawMalformed: hand-made broken records go into the stream as
// they are; the decoder delivers the records before them and reports the
// damage with its offset.
func TestWriteRawMalformed(t *testing.T) {
	a := &decode.EventAttr{Size: 128, SampleType: decode.SampleIP | decode.SampleTID | decode.SampleCallchain, IDs: []uint64{1}}
	good := &decode.Sample{RecordCommon: decode.RecordCommon{PID: 1, TID: 1}, IP: 0x401000, Callchain: []uint64{decode.ContextUser, 0x401000}}
	// A sample whose callchain nr (1000) runs past the record.
	b := Builder{}
	b.U64(0x401000).I32(1).I32(1).U64(1000).U64(decode.ContextUser)
	bad := RawRecord(binary.LittleEndian, decode.RecordTypeSample, 2, b.B)
	// A record whose header.size (4) is smaller than its header: the
	// stream cannot be followed past it.
	zero := (&Builder{}).Header(decode.RecordTypeFinishedRound, 0, 4).B

	var buf bytes.Buffer
	w, err := NewWriter(&buf, Options{Attrs: []*decode.EventAttr{a}})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error { return w.WriteRecord(good) },
		func() error { return w.WriteRaw(bad) },
		func() error { return w.WriteRecord(good) },
		func() error { return w.WriteRaw(zero) },
		func() error { return w.WriteRecord(good) },
		w.Close,
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	f, err := decode.NewFile(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	rs := f.Records(decode.FileOrder)
	n := 0
	for rs.Next() {
		if _, ok := rs.Record().(*decode.Sample); ok {
			n++
		}
	}
	var fe *decode.FormatError
	if !errors.As(rs.Err(), &fe) {
		t.Fatalf("Err() = %v, want a *decode.FormatError", rs.Err())
	}
	// data at 104 + 8 (one id) + 144 (attr); good samples are 48 bytes.
	// The sample whose callchain runs past its record is delivered with
	// the chain cut (decode.Stats.Repaired), so 3 samples come before.
	if want := int64(256 + 48 + len(bad) + 48); fe.Offset != want || n != 3 {
		t.Errorf("%d samples before %v, want 3 before the bad header at %#x", n, fe, want)
	}
	if st := rs.Stats(); len(st.Skipped) != 0 || st.Repaired != 1 {
		t.Errorf("skipped %v, repaired %d; want none skipped, 1 repaired (the one whose callchain runs past the record)", st.Skipped, st.Repaired)
	}
}

// TestRawOrder: raw feature payloads of another byte order are left out.
func TestRawOrder(t *testing.T) {
	meta := &decode.Meta{Features: []decode.Feature{decode.FeatureHostname, decode.FeatureCache},
		Hostname: "vm", Raw: map[decode.Feature][]byte{decode.FeatureCache: {1, 0, 0, 0, 0, 0, 0, 0}}}
	for _, tt := range []struct {
		order, raw binary.ByteOrder
		cache      bool
	}{
		{binary.BigEndian, binary.LittleEndian, false},
		{binary.BigEndian, binary.BigEndian, true},
		{binary.LittleEndian, nil, true},
		{nil, binary.LittleEndian, true},
	} {
		attrs := []*decode.EventAttr{{Size: 128, SampleType: decode.SampleIP, IDs: []uint64{1}}}
		got := decodeBytes(t, encodeFile(t, Options{ByteOrder: tt.order, RawOrder: tt.raw, Meta: meta, Attrs: attrs},
			// data.size 0 would mean "perf record was killed" to readers
			[]decode.Record{&decode.FinishedRound{}}))
		if _, ok := got.f.Meta.Raw[decode.FeatureCache]; ok != tt.cache || got.f.Meta.Hostname != "vm" {
			t.Errorf("order %v raw %v: CACHE present %v, hostname %q; want %v, vm", tt.order, tt.raw, ok, got.f.Meta.Hostname, tt.cache)
		}
	}
}

// TestBuildIDRecords: in pipe mode with BuildIDRecords the build ids come
// back as HEADER_BUILD_ID records, before any data record.
func TestBuildIDRecords(t *testing.T) {
	d := decodeFile(t, testfixture.Testdata(t, "fp", "perf.data"))
	want := d.f.Meta.BuildIDs
	if len(want) == 0 {
		t.Fatal("testdata/fp has no build ids")
	}
	got := decodeBytes(t, encodeFile(t, Options{Pipe: true, BuildIDRecords: true, Attrs: d.f.Attrs, Meta: &d.f.Meta}, d.recs))
	if len(got.f.Meta.BuildIDs) != 0 {
		t.Errorf("BUILD_ID feature written too: %v", got.f.Meta.BuildIDs)
	}
	var ids []decode.BuildID
	for _, r := range got.recs {
		switch r := r.(type) {
		case *decode.HeaderBuildID:
			ids = append(ids, decode.BuildID{CPUMode: r.CPUMode(), PID: r.BuildPID, ID: r.BuildID, Filename: r.Filename})
		case *decode.HeaderAttr, *decode.HeaderFeature:
		default:
			if len(ids) == 0 {
				t.Fatalf("%v before the build ids", r.Type())
			}
		}
	}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("HEADER_BUILD_ID records %+v, want %+v", ids, want)
	}
}
