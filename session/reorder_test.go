package session

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// TestReorderHeap: items come out by source position, only below the low
// mark, and recycled items keep their storage.
func TestReorderHeap(t *testing.T) {
	var r reorder
	for _, seq := range []uint64{7, 3, 9, 1, 5, 8, 2} {
		h := r.get()
		h.seq = seq
		r.push(h)
	}
	if h := r.pop(1); h != nil {
		t.Fatalf("pop(1) = %d, want nothing below 1", h.seq)
	}
	var got []uint64
	for h := r.pop(6); h != nil; h = r.pop(6) {
		got = append(got, h.seq)
		r.put(h)
	}
	for h := r.pop(100); h != nil; h = r.pop(100) {
		got = append(got, h.seq)
		r.put(h)
	}
	want := []uint64{1, 2, 3, 5, 7, 8, 9}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if len(r.free) != heldChunk {
		t.Errorf("%d items free, want %d (one chunk, all recycled)", len(r.free), heldChunk)
	}
}

// TestOrderings: on a real deferred recording with threads, ByTime yields
// the samples in time order and AsPerf does not (perf's order), both the
// same samples; a sample whose thread was renamed between the sample and
// its record has the new name in both (the state at the record's time).
func TestOrderings(t *testing.T) {
	dir := filepath.Join(testfixture.SharedDir(t), "kernel")
	data := filepath.Join(dir, "c-threads", "perf.data")
	if _, err := os.Stat(data); err != nil {
		t.Skip("kernel/c-threads absent")
	}
	type sample struct {
		time uint64
		comm string
	}
	maxHeap, capped := 0, uint64(0)
	read := func(o Ordering, maxPending int) []sample {
		s, err := Open(context.Background(), Options{Input: data, Ordering: o, Stitch: stitch.Options{MaxPending: maxPending}, Jobs: 1, // s.ro is read below
			Symbolize: symbolize.Options{Symfs: filepath.Join(dir, "c-threads", "symfs"), Kallsyms: filepath.Join(dir, "kallsyms")}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var out []sample
		maxHeap = 0
		for s.Next() {
			maxHeap = max(maxHeap, s.ro.len())
			if ev := s.Event(); ev != nil {
				out = append(out, sample{ev.Time, ev.Comm})
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		capped = s.StitchStats().NoRecordCap
		return out
	}
	byTime, asPerf := read(ByTime, 0), read(AsPerf, 0)
	if len(byTime) != len(asPerf) || len(byTime) == 0 {
		t.Fatalf("%d samples by time, %d as perf", len(byTime), len(asPerf))
	}
	sorted := func(l []sample) bool {
		for i := 1; i < len(l); i++ {
			if l[i].time < l[i-1].time {
				return false
			}
		}
		return true
	}
	if !sorted(byTime) {
		t.Error("ByTime: samples out of time order")
	}
	if sorted(asPerf) {
		t.Error("AsPerf: samples in time order; perf prints merged samples at their record")
	}
	// AsArrived: ByTime's samples, resolved alike, none held back.
	asArrived := read(AsArrived, 0)
	if maxHeap != 0 {
		t.Errorf("AsArrived: reorder stage held up to %d items, want none", maxHeap)
	}
	if sorted(asArrived) {
		t.Error("AsArrived: samples in time order; they come as their records arrive")
	}
	byKey := func(l []sample) []sample {
		l = slices.Clone(l)
		slices.SortFunc(l, func(a, b sample) int { return cmp.Or(cmp.Compare(a.time, b.time), strings.Compare(a.comm, b.comm)) })
		return l
	}
	if !slices.Equal(byKey(asArrived), byKey(byTime)) {
		t.Error("AsArrived: not the samples (times and comms) of ByTime")
	}
	// --max-pending bounds what the reorder stage holds, in time order.
	const bound = 16
	if l := read(ByTime, bound); !sorted(l) || len(l) != len(byTime) {
		t.Errorf("ByTime with MaxPending %d: %d samples, sorted %v", bound, len(l), sorted(l))
	}
	if maxHeap > bound+1 || capped == 0 {
		t.Errorf("MaxPending %d: reorder stage held up to %d items, %d samples released by the cap", bound, maxHeap, capped)
	}
	// kernel/c-threads: tid 219's sample at 13.137504 s, COMM wk-reader at
	// 13.137583, its record at 13.137615.
	const renamed = 13137504000
	for name, l := range map[string][]sample{"ByTime": byTime, "AsPerf": asPerf, "AsArrived": asArrived} {
		found := false
		for _, smp := range l {
			if smp.time/1000 == renamed/1000 {
				found = true
				if smp.comm != "wk-reader" {
					t.Errorf("%s: sample at %d has comm %q, want wk-reader", name, smp.time, smp.comm)
				}
			}
		}
		if !found {
			t.Errorf("%s: no sample at %d", name, renamed)
		}
	}
}
