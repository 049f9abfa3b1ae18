package table

import (
	"bytes"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Format
		err  bool
	}{{"table", Text, false}, {"perf", Perf, false}, {"json", JSON, false}, {"csv", 0, true}} {
		var f Format
		err := f.Set(tt.in)
		if (err != nil) != tt.err || err == nil && (f != tt.want || f.String() != tt.in) {
			t.Errorf("Set(%q) = %v, %v; want %v (error %v)", tt.in, f, err, tt.want, tt.err)
		}
	}
	if s := Format(7).String(); s != "tableformat(7)" {
		t.Errorf("Format(7) = %q", s)
	}
}

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		v, total uint64
		want     float64
	}{{1, 4, 25}, {3, 3, 100}, {5, 0, 0}} {
		if got := Percent(tt.v, tt.total); got != tt.want {
			t.Errorf("Percent(%d, %d) = %v, want %v", tt.v, tt.total, got, tt.want)
		}
	}
}

func TestNewRightAligns(t *testing.T) {
	var buf bytes.Buffer
	tb := New(&buf, []string{"Name", "Count"}, 1)
	if err := tb.Append([]string{"a", "1"}); err != nil {
		t.Fatal(err)
	}
	if err := tb.Append([]string{"long name", "12345"}); err != nil {
		t.Fatal(err)
	}
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("│     1 │")) {
		t.Errorf("count not right-aligned:\n%s", buf.String())
	}
}
