package stitch_test

import (
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// mixedABI returns n seed-ABI samples of thread 1 that wait (no seed
// record comes) while n cookie-ABI records arrive for the thread: the
// case that made stitching quadratic, each record scanning every waiting
// sample it could not join.
func mixedABI(n int) []decode.Record {
	recs := make([]decode.Record, 0, 2*n)
	for i := 0; i < n; i++ {
		t := uint64(2*i + 1)
		recs = append(recs, smp(evA, 1, t, K, 0xffffffff81000000, D),
			rec(evT, 1, t+1, uint64(i+1)<<32|1, 0x401000))
	}
	return recs
}

// TestMixedABILinear checks what the mixed case yields once cookie-ABI
// records skip the seed-ABI samples of their thread: every sample waits
// to the end (no record) and every record is an orphan
// (BenchmarkMixedABI measures the time: 0.17 s for 20,000 of each,
// 5.1 s when each record scanned the waiting samples).
func TestMixedABILinear(t *testing.T) {
	st := stitch.New(&sliceSource{recs: mixedABI(2000)}, stitch.Options{})
	for st.Next() {
	}
	s := st.Stats()
	if s.Count(stitch.NoRecord) != 2000 || s.OrphanRecords != 2000 {
		t.Errorf("no record %d, orphans %d; want 2000 each", s.Count(stitch.NoRecord), s.OrphanRecords)
	}
}

// BenchmarkMixedABI is the issue-16 case: 20,000 waiting seed-ABI samples
// and 20,000 cookie-ABI records of one thread (3.1 s when quadratic).
func BenchmarkMixedABI(b *testing.B) {
	recs := mixedABI(20000)
	b.ReportAllocs()
	for b.Loop() {
		st := stitch.New(&sliceSource{recs: recs}, stitch.Options{})
		for st.Next() {
		}
	}
}

// pendingBomb returns n deferred samples of one thread whose record
// never comes.
func pendingBomb(n int) []decode.Record {
	recs := make([]decode.Record, 0, n)
	for i := 0; i < n; i++ {
		recs = append(recs, smp(evA, 1, uint64(i+1), K, 0xffffffff81000000, D, uint64(i+1)<<32|1))
	}
	return recs
}

// TestPendingCapBomb: past Options.MaxPending the oldest waiting sample
// is released, and the held items stay at the cap.
func TestPendingCapBomb(t *testing.T) {
	st := stitch.New(&sliceSource{recs: pendingBomb(50000)}, stitch.Options{MaxPending: 1000})
	n := 0
	for st.Next() {
		n++
	}
	s := st.Stats()
	if n != 50000 || s.NoRecordCap != 49000 || s.QueueHighWater > 1001 {
		t.Errorf("%d delivered, %d released by the cap, queue high water %d; want 50000, 49000, at most 1001", n, s.NoRecordCap, s.QueueHighWater)
	}
}

// BenchmarkPendingCapBomb: 200,000 deferred samples of one thread without
// records under a cap of 100,000 (quadratic when each release moved the
// thread's wait list).
func BenchmarkPendingCapBomb(b *testing.B) {
	recs := pendingBomb(200000)
	b.ReportAllocs()
	for b.Loop() {
		st := stitch.New(&sliceSource{recs: recs}, stitch.Options{MaxPending: 100000})
		for st.Next() {
		}
	}
}

// TestPendingCapBytes: past Options.MaxPendingBytes the oldest waiting
// sample is released, in every delivery order, so that the memory held
// behind it stays at the cap however few items that is; the default
// estimate counts the Stitcher's entry when records carry no size.
func TestPendingCapBytes(t *testing.T) {
	per := func(decode.Record) int64 { return 10_000 } // a sample with a copied user stack
	tests := []struct {
		name     string
		opts     stitch.Options
		released uint64
		maxHeld  int
	}{
		// 1 MB holds 100 such samples; the item cap alone would hold 1,000.
		{"time order", stitch.Options{MaxPending: 1000, MaxPendingBytes: 1_000_000, ItemBytes: per}, 4900, 101},
		{"arrival order", stitch.Options{MaxPending: 1000, MaxPendingBytes: 1_000_000, ItemBytes: per, Order: stitch.ArrivalOrder}, 4900, 101},
		{"perf order", stitch.Options{MaxPendingBytes: 1_000_000, ItemBytes: per, Order: stitch.PerfOrder}, 4900, 101},
		{"items first", stitch.Options{MaxPending: 10, MaxPendingBytes: 1_000_000, ItemBytes: per}, 4990, 11},
		{"unbounded", stitch.Options{ItemBytes: per}, 0, 5000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := stitch.New(&sliceSource{recs: pendingBomb(5000)}, tt.opts)
			n := 0
			for st.Next() {
				n++
			}
			s := st.Stats()
			if n != 5000 || s.NoRecordCap != tt.released || s.Count(stitch.NoRecord) != 5000 || s.QueueHighWater > tt.maxHeld {
				t.Errorf("%d delivered, %d released by the cap (%d no record), queue high water %d; want 5000, %d, 5000, at most %d",
					n, s.NoRecordCap, s.Count(stitch.NoRecord), s.QueueHighWater, tt.released, tt.maxHeld)
			}
		})
	}
	// Without ItemBytes each record costs at least the Stitcher's entry.
	st := stitch.New(&sliceSource{recs: pendingBomb(5000)}, stitch.Options{MaxPendingBytes: 1})
	for st.Next() {
	}
	if s := st.Stats(); s.NoRecordCap != 5000 {
		t.Errorf("a 1-byte cap released %d of 5000", s.NoRecordCap)
	}
}
