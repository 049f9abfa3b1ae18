package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestFitTable(t *testing.T) {
	headers := []string{"Overhead", "Command", "Shared Object", "Symbol"}
	row := func() [][]string {
		return [][]string{
			{"50.00%", "spin", "libstdc++.so.6.0.33", "[.] std::vector<int, std::allocator<int> >::push_back(int const&)"},
			{"50.00%", "spin", "spin", "[.] main"},
		}
	}
	// Unfitted: 1 + (8+3) + (7+3) + (19+3) + (65+3) = 112 columns; each
	// cut leaves the table exactly as wide as allowed.
	tests := []struct {
		name  string
		width int
		want  [][]string
	}{
		{"no limit", 0, row()},
		{"wide enough", 112, row()},
		{"symbol cut", 100, [][]string{
			{"50.00%", "spin", "libstdc++.so.6.0.33", "[.] std::vector<int, std::allocator<int> >::push_bac…"},
			{"50.00%", "spin", "spin", "[.] main"},
		}},
		{"symbol to its floor, then the DSO", 50, [][]string{
			{"50.00%", "spin", "libstdc++.so.…", "[.] std…"},
			{"50.00%", "spin", "spin", "[.] main"},
		}},
	}
	for _, tt := range tests {
		rows := row()
		fitTable(headers, rows, tt.width, fitOrder(headers))
		for i := range rows {
			if strings.Join(rows[i], "|") != strings.Join(tt.want[i], "|") {
				t.Errorf("%s: row %d = %q, want %q", tt.name, i, rows[i], tt.want[i])
			}
		}
	}
}

func TestClipLines(t *testing.T) {
	tests := []struct {
		width int
		in    []string // written one Write at a time
		want  string
	}{
		{0, []string{"abcdef\n"}, "abcdef\n"},
		{4, []string{"abcd\n", "abcde\n"}, "abcd\nabc…\n"},
		{4, []string{"ab", "cdef", "gh\nxy\n"}, "abc…\nxy\n"},
		{3, []string{"│é│\n", "│éé│\n"}, "│é│\n│é…\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		w := clipLines(&out, tt.width)
		for _, s := range tt.in {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", s, n, err)
			}
		}
		if out.String() != tt.want {
			t.Errorf("width %d, %q: got %q, want %q", tt.width, tt.in, out.String(), tt.want)
		}
	}
}

func TestFitOrder(t *testing.T) {
	got := fitOrder([]string{"Children", "Self", "Command", "Pid", "Shared Object", "Symbol"})
	if want := []int{5, 4, 2}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("fitOrder = %v, want %v", got, want)
	}
}
