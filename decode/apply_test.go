package decode_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// TestBeforeApply checks that BeforeApply's function runs before each
// record that changes the state of a pipe-mode recording, and that the
// state is still the old one while it runs.
func TestBeforeApply(t *testing.T) {
	bo := binary.LittleEndian
	w := func() *wr { return &wr{bo: bo} }
	attr := w()
	attr.b = encAttr(bo, attrA)
	attr.u64(idA0).u64(idA1)
	p := &perfFile{bo: bo, attrs: []tAttr{attrB}, recs: [][]byte{
		rec(bo, decode.RecordTypeFinishedRound, 0, nil),
		rec(bo, decode.RecordTypeHeaderAttr, 0, attr.b),
		rec(bo, decode.RecordTypeEventUpdate, 0, w().u64(2).u64(idA0).str("renamed", 8).b),
		rec(bo, decode.RecordTypeEventUpdate, 0, w().u64(0).u64(idA0).str("msec", 8).b),
		rec(bo, decode.RecordTypeFinishedRound, 0, nil),
	}}
	type call struct {
		typ   decode.RecordType
		attrs int
		name  string
	}
	for _, order := range []decode.Order{decode.FileOrder, decode.TimeOrder} {
		f, err := decode.NewPipe(bytes.NewReader(p.pipe()))
		if err != nil {
			t.Fatal(err)
		}
		var calls []call
		f.BeforeApply(func(r decode.Record) {
			c := call{typ: r.Type(), attrs: len(f.Attrs)}
			if len(f.Attrs) > 1 {
				c.name = f.Attrs[1].Name
			}
			calls = append(calls, c)
		})
		rs := f.Records(order)
		for rs.Next() {
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		want := []call{
			{decode.RecordTypeHeaderAttr, 1, ""},
			{decode.RecordTypeEventUpdate, 2, "cpu-clock:ppH"},
		}
		if !slices.Equal(calls, want) {
			t.Errorf("%v: calls %v, want %v", order, calls, want)
		}
		if len(f.Attrs) != 2 || f.Attrs[1].Name != "renamed" {
			t.Errorf("%v: events after the records: %v", order, f.Attrs)
		}
	}
}
