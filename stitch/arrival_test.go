package stitch_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// TestStitcherOrders: where PerfOrder and ArrivalOrder deliver.
func TestStitcherOrders(t *testing.T) {
	tests := []struct {
		name  string
		order stitch.Order
		in    []decode.Record
		want  []string // describe, then " seq=N low=M"
	}{{
		name:  "perf: a record delivers its thread's samples in its place, records between come first",
		order: stitch.PerfOrder,
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			smp(evA, 2, 11, K, 0xf2, D, 0x300000002),
			comm(1, 12, "new", true),
			smp(evA, 1, 13, K, 0xf3, D, 0x300000001),
			rec(evA, 1, 14, 0x300000001, 0x11),
			rec(evA, 2, 15, 0x300000002, 0x22),
		},
		want: []string{
			"COMM tid=1 t=12 new seq=2 low=0",
			"SAMPLE stitched tid=1 t=10 [K f1 U 11] seq=0 low=1",
			"SAMPLE stitched tid=1 t=13 [K f3 U 11] seq=3 low=1",
			"SAMPLE stitched tid=2 t=11 [K f2 U 22] seq=1 low=6",
		},
	}, {
		name:  "perf: another cookie is flushed unmerged by the next record, EXIT releases nothing",
		order: stitch.PerfOrder,
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			smp(evA, 2, 11, K, 0xf2, D, 0x300000002),
			exit(2, 12),
			rec(evA, 1, 13, 0x400000001, 0x11),
			smp(evA, 1, 14, K, 0xf3, D, 0x400000001),
		},
		want: []string{
			"EXIT tid=2 t=12 seq=2 low=0",
			"SAMPLE cookie-mismatch tid=1 t=10 [K f1 D 300000001] seq=0 low=1",
			"SAMPLE no-record tid=2 t=11 [K f2 D 300000002] seq=1 low=4",
			"SAMPLE no-record tid=1 t=14 [K f3 D 400000001] seq=4 low=5",
		},
	}, {
		name:  "arrival: EXIT releases its thread's samples before itself",
		order: stitch.ArrivalOrder,
		in: []decode.Record{
			smp(evA, 1, 10, K, 0xf1, D, 0x300000001),
			smp(evA, 2, 11, K, 0xf2, D, 0x300000002),
			exit(2, 12),
			rec(evA, 1, 13, 0x300000001, 0x11),
		},
		want: []string{
			"SAMPLE no-record tid=2 t=11 [K f2 D 300000002] seq=1 low=0",
			"EXIT tid=2 t=12 seq=2 low=0",
			"SAMPLE stitched tid=1 t=10 [K f1 U 11] seq=0 low=4",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := stitch.New(&reusingSource{recs: tt.in}, stitch.Options{Order: tt.order})
			var got []string
			for st.Next() {
				ev := st.Event()
				got = append(got, describe(ev)+" seq="+itoa(ev.Seq)+" low="+itoa(ev.Low))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

func itoa(v uint64) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
		if v == 0 {
			return string(b)
		}
	}
}

// FuzzArrivalOrder: ArrivalOrder's events put back in Seq order are
// TimeOrder's (without a cap, whose bounds differ), and no event comes
// after one whose Low is above its Seq, in either arrival order.
func FuzzArrivalOrder(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 2, 6, 1, 5, 3})
	f.Add([]byte{3, 0, 1, 0, 5, 1, 2, 8, 1, 6, 5})
	f.Add([]byte{0x82, 4, 1, 7, 1, 6, 0x41, 9, 0})
	f.Add([]byte{1, 0, 0, 0, 4, 0, 8, 0, 2, 6, 8})
	f.Add([]byte{0x40, 6, 0x40, 0, 0, 0, 0, 6, 0x44, 0, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		opts, recs := synth(data)
		opts.CookieOnly = false // its thread-less matches scan a map
		type item struct {
			seq uint64
			s   string
		}
		collect := func(o stitch.Options) []item {
			st := stitch.New(&reusingSource{recs: recs}, o)
			var got []item
			low := uint64(0)
			for st.Next() {
				ev := st.Event()
				if o.Order != stitch.TimeOrder {
					if ev.Seq < low {
						t.Fatalf("%v: event seq %d after a low of %d", o.Order, ev.Seq, low)
					}
					low = max(low, ev.Low)
				}
				got = append(got, item{ev.Seq, describe(ev)})
			}
			return got
		}
		for _, order := range []stitch.Order{stitch.PerfOrder, stitch.ArrivalOrder} {
			o := opts
			o.Order = order
			got := collect(o)
			if order != stitch.ArrivalOrder || opts.MaxPending > 0 {
				continue
			}
			slices.SortStableFunc(got, func(a, b item) int { return int(a.seq) - int(b.seq) })
			o.Order = stitch.TimeOrder
			want := collect(o)
			if len(got) != len(want) {
				t.Fatalf("arrival delivered %d events, time %d", len(got), len(want))
			}
			for i := range got {
				if got[i].s != want[i].s {
					t.Fatalf("event %d: arrival %q, time %q", i, got[i].s, want[i].s)
				}
			}
		}
	})
}

// TestArrivalKeepsOnlyWaiting: in ArrivalOrder the samples completed
// behind a long-waiting one are delivered and their copies reused at once,
// so what the Stitcher allocates does not grow with how many there are,
// while the span it reports (QueueHighWater) still covers them all.
func TestArrivalKeepsOnlyWaiting(t *testing.T) {
	stream := func(n int) []decode.Record {
		recs := []decode.Record{smp(evA, 1, 1, K, 0xffff1, D, 7)}
		for i := range uint64(n) {
			t0 := 10 + 3*i
			recs = append(recs, smp(evA, 2, t0, K, 0xffff2, 0xffff3, D, 9+2*i), rec(evA, 2, t0+1, 9+2*i, 0x400, 0x500))
		}
		return append(recs, rec(evA, 1, 20+3*uint64(n), 7, 0x600))
	}
	allocs := func(n int) (uint64, *stitch.Stats) {
		recs := stream(n)
		var st *stitch.Stitcher
		got := testing.AllocsPerRun(1, func() {
			st = stitch.New(&sliceSource{recs: recs}, stitch.Options{Order: stitch.ArrivalOrder})
			for st.Next() {
			}
		})
		return uint64(got), st.Stats()
	}
	small, _ := allocs(100)
	large, st := allocs(5000)
	if st.Count(stitch.Stitched) != 5001 || st.QueueHighWater != 5001 {
		t.Errorf("stitched %d, queue high water %d; want 5001 and 5001", st.Count(stitch.Stitched), st.QueueHighWater)
	}
	// The queue's slots grow by doubling: a few allocations more.
	if large > small+20 {
		t.Errorf("%d allocations for 5000 samples behind a waiting one, %d for 100: copies kept per sample", large, small)
	}
}
