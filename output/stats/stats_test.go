package stats

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/table"
	"github.com/perfstitch/perfstitch/internal/testevents"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// testStats builds stats from the hand-made samples of report_test.go plus
// made-up decoder, stitcher and symbolizer counters.
func testStats(t *testing.T) *Stats {
	t.Helper()
	c := NewCollector()
	for _, ev := range testevents.Events() {
		if err := c.Add(ev); err != nil {
			t.Fatal(err)
		}
	}
	lost := &decode.LostSamples{Lost: 7}
	lost.Attr = testevents.CPUClock
	for _, r := range []decode.Record{
		&decode.Lost{Lost: 12}, lost, &decode.Throttle{}, &decode.Throttle{Unthrottle: true},
	} {
		if err := c.AddRecord(&output.Record{Record: r}); err != nil {
			t.Fatal(err)
		}
	}
	f := &decode.File{Attrs: []*decode.EventAttr{testevents.CPUClock, testevents.TaskClock}}
	f.Meta.Hostname, f.Meta.OSRelease, f.Meta.Version, f.Meta.Arch = "box", "6.19.0", "6.19", "x86_64"
	f.Meta.NrCPUsOnline, f.Meta.NrCPUsAvail = 4, 8
	f.Meta.Cmdline = []string{"perf", "record", "-g", "--call-graph", "fp,defer"}
	f.Meta.SampleTime = &decode.SampleTimeRange{First: 1_000_000_000, Last: 3_500_000_000}
	rec := &decode.Stats{Counts: map[decode.RecordType]uint64{
		decode.RecordTypeSample: 108, decode.RecordTypeMmap2: 3, decode.RecordTypeComm: 2,
		decode.RecordTypeLost: 1, decode.RecordTypeLostSamples: 1, decode.RecordTypeThrottle: 1,
		decode.RecordTypeUnthrottle: 1, decode.RecordTypeCallchainDeferred: 30, decode.RecordTypeFinishedRound: 4,
		decode.RecordType(99): 1,
	}}
	ss := &stitch.Stats{NoRecordAtExit: 2, NoRecordAtEnd: 1, DuplicateRecords: 3, OrphanRecords: 1, PendingHighWater: 9}
	ss.Samples[stitch.NotDeferred] = 40
	ss.Samples[stitch.Stitched] = 60
	ss.Samples[stitch.CookieMismatch] = 5
	ss.Samples[stitch.NoRecord] = 3
	ss.Records[decode.DeferredCookie] = 30
	for _, n := range []uint64{1, 1, 2, 2, 2, 3, 4, 5, 9, 31} {
		ss.SamplesPerRecord.Add(n)
	}
	diags := []symbolize.DSODiagnostic{
		{DSO: testevents.AppPath, Reason: symbolize.Resolved, Path: "/symfs/usr/bin/app", Frames: 500, Unresolved: 0},
		{DSO: testevents.LibcPath, Reason: symbolize.NoSymbols, Path: "/symfs/usr/lib/libc.so.6", BuildID: "abcd", Frames: 108, Unresolved: 108, UnresolvedWeight: 106000},
		{DSO: "[unknown]", Reason: symbolize.NoMap, Frames: 2, Unresolved: 2, UnresolvedWeight: 2000},
	}
	// stats-perf.txt was made in perf 6.1's dialect (16-wide names).
	return c.Stats(Input{File: f, Records: rec, Stitch: ss, Diagnostics: diags, Compat: compat.Perf61})
}

func TestStatsGolden(t *testing.T) {
	st := testStats(t)
	for _, tt := range []struct {
		name   string
		format table.Format
	}{{"stats.table", table.Text}, {"stats.json", table.JSON}, {"stats-perf.txt", table.Perf}} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := st.Write(&buf, tt.format); err != nil {
				t.Fatal(err)
			}
			testfixture.Golden(t, filepath.Join("testdata", tt.name), buf.Bytes())
		})
	}
}

func TestStatsRanking(t *testing.T) {
	st := testStats(t)
	if len(st.Symbols.DSOs) != 2 {
		t.Fatalf("DSOs %+v, want libc and [unknown]", st.Symbols.DSOs)
	}
	top := st.Symbols.DSOs[0]
	// The IPs in libc: 20 unresolved cpu-clock samples of 1000.
	if top.DSO != testevents.LibcPath || top.UnresolvedWeight != 20000 || top.ChainWeight != 106000 || top.Reason != "no symbols" {
		t.Errorf("top DSO %+v", top)
	}
	if st.Header.DeferredABI != "cookie" {
		t.Errorf("deferred ABI %q", st.Header.DeferredABI)
	}
	if s := st.Symbols; s.Weight != 100*1000+8*2000 || s.WeightResolved != s.Weight-22000 {
		t.Errorf("weight %d resolved %d", s.Weight, s.WeightResolved)
	}
	if st.Lost.LostSamples != 7 || st.Lost.LostEvents != 12 || st.Lost.Throttle != 1 || st.Lost.Unthrottle != 1 {
		t.Errorf("lost %+v", st.Lost)
	}
}
