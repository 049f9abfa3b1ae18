package perfabi

import "testing"

func TestBitfieldsRoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 1 << 15, 2 << 15, 3 << 15, 1 << 39, 0xff_ffff_ffff, ^uint64(0) >> 24} {
		if got := AttrFlagsFromBE(AttrFlagsToBE(v)); got != v {
			t.Errorf("attr flags %#x: back %#x", v, got)
		}
	}
	for _, v := range []uint64{0, 1, 0xffff << 4, 0xf << 20, 1 << 32, 0x7fff_ffff_ffff_ffff} {
		if got := BranchFlagsFromBE(BranchFlagsToBE(v)); got != v {
			t.Errorf("branch flags %#x: back %#x", v, got)
		}
	}
}

func TestBitfieldsToBE(t *testing.T) {
	// disabled (bit 0) becomes the top bit; the 2-bit precise_ip keeps
	// its own bit order; cycles (16 bits from bit 4) of a branch entry.
	for _, tc := range []struct {
		name      string
		got, want uint64
	}{
		{"disabled", AttrFlagsToBE(1), 1 << 63},
		{"precise_ip 2", AttrFlagsToBE(2 << 15), 0b10 << (64 - 17)},
		{"defer_output", AttrFlagsToBE(1 << 39), 1 << (63 - 39)},
		{"branch cycles", BranchFlagsToBE(0xffff << 4), 0xffff << (64 - 20)},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, tc.got, tc.want)
		}
	}
}
