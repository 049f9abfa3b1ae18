package symbolize

import (
	"fmt"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
)

// TestUnwindCorpus unwinds every sample of the dwarf corpus case and
// checks each frame against perf 6.1's perf script output, with inline
// frames (script.txt) and without (--no-inline, script-noinline.txt).
func TestUnwindCorpus(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		if c.Name != "dwarf" {
			continue
		}
		for _, tt := range []struct {
			golden   string
			noInline bool
		}{{"script.txt", false}, {"script-noinline.txt", true}} {
			t.Run(tt.golden, func(t *testing.T) {
				samples, frames, match, diff := unwindGolden(t, c, c.Golden(tt.golden), tt.noInline)
				t.Logf("%d samples, %d/%d frames identical", samples, match, frames)
				if diff != "" {
					t.Errorf("first difference: %s", diff)
				}
				if frames == 0 {
					t.Error("no frames compared")
				}
			})
		}
	}
}

// unwindGolden resolves every sample of c and compares the frames with
// the callchain lines of the perf script golden.
func unwindGolden(t *testing.T, c testfixture.CorpusCase, golden string, noInline bool) (samples, frames, match int, diff string) {
	f, err := decode.Open(c.Data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sym, err := New(Options{Symfs: c.Symfs, Kallsyms: c.Kallsyms, Meta: &f.Meta, NoInline: noInline, Compat: compat.Perf61})
	if err != nil {
		t.Fatal(err)
	}
	want := goldenFrames(t, golden)
	var ev Event
	rs := f.Records(decode.TimeOrder)
	for rs.Next() {
		s, ok := rs.Record().(*decode.Sample)
		if !ok {
			sym.Observe(rs.Record())
			continue
		}
		sym.Resolve(&stitch.Sample{Sample: s}, &ev)
		samples++
		if samples > len(want) {
			continue
		}
		w := want[samples-1]
		frames += len(w)
		for i, line := range w {
			have := "<none>"
			if i < len(ev.Frames) {
				have = frameLine(&ev.Frames[i])
			}
			if have == line {
				match++
			} else if diff == "" {
				diff = fmt.Sprintf("sample %d frame %d:\n\thave %s\n\twant %s", samples, i, have, line)
			}
		}
		if len(ev.Frames) > len(w) && diff == "" {
			diff = fmt.Sprintf("sample %d: %d frames, want %d", samples, len(ev.Frames), len(w))
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if samples != len(want) && diff == "" {
		diff = fmt.Sprintf("%d samples, golden has %d", samples, len(want))
	}
	return samples, frames, match, diff
}

// TestUnwindCorrupt unwinds the dwarf corpus samples with their registers
// and stack copies overwritten by pseudo-random bytes: no panic, and at
// most max-stack unwound addresses per sample.
func TestUnwindCorrupt(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		if c.Name != "dwarf" {
			continue
		}
		f, err := decode.Open(c.Data)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sym, err := New(Options{Symfs: c.Symfs, Kallsyms: c.Kallsyms, Meta: &f.Meta, MaxStack: 20, Compat: compat.Perf61})
		if err != nil {
			t.Fatal(err)
		}
		x := uint64(0x9e3779b97f4a7c15)
		next := func() uint64 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			return x
		}
		var ev Event
		rs := f.Records(decode.TimeOrder)
		for n := 0; rs.Next(); n++ {
			s, ok := rs.Record().(*decode.Sample)
			if !ok {
				sym.Observe(rs.Record())
				continue
			}
			regs, stack := append([]uint64(nil), s.RegsUser...), append([]byte(nil), s.StackUser...)
			for i := range stack {
				if n%3 == 0 || next()%16 == 0 {
					stack[i] = byte(next())
				}
			}
			for i := range regs {
				if n%4 == 0 && i != 7 && i != 8 {
					regs[i] = next()
				}
			}
			cs := *s
			cs.RegsUser, cs.StackUser = regs, stack
			sym.Resolve(&stitch.Sample{Sample: &cs}, &ev)
			if ev.Unwound > 0 {
				addrs := 0
				for _, fr := range ev.Frames[len(ev.Frames)-ev.Unwound:] {
					if !fr.Inlined {
						addrs++
					}
				}
				if addrs > 20 { // inline frames come on top of the limit
					t.Fatalf("sample %d: %d unwound addresses, max-stack 20", n, addrs)
				}
			}
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
	}
}
