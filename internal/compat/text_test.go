package compat

import "testing"

// TestTextFields checks the perf script layout fields of every dialect:
// each sets a pid width (the zero value would print none), and the
// fields differ where the releases do.
func TestTextFields(t *testing.T) {
	for _, tc := range []struct {
		d        Dialect
		pidWidth int
		absolute bool
	}{
		{Perf73, 7, true},
		{Perf61, 5, false},
	} {
		if tc.d.PidWidth != tc.pidWidth || tc.d.AbsoluteCallchainAddrs != tc.absolute {
			t.Errorf("%s: PidWidth %d, AbsoluteCallchainAddrs %v; want %d, %v",
				tc.d.Version, tc.d.PidWidth, tc.d.AbsoluteCallchainAddrs, tc.pidWidth, tc.absolute)
		}
	}
	for _, d := range Known() {
		if d.PidWidth <= 0 {
			t.Errorf("%s: no pid width", d.Version)
		}
	}
}
