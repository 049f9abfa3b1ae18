package encode

import (
	"encoding/binary"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/perfabi"
)

// attrLayoutSize is the size of the newest perf_event_attr layout this
// package knows.
const attrLayoutSize = perfabi.AttrSizeMax

// flagsWord returns the attr flags word as it is stored in order.
func flagsWord(f decode.AttrFlags, order binary.ByteOrder) uint64 {
	if order == binary.BigEndian {
		return perfabi.AttrFlagsToBE(uint64(f))
	}
	return uint64(f)
}

// branchFlagsWord returns a branch entry's flags as stored in order.
func branchFlagsWord(f uint64, order binary.ByteOrder) uint64 {
	if order == binary.BigEndian {
		return perfabi.BranchFlagsToBE(f)
	}
	return f
}

// attrBytes returns how many bytes of struct perf_event_attr a.Size says
// are written: Size itself, or 64 (VER0) when Size is 0.
func attrBytes(a *decode.EventAttr) int {
	if a.Size == 0 {
		return 64
	}
	return int(a.Size)
}

// AppendAttr appends struct perf_event_attr as written by a perf whose attr
// is a.Size bytes long: the fields of the newest known layout cut to Size
// bytes (VER0 = 64 ... VER9 = 144), or zero-padded when Size is larger. A
// Size of 0 is written as 0 with the 64-byte VER0 layout. The flags word is
// converted to the big-endian bitfield layout when order is big-endian.
func AppendAttr(dst []byte, order binary.ByteOrder, a *decode.EventAttr) []byte {
	b := Builder{Order: order, B: make([]byte, 0, attrLayoutSize)}
	b.U32(uint32(a.Type)).U32(a.Size)
	b.U64(a.Config).U64(a.SamplePeriod).U64(uint64(a.SampleType)).U64(uint64(a.ReadFormat))
	b.U64(flagsWord(a.Flags, b.order()))
	b.U32(a.WakeupEvents).U32(a.BPType)
	b.U64(a.Config1)                                   // 56
	b.U64(a.Config2)                                   // 64 VER1
	b.U64(uint64(a.BranchSampleType))                  // 72 VER2
	b.U64(a.SampleRegsUser).U32(a.SampleStackUser)     // 80, 88
	b.I32(a.ClockID)                                   // 92 VER3
	b.U64(a.SampleRegsIntr)                            // 96 VER4
	b.U32(a.AuxWatermark).U16(a.SampleMaxStack).U16(0) // 104 VER5
	b.U32(a.AuxSampleSize).U32(a.AuxAction)            // 112 VER6
	b.U64(a.SigData)                                   // 120 VER7
	b.U64(a.Config3)                                   // 128 VER8
	b.U64(a.Config4)                                   // 136 VER9
	n := attrBytes(a)
	if n <= len(b.B) {
		return append(dst, b.B[:n]...)
	}
	dst = append(dst, b.B...)
	return append(dst, make([]byte, n-len(b.B))...)
}
