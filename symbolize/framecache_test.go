package symbolize

import (
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// TestFrameCacheFollowsMaps checks that cached frames never outlive the
// mappings they were resolved from, and that cache hits are still counted
// in the diagnostics.
func TestFrameCacheFollowsMaps(t *testing.T) {
	s, _ := New(Options{})
	var ev Event
	dsoAt := func(pid int32, addr uint64) string {
		smp := &decode.Sample{RecordCommon: decode.RecordCommon{PID: pid, TID: pid, Misc: uint16(decode.CPUModeUser)},
			IP: addr, Callchain: []uint64{decode.ContextUser, addr}, Period: 1}
		s.Resolve(&stitch.Sample{Sample: smp}, &ev)
		return ev.Frames[0].DSO
	}
	steps := []struct {
		name    string
		observe decode.Record
		pid     int32
		addr    uint64
		want    string
	}{
		{"unmapped", nil, 10, 0x1100, "[unknown]"},
		{"mapped", userMmap(10, 0x1000, 0x1000, 0, "/bin/a"), 10, 0x1100, "/bin/a"},
		{"cached", nil, 10, 0x1100, "/bin/a"},
		{"remapped", userMmap(10, 0x1000, 0x1000, 0, "/bin/b"), 10, 0x1100, "/bin/b"},
		{"other process", nil, 20, 0x1100, "[unknown]"},
		{"forked process", &decode.Fork{RecordCommon: decode.RecordCommon{PID: 20, TID: 20}, PPID: 10, PTID: 10}, 20, 0x1100, "/bin/b"},
		{"parent unchanged", userMmap(20, 0x1000, 0x1000, 0, "/bin/c"), 10, 0x1100, "/bin/b"},
		{"child remapped", nil, 20, 0x1100, "/bin/c"},
	}
	for _, st := range steps {
		if st.observe != nil {
			s.Observe(st.observe)
		}
		if got := dsoAt(st.pid, st.addr); got != st.want {
			t.Errorf("%s: pid %d addr %#x: dso %q, want %q", st.name, st.pid, st.addr, got, st.want)
		}
	}
	var frames uint64
	for _, d := range s.Diagnostics() {
		frames += d.Frames
	}
	// Each Resolve counts the IP and the one callchain frame.
	if want := uint64(2 * len(steps)); frames != want {
		t.Errorf("diagnostics count %d frames, want %d", frames, want)
	}
}
