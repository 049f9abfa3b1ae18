package session

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// fpOptions are the options that read testdata/fp: 120 samples of
// spin 15809 on CPU 1, in leaf_compute among others.
func fpOptions(t *testing.T) Options {
	dir := testfixture.Testdata(t, "fp")
	return Options{
		Input:     filepath.Join(dir, "perf.data"),
		Symbolize: symbolize.Options{Symfs: filepath.Join(dir, "symfs"), Kallsyms: testfixture.Testdata(t, "kallsyms")},
	}
}

// counts is what a run yields.
type counts struct{ samples, hidden, records int }

func run(t *testing.T, opts Options) counts {
	t.Helper()
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var c counts
	for s.Next() {
		if ev := s.Event(); ev != nil {
			c.samples++
			if s.Hidden() {
				c.hidden++
			}
			if s.Record() != nil {
				t.Fatal("Event and Record both set")
			}
		} else if s.Record() != nil {
			c.records++
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return c
}

// leafCompute counts the samples of testdata/fp in leaf_compute.
func leafCompute(t *testing.T) int {
	s, err := Open(context.Background(), fpOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	for s.Next() {
		if ev := s.Event(); ev != nil && ev.IP.Symbol == "leaf_compute" {
			n++
		}
	}
	return n
}

// TestSessionFilters runs testdata/fp with filters: what they keep, and
// perf report's rule that the thread and symbol filters hide samples
// that still count (CountHidden) while CPU filters drop them.
func TestSessionFilters(t *testing.T) {
	const all = 120
	leaf := leafCompute(t)
	if leaf == 0 || leaf == all {
		t.Fatalf("%d of %d samples in leaf_compute; the test needs some, not all", leaf, all)
	}
	tests := []struct {
		name   string
		filter Filter
		hidden bool
		want   counts
	}{
		{"none", Filter{}, false, counts{samples: all}},
		{"pid", Filter{PIDs: []int32{15809}}, false, counts{samples: all}},
		{"other pid", Filter{PIDs: []int32{1}}, false, counts{}},
		{"other pid, counted", Filter{PIDs: []int32{1}}, true, counts{samples: all, hidden: all}},
		{"other comm, counted", Filter{Comms: []string{"x"}}, true, counts{samples: all, hidden: all}},
		{"symbol", Filter{Symbols: []string{"leaf_compute"}}, false, counts{samples: leaf}},
		{"symbol, counted", Filter{Symbols: []string{"leaf_compute"}}, true, counts{samples: all, hidden: all - leaf}},
		{"cpu", Filter{CPUs: []uint32{1}}, false, counts{samples: all}},
		{"other cpu, counted: dropped", Filter{CPUs: []uint32{0}}, true, counts{}},
		{"event", Filter{Event: "cpu-clock"}, true, counts{samples: all}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fpOptions(t)
			opts.Filter, opts.CountHidden = tt.filter, tt.hidden
			if got := run(t, opts); got != tt.want {
				t.Errorf("%+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSessionShow: records are yielded only of the types asked for, and
// the CPU filter applies to them too.
func TestSessionShow(t *testing.T) {
	opts := fpOptions(t)
	opts.Show = []decode.RecordType{decode.RecordTypeExit}
	if got := run(t, opts); got.records != 1 {
		t.Errorf("%d EXIT records, want 1", got.records)
	}
	opts.Filter.CPUs = []uint32{0}
	if got := run(t, opts); got.records != 0 {
		t.Errorf("-C 0: %d EXIT records, want 0 (it is on CPU 1)", got.records)
	}
}

// TestOpenInput: with no input name, a named pipe on stdin is read as a
// pipe-mode stream (as perf does); otherwise the input is perf.data.
func TestOpenInput(t *testing.T) {
	data, err := os.ReadFile(testfixture.Testdata(t, "pipe", "perf.data"))
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		_, _ = w.Write(data)
		w.Close()
	}()
	s, err := Open(context.Background(), Options{Stdin: r})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.File().Header.Pipe || s.Size() != -1 {
		t.Errorf("pipe %v, size %d; want a stream", s.File().Header.Pipe, s.Size())
	}
	n := 0
	for s.Next() {
		n++
	}
	if err := s.Err(); err != nil || n != 97 {
		t.Errorf("%d samples, error %v; want 97", n, err)
	}

	// A regular file on stdin is not a stream: the input is ./perf.data,
	// which the package folder does not have.
	f, err := os.Open(testfixture.Testdata(t, "pipe", "perf.data"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Open(context.Background(), Options{Stdin: f}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("regular stdin: error %v, want perf.data not found", err)
	}

	fp := fpOptions(t)
	s2, err := Open(context.Background(), Options{Input: fp.Input, Stdin: io.MultiReader()})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if st, err := os.Stat(fp.Input); err != nil || s2.Size() != st.Size() {
		t.Errorf("size %d, want the file's (%v)", s2.Size(), err)
	}
}

// TestOpenError: a filter perf refuses fails Open, before any record.
func TestOpenError(t *testing.T) {
	opts := fpOptions(t)
	opts.Filter.Event = "cycles"
	if _, err := Open(context.Background(), opts); err == nil {
		t.Error("event cycles, absent from the file: no error")
	}
}

// TestSessionRaw: with Options.Raw, every record comes to the callback in
// perf's delivery order, each sample just after its own record (a merged
// deferred sample after its CALLCHAIN_DEFERRED record, perf's order),
// and the callback sees as many records as the decoder counts.
func TestSessionRaw(t *testing.T) {
	for _, c := range []string{"fp", "demo"} {
		t.Run(c, func(t *testing.T) {
			dir := testfixture.Testdata(t, c)
			var seen []decode.RecordType
			var last decode.Record
			opts := Options{Input: filepath.Join(dir, "perf.data"), Raw: func(r decode.Record, raw []byte) {
				if len(raw) != int(r.Common().Size) {
					t.Errorf("%v at %#x: %d raw bytes, size %d", r.Type(), r.Common().Offset, len(raw), r.Common().Size)
				}
				seen, last = append(seen, r.Type()), r
			}}
			s, err := Open(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			samples := 0
			for s.Next() {
				ev := s.Event()
				if ev == nil {
					continue
				}
				samples++
				// A sample that did not wait comes right after its record;
				// one that waited for its user half comes later, when perf
				// delivers it (at a record of its thread, or at the end).
				if l := last.Common(); ev.State == stitch.NotDeferred && l.Offset != ev.Offset ||
					ev.State != stitch.NotDeferred && l.Offset < ev.Offset {
					t.Fatalf("%v sample at %#x yielded after the %v record at %#x", ev.State, ev.Offset, last.Type(), l.Offset)
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			var total uint64
			for _, n := range s.DecodeStats().Counts {
				total += n
			}
			if uint64(len(seen)) != total || samples != 120 && samples != 200 {
				t.Errorf("%d records seen of %d, %d samples", len(seen), total, samples)
			}
		})
	}
}
