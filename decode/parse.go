package decode

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/perfstitch/perfstitch/internal/perfabi"
)

// store holds one reusable value per record type: the cursor hands out
// pointers into it, valid until the next record is parsed.
type store struct {
	sample        Sample
	mmap          Mmap
	comm          Comm
	fork          Fork
	exit          Exit
	lost          Lost
	lostSamples   LostSamples
	throttle      Throttle
	read          Read
	aux           Aux
	itraceStart   ItraceStart
	sw            Switch
	namespaces    Namespaces
	ksymbol       Ksymbol
	bpfEvent      BPFEvent
	cgroup        Cgroup
	textPoke      TextPoke
	auxOutputHWID AuxOutputHWID
	deferred      CallchainDeferred
	headerAttr    HeaderAttr
	eventType     HeaderEventType
	tracingData   TracingData
	buildID       HeaderBuildID
	finishedRound FinishedRound
	finishedInit  FinishedInit
	idIndex       IDIndex
	auxtraceInfo  AuxtraceInfo
	auxtrace      Auxtrace
	auxtraceError AuxtraceError
	threadMap     ThreadMap
	cpuMap        CPUMap
	statConfig    StatConfig
	stat          Stat
	statRound     StatRound
	eventUpdate   EventUpdate
	timeConv      TimeConv
	feature       HeaderFeature
	compressed    Compressed
	bpfMetadata   BPFMetadata
	unknown       Unknown

	// featureID is the feat_id of feature (which Feature clamps).
	featureID uint64

	// chain is the storage of Sample.Callchain when it cannot alias the
	// record bytes.
	chain []uint64
}

// minBody is the smallest body (after the 8-byte header, before any
// sample_id trailer) of each fixed-layout kernel record type.
var minBody = [...]int{
	RecordTypeMmap: 32, RecordTypeLost: 16, RecordTypeComm: 8, RecordTypeExit: 24,
	RecordTypeThrottle: 24, RecordTypeUnthrottle: 24, RecordTypeFork: 24, RecordTypeRead: 16,
	RecordTypeMmap2: 64, RecordTypeAux: 24, RecordTypeItraceStart: 8, RecordTypeLostSamples: 8,
	RecordTypeSwitch: 0, RecordTypeSwitchCPUWide: 8, RecordTypeNamespaces: 16, RecordTypeKsymbol: 16,
	RecordTypeBPFEvent: 16, RecordTypeCgroup: 8, RecordTypeTextPoke: 12, RecordTypeAuxOutputHWID: 8,
	RecordTypeCallchainDeferred: 8,
}

// decoder is the per-File state the record parsers need.
type decoder struct {
	e       endian
	f       *File
	layouts []layout
	byID    map[uint64]int
	stats   *Stats
	nids    uint64 // sample ids of all events (maxIDs)

	// lastID/lastIdx cache the last id lookup (records of one buffer
	// mostly share an id).
	lastID  uint64
	lastIdx int
}

func (d *decoder) addAttr(a *EventAttr) {
	a.Index = len(d.f.Attrs)
	d.f.Attrs = append(d.f.Attrs, a)
	d.layouts = append(d.layouts, newLayout(a))
	if left := d.idsLeft(); uint64(len(a.IDs)) > left {
		d.warnIDs(-1, uint64(len(a.IDs)), left)
		a.IDs = a.IDs[:left:left]
	}
	d.nids += uint64(len(a.IDs))
	for _, id := range a.IDs {
		d.byID[id] = a.Index
	}
	d.lastID = 0 // id 0 never reaches the cache
}

// layoutFor finds the event of a record carrying sample id id
// (evlist__event2evsel). ok is false for an id that matches no event.
func (d *decoder) layoutForID(id uint64) (*layout, bool) {
	if len(d.layouts) == 1 || id == 0 {
		return &d.layouts[0], true
	}
	if id == d.lastID && d.lastIdx < len(d.layouts) {
		return &d.layouts[d.lastIdx], true
	}
	if i, ok := d.byID[id]; ok {
		d.lastID, d.lastIdx = id, i
		return &d.layouts[i], true
	}
	return &d.layouts[0], false
}

// formatErr builds a FormatError for the record being parsed.
func formatErr(off int64, typ RecordType, field string, err error) *FormatError {
	return &FormatError{Offset: off, Record: typ, Field: field, Err: err}
}

// trailerBits are the sample_type bits a sample_id trailer can carry.
const trailerBits = SampleTID | SampleTime | SampleID | SampleStreamID | SampleCPU | SampleIdentifier

// trailer parses the sample_id trailer of a non-sample kernel record into
// c and returns the body without it.
func (d *decoder) trailer(c *RecordCommon, body []byte, off int64, typ RecordType) ([]byte, error) {
	if len(d.layouts) == 0 {
		return body, nil
	}
	l := &d.layouts[0]
	if len(d.layouts) > 1 && l.sampleIDAll && l.isPos > 0 {
		p := len(body) - 8*l.isPos
		if p < 0 {
			return nil, formatErr(off, typ, "sample_id", errShort)
		}
		var ok bool
		l, ok = d.layoutForID(d.e.u64(body[p:]))
		if !ok {
			d.stats.UnknownID++
			c.Attr = nil
		} else {
			c.Attr = l.attr
		}
	} else {
		c.Attr = l.attr
	}
	if !l.sampleIDAll || l.trailerSize == 0 {
		return body, nil
	}
	p := len(body) - l.trailerSize
	if p < 0 {
		return nil, formatErr(off, typ, "sample_id", errShort)
	}
	t := body[p:]
	st := l.sampleType
	c.Format = st & trailerBits
	i := 0
	if st&SampleTID != 0 {
		c.PID = int32(d.e.u32(t[i:]))
		c.TID = int32(d.e.u32(t[i+4:]))
		c.TrailerPID, c.TrailerTID = c.PID, c.TID
		i += 8
	}
	if st&SampleTime != 0 {
		c.Time = d.e.u64(t[i:])
		c.TrailerTime = c.Time
		i += 8
	}
	if st&SampleID != 0 {
		c.ID = d.e.u64(t[i:])
		i += 8
	}
	if st&SampleStreamID != 0 {
		c.StreamID = d.e.u64(t[i:])
		i += 8
	}
	if st&SampleCPU != 0 {
		c.CPU = d.e.u32(t[i:])
		i += 8
	}
	if st&SampleIdentifier != 0 {
		c.ID = d.e.u64(t[i:])
	}
	return body[:p], nil
}

// peekTime returns the ordering timestamp of kernel record rec (type
// typ < 64) without decoding it: the sample time of a SAMPLE, the
// sample_id time of any other record, as setKey takes them from the
// decoded record. ok is false when the record has no usable time or does
// not look well formed; the caller then decodes it to find out. It has no
// side effects on the statistics.
func (d *decoder) peekTime(typ RecordType, rec []byte) (t uint64, ok bool) {
	if len(d.layouts) == 0 || len(rec) < 8 {
		return 0, false
	}
	body := rec[8:]
	l := &d.layouts[0]
	if typ == RecordTypeSample {
		if len(d.layouts) > 1 && l.idPos >= 0 {
			p := 8 * l.idPos
			if p+8 > len(body) {
				return 0, false
			}
			var known bool
			if l, known = d.layoutForID(d.e.u64(body[p:])); !known {
				return 0, false
			}
		}
		st := l.sampleType
		if l.bad != nil || st&SampleTime == 0 || l.fixedSize > len(body) {
			return 0, false
		}
		p := 0
		for _, f := range [...]SampleFormat{SampleIdentifier, SampleIP, SampleTID} {
			if st&f != 0 {
				p += 8
			}
		}
		t = d.e.u64(body[p:])
		return t, t != 0 && t != ^uint64(0)
	}
	if typ == 0 || typ > RecordTypeCallchainDeferred {
		return 0, false // decoded as Unknown, without a trailer
	}
	if len(d.layouts) > 1 && l.sampleIDAll && l.isPos > 0 {
		p := len(body) - 8*l.isPos
		if p < 0 {
			return 0, false
		}
		l, _ = d.layoutForID(d.e.u64(body[p:]))
	}
	st := l.sampleType
	if !l.sampleIDAll || l.trailerSize == 0 || st&SampleTime == 0 {
		return 0, false
	}
	p := len(body) - l.trailerSize
	if p < 0 || len(body)-l.trailerSize < minBody[typ] {
		return 0, false
	}
	if st&SampleTID != 0 {
		p += 8
	}
	t = d.e.u64(body[p:])
	return t, t != 0 && t != ^uint64(0)
}

func resetCommon(c *RecordCommon, off, inner int64, misc, size uint16) {
	*c = RecordCommon{Offset: off, InnerOffset: inner, Misc: misc, Size: size, PID: -1, TID: -1, TrailerPID: -1, TrailerTID: -1}
}

// parse decodes one record (header included). A non-nil error is a
// *FormatError for a record that could not be parsed; the stream itself
// stays in sync (the caller skips the record).
func (d *decoder) parse(s *store, rec []byte, off, inner int64) (Record, error) {
	e := d.e
	typ := RecordType(e.u32(rec))
	misc := e.u16(rec[4:])
	size := uint16(len(rec))
	body := rec[8:]

	if typ == RecordTypeSample {
		return d.parseSample(s, rec, off, inner)
	}
	if typ < 64 {
		if int(typ) > int(RecordTypeCallchainDeferred) || typ == 0 {
			u := &s.unknown
			resetCommon(&u.RecordCommon, off, inner, misc, size)
			u.RecType = typ
			u.Data = body
			return u, nil
		}
		var c RecordCommon
		resetCommon(&c, off, inner, misc, size)
		b, err := d.trailer(&c, body, off, typ)
		if err != nil {
			return nil, err
		}
		if len(b) < minBody[typ] {
			return nil, formatErr(off, typ, "size", errShort)
		}
		return d.parseKernel(s, typ, c, b, off)
	}
	return d.parseTool(s, typ, misc, size, body, off, inner)
}

// parseKernel decodes the body b (without its sample_id trailer, already
// in c) of a kernel record other than SAMPLE, by record family. Kernel
// records change no state (see apply).
func (d *decoder) parseKernel(s *store, typ RecordType, c RecordCommon, b []byte, off int64) (Record, error) {
	switch typ {
	case RecordTypeMmap, RecordTypeMmap2:
		return d.parseMmap(s, typ, c, b), nil
	case RecordTypeComm, RecordTypeFork, RecordTypeExit, RecordTypeNamespaces, RecordTypeCgroup,
		RecordTypeSwitch, RecordTypeSwitchCPUWide:
		return d.parseTask(s, typ, c, b, off)
	case RecordTypeLost, RecordTypeLostSamples, RecordTypeThrottle, RecordTypeUnthrottle, RecordTypeRead:
		return d.parseCounting(s, typ, c, b, off)
	case RecordTypeAux, RecordTypeItraceStart, RecordTypeAuxOutputHWID:
		return d.parseAux(s, typ, c, b), nil
	case RecordTypeKsymbol, RecordTypeBPFEvent, RecordTypeTextPoke:
		return d.parseKernelText(s, typ, c, b, off)
	case RecordTypeCallchainDeferred:
		return d.parseDeferred(s, c, b, off)
	}
	return nil, formatErr(off, typ, "type", errBadRecord)
}

// parseMmap decodes PERF_RECORD_MMAP and MMAP2 (with a build id or the
// device and inode).
func (d *decoder) parseMmap(s *store, typ RecordType, c RecordCommon, b []byte) Record {
	e := d.e
	m := &s.mmap
	bid := m.BuildID[:0]
	*m = Mmap{RecordCommon: c, V2: typ == RecordTypeMmap2}
	m.PID = int32(e.u32(b))
	m.TID = int32(e.u32(b[4:]))
	m.Addr = e.u64(b[8:])
	m.Len = e.u64(b[16:])
	m.Pgoff = e.u64(b[24:])
	name := b[32:]
	if m.V2 {
		if m.Misc&MiscMmapBuildID != 0 {
			n := int(b[32])
			if n > 20 {
				n = 20
			}
			m.BuildID = append(bid, b[36:36+n]...)
		} else {
			m.Maj = e.u32(b[32:])
			m.Min = e.u32(b[36:])
			m.Ino = e.u64(b[40:])
			m.InoGeneration = e.u64(b[48:])
		}
		m.Prot = e.u32(b[56:])
		m.Flags = e.u32(b[60:])
		name = b[64:]
	}
	m.Filename = cstring(name)
	return m
}

// parseTask decodes the process side-band records: COMM, FORK, EXIT,
// NAMESPACES, CGROUP and the context switches.
func (d *decoder) parseTask(s *store, typ RecordType, c RecordCommon, b []byte, off int64) (Record, error) {
	e := d.e
	switch typ {
	case RecordTypeComm:
		r := &s.comm
		*r = Comm{RecordCommon: c}
		r.PID = int32(e.u32(b))
		r.TID = int32(e.u32(b[4:]))
		r.Comm = cstring(b[8:])
		return r, nil
	case RecordTypeFork, RecordTypeExit:
		pid, ppid := int32(e.u32(b)), int32(e.u32(b[4:]))
		tid, ptid := int32(e.u32(b[8:])), int32(e.u32(b[12:]))
		t := e.u64(b[16:])
		c.PID, c.TID, c.Time = pid, tid, t
		if typ == RecordTypeFork {
			s.fork = Fork{RecordCommon: c, PPID: ppid, PTID: ptid}
			return &s.fork, nil
		}
		s.exit = Exit{RecordCommon: c, PPID: ppid, PTID: ptid}
		return &s.exit, nil
	case RecordTypeNamespaces:
		r := &s.namespaces
		ns := r.Namespaces[:0]
		*r = Namespaces{RecordCommon: c}
		r.PID = int32(e.u32(b))
		r.TID = int32(e.u32(b[4:]))
		nr := e.u64(b[8:])
		if nr > uint64(len(b)-16)/16 {
			return nil, formatErr(off, typ, "nr_namespaces", errShort)
		}
		for i := 0; i < int(nr); i++ {
			p := 16 + 16*i
			ns = append(ns, NamespaceLink{Dev: e.u64(b[p:]), Ino: e.u64(b[p+8:])})
		}
		r.Namespaces = ns
		return r, nil
	case RecordTypeCgroup:
		s.cgroup = Cgroup{RecordCommon: c, CgroupID: e.u64(b), Path: cstring(b[8:])}
		return &s.cgroup, nil
	case RecordTypeSwitch:
		s.sw = Switch{RecordCommon: c}
		return &s.sw, nil
	}
	s.sw = Switch{RecordCommon: c, CPUWide: true, NextPrevPID: int32(e.u32(b)), NextPrevTID: int32(e.u32(b[4:]))}
	return &s.sw, nil
}

// parseCounting decodes the records about counts and losses: LOST,
// LOST_SAMPLES, THROTTLE, UNTHROTTLE and READ.
func (d *decoder) parseCounting(s *store, typ RecordType, c RecordCommon, b []byte, off int64) (Record, error) {
	e := d.e
	switch typ {
	case RecordTypeLost:
		s.lost = Lost{RecordCommon: c, LostID: e.u64(b), Lost: e.u64(b[8:])}
		return &s.lost, nil
	case RecordTypeLostSamples:
		s.lostSamples = LostSamples{RecordCommon: c, Lost: e.u64(b)}
		return &s.lostSamples, nil
	case RecordTypeThrottle, RecordTypeUnthrottle:
		s.throttle = Throttle{RecordCommon: c, Unthrottle: typ == RecordTypeUnthrottle,
			BodyTime: e.u64(b), BodyID: e.u64(b[8:]), BodyStreamID: e.u64(b[16:])}
		return &s.throttle, nil
	}
	r := &s.read
	vals := r.Values.Values[:0]
	*r = Read{RecordCommon: c}
	r.PID = int32(e.u32(b))
	r.TID = int32(e.u32(b[4:]))
	rf := ReadFormat(0)
	if c.Attr != nil {
		rf = c.Attr.ReadFormat
	}
	cur := cursor{b: b, off: 8, e: e}
	r.Values.Values = vals
	parseReadValues(&cur, rf, &r.Values)
	if cur.short {
		return nil, formatErr(off, typ, "values", errShort)
	}
	return r, nil
}

// parseAux decodes the AUX area records of the kernel: AUX,
// ITRACE_START and AUX_OUTPUT_HW_ID.
func (d *decoder) parseAux(s *store, typ RecordType, c RecordCommon, b []byte) Record {
	e := d.e
	switch typ {
	case RecordTypeAux:
		s.aux = Aux{RecordCommon: c, AuxOffset: e.u64(b), AuxSize: e.u64(b[8:]), Flags: e.u64(b[16:])}
		return &s.aux
	case RecordTypeItraceStart:
		c.PID = int32(e.u32(b))
		c.TID = int32(e.u32(b[4:]))
		s.itraceStart = ItraceStart{RecordCommon: c}
		return &s.itraceStart
	}
	s.auxOutputHWID = AuxOutputHWID{RecordCommon: c, HWID: e.u64(b)}
	return &s.auxOutputHWID
}

// parseKernelText decodes the records about kernel text: KSYMBOL,
// BPF_EVENT and TEXT_POKE.
func (d *decoder) parseKernelText(s *store, typ RecordType, c RecordCommon, b []byte, off int64) (Record, error) {
	e := d.e
	switch typ {
	case RecordTypeKsymbol:
		s.ksymbol = Ksymbol{RecordCommon: c, Addr: e.u64(b), Len: e.u32(b[8:]),
			KsymType: e.u16(b[12:]), KsymFlags: e.u16(b[14:]), Name: cstring(b[16:])}
		return &s.ksymbol, nil
	case RecordTypeBPFEvent:
		r := &s.bpfEvent
		*r = BPFEvent{RecordCommon: c, EventType: e.u16(b), Flags: e.u16(b[2:]), ProgID: e.u32(b[4:])}
		copy(r.Tag[:], b[8:16])
		return r, nil
	}
	r := &s.textPoke
	oldB, newB := r.OldBytes[:0], r.NewBytes[:0]
	*r = TextPoke{RecordCommon: c, Addr: e.u64(b)}
	ol, nl := int(e.u16(b[8:])), int(e.u16(b[10:]))
	if 12+ol+nl > len(b) {
		return nil, formatErr(off, typ, "bytes", errShort)
	}
	r.OldBytes = append(oldB, b[12:12+ol]...)
	r.NewBytes = append(newB, b[12+ol:12+ol+nl]...)
	return r, nil
}

// parseDeferred decodes PERF_RECORD_CALLCHAIN_DEFERRED in either ABI
// (perf-format.md §8.8); b is the body without the trailer.
func (d *decoder) parseDeferred(s *store, c RecordCommon, b []byte, off int64) (Record, error) {
	e := d.e
	r := &s.deferred
	ips := r.IPs[:0]
	*r = CallchainDeferred{RecordCommon: c}
	n := len(b)
	var start, nr int
	switch {
	case n >= 16 && e.u64(b[8:]) == ContextUser && uint64(n-8)/8 == e.u64(b) && (n-8)%8 == 0:
		r.ABI = DeferredSeed
		nr, start = int(e.u64(b)), 8
	case n >= 16 && (n-16)%8 == 0 && uint64(n-16)/8 == e.u64(b[8:]):
		r.ABI = DeferredCookie
		r.Cookie = e.u64(b)
		nr, start = int(e.u64(b[8:])), 16
	default:
		return nil, formatErr(off, RecordTypeCallchainDeferred, "nr", errShort)
	}
	for i := 0; i < nr; i++ {
		ip := e.u64(b[start+8*i:])
		if i == 0 && ip == ContextUser {
			continue
		}
		ips = append(ips, ip)
	}
	r.IPs = ips
	return r, nil
}

// parseReadValues decodes a read_format block.
func parseReadValues(c *cursor, rf ReadFormat, rv *ReadValues) {
	vals := rv.Values[:0]
	if rf&ReadFormatGroup != 0 {
		nr := c.u64("read.nr")
		if rf&ReadFormatTotalTimeEnabled != 0 {
			rv.TimeEnabled = c.u64("read.time_enabled")
		}
		if rf&ReadFormatTotalTimeRunning != 0 {
			rv.TimeRunning = c.u64("read.time_running")
		}
		per := 8
		if rf&ReadFormatID != 0 {
			per += 8
		}
		if rf&ReadFormatLost != 0 {
			per += 8
		}
		if nr > uint64(c.remaining()/per) {
			c.short, c.field = true, "read.nr"
			return
		}
		for i := uint64(0); i < nr; i++ {
			var v ReadValue
			v.Value = c.u64("read.value")
			if rf&ReadFormatID != 0 {
				v.ID = c.u64("read.id")
			}
			if rf&ReadFormatLost != 0 {
				v.Lost = c.u64("read.lost")
			}
			vals = append(vals, v)
		}
	} else {
		var v ReadValue
		v.Value = c.u64("read.value")
		if rf&ReadFormatTotalTimeEnabled != 0 {
			rv.TimeEnabled = c.u64("read.time_enabled")
		}
		if rf&ReadFormatTotalTimeRunning != 0 {
			rv.TimeRunning = c.u64("read.time_running")
		}
		if rf&ReadFormatID != 0 {
			v.ID = c.u64("read.id")
		}
		if rf&ReadFormatLost != 0 {
			v.Lost = c.u64("read.lost")
		}
		vals = append(vals, v)
	}
	rv.Values = vals
}

// parseSample decodes PERF_RECORD_SAMPLE per perf-format.md §4.5
// (evsel__parse_sample) into s.sample. Byte fields and the callchain may
// alias rec, which stays valid as long as the Sample does (until the next
// record).
func (d *decoder) parseSample(s *store, rec []byte, off, inner int64) (Record, error) {
	e := d.e
	smp := &s.sample
	body := rec[8:]
	if len(d.layouts) == 0 {
		return nil, formatErr(off, RecordTypeSample, "id", fmt.Errorf("sample before any event attr: %w", errBadRecord))
	}
	l := &d.layouts[0]
	known := true
	if len(d.layouts) > 1 && l.idPos >= 0 {
		p := 8 * l.idPos
		if p+8 > len(body) {
			return nil, formatErr(off, RecordTypeSample, "id", errShort)
		}
		l, known = d.layoutForID(e.u64(body[p:]))
		if !known {
			d.stats.UnknownID++
			return nil, formatErr(off, RecordTypeSample, "id",
				fmt.Errorf("sample id %d matches no event: %w", e.u64(body[p:]), errBadRecord))
		}
	}
	if l.bad != nil {
		return nil, formatErr(off, RecordTypeSample, "sample_type", l.bad)
	}
	smp.reset()
	// reset zeroed smp: set fields one by one (no temporary struct).
	smp.Offset, smp.InnerOffset = off, inner
	smp.Misc, smp.Size = e.u16(rec[4:]), uint16(len(rec))
	smp.Attr, smp.Format = l.attr, l.sampleType
	smp.PID, smp.TID, smp.TrailerPID, smp.TrailerTID = -1, -1, -1, -1
	st := l.sampleType
	n := len(body)
	i := 0
	// Fixed leading u64 slots: one bounds check for the common prefix.
	if l.fixedSize > n {
		return nil, formatErr(off, RecordTypeSample, "size", errShort)
	}
	if st&SampleIdentifier != 0 {
		smp.ID = e.u64(body[i:])
		i += 8
	}
	if st&SampleIP != 0 {
		smp.IP = e.u64(body[i:])
		i += 8
	}
	if st&SampleTID != 0 {
		smp.PID = int32(e.u32(body[i:]))
		smp.TID = int32(e.u32(body[i+4:]))
		smp.TrailerPID, smp.TrailerTID = smp.PID, smp.TID
		i += 8
	}
	if st&SampleTime != 0 {
		smp.Time = e.u64(body[i:])
		smp.TrailerTime = smp.Time
		i += 8
	}
	if st&SampleAddr != 0 {
		smp.Addr = e.u64(body[i:])
		i += 8
	}
	if st&SampleID != 0 {
		smp.ID = e.u64(body[i:])
		i += 8
	}
	if st&SampleStreamID != 0 {
		smp.StreamID = e.u64(body[i:])
		i += 8
	}
	if st&SampleCPU != 0 {
		smp.CPU = e.u32(body[i:])
		i += 8
	}
	if st&SamplePeriod != 0 {
		smp.Period = e.u64(body[i:])
		i += 8
	} else {
		smp.Period = l.attr.SamplePeriod // evsel__parse_sample's default
	}
	if st&^(SampleIdentifier|SampleIP|SampleTID|SampleTime|SampleAddr|SampleID|SampleStreamID|SampleCPU|SamplePeriod) == 0 {
		return smp, nil
	}
	return d.parseSampleRest(s, l, cursor{b: body, off: i, e: e}, off)
}

// parseSampleRest decodes the fields of a SAMPLE after the fixed u64 slots
// (read values onwards) into s.sample; c is at the first of them.
func (d *decoder) parseSampleRest(s *store, l *layout, c cursor, off int64) (Record, error) {
	e, smp, st := d.e, &s.sample, l.sampleType
	if st&SampleRead != 0 {
		parseReadValues(&c, l.readFormat, &smp.Read)
	}
	if st&SampleCallchain != 0 {
		nr := c.u64("callchain.nr")
		cut := false
		if c.short {
			return nil, formatErr(off, RecordTypeSample, "callchain.nr", errShort)
		}
		if have := uint64(c.remaining() / 8); nr > have {
			// The sample is kept with the entries the record holds; the
			// fields after the chain cannot be located.
			d.warn(formatErr(off, RecordTypeSample, "callchain.nr", fmt.Errorf(
				"nr %d but %d entries left in the record: chain cut to %d, later fields dropped", nr, have, have)))
			d.stats.Repaired++
			nr, cut = have, true
		}
		b := c.bytes(int(nr)*8, "callchain")
		if v, ok := castU64s(b, e); ok {
			// Zero copy: the chain aliases the record, which is valid
			// until the next record, like the Sample itself.
			smp.Callchain = v
		} else {
			s.chain = appendU64s(s.chain[:0], b, e)
			smp.Callchain = s.chain
		}
		if cut {
			return smp, nil
		}
	}
	if st&SampleRaw != 0 {
		sz := c.u32("raw.size")
		if uint64(sz) > uint64(c.remaining()) {
			return nil, formatErr(off, RecordTypeSample, "raw.size", errShort)
		}
		smp.Raw = c.bytes(int(sz), "raw")
	}
	if st&SampleBranchStack != 0 {
		if err := parseBranchStack(&c, l, smp, off); err != nil {
			return nil, err
		}
	}
	if st&SampleRegsUser != 0 {
		var ok bool
		if smp.RegsUserABI, smp.RegsUser, ok = c.regs(l.regsUser, "regs_user.abi", "regs_user", smp.RegsUser); !ok {
			return nil, formatErr(off, RecordTypeSample, "regs_user", errShort)
		}
	}
	if st&SampleStackUser != 0 {
		sz := c.u64("stack_user.size")
		if sz != 0 {
			if sz > uint64(c.remaining()) {
				return nil, formatErr(off, RecordTypeSample, "stack_user.size", errShort)
			}
			smp.StackUser = c.bytes(int(sz), "stack_user")
			smp.StackUserDyn = c.u64("stack_user.dyn_size")
		}
	}
	if st&(SampleWeight|SampleWeightStruct) != 0 {
		smp.Weight = c.u64("weight")
	}
	if st&SampleDataSrc != 0 {
		smp.DataSrc = c.u64("data_src")
	}
	if st&SampleTransaction != 0 {
		smp.Transaction = c.u64("transaction")
	}
	if st&SampleRegsIntr != 0 {
		var ok bool
		if smp.RegsIntrABI, smp.RegsIntr, ok = c.regs(l.regsIntr, "regs_intr.abi", "regs_intr", smp.RegsIntr); !ok {
			return nil, formatErr(off, RecordTypeSample, "regs_intr", errShort)
		}
	}
	if st&SamplePhysAddr != 0 {
		smp.PhysAddr = c.u64("phys_addr")
	}
	if st&SampleCgroup != 0 {
		smp.Cgroup = c.u64("cgroup")
	}
	if st&SampleDataPageSize != 0 {
		smp.DataPageSize = c.u64("data_page_size")
	}
	if st&SampleCodePageSize != 0 {
		smp.CodePageSize = c.u64("code_page_size")
	}
	if st&SampleAux != 0 {
		sz := c.u64("aux.size")
		if sz > uint64(c.remaining()) {
			return nil, formatErr(off, RecordTypeSample, "aux.size", errShort)
		}
		smp.Aux = c.bytes(int(sz), "aux")
	}
	if c.short {
		return nil, formatErr(off, RecordTypeSample, c.field, errShort)
	}
	return smp, nil
}

// parseBranchStack decodes the branch stack of a SAMPLE into smp (with
// hw_idx and the counters when l's attr asks for them).
func parseBranchStack(c *cursor, l *layout, smp *Sample, off int64) error {
	bnr := c.u64("branch.nr")
	if l.hwIndex {
		smp.BranchHWIndex = c.u64("branch.hw_idx")
	}
	per := uint64(24)
	if l.counters {
		per += 8
	}
	if bnr > uint64(c.remaining())/per {
		return formatErr(off, RecordTypeSample, "branch.nr", errShort)
	}
	br := smp.Branches
	for j := uint64(0); j < bnr; j++ {
		be := BranchEntry{From: c.u64("branch.from"), To: c.u64("branch.to"), Flags: c.u64("branch.flags")}
		if c.e.big {
			be.Flags = perfabi.BranchFlagsFromBE(be.Flags)
		}
		br = append(br, be)
	}
	smp.Branches = br
	if l.counters {
		bc := smp.BranchCounters
		for j := uint64(0); j < bnr; j++ {
			bc = append(bc, c.u64("branch.counters"))
		}
		smp.BranchCounters = bc
	}
	return nil
}

// appendU64s appends the u64s of b (a multiple of 8 bytes) to dst.
func appendU64s(dst []uint64, b []byte, e endian) []uint64 {
	n := len(b) / 8
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	if e.big {
		for j := range out {
			out[j] = binary.BigEndian.Uint64(b[8*j:])
		}
	} else {
		for j := range out {
			out[j] = binary.LittleEndian.Uint64(b[8*j:])
		}
	}
	return dst[:len(dst)+n]
}

// buildIDBytes extracts the build id of a perf_record_header_build_id's
// 24-byte id field: with misc bit 15 the size byte at 20 is valid, else
// trailing zero bytes are trimmed (older writers padded 20-byte ids).
func buildIDBytes(idb []byte, misc uint16) []byte {
	if misc&MiscBuildIDSize != 0 {
		n := int(idb[20])
		if n > 20 {
			n = 20
		}
		return idb[:n]
	}
	n := 20
	for n > 0 && idb[n-1] == 0 {
		n--
	}
	return idb[:n]
}

// parseCPUMapData decodes struct perf_record_cpu_map_data (CPU_MAP records
// and EVENT_UPDATE CPUS payloads).
func parseCPUMapData(c *cursor, cpus []uint32) ([]uint32, bool, error) {
	typ := c.u16("type")
	any := false
	switch typ {
	case 0: // PERF_CPU_MAP__CPUS
		nr := c.u16("nr")
		if int(nr) > c.remaining()/2 {
			return cpus, false, errShort
		}
		for j := 0; j < int(nr); j++ {
			v := c.u16("cpu")
			if v == 0xffff {
				any = true
				continue
			}
			cpus = append(cpus, uint32(v))
		}
	case 1: // PERF_CPU_MAP__MASK
		nr := c.u16("nr")
		longSize := c.u16("long_size")
		switch longSize {
		case 4:
			if int(nr) > c.remaining()/4 {
				return cpus, false, errShort
			}
			for j := 0; j < int(nr); j++ {
				m := c.u32("mask")
				for b := 0; b < 32; b++ {
					if m&(1<<b) != 0 {
						cpus = append(cpus, uint32(j*32+b))
					}
				}
			}
		case 8:
			c.skip(4, "pad")
			if int(nr) > c.remaining()/8 {
				return cpus, false, errShort
			}
			for j := 0; j < int(nr); j++ {
				m := c.u64("mask")
				for b := 0; b < 64; b++ {
					if m&(1<<b) != 0 {
						cpus = append(cpus, uint32(j*64+b))
					}
				}
			}
		default:
			return cpus, false, fmt.Errorf("cpu map long_size %d: %w", longSize, errBadRecord)
		}
	case 2: // PERF_CPU_MAP__RANGE_CPUS
		any = c.u8("any_cpu") != 0
		c.skip(1, "pad")
		start, end := c.u16("start_cpu"), c.u16("end_cpu")
		for v := int(start); v <= int(end); v++ {
			cpus = append(cpus, uint32(v))
		}
	default:
		return cpus, false, fmt.Errorf("cpu map type %d: %w", typ, errBadRecord)
	}
	if c.short {
		return cpus, any, errShort
	}
	return cpus, any, nil
}

// maxWarnings caps Stats.Warnings; WarningCount keeps the total.
const maxWarnings = 100

func (d *decoder) warn(err error) {
	d.stats.WarningCount++
	if len(d.stats.Warnings) < maxWarnings {
		d.stats.Warnings = append(d.stats.Warnings, err)
	}
}
