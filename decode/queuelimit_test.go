package decode_test

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// TestQueueLimit: a file without FINISHED_ROUND records keeps the
// time-order queue within its budget, counted as the memory it holds
// (chunks and arrays), not the bytes of the records queued; past the
// budget the oldest records come first, so that a file whose records lag
// by less than the budget holds is still delivered in time order, and one
// whose late records lag by more is delivered whole, with the late ones
// counted out of order. The heap stays within a little more than the
// budget.
func TestQueueLimit(t *testing.T) {
	bo := binary.LittleEndian
	attr := tAttr{typ: 1, sampleType: decode.SampleIP | decode.SampleTID | decode.SampleTime | decode.SamplePeriod | decode.SampleCallchain,
		flags: decode.AttrSampleIDAll, ids: []uint64{1}}
	chain := make([]uint64, 20) // 232-byte samples, as with perf record -g
	sample := func(tm uint64) []byte {
		w := (&wr{bo: bo}).u64(0x1000).u32(1).u32(1).u64(tm).u64(1).u64(uint64(len(chain)))
		for range chain {
			w.u64(0x2000)
		}
		return rec(bo, decode.RecordTypeSample, 1, w.b)
	}
	const n = 200_000 // 46 MB of records
	tests := []struct {
		name   string
		limit  int64
		lag    func(i int) int // how far back in time record i is
		sorted bool
		ooo    bool
	}{
		// Two CPUs' buffers of 1,000 records interleaved, as perf record
		// writes them without rounds: a lag of 1,000 records, far less
		// than 4 MiB holds.
		{"per-cpu runs", 4 << 20, func(i int) int { return (i / 1000 % 2) * 1000 }, true, false},
		// Every 1,000th record lags by 100,000, more than 4 MiB holds.
		{"late records", 4 << 20, func(i int) int {
			if i%1000 == 999 {
				return 100_000
			}
			return 0
		}, false, true},
		{"default budget", 0, func(i int) int { return (i / 1000 % 2) * 1000 }, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := make([][]byte, n)
			for i := range recs {
				recs[i] = sample(uint64(200_000 + i - tt.lag(i)))
			}
			data := (&perfFile{bo: bo, attrs: []tAttr{attr}, recs: recs}).file()
			recs = nil
			f, err := decode.NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			f.Limits.QueueBytes = tt.limit
			limit := tt.limit
			if limit == 0 {
				limit = decode.DefaultQueueBytes
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base, peak := ms.HeapAlloc, ms.HeapAlloc
			rs := f.Records(decode.TimeOrder)
			got, inOrder := 0, true
			var last uint64
			for rs.Next() {
				// The record that passes the budget is queued before the
				// drain starts: one more chunk or one array's growth.
				if fp := decode.QueueFootprint(rs); fp > limit+limit/16+256<<10 {
					t.Fatalf("record %d: queue holds %d bytes, budget %d", got, fp, limit)
				}
				s, ok := rs.Record().(*decode.Sample)
				if !ok || len(s.Callchain) != len(chain) {
					t.Fatalf("record %d: %v", got, rs.Record())
				}
				inOrder = inOrder && s.Time >= last
				last = s.Time
				got++
				if got%20_000 == 0 {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			st := rs.Stats()
			if got != n || inOrder != tt.sorted || (st.OutOfOrder > 0) != tt.ooo {
				t.Errorf("%d of %d records, in order %v (want %v), %d out of order", got, n, inOrder, tt.sorted, st.OutOfOrder)
			}
			if st.QueueFlushes == 0 || len(st.Warnings) == 0 ||
				!strings.Contains(st.Warnings[0].Error(), "SAMPLE record at 0x") ||
				!strings.Contains(st.Warnings[0].Error(), "time-order queue passed its budget") {
				t.Errorf("%d flushes, warnings %v", st.QueueFlushes, st.Warnings)
			}
			// The live heap: the queue and the 1 MiB read buffer (the
			// file itself is below base).
			if heap := peak - min(peak, base); heap > uint64(limit)+(4<<20) {
				t.Errorf("live heap grew by %d MiB, budget %d MiB", heap>>20, limit>>20)
			}
		})
	}
}
