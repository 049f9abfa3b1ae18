package deferralsim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
)

// recording is one real input: the module's testdata recordings and the
// corpus cases with callchains.
type recording struct{ name, path string }

func recordings(t *testing.T) []recording {
	t.Helper()
	var out []recording
	for _, n := range []string{"fp", "pipe", "zstd", "two-events"} {
		p := testfixture.Testdata(t, n, "perf.data")
		if _, err := os.Stat(p); err == nil {
			out = append(out, recording{"testdata/" + n, p})
		}
	}
	if _, err := os.Stat(filepath.Join(testfixture.ModuleRoot(t), "..", "shared", "corpus")); err == nil {
		for _, c := range testfixture.Corpus(t) {
			if c.Name == "no-callchain" || c.Name == "dwarf" {
				continue // no frame-pointer user chains: nothing defers
			}
			out = append(out, recording{"corpus/" + c.Name, c.Data})
		}
	}
	if _, err := os.Stat(filepath.Join(testfixture.ModuleRoot(t), "..", "shared", "external")); err == nil {
		// Foreign recordings with frame-pointer callchains (quipper's
		// test files of perf 3.4 and 3.8, some with branch stacks).
		for _, p := range testfixture.External(t) {
			if filepath.Base(p) == "perf.data" && strings.Contains(p, "callgraph") {
				rel, _ := filepath.Rel(filepath.Join(testfixture.ModuleRoot(t), "..", "shared"), p)
				out = append(out, recording{filepath.ToSlash(filepath.Dir(rel)), p})
			}
		}
	}
	if len(out) == 0 {
		t.Skip("no recordings")
	}
	return out
}

// originalSamples returns the samples of the recording at path in time
// order, normalised by norm.
func originalSamples(t *testing.T, path string) ([]*decode.Sample, []*decode.EventAttr) {
	t.Helper()
	f, err := decode.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs := f.Records(decode.TimeOrder)
	var out []*decode.Sample
	for rs.Next() {
		if s, ok := rs.Record().(*decode.Sample); ok {
			out = append(out, norm(s))
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out, f.Attrs
}

// norm returns a copy of s comparable across files: no offsets, the attr
// reduced to its index.
func norm(s *decode.Sample) *decode.Sample {
	c := s.Clone().(*decode.Sample)
	c.Offset, c.InnerOffset = 0, 0
	if c.Attr != nil {
		c.Attr = &decode.EventAttr{Index: c.Attr.Index}
	}
	return c
}

type stitched struct {
	samples []*decode.Sample
	states  []stitch.State
	stats   *stitch.Stats
	attrs   []*decode.EventAttr
}

// stitchBytes stitches the recording in data.
func stitchBytes(t *testing.T, data []byte, opts stitch.Options) stitched {
	t.Helper()
	f, err := decode.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode simulated file: %v", err)
	}
	rs := f.Records(decode.TimeOrder)
	st := stitch.New(rs, opts)
	var out stitched
	for st.Next() {
		if s := st.Event().Sample; s != nil {
			out.samples = append(out.samples, norm(s.Sample))
			out.states = append(out.states, s.State)
		}
	}
	if err := st.Err(); err != nil {
		t.Fatalf("stitch simulated file: %v", err)
	}
	if w := rs.Stats().Warnings; len(w) > 0 {
		t.Errorf("decode warnings on the simulated file: %v", w)
	}
	out.stats = st.Stats()
	out.attrs = f.Attrs
	return out
}

func simulate(t *testing.T, path string, opts deferralsim.Options) ([]byte, *deferralsim.Truth) {
	t.Helper()
	var buf bytes.Buffer
	truth, err := deferralsim.Simulate(path, &buf, opts)
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	return buf.Bytes(), truth
}

// TestRoundTrip is the proof of package stitch: for every real recording,
// stitch(simulate(x)) delivers the samples of x, field by field and in
// order, in both ABIs, with records through another event, and with
// duplicated records; with dropped records exactly the samples of the
// dropped entries come out without their user part.
func TestRoundTrip(t *testing.T) {
	cookie, seed := decode.DeferredCookie, decode.DeferredSeed
	variants := []struct {
		name   string
		opts   deferralsim.Options
		stitch stitch.Options
		multi  bool // needs a second event
	}{
		{name: "cookie", opts: deferralsim.Options{ABI: cookie}},
		{name: "seed", opts: deferralsim.Options{ABI: seed}},
		{name: "cookie-duplicate", opts: deferralsim.Options{ABI: cookie, Duplicate: true}},
		{name: "cookie-drop3", opts: deferralsim.Options{ABI: cookie, DropEvery: 3}},
		{name: "seed-drop2", opts: deferralsim.Options{ABI: seed, DropEvery: 2}},
		{name: "cookie-via-second-event", opts: deferralsim.Options{ABI: cookie}, multi: true},
		{name: "cookie-no-sample-id-all", opts: deferralsim.Options{ABI: cookie, NoSampleIDAll: true}},
		{name: "cookie-no-sample-id-all-cookie-only", opts: deferralsim.Options{ABI: cookie, NoSampleIDAll: true}, stitch: stitch.Options{CookieOnly: true}},
	}
	for _, rec := range recordings(t) {
		t.Run(rec.name, func(t *testing.T) {
			want, attrs := originalSamples(t, rec.path)
			for _, v := range variants {
				opts := v.opts
				if v.multi {
					if len(attrs) < 2 || len(attrs[1].IDs) == 0 {
						continue
					}
					opts.ViaEvent = attrs[1].IDs[0]
				}
				t.Run(v.name, func(t *testing.T) {
					data, truth := simulate(t, rec.path, opts)
					got := stitchBytes(t, data, v.stitch)
					checkRoundTrip(t, opts, v.stitch, want, truth, got)
				})
			}
		})
	}
}

func checkRoundTrip(t *testing.T, opts deferralsim.Options, sopts stitch.Options, want []*decode.Sample, truth *deferralsim.Truth, got stitched) {
	t.Helper()
	if len(got.samples) != len(want) || len(truth.Samples) != len(want) {
		t.Fatalf("samples: %d stitched, %d in the truth, want %d", len(got.samples), len(truth.Samples), len(want))
	}
	deferred := truth.Deferred()
	if deferred == 0 && len(want) > 100 {
		t.Errorf("nothing deferred in %d samples", len(want))
	}
	var stitchedN, mismatch, norec, misjoined int
	for i, w := range want {
		tr, st, g := truth.Samples[i], got.states[i], got.samples[i]
		switch {
		case !tr.Deferred:
			if st != stitch.NotDeferred {
				t.Fatalf("sample %d (t=%d): state %v, want not-deferred", i, w.Time, st)
			}
		case opts.NoSampleIDAll && !sopts.CookieOnly:
			// Records without a thread id match nothing (perf 6.19).
			if st != stitch.NoRecord {
				t.Fatalf("sample %d (t=%d): state %v, want no-record", i, w.Time, st)
			}
			norec++
			continue
		case tr.Dropped:
			switch {
			case st == stitch.NoRecord:
				norec++
			case st == stitch.CookieMismatch && opts.ABI == decode.DeferredCookie:
				mismatch++
			case st == stitch.Stitched && opts.ABI == decode.DeferredSeed:
				// Without cookies a lost record cannot be noticed: the
				// thread's next record is joined to these samples too
				// (as perf's seed-era merge did).
				stitchedN++
				misjoined++
			default:
				t.Fatalf("sample %d (t=%d) of a dropped record: state %v", i, w.Time, st)
			}
			continue
		default:
			if st != stitch.Stitched {
				t.Fatalf("sample %d (t=%d, cookie %#x): state %v, want stitched", i, w.Time, tr.Cookie, st)
			}
			stitchedN++
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Fatalf("sample %d (t=%d) differs (-original +stitched):\n%s", i, w.Time, diff)
		}
	}
	s := got.stats
	if int(s.Count(stitch.Stitched)) != stitchedN || int(s.Count(stitch.CookieMismatch)) != mismatch || int(s.Count(stitch.NoRecord)) != norec {
		t.Errorf("stats %v disagree with the per-sample states (%d stitched, %d mismatch, %d no-record)", s.Samples, stitchedN, mismatch, norec)
	}
	records := s.Records[decode.DeferredSeed] + s.Records[decode.DeferredCookie]
	if int(records) != truth.Records {
		t.Errorf("stitcher read %d records, simulator wrote %d", records, truth.Records)
	}
	switch {
	case opts.NoSampleIDAll:
		if int(s.UnknownTIDRecords) != truth.Records {
			t.Errorf("%d records without tid, want %d", s.UnknownTIDRecords, truth.Records)
		}
		if !sopts.CookieOnly && int(s.NoRecordNoTID) != norec {
			t.Errorf("%d of %d no-record samples released at once, want all (nothing can match)", s.NoRecordNoTID, norec)
		}
	case opts.Duplicate:
		if int(s.DuplicateRecords) != truth.Records/2 {
			t.Errorf("%d duplicate records, want %d", s.DuplicateRecords, truth.Records/2)
		}
	case opts.DropEvery == 0:
		// Seed ABI: each deferring event writes its own record, and the
		// first joins the samples of all (by tid): the others repeat it.
		if s.OrphanRecords != 0 || (s.DuplicateRecords != 0 && opts.ABI != decode.DeferredSeed) {
			t.Errorf("orphan %d, duplicate %d records; want none", s.OrphanRecords, s.DuplicateRecords)
		}
	}
	t.Logf("%d samples, %d deferred, %d records (%d dropped): stitched %d (%d of dropped entries), mismatch %d, no-record %d; samples/record mean %.2f max %d; pending high water %d, queue %d",
		len(want), deferred, truth.Records, truth.Dropped, stitchedN, misjoined, mismatch, norec,
		s.SamplesPerRecord.Mean(), s.SamplesPerRecord.Max, s.PendingHighWater, s.QueueHighWater)
}
