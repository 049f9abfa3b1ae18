package output

import (
	"io"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// BenchmarkTextAdd measures the text formatter alone on hand-made
// samples with callchains (decode, stitch and symbolize excluded).
func BenchmarkTextAdd(b *testing.B) {
	attrs := fixture()
	evs := events(attrs)[:2]
	w := NewText(io.Discard, func() []*decode.EventAttr { return attrs }, TextOptions{})
	b.ReportAllocs()
	for b.Loop() {
		for _, ev := range evs {
			if err := w.Add(ev); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCollapsedAdd measures folding alone.
func BenchmarkCollapsedAdd(b *testing.B) {
	attrs := fixture()
	evs := events(attrs)[:2]
	w := NewCollapsed(io.Discard, nil, func() []*decode.EventAttr { return attrs }, CollapsedOptions{})
	b.ReportAllocs()
	for b.Loop() {
		for _, ev := range evs {
			if err := w.Add(ev); err != nil {
				b.Fatal(err)
			}
		}
	}
}
