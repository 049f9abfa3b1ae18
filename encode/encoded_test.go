package encode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestWriteEncoded: writing each record's AppendRecord bytes with
// WriteEncoded gives the same file as WriteRecord, in every mode.
func TestWriteEncoded(t *testing.T) {
	d := decodeFile(t, testfixture.Testdata(t, "zstd", "perf.data"))
	for _, o := range []Options{
		{},
		{ByteOrder: binary.BigEndian, Pipe: true},
		{Compress: decode.RecordTypeCompressed2, CompressAfterInit: true},
	} {
		o.Attrs, o.Meta = d.f.Attrs, &d.f.Meta
		want := encodeFile(t, o, d.recs)
		var buf bytes.Buffer
		w, err := NewWriter(&buf, o)
		if err != nil {
			t.Fatal(err)
		}
		var rec []byte
		for _, r := range d.recs {
			var attr *decode.EventAttr
			if r.Type() < 64 {
				attr = w.attrFor(r.Common())
			}
			if rec, err = AppendRecord(rec[:0], w.order, r, attr); err != nil {
				t.Fatal(err)
			}
			if err := w.WriteEncoded(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("options %+v: WriteEncoded wrote %d bytes, WriteRecord %d, not the same", o, buf.Len(), len(want))
		}
	}
	w, err := NewWriter(&bytes.Buffer{}, Options{Pipe: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, make([]byte, 7), {9, 0, 0, 0, 0, 0, 16, 0}} {
		if err := w.WriteEncoded(bad); !errors.Is(err, ErrUnencodable) {
			t.Errorf("WriteEncoded(%x): %v, want ErrUnencodable", bad, err)
		}
	}
}
