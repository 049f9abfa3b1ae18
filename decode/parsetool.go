package decode

import (
	"fmt"
	"math"
)

// Decoding a perf-tool record (type 64 and up) is two steps. The parse
// functions of this file (one per record family) read the record into its
// store value and read the decoder's tables, never write them; apply then
// makes the record's change to the recording's state, the only place
// where a record does:
//
//   - HEADER_ATTR adds its event (File.Attrs, the layouts, the id index)
//     and names it;
//   - ID_INDEX adds ids to their events (EventAttr.IDs, the id index);
//   - EVENT_UPDATE of type NAME renames its event;
//   - HEADER_FEATURE adds its section to File.Meta and applies the event
//     descriptions to the events (names, ids).
//
// Every other record leaves the state as it is. (The statistics, Stats,
// are the iteration's own and counted as records are decoded; their
// readers wait for its end.) parseTool runs both steps,
// so the state is the same as each record is parsed as it always was; the
// split lets a caller that reads the state on another goroutine stop the
// decoding one before it changes (see File.BeforeApply).

// parseTool decodes perf-tool records (types 64 and up) and applies them.
func (d *decoder) parseTool(s *store, typ RecordType, misc, size uint16, body []byte, off, inner int64) (Record, error) {
	var c RecordCommon
	resetCommon(&c, off, inner, misc, size)
	r, err := d.decodeTool(s, typ, c, body)
	if err != nil {
		return nil, err
	}
	if changesState(s, r) {
		if d.f.beforeApply != nil {
			d.f.beforeApply(r)
		}
		d.apply(s, r)
	}
	return r, nil
}

// decodeTool decodes a perf-tool record into s without changing any state.
func (d *decoder) decodeTool(s *store, typ RecordType, c RecordCommon, body []byte) (Record, error) {
	switch typ {
	case RecordTypeHeaderAttr, RecordTypeHeaderEventType, RecordTypeHeaderTracingData,
		RecordTypeHeaderBuildID, RecordTypeHeaderFeature, RecordTypeIDIndex:
		return d.parseHeaderRecord(s, typ, c, body)
	case RecordTypeFinishedRound, RecordTypeFinishedInit, RecordTypeTimeConv,
		RecordTypeCompressed, RecordTypeCompressed2, RecordTypeBPFMetadata:
		return d.parseSessionRecord(s, typ, c, body)
	case RecordTypeAuxtraceInfo, RecordTypeAuxtrace, RecordTypeAuxtraceError:
		return d.parseAuxtrace(s, typ, c, body)
	case RecordTypeThreadMap, RecordTypeCPUMap, RecordTypeStatConfig, RecordTypeStat,
		RecordTypeStatRound, RecordTypeEventUpdate:
		return d.parseStat(s, typ, c, body)
	}
	u := &s.unknown
	*u = Unknown{RecordCommon: c, RecType: typ, Data: body}
	return u, nil
}

// parseHeaderRecord decodes the records that stand for the file header in
// pipe mode: events, their ids, event types, tracing data, build ids and
// feature sections.
func (d *decoder) parseHeaderRecord(s *store, typ RecordType, c RecordCommon, body []byte) (Record, error) {
	e, off := d.e, c.Offset
	cur := cursor{b: body, e: e}
	switch typ {
	case RecordTypeHeaderAttr:
		a, err := parseAttr(body, e)
		if err != nil {
			return nil, formatErr(off, typ, "attr", err)
		}
		if int(a.Size) > len(body) {
			return nil, formatErr(off, typ, "attr.size", errShort)
		}
		ids := body[a.Size:]
		a.IDs = make([]uint64, 0, len(ids)/8)
		for j := 0; j+8 <= len(ids); j += 8 {
			a.IDs = append(a.IDs, e.u64(ids[j:]))
		}
		ap := new(EventAttr)
		*ap = a
		s.headerAttr = HeaderAttr{RecordCommon: c, Attr: ap}
		return &s.headerAttr, nil
	case RecordTypeHeaderEventType:
		s.eventType = HeaderEventType{RecordCommon: c, EventID: cur.u64("event_id"), Name: cstring(cur.rest())}
		return cur.done(&s.eventType, off, typ)
	case RecordTypeHeaderTracingData:
		// The payload is read by the caller (it follows the record).
		s.tracingData = TracingData{RecordCommon: c, Data: s.tracingData.Data[:0]}
		return &s.tracingData, nil
	case RecordTypeHeaderBuildID:
		r := &s.buildID
		bid := r.BuildID[:0]
		*r = HeaderBuildID{RecordCommon: c}
		r.BuildPID = int32(cur.u32("pid"))
		idb := cur.bytes(24, "build_id")
		if cur.short {
			return nil, formatErr(off, typ, cur.field, errShort)
		}
		r.BuildID = append(bid, buildIDBytes(idb, c.Misc)...)
		r.Filename = cstring(cur.rest())
		return r, nil
	case RecordTypeHeaderFeature:
		r := &s.feature
		id := cur.u64("feat_id")
		if cur.short {
			return nil, formatErr(off, typ, "feat_id", errShort)
		}
		*r = HeaderFeature{RecordCommon: c, Feature: Feature(min(id, 255)), Data: cur.rest()}
		s.featureID = id
		return r, nil
	}
	return d.parseIDIndex(s, c, body)
}

// parseIDIndex decodes PERF_RECORD_ID_INDEX, with or without the
// machine pid and vcpu of each entry.
func (d *decoder) parseIDIndex(s *store, c RecordCommon, body []byte) (Record, error) {
	e, off, typ := d.e, c.Offset, RecordTypeIDIndex
	cur := cursor{b: body, e: e}
	r := &s.idIndex
	ents := r.Entries[:0]
	*r = IDIndex{RecordCommon: c}
	nr := cur.u64("nr")
	if cur.short {
		return nil, formatErr(off, typ, "nr", errShort)
	}
	rest := uint64(cur.remaining())
	if nr > rest/32 {
		d.warn(formatErr(off, typ, "nr", fmt.Errorf("nr %d does not fit the record: %w", nr, errShort)))
		nr = rest / 32
	}
	ext := rest >= nr*48
	base := cur.off
	for j := uint64(0); j < nr; j++ {
		p := base + int(j)*32
		ent := IDIndexEntry{ID: e.u64(body[p:]), Idx: e.u64(body[p+8:]), CPU: e.u64(body[p+16:]), TID: e.u64(body[p+24:])}
		if ext {
			q := base + int(nr)*32 + int(j)*16
			ent.MachinePID, ent.VCPU = e.u64(body[q:]), e.u64(body[q+8:])
		}
		ents = append(ents, ent)
	}
	r.Entries = ents
	return r, nil
}

// parseSessionRecord decodes the records about the session rather than
// one event: round and init markers, the time conversion, compressed
// containers and BPF metadata.
func (d *decoder) parseSessionRecord(s *store, typ RecordType, c RecordCommon, body []byte) (Record, error) {
	off := c.Offset
	cur := cursor{b: body, e: d.e}
	switch typ {
	case RecordTypeFinishedRound:
		s.finishedRound = FinishedRound{RecordCommon: c}
		return &s.finishedRound, nil
	case RecordTypeFinishedInit:
		s.finishedInit = FinishedInit{RecordCommon: c}
		return &s.finishedInit, nil
	case RecordTypeTimeConv:
		r := &s.timeConv
		*r = TimeConv{RecordCommon: c, TimeShift: cur.u64("time_shift"), TimeMult: cur.u64("time_mult"),
			TimeZero: cur.u64("time_zero")}
		if cur.remaining() >= 18 {
			r.TimeCycles = cur.u64("time_cycles")
			r.TimeMask = cur.u64("time_mask")
			r.CapUserTimeZero = cur.u8("cap_user_time_zero") != 0
			r.CapUserTimeShort = cur.u8("cap_user_time_short") != 0
		}
		return cur.done(r, off, typ)
	case RecordTypeCompressed, RecordTypeCompressed2:
		r := &s.compressed
		*r = Compressed{RecordCommon: c, V2: typ == RecordTypeCompressed2}
		if r.V2 {
			n := cur.u64("data_size")
			if cur.short || n > uint64(cur.remaining()) {
				return nil, formatErr(off, typ, "data_size", errShort)
			}
			r.Data = cur.bytes(int(n), "data")
		} else {
			r.Data = body
		}
		return r, nil
	}
	r := &s.bpfMetadata
	ents := r.Entries[:0]
	*r = BPFMetadata{RecordCommon: c, ProgName: cur.fixedString(512, "prog_name")}
	nr := cur.u64("nr_entries")
	if cur.short {
		return nil, formatErr(off, typ, cur.field, errShort)
	}
	if nr > uint64(cur.remaining())/320 {
		d.warn(formatErr(off, typ, "nr_entries", errShort))
		nr = uint64(cur.remaining()) / 320
	}
	for j := uint64(0); j < nr; j++ {
		ents = append(ents, BPFMetadataEntry{Key: cur.fixedString(64, "key"), Value: cur.fixedString(256, "value")})
	}
	r.Entries = ents
	return r, nil
}

// parseAuxtrace decodes the perf-tool records of AUX area tracing
// (itrace): the PMU's private info, an AUX buffer's header (its data
// follows the record) and a trace decoder's error.
func (d *decoder) parseAuxtrace(s *store, typ RecordType, c RecordCommon, body []byte) (Record, error) {
	off := c.Offset
	cur := cursor{b: body, e: d.e}
	switch typ {
	case RecordTypeAuxtraceInfo:
		r := &s.auxtraceInfo
		priv := r.Priv[:0]
		*r = AuxtraceInfo{RecordCommon: c, AuxType: cur.u32("type")}
		cur.skip(4, "reserved")
		for cur.remaining() >= 8 {
			priv = append(priv, cur.u64("priv"))
		}
		r.Priv = priv
		return cur.done(r, off, typ)
	case RecordTypeAuxtrace:
		r := &s.auxtrace
		*r = Auxtrace{RecordCommon: c, AuxSize: cur.u64("size"), AuxOffset: cur.u64("offset"),
			Reference: cur.u64("reference"), Idx: cur.u32("idx"), AuxTID: cur.u32("tid"), AuxCPU: cur.u32("cpu")}
		if cur.short {
			return nil, formatErr(off, typ, cur.field, errShort)
		}
		r.DataOffset = off + int64(c.Size)
		return r, nil
	}
	r := &s.auxtraceError
	*r = AuxtraceError{RecordCommon: c, ErrType: cur.u32("type"), Code: cur.u32("code"),
		ErrCPU: cur.u32("cpu"), ErrPID: cur.u32("pid"), ErrTID: cur.u32("tid"), Fmt: cur.u32("fmt"),
		IP: cur.u64("ip")}
	r.ErrTime = cur.u64("time")
	r.Msg = cstring(cur.rest())
	if cur.remaining() > 64 {
		r.Msg = cstring(cur.rest()[:64])
	}
	return cur.done(r, off, typ)
}

// parseStat decodes the records of perf stat and the event updates:
// thread and CPU maps, the stat config, counts, rounds and EVENT_UPDATE.
func (d *decoder) parseStat(s *store, typ RecordType, c RecordCommon, body []byte) (Record, error) {
	off := c.Offset
	cur := cursor{b: body, e: d.e}
	switch typ {
	case RecordTypeThreadMap:
		r := &s.threadMap
		th := r.Threads[:0]
		*r = ThreadMap{RecordCommon: c}
		nr := cur.u64("nr")
		if cur.short || nr > uint64(cur.remaining())/24 {
			return nil, formatErr(off, typ, "nr", errShort)
		}
		for j := uint64(0); j < nr; j++ {
			th = append(th, ThreadMapEntry{PID: cur.u64("pid"), Comm: cur.fixedString(16, "comm")})
		}
		r.Threads = th
		return r, nil
	case RecordTypeCPUMap:
		r := &s.cpuMap
		cpus := r.CPUs[:0]
		*r = CPUMap{RecordCommon: c}
		var err error
		cpus, r.AnyCPU, err = parseCPUMapData(&cur, cpus)
		if err != nil {
			return nil, formatErr(off, typ, "data", err)
		}
		r.CPUs = cpus
		return r, nil
	case RecordTypeStatConfig:
		r := &s.statConfig
		cfg := r.Config[:0]
		*r = StatConfig{RecordCommon: c}
		nr := cur.u64("nr")
		if cur.short || nr > uint64(cur.remaining())/16 {
			return nil, formatErr(off, typ, "nr", errShort)
		}
		for j := uint64(0); j < nr; j++ {
			cfg = append(cfg, StatConfigEntry{Tag: cur.u64("tag"), Val: cur.u64("val")})
		}
		r.Config = cfg
		return r, nil
	case RecordTypeStat:
		s.stat = Stat{RecordCommon: c, StatID: cur.u64("id"), StatCPU: cur.u32("cpu"), Thread: cur.u32("thread"),
			Val: cur.u64("val"), Ena: cur.u64("ena"), Run: cur.u64("run")}
		return cur.done(&s.stat, off, typ)
	case RecordTypeStatRound:
		s.statRound = StatRound{RecordCommon: c, RoundType: cur.u64("type"), RoundTime: cur.u64("time")}
		return cur.done(&s.statRound, off, typ)
	}
	return d.parseEventUpdate(s, c, &cur)
}

// parseEventUpdate decodes PERF_RECORD_EVENT_UPDATE (unit, scale, name or
// CPUs of an event).
func (d *decoder) parseEventUpdate(s *store, c RecordCommon, cur *cursor) (Record, error) {
	off, typ := c.Offset, RecordTypeEventUpdate
	r := &s.eventUpdate
	cpus := r.CPUs[:0]
	*r = EventUpdate{RecordCommon: c, UpdateType: cur.u64("type"), EventID: cur.u64("id")}
	if cur.short {
		return nil, formatErr(off, typ, cur.field, errShort)
	}
	switch r.UpdateType {
	case 0:
		r.Unit = cstring(cur.rest())
	case 1:
		r.Scale = math.Float64frombits(cur.u64("scale"))
	case 2:
		r.Name = cstring(cur.rest())
	case 3:
		var err error
		cpus, _, err = parseCPUMapData(cur, cpus)
		if err != nil {
			return nil, formatErr(off, typ, "cpus", err)
		}
	}
	r.CPUs = cpus
	return cur.done(r, off, typ)
}

// done returns r, or the error of the field c ran short in: the end of a
// record parser.
func (c *cursor) done(r Record, off int64, typ RecordType) (Record, error) {
	if c.short {
		return nil, formatErr(off, typ, c.field, errShort)
	}
	return r, nil
}

// changesState reports whether applying r, just decoded into s, changes
// the recording's state (see apply).
func changesState(s *store, r Record) bool {
	switch r := r.(type) {
	case *HeaderAttr, *IDIndex:
		return true
	case *EventUpdate:
		return r.UpdateType == 2 && r.Name != ""
	case *HeaderFeature:
		// An empty section with an id this package does not know is the
		// writer's end-of-features marker (feat_id = its HEADER_LAST_FEATURE).
		id := s.featureID
		return id != 0 && id < 256 && (len(r.Data) > 0 || id < uint64(FeaturePMUCaps)+1)
	}
	return false
}

// apply makes the change of record r, just decoded into s, to the
// recording's state: the events (File.Attrs, their names and ids), the
// decoder's layouts and id index, and File.Meta. It is the one place a
// record changes them; parseTool calls it for the records changesState
// picks, after File.BeforeApply's function.
func (d *decoder) apply(s *store, r Record) {
	switch r := r.(type) {
	case *HeaderAttr:
		d.addAttr(r.Attr)
		r.Attr.Name = defaultName(r.Attr, d.f.Meta.PMUMappings)
	case *IDIndex:
		for _, ent := range r.Entries {
			if ent.Idx < uint64(len(d.f.Attrs)) {
				if _, dup := d.byID[ent.ID]; !dup {
					a := d.f.Attrs[ent.Idx]
					a.IDs = append(a.IDs, ent.ID)
					d.byID[ent.ID] = int(ent.Idx)
				}
			}
		}
	case *EventUpdate:
		if i, ok := d.byID[r.EventID]; ok {
			d.f.Attrs[i].Name = r.Name
		}
	case *HeaderFeature:
		d.f.Meta.add(Feature(s.featureID), r.Data, d.e, r.Offset)
		d.applyMeta()
	}
}
