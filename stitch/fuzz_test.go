package stitch_test

import (
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// synth turns fuzz bytes into options and a record sequence: every pair of
// bytes is one record (deferred samples in both ABIs, ordinary samples,
// records in both ABIs, some with tid -1, EXITs and COMMs) of one of four
// threads. Record i has time i+1, which identifies it in the output.
func synth(data []byte) (stitch.Options, []decode.Record) {
	var opts stitch.Options
	if len(data) > 0 {
		opts.MaxPending = int(data[0] % 6)
		opts.NoMerge = data[0]&0x80 != 0
		opts.CookieOnly = data[0]&0x40 != 0
		data = data[1:]
	}
	var recs []decode.Record
	for i := 0; i+1 < len(data); i += 2 {
		op, p := data[i]%10, data[i+1]
		tid := int32(p % 4)
		cookie := uint64(1+(p>>2)%3)<<32 | 1
		tm := uint64(len(recs) + 1)
		ev := evA
		if p&0x80 != 0 {
			ev = evB
		}
		var r decode.Record
		switch op {
		case 0, 1, 2:
			r = smp(ev, tid, tm, K, 0xf0+uint64(p), D, cookie)
		case 3:
			r = smp(ev, tid, tm, D, cookie)
		case 4:
			r = smp(ev, tid, tm, K, 0xf0, D)
		case 5:
			r = smp(evN, tid, tm, K, 0xf0, U, 0x40)
		case 6:
			c := rec(ev, tid, tm, cookie, 0x40+uint64(p))
			if p&0x40 != 0 {
				c.TID = -1
			}
			r = c
		case 7:
			r = seedRec(ev, tid, tm, 0x50+uint64(p))
		case 8:
			r = exit(tid, tm)
		default:
			r = comm(tid, tm, "x", p&1 != 0)
		}
		recs = append(recs, r)
	}
	return opts, recs
}

// FuzzStitch stitches synth's record sequences: events come out in input
// order, chains match their states and the statistics add up. Its seeds
// are under testdata/fuzz/FuzzStitch.
func FuzzStitch(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		opts, recs := synth(data)
		var wantOrder []uint64
		var samples uint64
		for _, r := range recs {
			if _, ok := r.(*decode.Sample); ok {
				samples++
			}
			if _, ok := r.(*decode.CallchainDeferred); ok && !opts.NoMerge {
				continue
			}
			wantOrder = append(wantOrder, r.Common().Time)
		}
		st := stitch.New(&reusingSource{recs: recs}, opts)
		var got []uint64
		for st.Next() {
			ev := st.Event()
			if (ev.Sample == nil) == (ev.Record == nil) {
				t.Fatalf("event %d: exactly one of Sample and Record must be set", len(got))
			}
			if s := ev.Sample; s != nil {
				got = append(got, s.Time)
				hasD, hasU := false, false
				for _, ip := range s.Callchain {
					hasD = hasD || ip == D
					hasU = hasU || ip == U
				}
				switch s.State {
				case stitch.Stitched:
					if hasD || !hasU {
						t.Fatalf("stitched sample t=%d has chain %s", s.Time, chain(s.Callchain))
					}
				case stitch.CookieMismatch, stitch.NoRecord, stitch.Unmerged:
					if !hasD || s.ABI == decode.DeferredNone {
						t.Fatalf("%v sample t=%d has chain %s", s.State, s.Time, chain(s.Callchain))
					}
				}
				continue
			}
			got = append(got, ev.Record.Common().Time)
		}
		if len(got) != len(wantOrder) {
			t.Fatalf("delivered %d events, want %d", len(got), len(wantOrder))
		}
		for i := range got {
			if got[i] != wantOrder[i] {
				t.Fatalf("event %d has time %d, want %d (order changed)", i, got[i], wantOrder[i])
			}
		}
		stats := st.Stats()
		if stats.Total() != samples {
			t.Fatalf("Stats.Total() = %d, want %d", stats.Total(), samples)
		}
		if c := stats.Count(stitch.NoRecord); stats.NoRecordAtEnd+stats.NoRecordAtExit+stats.NoRecordCap+stats.NoRecordNoTID != c {
			t.Fatalf("NoRecord causes do not add up to %d: %+v", c, stats)
		}
		if stats.SamplesPerRecord.Sum+stats.CookieOnlyStitched != stats.Count(stitch.Stitched) {
			t.Fatalf("histogram sum %d + cookie-only %d != stitched %d", stats.SamplesPerRecord.Sum, stats.CookieOnlyStitched, stats.Count(stitch.Stitched))
		}
		if opts.MaxPending > 0 && stats.QueueHighWater > opts.MaxPending+1 {
			t.Fatalf("queue high water %d beyond cap %d", stats.QueueHighWater, opts.MaxPending)
		}
	})
}
