package stitch_test

import (
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// sliceSource delivers records as they are, without copying.
type sliceSource struct {
	recs []decode.Record
	i    int
}

func (s *sliceSource) Next() bool {
	if s.i >= len(s.recs) {
		return false
	}
	s.i++
	return true
}
func (s *sliceSource) Record() decode.Record { return s.recs[s.i-1] }
func (s *sliceSource) Err() error            { return nil }

// deferredStream returns n kernel entries of four interleaved threads in
// time order, as a deferring kernel writes them: each entry has three
// samples (interleaved with the other threads' samples) and its record
// comes after them; every tenth thread event is an ordinary sample.
func deferredStream(n int) []decode.Record {
	var recs []decode.Record
	t := uint64(1)
	for e := 0; e < n; e++ {
		cookie := uint64(2*e+3)<<32 | 1
		for k := 0; k < 3; k++ {
			for tid := int32(1); tid <= 4; tid++ {
				recs = append(recs, smp(evA, tid, t, K, 0xffffffff81000000, 0xffffffff81000100, D, cookie+uint64(tid)))
				t++
			}
		}
		if e%10 == 0 {
			recs = append(recs, smp(evA, 5, t, K, 0xffffffff81000000, U, 0x401000, 0x401100))
			t++
		}
		for tid := int32(1); tid <= 4; tid++ {
			recs = append(recs, rec(evT, tid, t, cookie+uint64(tid), 0x401000, 0x401100, 0x401200, 0x401300))
			t++
		}
	}
	return recs
}

// TestPendingStaysFlat checks that the memory held does not grow with the
// input: the high-water marks are the same for 100 and 10000 entries.
func TestPendingStaysFlat(t *testing.T) {
	for _, order := range []stitch.Order{stitch.TimeOrder, stitch.PerfOrder, stitch.ArrivalOrder} {
		pendingStaysFlat(t, order)
	}
}

func pendingStaysFlat(t *testing.T, order stitch.Order) {
	var marks [2][2]int
	for i, n := range []int{100, 3000} {
		st := stitch.New(&sliceSource{recs: deferredStream(n)}, stitch.Options{Order: order})
		for st.Next() {
		}
		s := st.Stats()
		if s.Count(stitch.Stitched) != uint64(12*n) {
			t.Fatalf("%d entries: stitched %d, want %d", n, s.Count(stitch.Stitched), 12*n)
		}
		marks[i] = [2]int{s.PendingHighWater, s.QueueHighWater}
	}
	if marks[0] != marks[1] {
		t.Errorf("order %d: high-water marks grow with the input: %v for 100 entries, %v for 3000", order, marks[0], marks[1])
	}
}

// BenchmarkStitchSynthetic measures the Stitcher alone (no decoding) per
// record on an in-memory deferred stream.
func BenchmarkStitchSynthetic(b *testing.B) {
	for _, o := range []struct {
		name  string
		order stitch.Order
	}{{"time", stitch.TimeOrder}, {"perf", stitch.PerfOrder}, {"arrival", stitch.ArrivalOrder}} {
		b.Run(o.name, func(b *testing.B) {
			recs := deferredStream(1000)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				st := stitch.New(&sliceSource{recs: recs}, stitch.Options{Order: o.order})
				for st.Next() {
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
		})
	}
}
