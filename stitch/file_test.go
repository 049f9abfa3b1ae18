package stitch_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/encode"
	"github.com/perfstitch/perfstitch/stitch"
)

// fileAttr is the one event of the hand-built files: cookie ABI, sampler
// and tracking event in one (per-task perf record --call-graph fp,defer).
func fileAttr() *decode.EventAttr {
	return &decode.EventAttr{
		Type: decode.AttrTypeSoftware, Size: 136, Name: "cpu-clock", SamplePeriod: 1000,
		SampleType: decode.SampleIP | decode.SampleTID | decode.SampleTime | decode.SampleCallchain |
			decode.SampleID | decode.SampleCPU | decode.SamplePeriod,
		Flags: decode.AttrDisabled | decode.AttrInherit | decode.AttrMmap | decode.AttrComm | decode.AttrFreq |
			decode.AttrSampleIDAll | decode.AttrDeferCallchain | decode.AttrDeferOutput,
		IDs: []uint64{11, 12},
	}
}

// writeFile encodes recs, in the given (file) order, into a perf.data file.
func writeFile(t *testing.T, attr *decode.EventAttr, recs []decode.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := encode.NewWriter(&buf, encode.Options{Attrs: []*decode.EventAttr{attr}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		c := r.Common()
		c.Attr = attr
		c.TrailerPID, c.TrailerTID, c.TrailerTime = c.PID, c.TID, c.Time
		c.ID = 11 + uint64(c.CPU)
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// onCPU sets the CPU of a test record.
func onCPU[R decode.Record](r R, cpu uint32) R {
	r.Common().CPU = cpu
	return r
}

// TestFileOrder runs hand-built files through the real decoder in time
// order: records written the way per-CPU ring buffers are flushed, round by
// round, so that a thread's samples and its record sit in different
// buffers and rounds, and records come in the file before samples that
// precede them in time.
func TestFileOrder(t *testing.T) {
	const c1, c2 = 0x300000001, 0x300000002
	tests := []struct {
		name string
		recs []decode.Record // in file order
		want []string
	}{{
		name: "migration inside one kernel entry, record two rounds later",
		recs: []decode.Record{
			// round 1: CPU 0's buffer
			onCPU(smp(nil, 7, 100, K, 0xf1, D, c1), 0),
			onCPU(smp(nil, 8, 110, K, 0xf8, U, 0x88), 0),
			round(),
			// round 2: CPU 1's buffer, then CPU 0's
			onCPU(smp(nil, 7, 200, K, 0xf2, D, c1), 1),
			onCPU(smp(nil, 8, 150, K, 0xf8, U, 0x89), 0),
			round(),
			// round 3: the record, on the CPU the thread returned on
			onCPU(rec(nil, 7, 201, c1, 0x71, 0x72), 1),
			round(),
		},
		// decode delivers a FINISHED_ROUND before the records it
		// releases (and the first releases nothing).
		want: []string{
			"FINISHED_ROUND tid=-1 t=0",
			"FINISHED_ROUND tid=-1 t=0",
			"SAMPLE stitched tid=7 t=100 [K f1 U 71 72]",
			"SAMPLE not-deferred tid=8 t=110 [K f8 U 88]",
			"FINISHED_ROUND tid=-1 t=0",
			"SAMPLE not-deferred tid=8 t=150 [K f8 U 89]",
			"SAMPLE stitched tid=7 t=200 [K f2 U 71 72]",
		},
	}, {
		name: "record read before an earlier sample of another CPU's buffer",
		recs: []decode.Record{
			onCPU(smp(nil, 7, 100, K, 0xf1, D, c1), 1),
			onCPU(rec(nil, 7, 101, c1, 0x71), 1),
			onCPU(smp(nil, 9, 90, K, 0xf9, D, c2), 0),
			onCPU(smp(nil, 9, 102, K, 0xfa, D, c2), 0),
			onCPU(rec(nil, 9, 103, c2, 0x91), 0),
			round(),
		},
		want: []string{
			"FINISHED_ROUND tid=-1 t=0",
			"SAMPLE stitched tid=9 t=90 [K f9 U 91]",
			"SAMPLE stitched tid=7 t=100 [K f1 U 71]",
			"SAMPLE stitched tid=9 t=102 [K fa U 91]",
		},
	}, {
		name: "tied timestamps keep file order",
		recs: []decode.Record{
			onCPU(smp(nil, 7, 100, K, 0xf1, D, c1), 0),
			onCPU(smp(nil, 8, 100, K, 0xf8, D, c2), 1),
			onCPU(rec(nil, 8, 100, c2, 0x81), 1),
			onCPU(rec(nil, 7, 100, c1, 0x71), 0),
		},
		want: []string{
			"SAMPLE stitched tid=7 t=100 [K f1 U 71]",
			"SAMPLE stitched tid=8 t=100 [K f8 U 81]",
		},
	}, {
		name: "exit with samples pending and exec in between",
		recs: []decode.Record{
			onCPU(smp(nil, 7, 100, K, 0xf1, D, c1), 0),
			onCPU(comm(7, 101, "exec'd", true), 0),
			onCPU(smp(nil, 8, 102, K, 0xf8, D, c2), 0),
			onCPU(rec(nil, 7, 103, c1, 0x71), 0),
			onCPU(exit(8, 104), 0),
			round(),
		},
		want: []string{
			"FINISHED_ROUND tid=-1 t=0",
			"SAMPLE stitched tid=7 t=100 [K f1 U 71]",
			"COMM tid=7 t=101 exec'd",
			"SAMPLE no-record tid=8 t=102 [K f8 D 300000002]",
			"EXIT tid=8 t=104",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attr := fileAttr()
			data := writeFile(t, attr, tt.recs)
			f, err := decode.NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			st := stitch.New(f.Records(decode.TimeOrder), stitch.Options{})
			var got []string
			for st.Next() {
				got = append(got, describe(st.Event()))
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFileIntermediateABI: the posted-but-unmerged v16 layout (cookie
// record whose ips start with PERF_CONTEXT_USER) stitches like the final
// one.
func TestFileIntermediateABI(t *testing.T) {
	attr := fileAttr()
	var buf bytes.Buffer
	w, err := encode.NewWriter(&buf, encode.Options{Attrs: []*decode.EventAttr{attr}})
	if err != nil {
		t.Fatal(err)
	}
	s := smp(attr, 7, 100, K, 0xf1, D, 0x300000001)
	s.ID = 11
	if err := w.WriteRecord(s); err != nil {
		t.Fatal(err)
	}
	// {cookie, nr, USER, ips...} then the sample_id trailer of
	// IP|TID|TIME|CALLCHAIN|ID|CPU|PERIOD: pid, tid, time, id, cpu, res.
	b := encode.Builder{}
	b.U64(0x300000001).U64(3).U64(U).U64(0x71).U64(0x72)
	b.I32(7).I32(7).U64(101).U64(11).U32(0).U32(0)
	if err := w.WriteRaw(encode.RawRecord(nil, decode.RecordTypeCallchainDeferred, uint16(decode.CPUModeUser), b.B)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := decode.NewFile(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	st := stitch.New(f.Records(decode.TimeOrder), stitch.Options{})
	var got []string
	for st.Next() {
		got = append(got, describe(st.Event()))
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"SAMPLE stitched tid=7 t=100 [K f1 U 71 72]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
