package compat

import "testing"

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  bool
	}{
		{"7.3", "7.3", false},
		{"7.3.4", "7.3", false},
		{"6.1", "6.1", false},
		{"6.1.0", "6.1", false},
		{"6.10", "", true},
		{"7", "", true},
		{"", "", true},
		{"5.4", "", true},
	} {
		d, err := Lookup(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("Lookup(%q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err == nil && d.Version != tc.want {
			t.Errorf("Lookup(%q) = %s, want %s", tc.in, d.Version, tc.want)
		}
	}
	if Default.Version != "7.3" {
		t.Errorf("Default = %s, want 7.3", Default.Version)
	}
}
