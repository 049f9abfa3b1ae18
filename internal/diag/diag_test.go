package diag

import (
	"bytes"
	"testing"
)

func TestLog(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, false)
	for i := 0; i < 3001; i++ {
		l.Add(Warning{Source: "perf.data", Offset: int64(0x100 + 8*i), Where: "SAMPLE record", Field: "callchain", Msg: "nr 99 exceeds the record (chain cut)"})
	}
	l.Add(Warning{Source: "k", Offset: -1, Where: "line 3", Msg: "malformed line (skipped)"})
	l.Summary()
	want := `perfstitch: warning: perf.data: SAMPLE record at 0x100: callchain: nr 99 exceeds the record (chain cut)
perfstitch: warning: k: line 3: malformed line (skipped)
perfstitch: warning: perf.data: SAMPLE record at 0x100: callchain: nr 99 exceeds the record (chain cut)
perfstitch: warning: … and 3,000 more like this
perfstitch: 3,002 warnings (-q silences them, --strict makes them errors)
`
	if b.String() != want {
		t.Errorf("have\n%s\nwant\n%s", b.String(), want)
	}
	if l.Count() != 3002 || l.Kinds() != 2 {
		t.Errorf("Count %d Kinds %d, want 3002 2", l.Count(), l.Kinds())
	}
}

func TestQuiet(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, true)
	l.AddN(Warning{Offset: -1, Msg: "x"}, 5)
	l.Summary()
	if b.Len() != 0 || l.Count() != 5 {
		t.Errorf("quiet log printed %q, counted %d", b.String(), l.Count())
	}
}

func TestGroup(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {123456, "123,456"}, {1234567, "1,234,567"}} {
		if g := Group(c.n); g != c.want {
			t.Errorf("Group(%d) = %q, want %q", c.n, g, c.want)
		}
	}
}

func TestPerf(t *testing.T) {
	const perfLine = "Warning:\nProcessed 9 events and lost 1 chunks!\n\nCheck IO/CPU overload!\n\n"
	for _, c := range []struct {
		name  string
		quiet bool
		own   bool
		want  string
		count uint64
	}{
		{"alone", false, false, perfLine, 1},
		{"with own", false, true, perfLine + "perfstitch: warning: x\nperfstitch: 1 warning (-q silences them, --strict makes them errors)\n", 2},
		{"quiet", true, true, "", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			l := New(&b, c.quiet)
			l.Perf(perfLine)
			if c.own {
				l.Add(Warning{Offset: -1, Msg: "x"})
			}
			l.Summary()
			if b.String() != c.want || l.Count() != c.count {
				t.Errorf("printed %q, counted %d; want %q, %d", b.String(), l.Count(), c.want, c.count)
			}
		})
	}
}
