package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStatsCountsCallchainFrames checks that stats counts the frames the
// callchains hold, one per address, in either dialect: the inline rows
// perf 7.3.4's script prints for testdata/srcline are not among them.
func TestStatsCountsCallchainFrames(t *testing.T) {
	src := []string{"-i", "../testdata/srcline/perf.data", "--symfs", "../testdata/srcline/symfs", "--kallsyms", "../testdata/srcline/kallsyms"}
	text := runCmd(t, append([]string{"script"}, src...)...)
	if strings.Count(text, " (inlined)") == 0 {
		t.Fatal("script prints no inline rows for the fixture: the test shows nothing")
	}
	frames := func(args ...string) uint64 {
		var got struct {
			Symbolized struct {
				Frames uint64 `json:"frames"`
			} `json:"symbolization"`
		}
		out := runCmd(t, append(append([]string{"stats", "--format", "json"}, src...), args...)...)
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("stats %v: %v", args, err)
		}
		return got.Symbolized.Frames
	}
	want := frames("--no-inline")
	if want == 0 {
		t.Fatal("no frames counted")
	}
	for _, args := range [][]string{nil, {"--compat", "6.1"}} {
		if got := frames(args...); got != want {
			t.Errorf("stats %v: %d frames, want %d (as with --no-inline)", args, got, want)
		}
	}
}
