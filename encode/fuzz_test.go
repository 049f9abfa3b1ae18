package encode

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// FuzzRoundTrip decodes arbitrary input; whatever decodes cleanly must
// encode without panicking, and, when the writer accepts it, decode again
// to the same records. Its seeds, under testdata/fuzz/FuzzRoundTrip, are
// the testdata recordings cut to a few records each by this package's
// writer (the whole recordings are TestRoundTripTestdata's).
func FuzzRoundTrip(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, be bool) {
		in, err := decode.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		rs := in.Records(decode.FileOrder)
		var recs []decode.Record
		for rs.Next() && len(recs) < 1000 {
			recs = append(recs, rs.Record().Clone())
		}
		if rs.Err() != nil || len(rs.Stats().Warnings) > 0 || len(in.Meta.Errors) > 0 || len(in.Attrs) == 0 {
			return // (a file needs an attr; a pipe may have none)
		}
		opts := Options{Attrs: in.Attrs, Meta: &in.Meta, BuildIDRecords: true}
		if be {
			opts.ByteOrder = binary.BigEndian
			opts.RawOrder = in.Header.ByteOrder
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, opts)
		if err != nil {
			return
		}
		var kept []decode.Record
		for _, r := range recs {
			if err := w.WriteRecord(r); err == nil {
				kept = append(kept, r)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		out, err := decode.NewFile(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("re-encoded file does not decode: %v", err)
		}
		rs = out.Records(decode.FileOrder)
		var got []decode.Record
		for rs.Next() {
			got = append(got, rs.Record().Clone())
		}
		if err := rs.Err(); err != nil {
			t.Fatalf("re-encoded records: %v", err)
		}
		w1, g1 := dataRecords(kept), dataRecords(got)
		if len(w1) != len(g1) {
			t.Fatalf("%d records back, %d written", len(g1), len(w1))
		}
		for i := range w1 {
			if !reflect.DeepEqual(canon(w1[i]), canon(g1[i])) {
				t.Fatalf("record %d (%v) differs:\n%#v\n%#v", i, w1[i].Type(), canon(w1[i]), canon(g1[i]))
			}
		}
	})
}
