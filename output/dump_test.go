package output

import (
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
)

// TestAppendRawHex: perf's trace_event layout, a full line and a short
// one padded to the character column, non-printable bytes as dots.
func TestAppendRawHex(t *testing.T) {
	raw := []byte("\x09\x00\x00\x00\x02\x00\x14\x00ABCDEFGH\x7f~ \x00")
	want := ".\n. ... raw event: size 20 bytes\n" +
		".  0000:  09 00 00 00 02 00 14 00 41 42 43 44 45 46 47 48  ........ABCDEFGH\n" +
		".  0010:  7f 7e 20 00" + strings.Repeat("   ", 12) + "  .~ ." + strings.Repeat(" ", 12) + "\n\n"
	if got := string(appendRawHex(nil, raw)); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestAppendCPURanges(t *testing.T) {
	for _, c := range []struct {
		cpus []uint32
		want string
	}{
		{nil, ""},
		{[]uint32{0}, "0"},
		{[]uint32{0, 1}, "0-1"},
		{[]uint32{0, 1, 2, 5, 7, 8}, "0-2,5,7-8"},
	} {
		if got := string(appendCPURanges(nil, c.cpus)); got != c.want {
			t.Errorf("%v: %q, want %q", c.cpus, got, c.want)
		}
	}
}

// TestDumpChainDialects: perf 7.3.4 names the context markers and marks a
// deferred chain; perf 6.1 prints the entries alone.
func TestDumpChainDialects(t *testing.T) {
	chain := []uint64{decode.ContextKernel, 0xffffffff81000000, decode.ContextUserDeferred, 0x300000002}
	s := &decode.Sample{Callchain: chain}
	s.Format = decode.SampleCallchain
	for _, c := range []struct {
		compat string
		want   string
	}{
		{"7.3", "... FP chain: nr:4\n" +
			".....  0: ffffffffffffff80 (PERF_CONTEXT_KERNEL)\n" +
			".....  1: ffffffff81000000\n" +
			".....  2: fffffffffffffd80 (PERF_CONTEXT_USER_DEFERRED)\n" +
			".....  3: 0000000300000002\n" +
			"...... (deferred)\n"},
		{"6.1", "... FP chain: nr:4\n" +
			".....  0: ffffffffffffff80\n" +
			".....  1: ffffffff81000000\n" +
			".....  2: fffffffffffffd80\n" +
			".....  3: 0000000300000002\n"},
	} {
		dl, err := compat.Lookup(c.compat)
		if err != nil {
			t.Fatal(err)
		}
		d := NewDump(nil, func() []*decode.EventAttr { return nil }, DumpOptions{Compat: dl})
		got := string(d.appendBody(nil, s, make([]byte, 8)))
		got = got[strings.IndexByte(got, '\n')+1:] // after the PERF_RECORD_SAMPLE line
		if got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.compat, got, c.want)
		}
	}
}
