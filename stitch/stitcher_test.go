package stitch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// Events of the synthetic recordings: one deferring event (cookie ABI: the
// sampler has defer_callchain and defer_output), a second deferring event
// and an event that does not defer.
var (
	evA = &decode.EventAttr{Name: "cpu-clock", Flags: decode.AttrDeferCallchain | decode.AttrDeferOutput | decode.AttrSampleIDAll, Index: 0}
	evB = &decode.EventAttr{Name: "task-clock", Flags: decode.AttrDeferCallchain | decode.AttrSampleIDAll, Index: 1}
	evN = &decode.EventAttr{Name: "plain", Flags: decode.AttrSampleIDAll, Index: 2}
	evT = &decode.EventAttr{Name: "dummy:u", Flags: decode.AttrDeferOutput | decode.AttrSampleIDAll, Index: 3}
)

const (
	K = decode.ContextKernel
	U = decode.ContextUser
	D = decode.ContextUserDeferred
)

const idFormat = decode.SampleTID | decode.SampleTime | decode.SampleCPU | decode.SampleID

func common(ev *decode.EventAttr, tid int32, time uint64, cpu uint32) decode.RecordCommon {
	return decode.RecordCommon{Attr: ev, Format: idFormat, PID: tid, TID: tid, Time: time, CPU: cpu, Offset: int64(time), InnerOffset: -1}
}

// smp is a sample of event ev with the given raw callchain.
func smp(ev *decode.EventAttr, tid int32, time uint64, chain ...uint64) *decode.Sample {
	s := &decode.Sample{RecordCommon: common(ev, tid, time, 0), IP: 0x1000 + time, Period: 1000, Callchain: chain}
	s.Format |= decode.SampleIP | decode.SamplePeriod | decode.SampleCallchain
	s.Size = uint16(8 + 8*7 + 8 + 8*len(chain))
	return s
}

// rec is a cookie-ABI CALLCHAIN_DEFERRED record.
func rec(ev *decode.EventAttr, tid int32, time, cookie uint64, ips ...uint64) *decode.CallchainDeferred {
	return &decode.CallchainDeferred{RecordCommon: common(ev, tid, time, 1), ABI: decode.DeferredCookie, Cookie: cookie, IPs: ips}
}

// seedRec is a seed-ABI CALLCHAIN_DEFERRED record.
func seedRec(ev *decode.EventAttr, tid int32, time uint64, ips ...uint64) *decode.CallchainDeferred {
	return &decode.CallchainDeferred{RecordCommon: common(ev, tid, time, 1), ABI: decode.DeferredSeed, IPs: ips}
}

func exit(tid int32, time uint64) *decode.Exit {
	return &decode.Exit{RecordCommon: common(evA, tid, time, 0), PPID: tid, PTID: tid}
}

func comm(tid int32, time uint64, name string, exec bool) *decode.Comm {
	c := &decode.Comm{RecordCommon: common(evA, tid, time, 0), Comm: name}
	if exec {
		c.Misc |= decode.MiscCommExec
	}
	return c
}

func round() *decode.FinishedRound {
	return &decode.FinishedRound{RecordCommon: decode.RecordCommon{InnerOffset: -1, PID: -1, TID: -1}}
}

// reusingSource delivers copies of its records through one reused Sample
// and reused callchain storage, the way decode.Records does, so a Stitcher
// that keeps a source record without copying it sees it change.
type reusingSource struct {
	recs  []decode.Record
	i     int
	cur   decode.Record
	smp   decode.Sample
	chain []uint64
	err   error
}

func (s *reusingSource) Next() bool {
	if s.i >= len(s.recs) {
		return false
	}
	r := s.recs[s.i]
	s.i++
	if sm, ok := r.(*decode.Sample); ok {
		// Scribble over the previous sample's storage first.
		for i := range s.chain {
			s.chain[i] = 0xdead
		}
		s.smp = *sm
		s.chain = append(s.chain[:0], sm.Callchain...)
		s.smp.Callchain = s.chain
		s.cur = &s.smp
		return true
	}
	s.cur = r.Clone()
	return true
}

func (s *reusingSource) Record() decode.Record { return s.cur }
func (s *reusingSource) Err() error            { return s.err }

// describe prints one delivered event on one line.
func describe(ev stitch.Event) string {
	if ev.Sample == nil {
		c := ev.Record.Common()
		switch r := ev.Record.(type) {
		case *decode.CallchainDeferred:
			return fmt.Sprintf("DEFERRED tid=%d t=%d cookie=%x ips=%s", c.TID, c.Time, r.Cookie, chain(r.IPs))
		case *decode.Comm:
			return fmt.Sprintf("COMM tid=%d t=%d %s", c.TID, c.Time, r.Comm)
		}
		return fmt.Sprintf("%s tid=%d t=%d", ev.Record.Type(), c.TID, c.Time)
	}
	s := ev.Sample
	return fmt.Sprintf("SAMPLE %s tid=%d t=%d %s", s.State, s.TID, s.Time, chain(s.Callchain))
}

func chain(ips []uint64) string {
	var b strings.Builder
	for i, ip := range ips {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch ip {
		case K:
			b.WriteString("K")
		case U:
			b.WriteString("U")
		case D:
			b.WriteString("D")
		default:
			fmt.Fprintf(&b, "%x", ip)
		}
	}
	return "[" + b.String() + "]"
}

func run(t *testing.T, recs []decode.Record, opts stitch.Options) ([]string, *stitch.Stats) {
	t.Helper()
	st := stitch.New(&reusingSource{recs: recs}, opts)
	var got []string
	for st.Next() {
		got = append(got, describe(st.Event()))
	}
	if err := st.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	return got, st.Stats()
}

func TestStitcher(t *testing.T) {
	tests := []struct {
		name  string
		opts  stitch.Options
		in    []decode.Record
		want  []string
		check func(t *testing.T, st *stitch.Stats)
	}{{
		name: "not deferred passes through",
		in: []decode.Record{
			comm(1, 1, "a", false),
			smp(evA, 1, 10, K, 0xf1, U, 0x41),
			smp(evN, 1, 11, K, 0xf1, D, 0xb00000001), // event does not defer: ordinary
		},
		want: []string{
			"COMM tid=1 t=1 a",
			"SAMPLE not-deferred tid=1 t=10 [K f1 U 41]",
			"SAMPLE not-deferred tid=1 t=11 [K f1 D b00000001]",
		},
	}, {
		name: "one entry, two samples, one record",
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, 0xf2, D, 0x300000001),
			smp(evA, 1, 11, K, 0xf3, D, 0x300000001),
			rec(evA, 1, 12, 0x300000001, 0x41, 0x42),
			smp(evA, 1, 20, D, 0x500000001), // user mode
			rec(evA, 1, 21, 0x500000001, 0x43),
		},
		want: []string{
			"SAMPLE stitched tid=1 t=10 [K f1 f2 U 41 42]",
			"SAMPLE stitched tid=1 t=11 [K f3 U 41 42]",
			"SAMPLE stitched tid=1 t=20 [U 43]",
		},
		check: func(t *testing.T, st *stitch.Stats) {
			h := st.SamplesPerRecord
			if h.N != 2 || h.Min != 1 || h.Max != 2 || h.Buckets[0] != 1 || h.Buckets[1] != 1 {
				t.Errorf("histogram %+v", h)
			}
		},
	}, {
		name: "cpu migration inside one entry, record in a later round",
		in: []decode.Record{
			smp(evA, 7, 10, K, 0xf1, D, 0x300000001), // cpu 0
			round(),
			smp(evA, 8, 11, K, 0xf9, U, 0x99),
			func() decode.Record { s := smp(evA, 7, 15, K, 0xf2, D, 0x300000001); s.CPU = 1; return s }(),
			round(),
			round(),
			func() decode.Record { r := rec(evT, 7, 16, 0x300000001, 0x41); r.CPU = 1; return r }(),
		},
		want: []string{
			"SAMPLE stitched tid=7 t=10 [K f1 U 41]",
			"FINISHED_ROUND tid=-1 t=0",
			"SAMPLE not-deferred tid=8 t=11 [K f9 U 99]",
			"SAMPLE stitched tid=7 t=15 [K f2 U 41]",
			"FINISHED_ROUND tid=-1 t=0",
			"FINISHED_ROUND tid=-1 t=0",
		},
	}, {
		name: "record after unrelated threads' samples keeps time order",
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			smp(evA, 2, 11, K, 0xf2, D, 0x300000002),
			smp(evA, 3, 12, K, 0xf3, U, 0x33),
			rec(evA, 2, 13, 0x300000002, 0x22),
			smp(evA, 3, 14, K, 0xf3, U, 0x34),
			rec(evA, 1, 15, 0x300000001, 0x11),
		},
		want: []string{
			"SAMPLE stitched tid=1 t=10 [K f1 U 11]",
			"SAMPLE stitched tid=2 t=11 [K f2 U 22]",
			"SAMPLE not-deferred tid=3 t=12 [K f3 U 33]",
			"SAMPLE not-deferred tid=3 t=14 [K f3 U 34]",
		},
	}, {
		name: "tied timestamps",
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			smp(evA, 2, 10, K, 0xf2, D, 0x300000002),
			smp(evA, 1, 11, K, 0xf3, D, 0x300000001),
			rec(evA, 1, 11, 0x300000001, 0x11),
			smp(evA, 2, 11, K, 0xf4, D, 0x300000002),
			rec(evA, 2, 11, 0x300000002, 0x22),
		},
		want: []string{
			"SAMPLE stitched tid=1 t=10 [K f1 U 11]",
			"SAMPLE stitched tid=2 t=10 [K f2 U 22]",
			"SAMPLE stitched tid=1 t=11 [K f3 U 11]",
			"SAMPLE stitched tid=2 t=11 [K f4 U 22]",
		},
	}, {
		name: "cookie mismatch delivers without user part",
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			smp(evA, 2, 11, K, 0xf2, D, 0x300000002),
			rec(evA, 1, 12, 0x500000001, 0x11),
			rec(evA, 2, 13, 0x300000002, 0x22),
		},
		want: []string{
			"SAMPLE cookie-mismatch tid=1 t=10 [K f1 D 300000001]",
			"SAMPLE stitched tid=2 t=11 [K f2 U 22]",
		},
		check: func(t *testing.T, st *stitch.Stats) {
			if st.OrphanRecords != 1 {
				t.Errorf("OrphanRecords = %d, want 1", st.OrphanRecords)
			}
		},
	}, {
		name: "thread exits with samples pending",
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			smp(evA, 2, 11, K, 0xf2, U, 0x22),
			smp(evA, 1, 12, K, 0xf3, D, 0x300000001),
			exit(1, 13),
			smp(evA, 2, 14, K, 0xf2, U, 0x23),
		},
		want: []string{
			"SAMPLE no-record tid=1 t=10 [K f1 D 300000001]",
			"SAMPLE not-deferred tid=2 t=11 [K f2 U 22]",
			"SAMPLE no-record tid=1 t=12 [K f3 D 300000001]",
			"EXIT tid=1 t=13",
			"SAMPLE not-deferred tid=2 t=14 [K f2 U 23]",
		},
		check: func(t *testing.T, st *stitch.Stats) {
			if st.NoRecordAtExit != 2 || st.NoRecordAtEnd != 0 {
				t.Errorf("NoRecordAtExit %d, NoRecordAtEnd %d", st.NoRecordAtExit, st.NoRecordAtEnd)
			}
		},
	}, {
		name: "exec between sample and record",
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			comm(1, 11, "new", true),
			rec(evA, 1, 12, 0x300000001, 0x11),
		},
		want: []string{
			"SAMPLE stitched tid=1 t=10 [K f1 U 11]",
			"COMM tid=1 t=11 new",
		},
	}, {
		name: "end of input releases pending in time order",
		in: []decode.Record{
			smp(evA, 2, 10, K, 0xf1, D, 0x300000002),
			smp(evA, 1, 11, K, 0xf1, D, 0x300000001),
			smp(evA, 3, 12, K, 0xf1, U, 0x1),
			smp(evA, 2, 13, K, 0xf1, D, 0x300000002),
		},
		want: []string{
			"SAMPLE no-record tid=2 t=10 [K f1 D 300000002]",
			"SAMPLE no-record tid=1 t=11 [K f1 D 300000001]",
			"SAMPLE not-deferred tid=3 t=12 [K f1 U 1]",
			"SAMPLE no-record tid=2 t=13 [K f1 D 300000002]",
		},
		check: func(t *testing.T, st *stitch.Stats) {
			if st.NoRecordAtEnd != 3 || st.PendingHighWater != 3 || st.QueueHighWater != 4 {
				t.Errorf("stats %+v", st)
			}
		},
	}, {
		name: "duplicate record and record without tid",
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			rec(evA, 1, 11, 0x300000001, 0x11),
			rec(evT, 1, 11, 0x300000001, 0x11),
			func() decode.Record { r := rec(evA, 1, 12, 0x300000001, 0x11); r.TID = -1; return r }(),
		},
		want: []string{"SAMPLE stitched tid=1 t=10 [K f1 U 11]"},
		check: func(t *testing.T, st *stitch.Stats) {
			if st.DuplicateRecords != 1 || st.UnknownTIDRecords != 1 || st.OrphanRecords != 0 || st.Records[decode.DeferredCookie] != 3 {
				t.Errorf("stats %+v", st)
			}
		},
	}, {
		name: "seed ABI matches by tid, whatever the events",
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D),
			smp(evB, 1, 11, K, 0xf2, D),
			smp(evA, 1, 12, D),
			seedRec(evB, 1, 13, 0xb1),
			seedRec(evA, 1, 13, 0xa1, 0xa2),
			smp(evA, 2, 14, K, 0xf3, D),
			seedRec(evT, 2, 15, 0xc1), // through a non-deferring event: tid only
		},
		want: []string{
			"SAMPLE stitched tid=1 t=10 [K f1 U b1]",
			"SAMPLE stitched tid=1 t=11 [K f2 U b1]",
			"SAMPLE stitched tid=1 t=12 [U b1]",
			"SAMPLE stitched tid=2 t=14 [K f3 U c1]",
		},
	}, {
		name: "lenient examines events without defer_callchain",
		opts: stitch.Options{Lenient: true},
		in: []decode.Record{
			smp(evN, 1, 10, K, 0xf1, D, 0x300000001),
			rec(evN, 1, 11, 0x300000001, 0x11),
		},
		want: []string{"SAMPLE stitched tid=1 t=10 [K f1 U 11]"},
	}, {
		name: "cap releases the oldest",
		opts: stitch.Options{MaxPending: 2},
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			smp(evA, 2, 11, K, 0xf2, D, 0x300000002),
			smp(evA, 3, 12, K, 0xf3, U, 0x33),
			rec(evA, 1, 13, 0x300000001, 0x11),
			rec(evA, 2, 14, 0x300000002, 0x22),
		},
		want: []string{
			"SAMPLE no-record tid=1 t=10 [K f1 D 300000001]",
			"SAMPLE stitched tid=2 t=11 [K f2 U 22]",
			"SAMPLE not-deferred tid=3 t=12 [K f3 U 33]",
		},
		check: func(t *testing.T, st *stitch.Stats) {
			if st.NoRecordCap != 1 || st.OrphanRecords != 1 {
				t.Errorf("stats %+v", st)
			}
		},
	}, {
		name: "cookie only matches thread-less records before and after their samples",
		opts: stitch.Options{CookieOnly: true},
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			func() decode.Record { r := rec(evA, 1, 0, 0x300000002, 0x22); r.Format = 0; r.TID = -1; return r }(),
			func() decode.Record { r := rec(evA, 1, 0, 0x300000001, 0x11); r.Format = 0; r.TID = -1; return r }(),
			smp(evA, 2, 11, K, 0xf2, D, 0x300000002),
			smp(evA, 2, 12, D, 0x300000002),
			smp(evA, 3, 13, K, 0xf3, D, 0x300000003),
		},
		want: []string{
			"SAMPLE stitched tid=1 t=10 [K f1 U 11]",
			"SAMPLE stitched tid=2 t=11 [K f2 U 22]",
			"SAMPLE stitched tid=2 t=12 [U 22]",
			"SAMPLE no-record tid=3 t=13 [K f3 D 300000003]",
		},
		check: func(t *testing.T, st *stitch.Stats) {
			if st.CookieOnlyStitched != 3 || st.UnknownTIDRecords != 2 {
				t.Errorf("stats %+v", st)
			}
		},
	}, {
		name: "no merge passes records through",
		opts: stitch.Options{NoMerge: true},
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			smp(evA, 2, 11, K, 0xf2, U, 0x22),
			rec(evA, 1, 12, 0x300000001, 0x11),
		},
		want: []string{
			"SAMPLE unmerged tid=1 t=10 [K f1 D 300000001]",
			"SAMPLE not-deferred tid=2 t=11 [K f2 U 22]",
			"DEFERRED tid=1 t=12 cookie=300000001 ips=[11]",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, st := run(t, tt.in, tt.opts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			var samples uint64
			for _, r := range tt.in {
				if _, ok := r.(*decode.Sample); ok {
					samples++
				}
			}
			if st.Total() != samples {
				t.Errorf("Stats.Total() = %d, want %d", st.Total(), samples)
			}
			if want := st.Count(stitch.NoRecord); st.NoRecordAtEnd+st.NoRecordAtExit+st.NoRecordCap+st.NoRecordNoTID != want {
				t.Errorf("NoRecord causes do not add up to %d: %+v", want, st)
			}
			if tt.check != nil {
				tt.check(t, st)
			}
		})
	}
}

func TestStitchedSampleSize(t *testing.T) {
	orig := smp(evA, 1, 10, K, 0xf1, U, 0x41, 0x42, 0x43)
	def := smp(evA, 1, 10, K, 0xf1, D, 0x300000001)
	st := stitch.New(&reusingSource{recs: []decode.Record{def, rec(evA, 1, 11, 0x300000001, 0x41, 0x42, 0x43)}}, stitch.Options{})
	if !st.Next() {
		t.Fatal("no event")
	}
	got := st.Event().Sample
	if got.Size != orig.Size {
		t.Errorf("Size = %d, want %d (the size without deferral)", got.Size, orig.Size)
	}
	if got.ABI != decode.DeferredCookie || got.Cookie != 0x300000001 {
		t.Errorf("ABI %v cookie %x", got.ABI, got.Cookie)
	}
}

func TestStateString(t *testing.T) {
	for s, want := range map[stitch.State]string{
		stitch.NotDeferred: "not-deferred", stitch.Stitched: "stitched", stitch.CookieMismatch: "cookie-mismatch",
		stitch.NoRecord: "no-record", stitch.Unmerged: "unmerged", 9: "state(9)",
	} {
		if got := s.String(); got != want {
			t.Errorf("State(%d).String() = %q, want %q", s, got, want)
		}
	}
}

func TestHistogram(t *testing.T) {
	var h stitch.Histogram
	for _, v := range []uint64{1, 2, 3, 4, 5, 8, 9, 64, 65, 1000} {
		h.Add(v)
	}
	want := [stitch.HistogramBuckets]uint64{1, 1, 2, 2, 1, 0, 1, 2}
	if h.Buckets != want || h.Min != 1 || h.Max != 1000 || h.N != 10 {
		t.Errorf("histogram %+v, want buckets %v", h, want)
	}
	for i := range stitch.HistogramBuckets {
		lo, hi := stitch.BucketRange(i)
		t.Logf("bucket %d: %d..%d", i, lo, hi)
	}
	if lo, hi := stitch.BucketRange(2); lo != 3 || hi != 4 {
		t.Errorf("BucketRange(2) = %d, %d", lo, hi)
	}
}
