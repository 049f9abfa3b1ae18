package output

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// stackcollapseHead is stackcollapse-perf.pl's "event record start"
// pattern, which headName implements without a regexp.
var stackcollapseHead = regexp.MustCompile(`^(\S.+?)\s+(\d+)/*(\d+)*\s+`)

// TestCollapsedHeadName checks, for comms the fast path leaves to
// headName, that appendHead starts the line perf script prints and that
// headName takes from it what the script's pattern takes from the whole
// line.
func TestCollapsedHeadName(t *testing.T) {
	comms := []string{"", "x", "é", "a b", "a 1 b", "ab 1/", "ab 1/2x", "ab 12 ", "\tx", " x", "a\nb", "x\n", "x y 12", "\xff", "a\vb 3 c", "é 7"}
	tids := []int32{5, 12345, 1234567, -1}
	types := []decode.SampleFormat{
		fixtureSampleType,
		fixtureSampleType &^ decode.SampleTID,
		fixtureSampleType &^ (decode.SampleTID | decode.SampleCPU | decode.SampleTime),
		fixtureSampleType &^ decode.SampleTime,
	}
	for _, st := range types {
		for _, rawType := range []bool{false, true} {
			attr := &decode.EventAttr{Type: decode.AttrTypeSoftware, Name: "cpu-clock", SampleType: st | decode.SampleAddr}
			if rawType {
				attr.Type = decode.AttrTypeRaw
			}
			attrs := func() []*decode.EventAttr { return []*decode.EventAttr{attr} }
			for _, dl := range compat.Known() {
				text := NewText(io.Discard, attrs, TextOptions{Compat: dl})
				c := NewCollapsed(io.Discard, nil, attrs, CollapsedOptions{Compat: dl})
				for _, comm := range comms {
					for _, tid := range tids {
						s := &decode.Sample{Period: 1234567, Addr: 0x1234}
						s.Time, s.CPU = 121163435000, 3
						s.Attr, s.Format = attr, attr.SampleType
						s.PID, s.TID = tid, tid
						ev := &symbolize.Event{Sample: &stitch.Sample{Sample: s}, Comm: comm}
						tcfg, err := text.set.config(attr)
						if err != nil {
							t.Fatal(err)
						}
						line := text.appendSampleHeader(nil, tcfg, ev)
						ccfg, err := c.set.config(attr)
						if err != nil {
							t.Fatal(err)
						}
						head := c.appendHead(nil, ccfg, ev)
						if !bytes.HasPrefix(line, head) {
							t.Fatalf("comm %q tid %d: head %q does not start line %q", comm, tid, head, line)
						}
						got, ok := headName(head)
						want, wantOK := "", false
						if m := stackcollapseHead.FindSubmatch(line); m != nil {
							want, wantOK = string(m[1]), true
						}
						if got != want || ok != wantOK {
							t.Errorf("comm %q tid %d line %q: headName = %q, %v; the pattern takes %q, %v", comm, tid, line, got, ok, want, wantOK)
						}
					}
				}
			}
		}
	}
}

// TestCollapsedInlined checks inline frames as stackcollapse-perf.pl folds
// perf script's "ADDR name+0xOFF (inlined)" lines: a plain frame whose
// module is the word "inlined", so --kernel marks the kernel frame below
// it but not the inline frame, and the frame at the same address as its
// caller keeps its own name.
func TestCollapsedInlined(t *testing.T) {
	attr := &decode.EventAttr{Type: decode.AttrTypeSoftware, Name: "cpu-clock", SampleType: fixtureSampleType}
	attrs := func() []*decode.EventAttr { return []*decode.EventAttr{attr} }
	s := &decode.Sample{Period: 1000}
	s.Attr, s.Format, s.PID, s.TID = attr, attr.SampleType, 7, 7
	k := symbolize.Frame{Addr: 0xffffffff81000100, MapAddr: 0xffffffff81000100, Symbol: "do_syscall_64", Offset: 0x40, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Kernel: true}
	kin := k
	kin.Symbol, kin.Inlined = "syscall_enter", true
	u := symbolize.Frame{Addr: 0x401100, MapAddr: 0x401100, Symbol: "main", Offset: 0x20, DSO: "/usr/bin/app", DSOShort: "app"}
	uin := u
	uin.Symbol, uin.Inlined = "helper(int)", true
	ev := &symbolize.Event{Sample: &stitch.Sample{Sample: s}, Comm: "app", Frames: []symbolize.Frame{kin, k, uin, u}}
	for _, tc := range []struct {
		opts CollapsedOptions
		want string
	}{
		{CollapsedOptions{}, "app;main;helper;do_syscall_64;syscall_enter 1000\n"},
		{CollapsedOptions{Kernel: true}, "app;main;helper;do_syscall_64_[k];syscall_enter 1000\n"},
	} {
		for _, dl := range compat.Known() {
			var out bytes.Buffer
			tc.opts.Compat = dl
			c := NewCollapsed(&out, nil, attrs, tc.opts)
			// Twice: the second fold comes from the name cache.
			for range 2 {
				if err := c.Add(ev); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(tc.want, " 1000", " 2000", 1)
			if out.String() != want {
				t.Errorf("%s %+v: got %q, want %q", dl.Version, tc.opts, out.String(), want)
			}
		}
	}
}
