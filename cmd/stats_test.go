package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/table"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/output/stats"
)

func TestNewCmdStats(t *testing.T) {
	tests := []struct {
		args    string
		want    StatsOptions
		wantErr string
	}{
		{args: ""},
		{args: "x.data --format perf", want: StatsOptions{Common: CommonOptions{Input: "x.data"}, Format: table.Perf}},
		{args: "-i y.data --format json", want: StatsOptions{Common: CommonOptions{Input: "y.data"}, Format: table.JSON}},
		{args: "--format xml", wantErr: `unknown format "xml"`},
		{args: "a b", wantErr: "accepts at most 1 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got := parseOptions(t, NewCmdStats, tt.args, tt.wantErr)
			if got == nil {
				return
			}
			if got.Common.Input != tt.want.Common.Input || got.Format != tt.want.Format {
				t.Errorf("got input %q format %v, want %q %v", got.Common.Input, got.Format, tt.want.Common.Input, tt.want.Format)
			}
		})
	}
}

// TestStatsCorpus checks that --format perf prints exactly what perf
// report --stats printed for every corpus recording.
func TestStatsCorpus(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		want, err := os.ReadFile(c.Golden("stats.txt"))
		if err != nil {
			t.Fatal(err)
		}
		have := runCmd(t, "stats", "--compat", "6.1", "--format", "perf", "-i", c.Data, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms)
		if have != string(want) {
			t.Errorf("%s: stats differ at %s", c.Name, testfixture.FirstDiff([]byte(have), want))
		}
	}
}

func statsJSON(tb testing.TB, args ...string) *stats.Stats {
	tb.Helper()
	out := runCmd(tb, append([]string{"stats", "--format", "json"}, args...)...)
	var st stats.Stats
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		tb.Fatalf("stats JSON: %v\n%s", err, out)
	}
	return &st
}

func corpusCase(tb testing.TB, name string) testfixture.CorpusCase {
	tb.Helper()
	for _, c := range testfixture.Corpus(tb) {
		if c.Name == name {
			return c
		}
	}
	tb.Skipf("corpus case %s absent", name)
	return testfixture.CorpusCase{}
}

// TestStatsDeferredSimulated runs stats on a recording rewritten by the
// deferral simulator with every third record dropped, where each stitching
// counter is known in advance from the simulator's truth and the original
// samples' threads.
func TestStatsDeferredSimulated(t *testing.T) {
	c := corpusCase(t, "c-pthreads")
	path := filepath.Join(t.TempDir(), "deferred.data")
	truth := simulateDropped(t, c.Data, path)
	tids := sampleTIDs(t, c.Data)
	if len(tids) != len(truth.Samples) {
		t.Fatalf("%d samples, truth has %d", len(tids), len(truth.Samples))
	}
	deferred, stitched, mismatch, norec := expectedStitching(truth, tids)
	if deferred == 0 || mismatch == 0 || norec == 0 {
		t.Fatalf("test recording too weak: %d deferred, %d mismatch, %d no-record", deferred, mismatch, norec)
	}

	st := statsJSON(t, "-i", path, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms)
	s := st.Stitch
	if s == nil {
		t.Fatal("no stitch section")
	}
	checks := []struct {
		name       string
		have, want uint64
	}{
		{"samples", s.Samples, uint64(len(truth.Samples))},
		{"deferred", s.Deferred, deferred},
		{"not deferred", s.NotDeferred, uint64(len(truth.Samples)) - deferred},
		{"stitched", s.Stitched, stitched},
		{"cookie mismatch", s.CookieMismatch, mismatch},
		{"no record", s.NoRecord, norec},
		{"cookie records", s.RecordsCookie, uint64(truth.Records)},
		{"seed records", s.RecordsSeed, 0},
		{"duplicate records", s.Duplicate, 0},
		{"orphan records", s.Orphan, 0},
	}
	for _, ck := range checks {
		if ck.have != ck.want {
			t.Errorf("%s: %d, want %d", ck.name, ck.have, ck.want)
		}
	}
	if st.Header.DeferredABI != "cookie" {
		t.Errorf("deferred ABI %q, want cookie", st.Header.DeferredABI)
	}
	var recs uint64
	for _, r := range st.Records {
		if r.Type == "CALLCHAIN_DEFERRED" {
			recs = r.Count
		}
	}
	if recs != uint64(truth.Records) {
		t.Errorf("CALLCHAIN_DEFERRED records counted %d, want %d", recs, truth.Records)
	}
	if s.PerRecordMin < 1 || s.PerRecordMax < s.PerRecordMin || s.PerRecordMean < float64(s.PerRecordMin) {
		t.Errorf("samples per record min/mean/max %d/%.2f/%d", s.PerRecordMin, s.PerRecordMean, s.PerRecordMax)
	}

	// --max-pending reaches the stitcher: with room for one held item,
	// waiting samples are released by the cap instead of waiting for their
	// record, and every sample is still delivered.
	capped := statsJSON(t, "-i", path, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, "--max-pending", "1").Stitch
	if capped.NoRecordCap == 0 || capped.NoRecordCap > capped.NoRecord {
		t.Errorf("--max-pending 1: %d released by the cap of %d without record", capped.NoRecordCap, capped.NoRecord)
	}
	if capped.Samples != uint64(len(truth.Samples)) || capped.Deferred != deferred ||
		capped.Stitched+capped.CookieMismatch+capped.NoRecord != deferred || capped.Stitched >= stitched {
		t.Errorf("--max-pending 1: %d samples, %d deferred = %d stitched + %d mismatch + %d no record; want %d samples, %d deferred, fewer than %d stitched",
			capped.Samples, capped.Deferred, capped.Stitched, capped.CookieMismatch, capped.NoRecord, len(truth.Samples), deferred, stitched)
	}
}

// TestStatsMissingBinary removes the shared library that takes most
// samples from a copy of the symfs: stats must name it as the DSO that lost
// the most weight, with the weight of every sample whose IP lies in it.
func TestStatsMissingBinary(t *testing.T) {
	c := corpusCase(t, "c-pie-so")
	const lib = "/opt/perfstitch-corpus/lib/libcorpus.so"
	symfs := t.TempDir()
	err := filepath.WalkDir(c.Symfs, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(c.Symfs, p)
		dst := filepath.Join(symfs, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case "/"+filepath.ToSlash(rel) == lib:
			return nil
		}
		return os.Symlink(p, dst)
	})
	if err != nil {
		t.Fatal(err)
	}

	// perf script's view: the period of every sample whose IP (first
	// callchain line) is in the library.
	var want, total uint64
	gf, err := os.Open(c.Golden("script.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer gf.Close()
	sc := bufio.NewScanner(gf)
	first := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			first = false
		case !strings.HasPrefix(line, "\t"):
			first = true
			total += 1000000 // -F 1000: every cpu-clock sample weighs 1 ms
		case first:
			if strings.HasSuffix(line, "("+lib+")") {
				want += 1000000
			}
			first = false
		}
	}
	if want == 0 {
		t.Fatal("no sample in the library")
	}

	st := statsJSON(t, "-i", c.Data, "--symfs", symfs, "--kallsyms", c.Kallsyms)
	if len(st.Symbols.DSOs) == 0 {
		t.Fatal("no unresolved DSO reported")
	}
	top := st.Symbols.DSOs[0]
	if top.DSO != lib {
		t.Fatalf("top unresolved DSO %q, want %s (all: %+v)", top.DSO, lib, st.Symbols.DSOs)
	}
	if top.UnresolvedWeight != want {
		t.Errorf("%s unresolved weight %d, want %d", lib, top.UnresolvedWeight, want)
	}
	if top.Reason != "file not found" {
		t.Errorf("%s reason %q, want file not found", lib, top.Reason)
	}
	if st.Symbols.Weight != total || st.Symbols.WeightResolved > total-want {
		t.Errorf("resolved weight %d of %d, want at most %d of %d", st.Symbols.WeightResolved, st.Symbols.Weight, total-want, total)
	}
	table := runCmd(t, "stats", "-i", c.Data, "--symfs", symfs, "--kallsyms", c.Kallsyms)
	if !strings.Contains(table, lib) || !strings.Contains(table, "file not found") {
		t.Errorf("table output does not name %s:\n%s", lib, table)
	}
}

// knownStatsDiffs are external recordings whose perf report --stats text
// perfstitch does not reproduce, with the reason (none at present).
var knownStatsDiffs = map[string]string{}

// TestStatsExternal compares --format perf with perf report --stats on
// the foreign recordings perf 6.1 reads.
func TestStatsExternal(t *testing.T) {
	identical, total := 0, 0
	for _, data := range testfixture.External(t) {
		if filepath.Base(data) != "perf.data" {
			continue
		}
		dir := filepath.Dir(data)
		want, err := os.ReadFile(filepath.Join(dir, "stats.txt"))
		if err != nil {
			continue // perf could not read it either
		}
		total++
		have := runCmd(t, "stats", "--compat", "6.1", "--format", "perf", "-i", data)
		if have == string(want) {
			identical++
			continue
		}
		if why, ok := knownStatsDiffs[filepath.Base(dir)]; ok {
			t.Logf("%s differs (known: %s)", dir, why)
			continue
		}
		t.Errorf("%s: stats differ at %s", dir, testfixture.FirstDiff([]byte(have), want))
	}
	t.Logf("%d/%d external stats goldens byte-identical", identical, total)
}

// simulateDropped writes to path the recording data rewritten by the
// deferral simulator (cookie ABI, every third record dropped) and returns
// the simulator's truth.
func simulateDropped(t *testing.T, data, path string) *deferralsim.Truth {
	t.Helper()
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := deferralsim.Simulate(data, w, deferralsim.Options{ABI: decode.DeferredCookie, DropEvery: 3})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return truth
}

// sampleTIDs returns the threads of the samples of the recording data,
// in time order (the order of the simulator's truth.Samples).
func sampleTIDs(t *testing.T, data string) []int32 {
	t.Helper()
	f, err := decode.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tids []int32
	rs := f.Records(decode.TimeOrder)
	for rs.Next() {
		if s, ok := rs.Record().(*decode.Sample); ok {
			tids = append(tids, s.TID)
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return tids
}

// expectedStitching counts, from the simulator's truth and the samples'
// threads, the deferred samples and how each should end: stitched, or,
// when its record was dropped, waiting until the thread's next record
// (another cookie: mismatch) or its exit or the end of the input (no
// record).
func expectedStitching(truth *deferralsim.Truth, tids []int32) (deferred, stitched, mismatch, norec uint64) {
	for i, s := range truth.Samples {
		if !s.Deferred {
			continue
		}
		deferred++
		if !s.Dropped {
			stitched++
			continue
		}
		later := false
		for j := i + 1; j < len(truth.Samples); j++ {
			if tids[j] == tids[i] && truth.Samples[j].Deferred && !truth.Samples[j].Dropped {
				later = true
				break
			}
		}
		if later {
			mismatch++
		} else {
			norec++
		}
	}
	return deferred, stitched, mismatch, norec
}
