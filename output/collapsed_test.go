package output

import (
	"bytes"
	"io"
	"regexp"
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
