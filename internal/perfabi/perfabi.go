// Package perfabi holds the parts of the perf_event ABI that the decoder
// and the encoder both need to agree on: the sizes of struct
// perf_event_attr's versions and the bitfield layouts that big-endian
// compilers lay out from the other end of the word. decode reads with it,
// encode writes with it, so that the two cannot drift apart.
package perfabi

// perf_event_attr sizes (PERF_ATTR_SIZE_VER*).
const (
	// AttrSizeVer0 is the size of the first perf_event_attr layout
	// (PERF_ATTR_SIZE_VER0); a size of 0 means it.
	AttrSizeVer0 = 64
	// AttrSizeMax is the size of the newest layout known here (VER9, with
	// config4).
	AttrSizeMax = 144
	// MaxAttrSize bounds the attr.size values accepted at all; the kernel
	// would refuse anything beyond a page.
	MaxAttrSize = 4096
)

// attrFlagWidths are the widths of perf_event_attr's bitfields at offset
// 40, in declaration order (disabled .. sigtrap, defer_callchain,
// defer_output, __reserved_1); precise_ip is the only multi-bit one before
// the reserved tail.
var attrFlagWidths = [...]uint8{
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, // disabled .. watermark (bits 0-14)
	2,                                                                   // precise_ip (bits 15-16)
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, // mmap_data .. defer_output (17-39)
	24, // __reserved_1
}

// branchFlagWidths are the widths of struct perf_branch_entry's bitfields
// after from/to: mispred, predicted, in_tx, abort, cycles, type, spec,
// new_type, priv, reserved.
var branchFlagWidths = [...]uint8{1, 1, 1, 1, 16, 4, 2, 4, 3, 31}

// AttrFlagsFromBE converts perf_event_attr's flags word as a big-endian
// compiler lays it out (first field in the most significant bits) to the
// little-endian bit numbering of the UAPI header.
func AttrFlagsFromBE(v uint64) uint64 { return BitfieldsFromBE(v, attrFlagWidths[:]) }

// AttrFlagsToBE is the inverse of AttrFlagsFromBE.
func AttrFlagsToBE(v uint64) uint64 { return BitfieldsToBE(v, attrFlagWidths[:]) }

// BranchFlagsFromBE converts the flags word of a struct perf_branch_entry
// (after from and to) from the big-endian bitfield layout to the
// little-endian one.
func BranchFlagsFromBE(v uint64) uint64 { return BitfieldsFromBE(v, branchFlagWidths[:]) }

// BranchFlagsToBE is the inverse of BranchFlagsFromBE.
func BranchFlagsToBE(v uint64) uint64 { return BitfieldsToBE(v, branchFlagWidths[:]) }

// BitfieldsFromBE re-packs a u64 whose bitfields of the given widths (in
// declaration order) were laid out from the most significant bit
// (big-endian ABI) into the little-endian layout, keeping the bit order
// inside each multi-bit field. Fields past bit 64 are dropped.
func BitfieldsFromBE(v uint64, widths []uint8) uint64 { return repack(v, widths, false) }

// BitfieldsToBE moves the bitfields of v from the little-endian layout
// (first field in the least significant bits) to the big-endian one (first
// field in the most significant bits), keeping the bit order inside each
// field: what a big-endian compiler makes of the same struct.
func BitfieldsToBE(v uint64, widths []uint8) uint64 { return repack(v, widths, true) }

// repack moves each field of v between its little-endian position (pos
// bits from the bottom) and its big-endian one (pos bits from the top).
func repack(v uint64, widths []uint8, toBE bool) uint64 {
	var out uint64
	pos := 0
	for _, w := range widths {
		if pos+int(w) > 64 {
			break
		}
		be := 64 - pos - int(w)
		mask := uint64(1)<<w - 1 // all ones for w = 64
		if toBE {
			out |= (v >> pos & mask) << be
		} else {
			out |= (v >> be & mask) << pos
		}
		pos += int(w)
	}
	return out
}
