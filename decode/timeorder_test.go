package decode_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// TestTimeOrder checks perf's ordered-events rules on a synthetic stream:
// a FINISHED_ROUND releases what is older than the previous round's
// newest record, records without a timestamp and perf-tool records pass
// at once, late records are counted and delivered at the next flush.
func TestTimeOrder(t *testing.T) {
	bo := binary.LittleEndian
	attr := tAttr{typ: 1, sampleType: decode.SampleIP | decode.SampleTID | decode.SampleTime | decode.SamplePeriod,
		flags: decode.AttrSampleIDAll, ids: []uint64{1}}
	sample := func(tm uint64) []byte {
		return rec(bo, decode.RecordTypeSample, 1, (&wr{bo: bo}).u64(0x1000).u32(1).u32(1).u64(tm).u64(1).b)
	}
	comm := func(tm uint64) []byte {
		return rec(bo, decode.RecordTypeComm, 0, (&wr{bo: bo}).u32(1).u32(1).str("x", 8).u32(1).u32(1).u64(tm).b)
	}
	round := rec(bo, decode.RecordTypeFinishedRound, 0, nil)
	tests := []struct {
		name string
		recs [][]byte
		want string
		ooo  uint64
	}{
		{
			name: "two rounds",
			recs: [][]byte{sample(10), sample(30), sample(20), round, sample(25), sample(40), comm(0), round,
				sample(35), sample(5)},
			want: "FINISHED_ROUND COMM/0 FINISHED_ROUND SAMPLE/10 SAMPLE/20 SAMPLE/25 SAMPLE/30 SAMPLE/5 SAMPLE/35 SAMPLE/40",
			ooo:  1,
		},
		{
			name: "no rounds: everything at the end, sorted",
			recs: [][]byte{sample(3), comm(2), sample(1), comm(0)},
			want: "COMM/0 SAMPLE/1 COMM/2 SAMPLE/3",
		},
		{
			name: "equal times keep file order",
			recs: [][]byte{comm(7), sample(7), round, round},
			want: "FINISHED_ROUND FINISHED_ROUND COMM/7 SAMPLE/7",
		},
		{
			name: "round with an empty queue keeps the flush point",
			recs: [][]byte{round, sample(50), round, sample(60), round, sample(55)},
			want: "FINISHED_ROUND FINISHED_ROUND FINISHED_ROUND SAMPLE/50 SAMPLE/55 SAMPLE/60",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pf := &perfFile{bo: bo, attrs: []tAttr{attr}, recs: tc.recs}
			f, err := decode.NewFile(bytes.NewReader(pf.file()))
			if err != nil {
				t.Fatal(err)
			}
			rs := f.Records(decode.TimeOrder)
			var got []string
			var kept []decode.Record
			for rs.Next() {
				r := rs.Record()
				kept = append(kept, r.Clone())
				if r.Type() == decode.RecordTypeFinishedRound {
					got = append(got, r.Type().String())
					continue
				}
				got = append(got, fmt.Sprintf("%s/%d", r.Type(), r.Common().Time))
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if g := fmt.Sprint(got); g != "["+tc.want+"]" {
				t.Errorf("got  %s\nwant [%s]", g, tc.want)
			}
			if n := rs.Stats().OutOfOrder; n != tc.ooo {
				t.Errorf("out of order %d, want %d", n, tc.ooo)
			}
			// Clones stay intact after the iterator moved on (the queue
			// recycles its own storage, never a clone's).
			var again []string
			for _, r := range kept {
				if r.Type() == decode.RecordTypeFinishedRound {
					again = append(again, r.Type().String())
					continue
				}
				again = append(again, fmt.Sprintf("%s/%d", r.Type(), r.Common().Time))
			}
			if !slices.Equal(got, again) {
				t.Errorf("clones changed: %v", again)
			}
		})
	}
}

// TestTimeOrderMemoryBound checks that the queue holds about two rounds,
// however long the file, in records and in the chunks of its byte arena,
// which is reused round after round. Each round's samples come in two
// interleaved per-CPU runs (CPU 0's buffer, then CPU 1's).
func TestTimeOrderMemoryBound(t *testing.T) {
	bo := binary.LittleEndian
	attr := tAttr{typ: 1, sampleType: decode.SampleIP | decode.SampleTID | decode.SampleTime | decode.SamplePeriod,
		flags: decode.AttrSampleIDAll, ids: []uint64{1}}
	sample := func(tm uint64) []byte {
		return rec(bo, decode.RecordTypeSample, 1, (&wr{bo: bo}).u64(0x1000).u32(1).u32(1).u64(tm).u64(1).b)
	}
	tests := []struct {
		name        string
		rounds, per int
		maxChunks   int
	}{
		{"200 small rounds", 200, 50, 2},
		// 7000 samples of 40 bytes are more than a 256 KiB chunk: two
		// rounds span at most four chunks, plus the one being filled.
		{"64 rounds of more than a chunk", 64, 7000, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var recs [][]byte
			for r := range tt.rounds {
				base := uint64(r * 2 * tt.per)
				for cpu := range 2 {
					for i := cpu; i < tt.per; i += 2 {
						recs = append(recs, sample(base+uint64(i)))
					}
				}
				recs = append(recs, rec(bo, decode.RecordTypeFinishedRound, 0, nil))
			}
			pf := &perfFile{bo: bo, attrs: []tAttr{attr}, recs: recs}
			f, err := decode.NewFile(bytes.NewReader(pf.file()))
			if err != nil {
				t.Fatal(err)
			}
			rs := f.Records(decode.TimeOrder)
			maxQ, maxChunks, n := 0, 0, 0
			var last uint64
			for rs.Next() {
				maxQ = max(maxQ, decode.QueueLen(rs))
				maxChunks = max(maxChunks, decode.ArenaChunks(rs))
				if s, ok := rs.Record().(*decode.Sample); ok {
					if s.Time < last || s.IP != 0x1000 {
						t.Fatalf("sample %d at %d (ip %#x) after %d", n, s.Time, s.IP, last)
					}
					last = s.Time
					n++
				}
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if n != tt.rounds*tt.per {
				t.Fatalf("%d samples, want %d", n, tt.rounds*tt.per)
			}
			if maxQ > 2*tt.per {
				t.Errorf("queue held %d records, want at most two rounds (%d)", maxQ, 2*tt.per)
			}
			if maxChunks > tt.maxChunks {
				t.Errorf("arena grew to %d chunks, want at most %d", maxChunks, tt.maxChunks)
			}
		})
	}
}

// TestAll checks the iter.Seq2 form, early exit, the error pair and that a
// File has one stream of records.
func TestAll(t *testing.T) {
	good, _, _ := badFile(badRecs())
	f, err := decode.NewFile(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r, err := range f.Records(decode.FileOrder).All() {
		if err != nil || r == nil {
			t.Fatalf("record %v, err %v", r, err)
		}
		n++
	}
	if n != 6 {
		t.Fatalf("%d records", n)
	}
	rs := f.Records(decode.FileOrder)
	if rs.Next() || rs.Err() == nil {
		t.Fatal("second Records call on one File must fail")
	}

	trunc := good[:len(good)-200]
	f, err = decode.NewFile(bytes.NewReader(trunc))
	if err != nil {
		t.Fatal(err)
	}
	var last error
	n = 0
	for r, err := range f.Records(decode.TimeOrder).All() {
		if err != nil {
			last = err
			if r != nil {
				t.Error("error pair carries a record")
			}
			continue
		}
		n++
	}
	var fe *decode.FormatError
	if !errors.As(last, &fe) {
		t.Fatalf("last pair error %v", last)
	}
	// Early exit.
	f, _ = decode.NewFile(bytes.NewReader(good))
	for range f.Records(decode.FileOrder).All() {
		break
	}
}
