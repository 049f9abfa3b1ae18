package encode

import (
	"encoding/binary"
	"slices"

	"github.com/perfstitch/perfstitch/decode"
)

// featurePayload is one feature section to write.
type featurePayload struct {
	feat decode.Feature
	data []byte
}

// appendString appends a feature string: u32 len, then the string, its NUL
// and zero padding, len bytes in all (a multiple of 64, perf's
// do_write_string).
func appendString(b *Builder, s string) {
	n := len(s) + 1
	n += padLen(n, nameAlign)
	b.U32(uint32(n))
	b.CString(s, nameAlign)
}

func appendStringList(b *Builder, list []string) {
	b.U32(uint32(len(list)))
	for _, s := range list {
		appendString(b, s)
	}
}

// appendEventDesc appends the EVENT_DESC payload for attrs: u32 nr, u32
// attr_size, then per event the attr (attr_size bytes), u32 nr_ids, the
// name and the ids.
func appendEventDesc(b *Builder, attrs []*decode.EventAttr) {
	size := 0
	for _, a := range attrs {
		size = max(size, attrBytes(a))
	}
	b.U32(uint32(len(attrs))).U32(uint32(size))
	for _, a := range attrs {
		ab := AppendAttr(nil, b.order(), a)
		b.Bytes(ab).Zeros(size - len(ab))
		b.U32(uint32(len(a.IDs)))
		appendString(b, a.Name)
		for _, id := range a.IDs {
			b.U64(id)
		}
	}
}

// encodeFeature returns the payload of feature f from the parsed fields of
// m (and attrs for EVENT_DESC), and whether there is one.
func encodeFeature(order binary.ByteOrder, f decode.Feature, m *decode.Meta, attrs []*decode.EventAttr) ([]byte, bool) {
	b := Builder{Order: order}
	switch f {
	case decode.FeatureBuildID:
		if len(m.BuildIDs) == 0 {
			return nil, false
		}
		appendBuildIDSection(&b, m.BuildIDs)
	case decode.FeatureHostname:
		appendString(&b, m.Hostname)
	case decode.FeatureOSRelease:
		appendString(&b, m.OSRelease)
	case decode.FeatureVersion:
		appendString(&b, m.Version)
	case decode.FeatureArch:
		appendString(&b, m.Arch)
	case decode.FeatureNrCPUs:
		b.U32(m.NrCPUsAvail).U32(m.NrCPUsOnline)
	case decode.FeatureCPUDesc:
		appendString(&b, m.CPUDesc)
	case decode.FeatureCPUID:
		appendString(&b, m.CPUID)
	case decode.FeatureTotalMem:
		b.U64(m.TotalMem)
	case decode.FeatureCmdline:
		appendStringList(&b, m.Cmdline)
	case decode.FeatureEventDesc:
		if len(attrs) == 0 {
			return nil, false
		}
		appendEventDesc(&b, attrs)
	case decode.FeatureCPUTopology:
		t := m.CPUTopology
		if t == nil {
			return nil, false
		}
		appendCPUTopology(&b, t)
	case decode.FeaturePMUMappings:
		if m.PMUMappings == nil {
			return nil, false
		}
		appendPMUMappings(&b, m.PMUMappings)
	case decode.FeatureGroupDesc:
		b.U32(uint32(len(m.GroupDesc)))
		for _, g := range m.GroupDesc {
			appendString(&b, g.Name)
			b.U32(g.LeaderIdx).U32(g.NrMembers)
		}
	case decode.FeatureSampleTime:
		if m.SampleTime == nil {
			return nil, false
		}
		b.U64(m.SampleTime.First).U64(m.SampleTime.Last)
	case decode.FeatureClockID:
		if !m.HasClockID {
			return nil, false
		}
		b.U64(m.ClockIDRes)
	case decode.FeatureClockData:
		c := m.ClockData
		if c == nil {
			return nil, false
		}
		b.U32(c.Version).U32(c.ClockID).U64(c.WallClockNS).U64(c.ClockIDTimeNS)
	case decode.FeatureCompressed:
		c := m.Compressed
		if c == nil {
			return nil, false
		}
		b.U32(c.Version).U32(c.Type).U32(c.Level).U32(c.Ratio).U32(c.MmapLen)
	case decode.FeatureBranchStack, decode.FeatureStat:
		// Presence is the information; the payload is empty.
	default:
		return nil, false
	}
	return b.B, true
}

// appendBuildIDSection appends a BUILD_ID section: one
// perf_record_header_build_id per entry, with the size byte (misc bit 15).
func appendBuildIDSection(b *Builder, ids []decode.BuildID) {
	for _, id := range ids {
		start := len(b.B)
		misc := uint16(id.CPUMode) | decode.MiscBuildIDSize
		b.Header(0, misc, 0)
		appendBuildIDBody(b, misc, id.PID, id.ID, id.Filename)
		b.order().PutUint16(b.B[start+6:], uint16(len(b.B)-start))
	}
}

// appendCPUTopology appends a CPU_TOPOLOGY section: the sibling lists,
// then the core and socket ids and the die lists when t has them.
func appendCPUTopology(b *Builder, t *decode.CPUTopology) {
	appendStringList(b, t.CoreSiblings)
	appendStringList(b, t.ThreadSiblings)
	if len(t.CoreID) > 0 || len(t.SocketID) > 0 || len(t.DieSiblings) > 0 {
		n := max(len(t.CoreID), len(t.SocketID))
		for i := range n {
			b.U32(at(t.CoreID, i)).U32(at(t.SocketID, i))
		}
	}
	if len(t.DieSiblings) > 0 || len(t.DieID) > 0 {
		appendStringList(b, t.DieSiblings)
		for _, v := range t.DieID {
			b.U32(v)
		}
	}
}

// appendPMUMappings appends a PMU_MAPPINGS section, by type.
func appendPMUMappings(b *Builder, pm map[uint32]string) {
	types := make([]uint32, 0, len(pm))
	for t := range pm {
		types = append(types, t)
	}
	slices.Sort(types)
	b.U32(uint32(len(types)))
	for _, t := range types {
		b.U32(t)
		appendString(b, pm[t])
	}
}

func at(s []uint32, i int) uint32 {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// hasField reports whether m has a parsed value for f (used to list the
// features of a Meta whose Features list is empty).
func hasField(f decode.Feature, m *decode.Meta) bool {
	switch f {
	case decode.FeatureBuildID:
		return len(m.BuildIDs) > 0
	case decode.FeatureHostname:
		return m.Hostname != ""
	case decode.FeatureOSRelease:
		return m.OSRelease != ""
	case decode.FeatureVersion:
		return m.Version != ""
	case decode.FeatureArch:
		return m.Arch != ""
	case decode.FeatureNrCPUs:
		return m.NrCPUsAvail != 0 || m.NrCPUsOnline != 0
	case decode.FeatureCPUDesc:
		return m.CPUDesc != ""
	case decode.FeatureCPUID:
		return m.CPUID != ""
	case decode.FeatureTotalMem:
		return m.TotalMem != 0
	case decode.FeatureCmdline:
		return len(m.Cmdline) > 0
	case decode.FeatureCPUTopology:
		return m.CPUTopology != nil
	case decode.FeaturePMUMappings:
		return m.PMUMappings != nil
	case decode.FeatureGroupDesc:
		return len(m.GroupDesc) > 0
	case decode.FeatureSampleTime:
		return m.SampleTime != nil
	case decode.FeatureClockID:
		return m.HasClockID
	case decode.FeatureClockData:
		return m.ClockData != nil
	case decode.FeatureCompressed:
		return m.Compressed != nil
	case decode.FeatureEventDesc:
		return len(m.EventDesc) > 0
	}
	return false
}

// features returns the feature sections to write, ascending by bit: those
// listed in m.Features (or, when that list is empty, every feature m has a
// value or raw payload for). A raw payload in m.Raw wins over the parsed
// fields; EVENT_DESC is built from attrs (the events of the file being
// written), not from m.EventDesc. Features without any
// payload are left out, except the empty BRANCH_STACK and STAT; so is an
// empty raw feature end, the pipe-mode end-of-features marker of a decoded
// pipe (the writer makes its own).
func features(order binary.ByteOrder, m *decode.Meta, attrs []*decode.EventAttr, end decode.Feature) []featurePayload {
	if m == nil {
		m = &decode.Meta{}
	}
	var list []decode.Feature
	if len(m.Features) > 0 {
		list = slices.Clone(m.Features)
	} else {
		for f := decode.Feature(1); f != 0; f++ {
			_, raw := m.Raw[f]
			if raw || hasField(f, m) {
				list = append(list, f)
			}
			if f == 255 {
				break
			}
		}
	}
	slices.Sort(list)
	list = slices.Compact(list)
	var out []featurePayload
	for _, f := range list {
		if f == 0 {
			continue
		}
		if raw, ok := m.Raw[f]; ok {
			if f == end && len(raw) == 0 {
				continue
			}
			out = append(out, featurePayload{f, raw})
			continue
		}
		if p, ok := encodeFeature(order, f, m, attrs); ok {
			out = append(out, featurePayload{f, p})
		}
	}
	return out
}
