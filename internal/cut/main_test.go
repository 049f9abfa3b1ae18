package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
)

// TestDemoReproducible re-runs the command of testdata/demo/README.md on
// ../shared/kernel/c-threads and compares the bytes with
// testdata/demo/perf.data, and checks how the demo stitches: every sample
// deferred, all but the three without a record of their own stitched.
func TestDemoReproducible(t *testing.T) {
	demo := testfixture.Testdata(t, "demo", "perf.data")
	have, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decode.NewFile(bytes.NewReader(have))
	if err != nil {
		t.Fatal(err)
	}
	st := stitch.New(f.Records(decode.TimeOrder), stitch.Options{})
	for st.Next() {
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if n, total := st.Stats().Count(stitch.Stitched), st.Stats().Total(); n != 197 || total != 200 {
		t.Errorf("demo: %d of %d samples stitched, want 197 of 200", n, total)
	}

	src := filepath.Join(testfixture.SharedDir(t), "kernel", "c-threads", "perf.data")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("kernel recording absent: %v", err)
	}
	out := filepath.Join(t.TempDir(), "perf.data")
	if err := run(src, out, "", 200, io.Discard); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Errorf("testdata/demo/perf.data (%d bytes) is not the cut of %s (%d bytes); regenerate it as testdata/demo/README.md says", len(have), src, len(want))
	}
}

// sample is a deferred sample of tid at time with cookie; record is its
// CALLCHAIN_DEFERRED record.
func sample(tid int32, time, cookie uint64) *decode.Sample {
	s := &decode.Sample{Callchain: []uint64{decode.ContextKernel, 0xffffffff81000000, decode.ContextUserDeferred, cookie}}
	s.TID, s.Time, s.Format = tid, time, decode.SampleTID|decode.SampleTime
	return s
}

func record(tid int32, time, cookie uint64) *decode.CallchainDeferred {
	d := &decode.CallchainDeferred{ABI: decode.DeferredCookie, Cookie: cookie, IPs: []uint64{0x401000, 0x401100}}
	d.TID, d.Time, d.Format = tid, time, decode.SampleTID|decode.SampleTime
	return d
}

// TestCut: the cut is at the sample time, from the samples-th on, where
// the fewest samples kept wait for a record after it; records without a
// time are kept wherever they are.
func TestCut(t *testing.T) {
	all := []decode.Record{
		&decode.FinishedInit{},
		sample(1, 10, 0xa), // record at 25
		sample(2, 20, 0xb), // record at 21
		record(2, 21, 0xb),
		record(1, 25, 0xa),
		sample(1, 30, 0xc), // record at 45
		sample(2, 40, 0xd), // never a record
		record(1, 45, 0xc),
		sample(2, 50, 0xe),
		record(2, 51, 0xe),
		&decode.FinishedRound{},
	}
	tests := []struct {
		samples        int
		cut            uint64
		kept, deferred int
		missing        int
	}{
		// Candidates 10 and 20: at 10 one sample waits for its record
		// (25), at 20 two (25, 21).
		{samples: 1, cut: 10, kept: 3, deferred: 1, missing: 1},
		// 30, 40 and 50 each have one waiting (45, 45, 51; the sample
		// that never gets a record does not count): the first wins.
		{samples: 3, cut: 30, kept: 7, deferred: 3, missing: 1},
		// Only 50: the record at 51 is cut, and one never comes.
		{samples: 5, cut: 50, kept: 10, deferred: 5, missing: 2},
	}
	for _, tt := range tests {
		recs, s := cut(all, tt.samples)
		if s.cut != tt.cut || len(recs) != tt.kept || s.deferred != tt.deferred || s.missing != tt.missing {
			t.Errorf("cut(%d): at %d, %d records, %d deferred, %d missing; want at %d, %d, %d, %d",
				tt.samples, s.cut, len(recs), s.deferred, s.missing, tt.cut, tt.kept, tt.deferred, tt.missing)
		}
		if _, ok := recs[len(recs)-1].(*decode.FinishedRound); !ok {
			t.Errorf("cut(%d): last record %v, want the FINISHED_ROUND", tt.samples, recs[len(recs)-1].Type())
		}
	}
}

// TestInlineUser: a deferred sample gets the IPs of its thread's record
// with its cookie stamped at or after it; without one its chain ends
// with the kernel frames. Records are dropped, defer bits cleared.
func TestInlineUser(t *testing.T) {
	a := &decode.EventAttr{Size: 144, Flags: decode.AttrDeferCallchain | decode.AttrDeferOutput}
	recs := []decode.Record{
		record(1, 5, 0xa), // before the sample: not its record
		sample(1, 10, 0xa),
		sample(1, 11, 0xb),
		record(1, 12, 0xb),
	}
	for _, r := range recs {
		r.Common().Attr = a
	}
	attrs, out := inlineUser([]*decode.EventAttr{a}, recs)
	if attrs[0].DeferCallchain() || attrs[0].DeferOutput() || attrs[0].Size != perf61AttrSize {
		t.Errorf("attr flags %#x size %d; want no defer bits, size %d", uint64(attrs[0].Flags), attrs[0].Size, perf61AttrSize)
	}
	if len(out) != 2 {
		t.Fatalf("%d records, want the 2 samples", len(out))
	}
	want := [][]uint64{
		{decode.ContextKernel, 0xffffffff81000000},
		{decode.ContextKernel, 0xffffffff81000000, decode.ContextUser, 0x401000, 0x401100},
	}
	for i, r := range out {
		s := r.(*decode.Sample)
		if !slices.Equal(s.Callchain, want[i]) {
			t.Errorf("sample %d: chain %#x, want %#x", i, s.Callchain, want[i])
		}
		if s.Attr != attrs[0] {
			t.Errorf("sample %d: not with the new attr", i)
		}
	}
	if c := recs[1].(*decode.Sample).Callchain; len(c) != 4 {
		t.Errorf("the input sample was changed: %#x", c)
	}
}
