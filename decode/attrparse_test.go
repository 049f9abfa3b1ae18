package decode

import (
	"testing"

	"github.com/perfstitch/perfstitch/internal/perfabi"
)

func TestDefaultName(t *testing.T) {
	tests := []struct {
		typ    AttrType
		config uint64
		flags  AttrFlags
		want   string
	}{
		{AttrTypeSoftware, 0, AttrExcludeGuest, "cpu-clock"},
		{AttrTypeSoftware, 1, 0, "task-clock:HG"},
		{AttrTypeHardware, 0, AttrExcludeKernel | AttrExcludeHV, "cycles:u"},
		{AttrTypeHardware, 0, AttrExcludeKernel | AttrExcludeHV | AttrExcludeGuest, "cycles:uH"},
		{AttrTypeHardware, 1, 3 << 15, "instructions:ppp"},
		{AttrTypeHardware, 1, 3<<15 | AttrExcludeGuest, "instructions:pppH"},
		{AttrTypeHardware, 99, AttrExcludeGuest, "unknown-hardware"},
		{AttrTypeHWCache, 0 | 0<<8 | 1<<16, AttrExcludeGuest, "L1-dcache-load-misses"},
		{AttrTypeHWCache, 3 | 1<<8 | 0<<16, AttrExcludeGuest, "dTLB-stores"},
		{AttrTypeHWCache, 4 | 1<<8, AttrExcludeGuest, "invalid-cache"},
		{AttrTypeRaw, 0x1c2, AttrExcludeGuest, "raw 0x1c2"},
		{AttrTypeTracepoint, 5, 0, "unknown tracepoint"},
		{8, 5, 0, "unknown attr type: 8"},
	}
	for _, tc := range tests {
		a := &EventAttr{Type: tc.typ, Config: tc.config, Flags: tc.flags}
		if got := defaultName(a, nil); got != tc.want {
			t.Errorf("type %d config %#x flags %#x: %q, want %q", tc.typ, tc.config, tc.flags, got, tc.want)
		}
	}
}

func TestBitfieldsFromBE(t *testing.T) {
	// disabled (bit 0) is the top bit for a big-endian compiler; the
	// 2-bit precise_ip keeps its own bit order.
	if got := perfabi.AttrFlagsFromBE(1 << 63); got != 1 {
		t.Errorf("disabled: %#x", got)
	}
	if got := perfabi.AttrFlagsFromBE(0b10 << (64 - 17)); AttrFlags(got) != 2<<15 {
		t.Errorf("precise_ip 2: %#x", got)
	}
	if got := perfabi.AttrFlagsFromBE(1 << (63 - 39)); AttrFlags(got) != AttrDeferOutput {
		t.Errorf("defer_output: %#x", got)
	}
}
