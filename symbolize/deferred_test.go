package symbolize

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
)

// TestResolveDeferred resolves every CALLCHAIN_DEFERRED record of
// testdata/demo (a real deferred recording, cut short) and checks
// the frames against those of a user-mode sample of the record's thread
// whose callchain is the record's IPs, and against the MaxStack limit.
func TestResolveDeferred(t *testing.T) {
	dir := testfixture.Testdata(t, "demo")
	meta, recs := readRecords(t, filepath.Join(dir, "perf.data"))
	for _, maxStack := range []int{0, 3} {
		opts := Options{Symfs: filepath.Join(dir, "symfs"), Kallsyms: filepath.Join(dir, "kallsyms"), Meta: meta, MaxStack: maxStack}
		s, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		var frames []Frame
		var ev Event
		n, resolved, cut := 0, 0, 0
		for _, r := range recs {
			d, ok := r.(*decode.CallchainDeferred)
			if !ok {
				if smp, ok := r.(*decode.Sample); ok {
					s.Resolve(&stitch.Sample{Sample: smp}, &ev)
				} else {
					s.Observe(r)
				}
				continue
			}
			n++
			frames = s.ResolveDeferred(frames[:0], d)
			smp := &decode.Sample{RecordCommon: d.RecordCommon, Callchain: append([]uint64{decode.ContextUser}, d.IPs...)}
			smp.Misc = uint16(decode.CPUModeUser)
			s.Resolve(&stitch.Sample{Sample: smp}, &ev)
			if diff := cmp.Diff(ev.Frames, frames); diff != "" {
				t.Fatalf("max-stack %d, record at %#x (-as a sample +ResolveDeferred):\n%s", maxStack, d.Offset, diff)
			}
			if maxStack > 0 && len(frames) > maxStack {
				t.Fatalf("max-stack %d: %d frames", maxStack, len(frames))
			}
			if len(d.IPs) > len(frames) {
				cut++
			}
			for _, f := range frames {
				if f.Reason == Resolved {
					resolved++
				}
			}
		}
		if n == 0 || resolved == 0 {
			t.Fatalf("%d CALLCHAIN_DEFERRED records, %d resolved frames; want some of both", n, resolved)
		}
		if maxStack > 0 && cut == 0 {
			t.Errorf("max-stack %d cut no callchain", maxStack)
		}
	}
}
