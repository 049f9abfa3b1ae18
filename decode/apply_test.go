package decode_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// lateAttrPipe is a pipe-mode recording whose second event and its
// rename come after the first record.
func lateAttrPipe() *perfFile {
	bo := binary.LittleEndian
	w := func() *wr { return &wr{bo: bo} }
	attr := w()
	attr.b = encAttr(bo, attrA)
	attr.u64(idA0).u64(idA1)
	return &perfFile{bo: bo, attrs: []tAttr{attrB}, recs: [][]byte{
		rec(bo, decode.RecordTypeFinishedRound, 0, nil),
		rec(bo, decode.RecordTypeHeaderAttr, 0, attr.b),
		rec(bo, decode.RecordTypeFinishedRound, 0, nil),
		rec(bo, decode.RecordTypeEventUpdate, 0, w().u64(2).u64(idA0).str("renamed", 8).b),
		rec(bo, decode.RecordTypeEventUpdate, 0, w().u64(0).u64(idA0).str("msec", 8).b),
		rec(bo, decode.RecordTypeFinishedRound, 0, nil),
	}}
}

// TestBeforeApply checks that BeforeApply's function runs before each
// record that changes the state of a pipe-mode recording, and that the
// state is still the old one while it runs.
func TestBeforeApply(t *testing.T) {
	p := lateAttrPipe()
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

// TestBeforeApplyProducer decodes on a producer goroutine while the
// consumer reads the events, with BeforeApply's function waiting until
// the consumer has finished with every record handed over: each record
// must meet the events it meets on one goroutine (and, under -race, no
// read may race with a change).
func TestBeforeApplyProducer(t *testing.T) {
	seen := func(f *decode.File) string {
		var b strings.Builder
		for _, a := range f.Attrs {
			fmt.Fprintf(&b, "%s/%v ", a.Name, a.IDs)
		}
		return b.String()
	}
	for _, order := range []decode.Order{decode.FileOrder, decode.TimeOrder} {
		f, err := decode.NewPipe(bytes.NewReader(lateAttrPipe().pipe()))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for rs := f.Records(order); rs.Next(); {
			want = append(want, fmt.Sprint(rs.Record().Type(), " ", seen(f)))
		}

		f, err = decode.NewPipe(bytes.NewReader(lateAttrPipe().pipe()))
		if err != nil {
			t.Fatal(err)
		}
		items := make(chan decode.Record, 2)
		done := make(chan struct{}, 64) // one per record the consumer is through with
		handed := 0                     // the producer's count of records not yet done
		f.BeforeApply(func(decode.Record) {
			for ; handed > 0; handed-- {
				<-done
			}
		})
		go func() {
			defer close(items)
			for rs := f.Records(order); rs.Next(); {
				handed++
				items <- rs.Record().Clone()
			}
		}()
		var got []string
		for r := range items {
			got = append(got, fmt.Sprint(r.Type(), " ", seen(f)))
			done <- struct{}{}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v: the consumer saw\n%q\nwant\n%q", order, got, want)
		}
	}
}
