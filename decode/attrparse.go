package decode

import (
	"fmt"
	"math/bits"

	"github.com/perfstitch/perfstitch/internal/perfabi"
)

const (
	attrSizeVer0 = perfabi.AttrSizeVer0
	attrSizeMax  = perfabi.AttrSizeMax
	maxAttrSize  = perfabi.MaxAttrSize
)

// parseAttr decodes a struct perf_event_attr from b (at most attr.size
// bytes of it are used). b may be shorter than attr.size only when the
// caller knows the stride (attrs section), never in records.
func parseAttr(b []byte, e endian) (EventAttr, error) {
	var a EventAttr
	if len(b) < 8 {
		return a, fmt.Errorf("attr of %d bytes: %w", len(b), errShort)
	}
	a.Type = AttrType(e.u32(b))
	a.Size = e.u32(b[4:])
	if a.Size == 0 {
		a.Size = attrSizeVer0
	}
	if a.Size < attrSizeVer0 || a.Size > maxAttrSize {
		return a, fmt.Errorf("attr.size %d: %w", a.Size, ErrUnsupported)
	}
	n := int(a.Size)
	if n > len(b) {
		n = len(b)
	}
	if n < attrSizeVer0 {
		return a, fmt.Errorf("attr of %d bytes: %w", n, errShort)
	}
	// Copy into a zeroed max-size buffer: fields beyond the writer's size
	// read as zero.
	var full [attrSizeMax]byte
	copy(full[:], b[:n])
	f := full[:]
	a.Config = e.u64(f[8:])
	a.SamplePeriod = e.u64(f[16:])
	a.SampleType = SampleFormat(e.u64(f[24:]))
	a.ReadFormat = ReadFormat(e.u64(f[32:]))
	a.Flags = attrFlags(e.u64(f[40:]), e)
	a.WakeupEvents = e.u32(f[48:])
	a.BPType = e.u32(f[52:])
	a.Config1 = e.u64(f[56:])
	a.Config2 = e.u64(f[64:])
	a.BranchSampleType = BranchSampleFormat(e.u64(f[72:]))
	a.SampleRegsUser = e.u64(f[80:])
	a.SampleStackUser = e.u32(f[88:])
	a.ClockID = int32(e.u32(f[92:]))
	a.SampleRegsIntr = e.u64(f[96:])
	a.AuxWatermark = e.u32(f[104:])
	a.SampleMaxStack = e.u16(f[108:])
	a.AuxSampleSize = e.u32(f[112:])
	a.AuxAction = e.u32(f[116:])
	a.SigData = e.u64(f[120:])
	a.Config3 = e.u64(f[128:])
	a.Config4 = e.u64(f[136:])
	return a, nil
}

// attrFlags converts the flags word to the little-endian bit numbering of
// the UAPI header. Big-endian compilers allocate bitfields from the most
// significant bit, so each field is moved to its LE position.
func attrFlags(v uint64, e endian) AttrFlags {
	if !e.big {
		return AttrFlags(v)
	}
	return AttrFlags(perfabi.AttrFlagsFromBE(v))
}

// layout is what the decoder precomputes per event to parse its records.
type layout struct {
	attr        *EventAttr
	sampleType  SampleFormat
	readFormat  ReadFormat
	sampleIDAll bool
	regsUser    int // popcount of sample_regs_user
	regsIntr    int // popcount of sample_regs_intr
	hwIndex     bool
	counters    bool
	trailerSize int // bytes of the sample_id trailer (0 without sample_id_all)
	idPos       int // u64 index of the id in a SAMPLE body, -1 if none
	isPos       int // u64 index counted from the record end, 1 = last; 0 if none
	fixedSize   int // bytes of the fixed u64 slots at the start of a SAMPLE
	bad         error
}

func newLayout(a *EventAttr) layout {
	st := a.SampleType
	l := layout{
		attr:        a,
		sampleType:  st,
		readFormat:  a.ReadFormat,
		sampleIDAll: a.SampleIDAll(),
		regsUser:    bits.OnesCount64(a.SampleRegsUser),
		regsIntr:    bits.OnesCount64(a.SampleRegsIntr),
		hwIndex:     a.BranchSampleType&BranchSampleHWIndex != 0,
		counters:    a.BranchSampleType&BranchSampleCounters != 0,
		idPos:       -1,
	}
	if st >= SampleFormatMax {
		l.bad = fmt.Errorf("event %d: sample_type %#x has unknown bits: %w", a.Index, uint64(st), ErrUnsupported)
	}
	for _, b := range [...]SampleFormat{SampleIdentifier, SampleIP, SampleTID, SampleTime, SampleAddr,
		SampleID, SampleStreamID, SampleCPU, SamplePeriod} {
		if st&b != 0 {
			l.fixedSize += 8
		}
	}
	if st&SampleIdentifier != 0 {
		l.idPos = 0
	} else if st&SampleID != 0 {
		n := 0
		for _, b := range []SampleFormat{SampleIP, SampleTID, SampleTime, SampleAddr} {
			if st&b != 0 {
				n++
			}
		}
		l.idPos = n
	}
	if l.sampleIDAll {
		for _, b := range []SampleFormat{SampleTID, SampleTime, SampleID, SampleStreamID, SampleCPU, SampleIdentifier} {
			if st&b != 0 {
				l.trailerSize += 8
			}
		}
		if st&SampleIdentifier != 0 {
			l.isPos = 1
		} else if st&SampleID != 0 {
			l.isPos = 1
			if st&SampleCPU != 0 {
				l.isPos++
			}
			if st&SampleStreamID != 0 {
				l.isPos++
			}
		}
	}
	return l
}

// Names perf gives the generic hardware and software events
// (tools/perf/util/evsel.c evsel__hw_names, evsel__sw_names).
var (
	hwEventNames = [...]string{
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles",
	}
	swEventNames = [...]string{
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
	}
	hwCacheNames = [...]string{"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node"}
	// hwCacheOps holds the singular and plural spelling of each op.
	hwCacheOps = [...][2]string{{"load", "loads"}, {"store", "stores"}, {"prefetch", "prefetches"}}
	hwCacheRes = [...]string{"refs", "misses"}
	// hwCacheValid says which ops each cache supports (bit per op), as
	// perf's evsel__hw_cache_stat table.
	hwCacheValid = [...]uint8{0b111, 0b101, 0b111, 0b111, 0b001, 0b001, 0b111}
)

// defaultName derives the name perf 6.1 prints for an event without a
// name in the file (evsel__name: type and config plus modifiers).
func defaultName(a *EventAttr, _ map[uint32]string) string {
	switch a.Type {
	case AttrTypeHardware:
		name := "unknown-hardware"
		if a.Config < uint64(len(hwEventNames)) {
			name = hwEventNames[a.Config]
		}
		return name + nameModifiers(a)
	case AttrTypeSoftware:
		name := "unknown-software"
		if a.Config < uint64(len(swEventNames)) {
			name = swEventNames[a.Config]
		}
		return name + nameModifiers(a)
	case AttrTypeTracepoint:
		return "unknown tracepoint"
	case AttrTypeHWCache:
		return hwCacheName(a.Config) + nameModifiers(a)
	case AttrTypeRaw:
		return fmt.Sprintf("raw 0x%x", a.Config) + nameModifiers(a)
	case AttrTypeBreakpoint:
		return fmt.Sprintf("mem:0x%x:%s", a.Config1, bpTypeName(a.BPType)) + nameModifiers(a)
	}
	return fmt.Sprintf("unknown attr type: %d", a.Type)
}

// hwCacheName is evsel__hw_cache_name without the modifiers.
func hwCacheName(config uint64) string {
	typ, op, res := config&0xff, config>>8&0xff, config>>16&0xff
	switch {
	case typ >= uint64(len(hwCacheNames)):
		return "unknown-ext-hardware-cache-type"
	case op >= uint64(len(hwCacheOps)):
		return "unknown-ext-hardware-cache-op"
	case res >= uint64(len(hwCacheRes)):
		return "unknown-ext-hardware-cache-result"
	case hwCacheValid[typ]&(1<<op) == 0:
		return "invalid-cache"
	case res != 0:
		return hwCacheNames[typ] + "-" + hwCacheOps[op][0] + "-" + hwCacheRes[res]
	}
	return hwCacheNames[typ] + "-" + hwCacheOps[op][1]
}

func bpTypeName(t uint32) string {
	s := ""
	if t&1 != 0 {
		s += "r"
	}
	if t&2 != 0 {
		s += "w"
	}
	if t&4 != 0 {
		s += "x"
	}
	return s
}

// nameModifiers mirrors perf_evsel__add_modifiers: ":u", ":k", ":ppp",
// ":H"/":G" suffixes derived from the exclude bits and precise_ip.
func nameModifiers(a *EventAttr) string {
	f := a.Flags
	var b []byte
	colon := false
	add := func(c byte) {
		if !colon {
			b = append(b, ':')
			colon = true
		}
		b = append(b, c)
	}
	excludeGuestDefault := false
	if f&(AttrExcludeKernel|AttrExcludeUser|AttrExcludeHV) != 0 {
		if f&AttrExcludeKernel == 0 {
			add('k')
		}
		if f&AttrExcludeUser == 0 {
			add('u')
		}
		if f&AttrExcludeHV == 0 {
			add('h')
		}
		excludeGuestDefault = true
	}
	if p := (f & AttrPreciseIPMask) >> 15; p != 0 {
		for i := AttrFlags(0); i < p; i++ {
			add('p')
		}
		excludeGuestDefault = true
	}
	if f&AttrExcludeHost != 0 || (f&AttrExcludeGuest != 0) == excludeGuestDefault {
		if f&AttrExcludeHost == 0 {
			add('H')
		}
		if f&AttrExcludeGuest == 0 {
			add('G')
		}
	}
	return string(b)
}
