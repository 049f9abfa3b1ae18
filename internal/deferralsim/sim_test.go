package deferralsim_test

import (
	"bytes"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestSimulatedFile checks what the simulator writes: the attr bits of
// each ABI, records through the chosen event, and kernel-style cookies
// unique per entry.
func TestSimulatedFile(t *testing.T) {
	in := testfixture.Testdata(t, "two-events", "perf.data")
	orig, attrs := originalSamples(t, in)
	if len(attrs) < 2 {
		t.Skip("testdata/two-events has fewer than two events")
	}
	via := attrs[1].IDs[0]
	tests := []struct {
		name               string
		opts               deferralsim.Options
		wantOutput         []bool // defer_output per attr
		wantRecordsThrough int    // attr index of the records (-1: the sampling events)
	}{
		{"cookie", deferralsim.Options{ABI: decode.DeferredCookie}, []bool{true, false}, 0},
		{"cookie via second event", deferralsim.Options{ABI: decode.DeferredCookie, ViaEvent: via}, []bool{false, true}, 1},
		{"seed", deferralsim.Options{ABI: decode.DeferredSeed}, []bool{false, false}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			truth, err := deferralsim.Simulate(in, &buf, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			f, err := decode.NewFile(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range f.Attrs {
				if !a.DeferCallchain() {
					t.Errorf("attr %d (%s) lacks defer_callchain", i, a.Name)
				}
				if a.DeferOutput() != tt.wantOutput[i] {
					t.Errorf("attr %d (%s): defer_output %v, want %v", i, a.Name, a.DeferOutput(), tt.wantOutput[i])
				}
			}
			rs := f.Records(decode.TimeOrder)
			cookies := map[uint64]bool{}
			var records, samples int
			for rs.Next() {
				switch r := rs.Record().(type) {
				case *decode.Sample:
					samples++
				case *decode.CallchainDeferred:
					records++
					if r.ABI != tt.opts.ABI {
						t.Fatalf("record ABI %v, want %v", r.ABI, tt.opts.ABI)
					}
					if r.Attr == nil {
						t.Fatal("record of no event")
					}
					if tt.wantRecordsThrough >= 0 && r.Attr.Index != tt.wantRecordsThrough {
						t.Fatalf("record through event %d, want %d", r.Attr.Index, tt.wantRecordsThrough)
					}
					if r.Misc != uint16(decode.CPUModeUser) {
						t.Errorf("record misc %#x, want PERF_RECORD_MISC_USER", r.Misc)
					}
					if tt.opts.ABI != decode.DeferredCookie {
						continue
					}
					cpu, cnt := uint32(r.Cookie), uint32(r.Cookie>>32)
					if cnt&1 == 0 || cpu == 0 || cpu > 64 {
						t.Errorf("cookie %#x: want an odd counter and cpu+1 in the low half", r.Cookie)
					}
					if cookies[r.Cookie] {
						t.Errorf("cookie %#x used twice", r.Cookie)
					}
					cookies[r.Cookie] = true
				}
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if samples != len(orig) || records != truth.Records || records == 0 {
				t.Errorf("%d samples, %d records; want %d samples and the truth's %d records", samples, records, len(orig), truth.Records)
			}
		})
	}
}

func TestSimulateRejects(t *testing.T) {
	in := testfixture.Testdata(t, "fp", "perf.data")
	for _, opts := range []deferralsim.Options{
		{},
		{ABI: decode.DeferredSeed, Duplicate: true},
		{ABI: decode.DeferredSeed, ViaEvent: 1},
		{ABI: decode.DeferredCookie, ViaEvent: 0xdeadbeef},
		{ABI: decode.DeferredCookie, DropEvery: -1},
	} {
		var buf bytes.Buffer
		if _, err := deferralsim.Simulate(in, &buf, opts); err == nil {
			t.Errorf("Simulate(%+v) succeeded", opts)
		}
	}
}
