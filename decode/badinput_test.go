package decode_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// badAttr is the event of the bad-input recordings (the layout of a
// perf record -g --sample-cpu file).
var badAttr = tAttr{typ: 1, period: 4000,
	sampleType: decode.SampleIP | decode.SampleTID | decode.SampleTime | decode.SampleCallchain |
		decode.SampleCPU | decode.SamplePeriod | decode.SampleID,
	flags: decode.AttrSampleIDAll | decode.AttrFreq | decode.AttrExcludeGuest, ids: []uint64{42}}

var le = binary.LittleEndian

// trailer of badAttr: pid/tid, time, id, cpu.
func badSID(tm uint64) []byte {
	return (&wr{bo: le}).u32(1).u32(1).u64(tm).u64(42).u32(0).u32(0).b
}

func badSample(tm uint64, nr uint64) []byte {
	w := (&wr{bo: le}).u64(0x401000).u32(1).u32(1).u64(tm).u64(42).u32(0).u32(0).u64(1).u64(nr)
	for i := uint64(0); i < nr && i < 4; i++ {
		w.u64(0x401000 + i)
	}
	return rec(le, decode.RecordTypeSample, 2, w.b)
}

// badRecs are five good records: COMM, MMAP2, three SAMPLEs, FINISHED_ROUND.
func badRecs() [][]byte {
	comm := rec(le, decode.RecordTypeComm, 0, append((&wr{bo: le}).u32(1).u32(1).str("prog", 8).b, badSID(10)...))
	mmap2 := rec(le, decode.RecordTypeMmap2, 2, append((&wr{bo: le}).u32(1).u32(1).u64(0x400000).u64(0x1000).u64(0).
		u32(8).u32(1).u64(1).u64(0).u32(5).u32(2).str("/bin/prog", 8).b, badSID(11)...))
	return [][]byte{comm, mmap2, badSample(12, 2), badSample(13, 3), badSample(14, 1),
		rec(le, decode.RecordTypeFinishedRound, 0, nil)}
}

// badFile is the good recording the cases mutate, with the data offset
// and the file offset of each record.
func badFile(recs [][]byte) (b []byte, dataOff int64, recOff []int64) {
	pf := &perfFile{bo: le, attrs: []tAttr{badAttr}, recs: recs,
		features: []tFeature{{decode.FeatureHostname, (&wr{bo: le}).pstr("host").b}}}
	b = pf.file()
	dataOff = int64(le.Uint64(b[40:]))
	off := dataOff
	for _, r := range recs {
		recOff = append(recOff, off)
		off += int64(len(r))
	}
	return b, dataOff, recOff
}

type badResult struct {
	openErr   error
	delivered int
	err       error
	st        *decode.Stats
	f         *decode.File
}

func decodeAll(raw []byte, pipe bool) badResult {
	var res badResult
	var f *decode.File
	var err error
	if pipe {
		f, err = decode.NewPipe(bytes.NewReader(raw))
	} else {
		f, err = decode.NewFile(bytes.NewReader(raw))
	}
	if err != nil {
		res.openErr = err
		return res
	}
	res.f = f
	for _, order := range []decode.Order{decode.TimeOrder} {
		rs := f.Records(order)
		for rs.Next() {
			res.delivered++
		}
		res.err = rs.Err()
		res.st = rs.Stats()
	}
	return res
}

// formatErr asserts that err is a *FormatError at offset off (off < 0: any)
// naming field, wrapping target (nil: anything).
func checkFormatErr(t *testing.T, err error, off int64, field string, target error) {
	t.Helper()
	var fe *decode.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FormatError", err, err)
	}
	if off >= 0 && fe.Offset != off {
		t.Errorf("offset %#x, want %#x (%v)", fe.Offset, off, err)
	}
	if field != "" && fe.Field != field {
		t.Errorf("field %q, want %q (%v)", fe.Field, field, err)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %v does not wrap %v", err, target)
	}
}

func TestBadInput(t *testing.T) {
	good, dataOff, recOff := badFile(badRecs())
	mut := func(f func(b []byte) []byte) func() []byte {
		return func() []byte { return f(append([]byte(nil), good...)) }
	}
	put64 := func(b []byte, off int64, v uint64) []byte { le.PutUint64(b[off:], v); return b }
	put16 := func(b []byte, off int64, v uint16) []byte { le.PutUint16(b[off:], v); return b }
	featTab := dataOff + int64(le.Uint64(good[48:]))
	attrOff := int64(le.Uint64(good[24:]))

	tests := []struct {
		name  string
		input func() []byte
		pipe  bool
		check func(t *testing.T, r badResult)
	}{
		{"good", mut(func(b []byte) []byte { return b }), false, func(t *testing.T, r badResult) {
			if r.openErr != nil || r.err != nil || r.delivered != 6 {
				t.Fatalf("open %v, err %v, %d records", r.openErr, r.err, r.delivered)
			}
		}},
		{"empty", func() []byte { return nil }, false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, 0, "header", io.ErrUnexpectedEOF)
		}},
		{"truncated header", mut(func(b []byte) []byte { return b[:50] }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, 16, "header", io.ErrUnexpectedEOF)
		}},
		{"bad magic", mut(func(b []byte) []byte { b[0] = 'X'; return b }), false, func(t *testing.T, r badResult) {
			if !errors.Is(r.openErr, decode.ErrBadMagic) {
				t.Fatalf("got %v", r.openErr)
			}
		}},
		{"header size 200", mut(func(b []byte) []byte { return put64(b, 8, 200) }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, 8, "header.size", decode.ErrUnsupported)
		}},
		{"attr_size 8", mut(func(b []byte) []byte { return put64(b, 16, 8) }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, 16, "attr_size", decode.ErrUnsupported)
		}},
		{"attr_size 2^40", mut(func(b []byte) []byte { return put64(b, 16, 1<<40) }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, 16, "attr_size", decode.ErrUnsupported)
		}},
		{"attrs section past EOF", mut(func(b []byte) []byte { return put64(b, 24, 1<<50) }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, 1<<50, "attrs", io.ErrUnexpectedEOF)
		}},
		{"attrs section size 2^62", mut(func(b []byte) []byte { return put64(b, 32, 1<<62) }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, -1, "attrs", io.ErrUnexpectedEOF)
		}},
		{"attr.size 5000", mut(func(b []byte) []byte { le.PutUint32(b[attrOff+4:], 5000); return b }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, attrOff, "attr", decode.ErrUnsupported)
		}},
		{"ids past EOF", mut(func(b []byte) []byte { return put64(b, attrOff+128, 1<<40) }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, attrOff+128, "attr.ids", io.ErrUnexpectedEOF)
		}},
		{"ids size 2^60", mut(func(b []byte) []byte { return put64(b, attrOff+136, 1<<60) }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, attrOff+128, "attr.ids", io.ErrUnexpectedEOF)
		}},
		{"feature offset outside the file", mut(func(b []byte) []byte { return put64(b, featTab, 1<<40) }), false, func(t *testing.T, r badResult) {
			if r.openErr != nil || r.err != nil || r.delivered != 6 {
				t.Fatalf("open %v, err %v, %d records", r.openErr, r.err, r.delivered)
			}
			if len(r.f.Meta.Errors) != 1 {
				t.Fatalf("meta errors %v", r.f.Meta.Errors)
			}
			checkFormatErr(t, r.f.Meta.Errors[0], featTab, "", io.ErrUnexpectedEOF)
			if r.f.Meta.Hostname != "" {
				t.Errorf("hostname %q from a bad section", r.f.Meta.Hostname)
			}
		}},
		{"feature size lies", mut(func(b []byte) []byte { return put64(b, featTab+8, 1<<62) }), false, func(t *testing.T, r badResult) {
			if r.openErr != nil || r.delivered != 6 || len(r.f.Meta.Errors) != 1 {
				t.Fatalf("open %v, %d records, meta errors %v", r.openErr, r.delivered, r.f.Meta.Errors)
			}
		}},
		{"feature string length lies", mut(func(b []byte) []byte {
			sec := int64(le.Uint64(b[featTab:]))
			le.PutUint32(b[sec:], 1<<31)
			return b
		}), false, func(t *testing.T, r badResult) {
			if r.openErr != nil || len(r.f.Meta.Errors) != 1 {
				t.Fatalf("open %v, meta errors %v", r.openErr, r.f.Meta.Errors)
			}
			checkFormatErr(t, r.f.Meta.Errors[0], -1, "", io.ErrUnexpectedEOF)
		}},
		{"truncated inside a record", mut(func(b []byte) []byte { return b[:recOff[3]+12] }), false, func(t *testing.T, r badResult) {
			if r.openErr != nil || r.delivered != 3 {
				t.Fatalf("open %v, %d records", r.openErr, r.delivered)
			}
			checkFormatErr(t, r.err, recOff[3], "size", io.ErrUnexpectedEOF)
		}},
		{"truncated inside a header", mut(func(b []byte) []byte { return b[:recOff[3]+3] }), false, func(t *testing.T, r badResult) {
			if r.delivered != 3 {
				t.Fatalf("%d records", r.delivered)
			}
			checkFormatErr(t, r.err, recOff[3], "header", io.ErrUnexpectedEOF)
		}},
		{"truncated at a record boundary", mut(func(b []byte) []byte { return b[:recOff[3]] }), false, func(t *testing.T, r badResult) {
			if r.delivered != 3 {
				t.Fatalf("%d records", r.delivered)
			}
			checkFormatErr(t, r.err, recOff[3], "data", io.ErrUnexpectedEOF)
		}},
		{"size larger than the data", mut(func(b []byte) []byte { return put16(b, recOff[5]+6, 0xfff8) }), false, func(t *testing.T, r badResult) {
			if r.delivered != 5 {
				t.Fatalf("%d records", r.delivered)
			}
			checkFormatErr(t, r.err, recOff[5], "size", io.ErrUnexpectedEOF)
		}},
		{"zero-size record", mut(func(b []byte) []byte { return put16(b, recOff[2]+6, 0) }), false, func(t *testing.T, r badResult) {
			if r.delivered != 2 {
				t.Fatalf("%d records", r.delivered)
			}
			checkFormatErr(t, r.err, recOff[2], "size", nil)
			if r.err.(*decode.FormatError).Record != decode.RecordTypeSample {
				t.Errorf("record type %v", r.err.(*decode.FormatError).Record)
			}
		}},
		{"size 4", mut(func(b []byte) []byte { return put16(b, recOff[1]+6, 4) }), false, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.err, recOff[1], "size", nil)
		}},
		// A callchain longer than its record: the sample is delivered
		// with the chain cut to the record, and a warning.
		{"callchain nr past the record", mut(func(b []byte) []byte { return put64(b, recOff[3]+8+48, 1000) }), false, func(t *testing.T, r badResult) {
			if r.err != nil || r.delivered != 6 {
				t.Fatalf("err %v, %d records", r.err, r.delivered)
			}
			if len(r.st.Skipped) != 0 || r.st.Repaired != 1 || r.st.Counts[decode.RecordTypeSample] != 3 {
				t.Errorf("skipped %v repaired %d counts %v", r.st.Skipped, r.st.Repaired, r.st.Counts)
			}
			checkFormatErr(t, r.st.Warnings[0], recOff[3], "callchain.nr", nil)
		}},
		{"callchain nr 2^61", mut(func(b []byte) []byte { return put64(b, recOff[3]+8+48, 1<<61) }), false, func(t *testing.T, r badResult) {
			if r.err != nil || r.delivered != 6 || r.st.Repaired != 1 {
				t.Fatalf("err %v, %d records, %d repaired", r.err, r.delivered, r.st.Repaired)
			}
		}},
		{"unknown sample id", mut(func(b []byte) []byte { return put64(b, recOff[4]+8+24, 999) }), false, func(t *testing.T, r badResult) {
			// One event: perf maps every record to it, whatever the id.
			if r.err != nil || r.delivered != 6 {
				t.Fatalf("err %v, %d records", r.err, r.delivered)
			}
		}},
		{"unknown types", func() []byte {
			recs := badRecs()
			recs = append(recs[:2], append([][]byte{rec(le, 40, 0, make([]byte, 16)), rec(le, 90, 0, make([]byte, 8)),
				rec(le, 0xffff, 0, nil)}, recs[2:]...)...)
			b, _, _ := badFile(recs)
			return b
		}, false, func(t *testing.T, r badResult) {
			if r.err != nil || r.delivered != 9 || r.st.Counts[40] != 1 || r.st.Counts[90] != 1 || r.st.Counts[0xffff] != 1 {
				t.Fatalf("err %v, %d records, counts %v", r.err, r.delivered, r.st.Counts)
			}
		}},
		{"record shorter than its fixed part", func() []byte {
			recs := badRecs()
			recs[1] = rec(le, decode.RecordTypeMmap2, 2, append(make([]byte, 16), badSID(11)...))
			b, _, _ := badFile(recs)
			return b
		}, false, func(t *testing.T, r badResult) {
			if r.err != nil || r.delivered != 5 || r.st.Skipped[decode.RecordTypeMmap2] != 1 {
				t.Fatalf("err %v, %d records, skipped %v", r.err, r.delivered, r.st.Skipped)
			}
			checkFormatErr(t, r.st.Warnings[0], -1, "size", io.ErrUnexpectedEOF)
		}},
		{"record shorter than its trailer", func() []byte {
			recs := badRecs()
			recs[0] = rec(le, decode.RecordTypeComm, 0, make([]byte, 16))
			b, _, _ := badFile(recs)
			return b
		}, false, func(t *testing.T, r badResult) {
			if r.err != nil || r.delivered != 5 {
				t.Fatalf("err %v, %d records", r.err, r.delivered)
			}
			checkFormatErr(t, r.st.Warnings[0], -1, "sample_id", io.ErrUnexpectedEOF)
		}},
		{"ID_INDEX nr too large is clamped", func() []byte {
			recs := badRecs()
			recs = append([][]byte{rec(le, decode.RecordTypeIDIndex, 0, (&wr{bo: le}).u64(1000).u64(42).u64(0).u64(0).u64(1).b)}, recs...)
			b, _, _ := badFile(recs)
			return b
		}, false, func(t *testing.T, r badResult) {
			if r.err != nil || r.delivered != 7 || r.st.WarningCount != 1 {
				t.Fatalf("err %v, %d records, warnings %v", r.err, r.delivered, r.st.Warnings)
			}
		}},
		{"THREAD_MAP nr too large", func() []byte {
			recs := append([][]byte{rec(le, decode.RecordTypeThreadMap, 0, (&wr{bo: le}).u64(1<<40).u64(1).fixed("x", 16).b)}, badRecs()...)
			b, _, _ := badFile(recs)
			return b
		}, false, func(t *testing.T, r badResult) {
			if r.err != nil || r.delivered != 6 || r.st.Skipped[decode.RecordTypeThreadMap] != 1 {
				t.Fatalf("err %v, %d records, skipped %v", r.err, r.delivered, r.st.Skipped)
			}
		}},
		{"zstd garbage", func() []byte {
			recs := append([][]byte{rec(le, decode.RecordTypeCompressed, 0, []byte("not zstd at all"))}, badRecs()...)
			recs = append(recs, rec(le, decode.RecordTypeCompressed, 0, []byte("still not zstd!")))
			b, _, _ := badFile(recs)
			return b
		}, false, func(t *testing.T, r badResult) {
			if r.err != nil || r.delivered != 8 || r.st.WarningCount == 0 {
				t.Fatalf("err %v, %d records, warnings %v", r.err, r.delivered, r.st.Warnings)
			}
		}},
		{"COMPRESSED2 data_size lies", func() []byte {
			recs := append([][]byte{rec(le, decode.RecordTypeCompressed2, 0, (&wr{bo: le}).u64(1<<40).u64(0).b)}, badRecs()...)
			b, _, _ := badFile(recs)
			return b
		}, false, func(t *testing.T, r badResult) {
			if r.err != nil || r.delivered != 6 || r.st.Skipped[decode.RecordTypeCompressed2] != 1 {
				t.Fatalf("err %v, %d records, skipped %v", r.err, r.delivered, r.st.Skipped)
			}
		}},
		{"TRACING_DATA payload past the end", func() []byte {
			recs := append(badRecs(), rec(le, decode.RecordTypeHeaderTracingData, 0, (&wr{bo: le}).u32(1<<30).u32(0).b))
			b, _, _ := badFile(recs)
			return b
		}, false, func(t *testing.T, r badResult) {
			if r.delivered != 6 {
				t.Fatalf("%d records", r.delivered)
			}
			checkFormatErr(t, r.err, -1, "data", io.ErrUnexpectedEOF)
		}},
		{"AUXTRACE payload past the end", func() []byte {
			recs := append(badRecs(), rec(le, decode.RecordTypeAuxtrace, 0, (&wr{bo: le}).u64(1<<40).u64(0).u64(0).u32(0).u32(0).u32(0).u32(0).b))
			b, _, _ := badFile(recs)
			return b
		}, false, func(t *testing.T, r badResult) {
			if r.delivered != 6 {
				t.Fatalf("%d records", r.delivered)
			}
			checkFormatErr(t, r.err, -1, "aux data", io.ErrUnexpectedEOF)
		}},
		{"data size 0 reads to the end", func() []byte {
			pf := &perfFile{bo: le, attrs: []tAttr{badAttr}, recs: badRecs()}
			b := pf.file()
			return put64(b, 48, 0)
		}, false, func(t *testing.T, r badResult) {
			if r.openErr != nil || r.err != nil || r.delivered != 6 || r.st.WarningCount != 1 {
				t.Fatalf("open %v, err %v, %d records, warnings %v", r.openErr, r.err, r.delivered, r.st.Warnings)
			}
		}},
		{"pipe truncated", func() []byte {
			pf := &perfFile{bo: le, attrs: []tAttr{badAttr}, recs: badRecs()}
			b := pf.pipe()
			return b[:len(b)-3]
		}, true, func(t *testing.T, r badResult) {
			if r.openErr != nil || r.delivered != 6 {
				t.Fatalf("open %v, %d records", r.openErr, r.delivered)
			}
			checkFormatErr(t, r.err, -1, "header", io.ErrUnexpectedEOF)
		}},
		{"pipe HEADER_ATTR with absurd attr.size", func() []byte {
			pf := &perfFile{bo: le, attrs: []tAttr{badAttr}, recs: badRecs()}
			b := pf.pipe()
			le.PutUint32(b[16+8+4:], 60000)
			return b
		}, true, func(t *testing.T, r badResult) {
			if r.openErr != nil || r.err != nil {
				t.Fatalf("open %v, err %v", r.openErr, r.err)
			}
			// Without the event the samples cannot be parsed.
			if r.st.Skipped[decode.RecordTypeHeaderAttr] != 1 || r.st.Skipped[decode.RecordTypeSample] != 3 {
				t.Errorf("skipped %v", r.st.Skipped)
			}
		}},
		{"pipe with text appended", func() []byte {
			pf := &perfFile{bo: le, attrs: []tAttr{badAttr}, recs: badRecs()}
			return append(pf.pipe(), "[ perf record: Woken up 1 times to write data ]\n"...)
		}, true, func(t *testing.T, r badResult) {
			if r.delivered < 7 {
				t.Fatalf("%d records", r.delivered)
			}
			checkFormatErr(t, r.err, -1, "", io.ErrUnexpectedEOF)
		}},
		{"pipe header only", func() []byte { return []byte("PERFILE2\x10\x00\x00\x00\x00\x00\x00\x00") }, true, func(t *testing.T, r badResult) {
			if r.openErr != nil || r.err != nil || r.delivered != 0 {
				t.Fatalf("open %v, err %v, %d records", r.openErr, r.err, r.delivered)
			}
		}},
		{"pipe bad header size", func() []byte { return []byte("PERFILE2\x11\x00\x00\x00\x00\x00\x00\x00") }, true, func(t *testing.T, r badResult) {
			checkFormatErr(t, r.openErr, 8, "header.size", decode.ErrUnsupported)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, decodeAll(tc.input(), tc.pipe))
			if !tc.pipe {
				// A pipe-format stream in a regular file goes through NewFile too.
				return
			}
			r := decodeAll(tc.input(), false)
			tc.check(t, r)
		})
	}
}

// TestOpenFIFO opens a pipe-mode stream through a FIFO (as /dev/stdin
// would be), which cannot be read with ReadAt.
func TestOpenFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	pf := &perfFile{bo: le, attrs: []tAttr{badAttr}, recs: badRecs()}
	data := pf.pipe()
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(data)
		w.Close()
	}()
	f, err := decode.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs := f.Records(decode.TimeOrder)
	n := 0
	for rs.Next() {
		n++
	}
	if rs.Err() != nil || n != 7 {
		t.Fatalf("err %v, %d records", rs.Err(), n)
	}
}
