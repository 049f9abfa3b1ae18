package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/symbolize"
)

// describe returns a line of what an item is: the sample's time, thread,
// comm, callchain and frames, or the record's type, comm and frames.
func describe(ev *symbolize.Event, rec *symbolize.Record, hidden bool) string {
	var b strings.Builder
	frames := func(fs []symbolize.Frame) {
		for _, f := range fs {
			fmt.Fprintf(&b, " %x:%s+%x(%s)", f.Addr, f.Symbol, f.Offset, f.DSO)
		}
	}
	if ev != nil {
		fmt.Fprintf(&b, "sample %d %d/%d %q %v %v %x ip=%s", ev.Time, ev.PID, ev.TID, ev.Comm, hidden, ev.State, ev.Sample.Sample.Callchain, ev.IP.Symbol)
		frames(ev.Frames)
		return b.String()
	}
	fmt.Fprintf(&b, "record %v %d %q", rec.Type(), rec.Common().Offset, rec.Comm)
	frames(rec.Frames)
	return b.String()
}

// readNext reads a session with Next.
func readNext(t *testing.T, opts Options) ([]string, error) {
	t.Helper()
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []string
	for s.Next() {
		out = append(out, describe(s.Event(), s.Record(), s.Hidden()))
	}
	return out, s.Err()
}

// readBatches reads a session with NextBatch, each batch on a goroutine
// of its own, several at once, as the formatting workers do.
func readBatches(t *testing.T, opts Options) ([]string, error) {
	t.Helper()
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var results []chan []string
	for b := s.NextBatch(); b != nil; b = s.NextBatch() {
		c := make(chan []string, 1)
		results = append(results, c)
		read := func() {
			var l []string
			for i := range b.Len() {
				l = append(l, describe(b.Event(i), b.Record(i), b.Hidden(i)))
			}
			b.Release()
			c <- l
		}
		if !s.Concurrent() {
			read() // the batch must come back before the next
			continue
		}
		go read()
	}
	var out []string
	for _, c := range results {
		out = append(out, <-c...)
	}
	return out, s.Err()
}

// TestConcurrentSame: a session yields the same items in the same order
// whether it symbolizes on the caller's goroutine (Jobs 1) or on its own
// (Jobs 2 and more), through Next or through NextBatch read on other
// goroutines; on a real deferred recording in both orderings, with the
// side-band records shown and the hidden samples counted, and on a
// recording cut short, where every item before the cut comes and then
// the error. Run it with -race.
func TestConcurrentSame(t *testing.T) {
	dir := filepath.Join(testfixture.SharedDir(t), "kernel")
	data := filepath.Join(dir, "c-threads", "perf.data")
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Skip("kernel/c-threads absent")
	}
	cut := filepath.Join(t.TempDir(), "cut.data")
	if err := os.WriteFile(cut, raw[:len(raw)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	base := Options{
		Symbolize: symbolize.Options{Symfs: filepath.Join(dir, "c-threads", "symfs"), Kallsyms: filepath.Join(dir, "kallsyms")},
		Show:      []decode.RecordType{decode.RecordTypeComm, decode.RecordTypeExit, decode.RecordTypeMmap2, decode.RecordTypeCallchainDeferred},
	}
	for _, input := range []string{data, cut} {
		for _, ord := range []Ordering{ByTime, AsPerf} {
			for _, hidden := range []bool{false, true} {
				opts := base
				opts.Input, opts.Ordering, opts.CountHidden = input, ord, hidden
				if hidden {
					opts.Filter.Comms = []string{"wk-reader"}
				}
				name := fmt.Sprintf("%s/%d/hidden=%v", filepath.Base(input), ord, hidden)
				opts.Jobs = 1
				want, wantErr := readNext(t, opts)
				if len(want) < 3*BatchSize {
					t.Fatalf("%s: %d items, the test wants several batches", name, len(want))
				}
				if (wantErr != nil) != (input == cut) {
					t.Fatalf("%s: error %v", name, wantErr)
				}
				for _, jobs := range []int{1, 2, 4} {
					opts.Jobs = jobs
					for how, read := range map[string]func(*testing.T, Options) ([]string, error){"Next": readNext, "NextBatch": readBatches} {
						got, gotErr := read(t, opts)
						if !errors.Is(gotErr, wantErr) && fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
							t.Errorf("%s Jobs %d %s: error %v, want %v", name, jobs, how, gotErr, wantErr)
						}
						if len(got) != len(want) {
							t.Errorf("%s Jobs %d %s: %d items, want %d", name, jobs, how, len(got), len(want))
							continue
						}
						for i := range got {
							if got[i] != want[i] {
								t.Errorf("%s Jobs %d %s: item %d\n\thave %s\n\twant %s", name, jobs, how, i, got[i], want[i])
								break
							}
						}
					}
				}
			}
		}
	}
}

// TestConcurrentClose: a session closed while its goroutines run ends
// them (nothing blocks), whether or not the caller holds batches.
func TestConcurrentClose(t *testing.T) {
	opts := fpOptions(t)
	for _, jobs := range []int{2, 4} {
		for _, take := range []int{0, 1, 3} {
			opts.Jobs = jobs
			s, err := Open(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Concurrent() {
				t.Fatalf("Jobs %d: not concurrent", jobs)
			}
			for range take {
				if b := s.NextBatch(); b != nil {
					defer b.Release()
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
