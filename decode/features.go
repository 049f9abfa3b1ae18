package decode

import (
	"fmt"
	"slices"
	"strings"
)

// add parses the payload of one feature section (file mode) or
// HEADER_FEATURE record (pipe mode) into m. A malformed payload is kept in
// Raw and reported in Errors; it never fails the file.
func (m *Meta) add(f Feature, b []byte, e endian, off int64) {
	if !slices.Contains(m.Features, f) {
		m.Features = append(m.Features, f)
		slices.Sort(m.Features)
	}
	c := cursor{b: b, e: e}
	parsed := true
	switch f {
	case FeatureBuildID:
		m.BuildIDs = parseBuildIDSection(&c)
	case FeatureHostname:
		m.Hostname = c.perfString("hostname")
	case FeatureOSRelease:
		m.OSRelease = c.perfString("osrelease")
	case FeatureVersion:
		m.Version = c.perfString("version")
	case FeatureArch:
		m.Arch = c.perfString("arch")
	case FeatureNrCPUs:
		m.NrCPUsAvail = c.u32("nr_cpus_avail")
		m.NrCPUsOnline = c.u32("nr_cpus_online")
	case FeatureCPUDesc:
		m.CPUDesc = c.perfString("cpudesc")
	case FeatureCPUID:
		m.CPUID = c.perfString("cpuid")
	case FeatureTotalMem:
		m.TotalMem = c.u64("total_mem")
	case FeatureCmdline:
		m.Cmdline = c.perfStringList("cmdline")
	case FeatureEventDesc:
		m.EventDesc = parseEventDesc(&c)
	case FeatureCPUTopology:
		m.CPUTopology = parseCPUTopology(&c, m.NrCPUsAvail)
	case FeaturePMUMappings:
		if pm, order, ok := parsePMUMappings(&c); ok {
			m.PMUMappings, m.PMUOrder = pm, order
		}
	case FeatureGroupDesc:
		if gd, ok := parseGroupDesc(&c); ok {
			m.GroupDesc = gd
		}
	case FeatureSampleTime:
		st := &SampleTimeRange{First: c.u64("first"), Last: c.u64("last")}
		if !c.short {
			m.SampleTime = st
		}
	case FeatureClockID:
		m.ClockIDRes = c.u64("clockid_res")
		m.HasClockID = !c.short
	case FeatureClockData:
		cd := &ClockData{Version: c.u32("version"), ClockID: c.u32("clockid"),
			WallClockNS: c.u64("wall_clock_ns"), ClockIDTimeNS: c.u64("clockid_time_ns")}
		if !c.short {
			m.ClockData = cd
		}
	case FeatureCompressed:
		ci := &CompressedInfo{Version: c.u32("version"), Type: c.u32("type"), Level: c.u32("level"),
			Ratio: c.u32("ratio"), MmapLen: c.u32("mmap_len")}
		if !c.short {
			m.Compressed = ci
		}
	default:
		// The sections addInfo knows stay in Raw as well: encode writes
		// them back from there.
		m.addInfo(f, &c)
		parsed = false
	}
	if c.short {
		m.Errors = append(m.Errors, &FormatError{Offset: off, Record: RecordTypeHeaderFeature,
			Field: fmt.Sprintf("feature %d: %s", f, c.field), Err: errShort})
		parsed = false
	}
	if !parsed {
		if m.Raw == nil {
			m.Raw = make(map[Feature][]byte)
		}
		m.Raw[f] = slices.Clone(b)
	}
}

// parseBuildIDSection decodes a BUILD_ID section, with or without the pid
// field of each entry.
func parseBuildIDSection(c *cursor) []BuildID {
	save := *c
	ids := parseBuildIDs(c, true)
	for _, b := range ids {
		if strings.HasPrefix(b.Filename, "nel.kallsyms]") {
			// Very old perfs wrote the entries without the pid field;
			// perf detects them the same way.
			*c = save
			return parseBuildIDs(c, false)
		}
	}
	return ids
}

// parsePMUMappings decodes a PMU_MAPPINGS section; ok is false (and c
// short) when its count cannot fit.
func parsePMUMappings(c *cursor) (pm map[uint32]string, order []uint32, ok bool) {
	nr := c.u32("nr")
	if uint64(nr) > uint64(c.remaining())/8 {
		c.short, c.field = true, "nr"
		return nil, nil, false
	}
	pm = make(map[uint32]string, nr)
	for i := uint32(0); i < nr && !c.short; i++ {
		t := c.u32("type")
		if _, dup := pm[t]; !dup {
			order = append(order, t)
		}
		pm[t] = c.perfString("name")
	}
	return pm, order, true
}

// parseGroupDesc decodes a GROUP_DESC section; ok is false (and c short)
// when its count cannot fit.
func parseGroupDesc(c *cursor) (gd []GroupDesc, ok bool) {
	nr := c.u32("nr")
	if uint64(nr) > uint64(c.remaining())/12 {
		c.short, c.field = true, "nr"
		return nil, false
	}
	gd = make([]GroupDesc, 0, nr)
	for i := uint32(0); i < nr && !c.short; i++ {
		gd = append(gd, GroupDesc{Name: c.perfString("name"), LeaderIdx: c.u32("leader_idx"), NrMembers: c.u32("nr_members")})
	}
	return gd, true
}

// parseBuildIDs reads the BUILD_ID feature: perf_record_header_build_id
// entries back to back. An entry whose size is below its fixed part or
// runs past the section ends the list.
func parseBuildIDs(c *cursor, withPID bool) []BuildID {
	var out []BuildID
	fixed := 8 + 24
	if withPID {
		fixed += 4
	}
	for c.remaining() >= fixed {
		start := c.off
		c.skip(4, "type")
		misc := c.u16("misc")
		size := int(c.u16("size"))
		if size < fixed || size > len(c.b)-start {
			c.short, c.field = true, "build_id.size"
			return out
		}
		ent := c.b[start+8 : start+size]
		ec := cursor{b: ent, e: c.e}
		pid := int32(-1)
		if withPID {
			pid = int32(ec.u32("pid"))
		}
		idb := ec.bytes(24, "build_id")
		out = append(out, BuildID{
			CPUMode:  CPUMode(misc & 7),
			PID:      pid,
			ID:       slices.Clone(buildIDBytes(idb, misc)),
			Filename: cstring(ec.rest()),
		})
		c.off = start + size
	}
	return out
}

// parseEventDesc reads the EVENT_DESC feature.
func parseEventDesc(c *cursor) []EventDesc {
	nr := c.u32("nr_events")
	sz := c.u32("attr_size")
	if c.short {
		return nil
	}
	if sz < attrSizeVer0 || sz > maxAttrSize || uint64(nr) > uint64(c.remaining())/uint64(sz+8) {
		c.short, c.field = true, "attr_size"
		return nil
	}
	out := make([]EventDesc, 0, nr)
	for i := uint32(0); i < nr && !c.short; i++ {
		ab := c.bytes(int(sz), "attr")
		if c.short {
			break
		}
		a, err := parseAttr(ab, c.e)
		if err != nil {
			c.short, c.field = true, "attr"
			break
		}
		nids := c.u32("nr_ids")
		name := c.perfString("name")
		if uint64(nids) > uint64(c.remaining())/8 {
			c.short, c.field = true, "nr_ids"
			break
		}
		ids := make([]uint64, 0, nids)
		for j := uint32(0); j < nids; j++ {
			ids = append(ids, c.u64("id"))
		}
		a.Name = name
		a.IDs = ids
		out = append(out, EventDesc{Attr: a, Name: name, IDs: ids})
	}
	return out
}

// parseCPUTopology reads CPU_TOPOLOGY; the optional parts are read only if
// the section holds them.
func parseCPUTopology(c *cursor, nrCPUs uint32) *CPUTopology {
	t := &CPUTopology{
		CoreSiblings:   c.perfStringList("core_siblings"),
		ThreadSiblings: c.perfStringList("thread_siblings"),
	}
	if c.short {
		return nil
	}
	if nrCPUs > 0 && uint64(c.remaining()) >= 8*uint64(nrCPUs) {
		t.CoreID = make([]uint32, nrCPUs)
		t.SocketID = make([]uint32, nrCPUs)
		for i := range t.CoreID {
			t.CoreID[i] = c.u32("core_id")
			t.SocketID[i] = c.u32("socket_id")
		}
	}
	if c.remaining() >= 4 {
		save := *c
		t.DieSiblings = c.perfStringList("die_siblings")
		if !c.short && nrCPUs > 0 && uint64(c.remaining()) >= 4*uint64(nrCPUs) {
			t.DieID = make([]uint32, nrCPUs)
			for i := range t.DieID {
				t.DieID[i] = c.u32("die_id")
			}
		}
		if c.short {
			*c = save
			t.DieSiblings, t.DieID = nil, nil
		}
	}
	return t
}

// applyMeta names events from EVENT_DESC (and attaches its ids) once the
// features are known.
func (d *decoder) applyMeta() {
	for i, ed := range d.f.Meta.EventDesc {
		// perf matches by the first id (evlist__set_event_name); fall
		// back to the position for events without ids.
		idx := i
		if len(ed.IDs) > 0 {
			if j, ok := d.byID[ed.IDs[0]]; ok {
				idx = j
			}
		}
		if idx >= len(d.f.Attrs) {
			continue
		}
		a := d.f.Attrs[idx]
		if ed.Name != "" {
			a.Name = ed.Name
		}
		for _, id := range ed.IDs {
			if _, ok := d.byID[id]; !ok {
				d.byID[id] = idx
				a.IDs = append(a.IDs, id)
			}
		}
	}
}
