package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{999, "999 B"},
		{1000, "1.0 kB"},
		{1500, "1.5 kB"},
		{64 << 20, "67 MB"},
		{3_200_000_000, "3.2 GB"},
		{5e18, "5000 PB"},
	}
	for _, tt := range tests {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		cur, total int64
		want       string
	}{
		{0, 100, "reading   0% |" + strings.Repeat(" ", 30) + "| (0 B/100 B)"},
		{50, 100, "reading  50% |" + strings.Repeat("█", 15) + strings.Repeat(" ", 15) + "| (50 B/100 B)"},
		{100, 100, "reading 100% |" + strings.Repeat("█", 30) + "| (100 B/100 B)"},
		{0, 0, "reading 100% |" + strings.Repeat("█", 30) + "| (0 B/0 B)"},
	}
	for _, tt := range tests {
		if got := Line("reading", tt.cur, tt.total); got != tt.want {
			t.Errorf("Line(%d, %d) =\n%q, want\n%q", tt.cur, tt.total, got, tt.want)
		}
	}
}

// TestBar: drawn at once, redrawn no more often than the throttle allows,
// and erased by Finish, after which nothing more is written.
func TestBar(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	b := New(&out, 100, "reading", Options{Throttle: time.Second, Now: func() time.Time { return clock }})
	want := "\r" + Line("reading", 0, 100)
	if out.String() != want {
		t.Fatalf("after New: %q, want %q", out.String(), want)
	}
	b.Set(10) // within the throttle: not drawn
	if out.String() != want {
		t.Fatalf("throttled Set drew: %q", out.String())
	}
	clock = clock.Add(time.Second)
	b.Set(200) // clamped to the total
	want += "\r" + Line("reading", 100, 100)
	if out.String() != want {
		t.Fatalf("after Set: %q, want %q", out.String(), want)
	}
	b.Finish()
	width := len([]rune(Line("reading", 100, 100)))
	want += "\r" + strings.Repeat(" ", width) + "\r"
	if out.String() != want {
		t.Fatalf("after Finish: %q, want %q", out.String(), want)
	}
	clock = clock.Add(time.Hour)
	b.Set(50)
	b.Finish()
	if out.String() != want {
		t.Errorf("Set or Finish after Finish wrote %q", strings.TrimPrefix(out.String(), want))
	}
}
