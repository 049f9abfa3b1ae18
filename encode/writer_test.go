package encode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
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
