package decode

// SampleFormat is perf_event_attr.sample_type: the PERF_SAMPLE_* bits that
// say which fields a PERF_RECORD_SAMPLE (and the sample_id trailer of other
// records) carries.
type SampleFormat uint64

// PERF_SAMPLE_* bits from include/uapi/linux/perf_event.h.
const (
	SampleIP           SampleFormat = 1 << 0  // PERF_SAMPLE_IP
	SampleTID          SampleFormat = 1 << 1  // PERF_SAMPLE_TID
	SampleTime         SampleFormat = 1 << 2  // PERF_SAMPLE_TIME
	SampleAddr         SampleFormat = 1 << 3  // PERF_SAMPLE_ADDR
	SampleRead         SampleFormat = 1 << 4  // PERF_SAMPLE_READ
	SampleCallchain    SampleFormat = 1 << 5  // PERF_SAMPLE_CALLCHAIN
	SampleID           SampleFormat = 1 << 6  // PERF_SAMPLE_ID
	SampleCPU          SampleFormat = 1 << 7  // PERF_SAMPLE_CPU
	SamplePeriod       SampleFormat = 1 << 8  // PERF_SAMPLE_PERIOD
	SampleStreamID     SampleFormat = 1 << 9  // PERF_SAMPLE_STREAM_ID
	SampleRaw          SampleFormat = 1 << 10 // PERF_SAMPLE_RAW
	SampleBranchStack  SampleFormat = 1 << 11 // PERF_SAMPLE_BRANCH_STACK
	SampleRegsUser     SampleFormat = 1 << 12 // PERF_SAMPLE_REGS_USER
	SampleStackUser    SampleFormat = 1 << 13 // PERF_SAMPLE_STACK_USER
	SampleWeight       SampleFormat = 1 << 14 // PERF_SAMPLE_WEIGHT
	SampleDataSrc      SampleFormat = 1 << 15 // PERF_SAMPLE_DATA_SRC
	SampleIdentifier   SampleFormat = 1 << 16 // PERF_SAMPLE_IDENTIFIER
	SampleTransaction  SampleFormat = 1 << 17 // PERF_SAMPLE_TRANSACTION
	SampleRegsIntr     SampleFormat = 1 << 18 // PERF_SAMPLE_REGS_INTR
	SamplePhysAddr     SampleFormat = 1 << 19 // PERF_SAMPLE_PHYS_ADDR
	SampleAux          SampleFormat = 1 << 20 // PERF_SAMPLE_AUX
	SampleCgroup       SampleFormat = 1 << 21 // PERF_SAMPLE_CGROUP
	SampleDataPageSize SampleFormat = 1 << 22 // PERF_SAMPLE_DATA_PAGE_SIZE
	SampleCodePageSize SampleFormat = 1 << 23 // PERF_SAMPLE_CODE_PAGE_SIZE
	SampleWeightStruct SampleFormat = 1 << 24 // PERF_SAMPLE_WEIGHT_STRUCT

	// SampleFormatMax is the first bit the decoder does not know; an attr
	// with it or any higher bit set cannot be laid out (PERF_SAMPLE_MAX).
	SampleFormatMax SampleFormat = 1 << 25
)

// ReadFormat is perf_event_attr.read_format (PERF_FORMAT_* bits).
type ReadFormat uint64

// PERF_FORMAT_* bits from include/uapi/linux/perf_event.h.
const (
	ReadFormatTotalTimeEnabled ReadFormat = 1 << 0 // PERF_FORMAT_TOTAL_TIME_ENABLED
	ReadFormatTotalTimeRunning ReadFormat = 1 << 1 // PERF_FORMAT_TOTAL_TIME_RUNNING
	ReadFormatID               ReadFormat = 1 << 2 // PERF_FORMAT_ID
	ReadFormatGroup            ReadFormat = 1 << 3 // PERF_FORMAT_GROUP
	ReadFormatLost             ReadFormat = 1 << 4 // PERF_FORMAT_LOST
)

// AttrFlags is the bitfield word at offset 40 of perf_event_attr, with the
// little-endian bit numbering of the UAPI header (big-endian files are
// converted on read).
type AttrFlags uint64

// perf_event_attr flag bits.
const (
	AttrDisabled               AttrFlags = 1 << 0
	AttrInherit                AttrFlags = 1 << 1
	AttrPinned                 AttrFlags = 1 << 2
	AttrExclusive              AttrFlags = 1 << 3
	AttrExcludeUser            AttrFlags = 1 << 4
	AttrExcludeKernel          AttrFlags = 1 << 5
	AttrExcludeHV              AttrFlags = 1 << 6
	AttrExcludeIdle            AttrFlags = 1 << 7
	AttrMmap                   AttrFlags = 1 << 8
	AttrComm                   AttrFlags = 1 << 9
	AttrFreq                   AttrFlags = 1 << 10
	AttrInheritStat            AttrFlags = 1 << 11
	AttrEnableOnExec           AttrFlags = 1 << 12
	AttrTask                   AttrFlags = 1 << 13
	AttrWatermark              AttrFlags = 1 << 14
	AttrPreciseIPMask          AttrFlags = 3 << 15 // precise_ip, 2 bits
	AttrMmapData               AttrFlags = 1 << 17
	AttrSampleIDAll            AttrFlags = 1 << 18
	AttrExcludeHost            AttrFlags = 1 << 19
	AttrExcludeGuest           AttrFlags = 1 << 20
	AttrExcludeCallchainKernel AttrFlags = 1 << 21
	AttrExcludeCallchainUser   AttrFlags = 1 << 22
	AttrMmap2                  AttrFlags = 1 << 23
	AttrCommExec               AttrFlags = 1 << 24
	AttrUseClockID             AttrFlags = 1 << 25
	AttrContextSwitch          AttrFlags = 1 << 26
	AttrWriteBackward          AttrFlags = 1 << 27
	AttrNamespaces             AttrFlags = 1 << 28
	AttrKsymbol                AttrFlags = 1 << 29
	AttrBPFEvent               AttrFlags = 1 << 30
	AttrAuxOutput              AttrFlags = 1 << 31
	AttrCgroup                 AttrFlags = 1 << 32
	AttrTextPoke               AttrFlags = 1 << 33
	AttrBuildID                AttrFlags = 1 << 34
	AttrInheritThread          AttrFlags = 1 << 35
	AttrRemoveOnExec           AttrFlags = 1 << 36
	AttrSigtrap                AttrFlags = 1 << 37
	AttrDeferCallchain         AttrFlags = 1 << 38 // request deferred user callchains
	AttrDeferOutput            AttrFlags = 1 << 39 // receives PERF_RECORD_CALLCHAIN_DEFERRED
)

// BranchSampleFormat is perf_event_attr.branch_sample_type. Only the bits
// that change the sample layout are named.
type BranchSampleFormat uint64

// PERF_SAMPLE_BRANCH_* bits that change the layout of a branch stack.
const (
	BranchSampleHWIndex  BranchSampleFormat = 1 << 17 // PERF_SAMPLE_BRANCH_HW_INDEX
	BranchSampleCounters BranchSampleFormat = 1 << 19 // PERF_SAMPLE_BRANCH_COUNTERS
)

// AttrType is perf_event_attr.type.
type AttrType uint32

// PERF_TYPE_* values; values of 6 and above are dynamic PMU types named by
// the PMU_MAPPINGS feature.
const (
	AttrTypeHardware   AttrType = 0 // PERF_TYPE_HARDWARE
	AttrTypeSoftware   AttrType = 1 // PERF_TYPE_SOFTWARE
	AttrTypeTracepoint AttrType = 2 // PERF_TYPE_TRACEPOINT
	AttrTypeHWCache    AttrType = 3 // PERF_TYPE_HW_CACHE
	AttrTypeRaw        AttrType = 4 // PERF_TYPE_RAW
	AttrTypeBreakpoint AttrType = 5 // PERF_TYPE_BREAKPOINT
)

// EventAttr is one event (perf's "evsel"): a struct perf_event_attr widened
// to the newest known layout (fields beyond the writer's attr size are zero),
// plus the sample ids that belong to it and its name.
type EventAttr struct {
	Type             AttrType
	Size             uint32 // attr.size as written; 0 was normalised to 64 (VER0)
	Config           uint64
	SamplePeriod     uint64 // sample_freq when Flags has AttrFreq
	SampleType       SampleFormat
	ReadFormat       ReadFormat
	Flags            AttrFlags
	WakeupEvents     uint32
	BPType           uint32
	Config1          uint64 // bp_addr / kprobe_func / uprobe_path
	Config2          uint64 // bp_len / kprobe_addr / probe_offset
	BranchSampleType BranchSampleFormat
	SampleRegsUser   uint64
	SampleStackUser  uint32
	ClockID          int32
	SampleRegsIntr   uint64
	AuxWatermark     uint32
	SampleMaxStack   uint16
	AuxSampleSize    uint32
	AuxAction        uint32
	SigData          uint64
	Config3          uint64
	Config4          uint64

	// IDs are the sample ids of this event (one per kernel fd), from the
	// attrs section, HEADER_ATTR, EVENT_DESC or ID_INDEX.
	IDs []uint64

	// Name is the event name from EVENT_DESC or EVENT_UPDATE, or a name
	// derived from type and config ("cpu-clock") when the file has none.
	Name string

	// Index is the position of this event in the file's attr list.
	Index int
}

// Freq reports whether SamplePeriod holds a frequency (attr.freq).
func (a *EventAttr) Freq() bool { return a.Flags&AttrFreq != 0 }

// SampleIDAll reports whether non-sample records of this event carry a
// sample_id trailer.
func (a *EventAttr) SampleIDAll() bool { return a.Flags&AttrSampleIDAll != 0 }

// DeferCallchain reports whether samples of this event may defer their user
// callchain (attr.defer_callchain, bit 38).
func (a *EventAttr) DeferCallchain() bool { return a.Flags&AttrDeferCallchain != 0 }

// DeferOutput reports whether this event receives PERF_RECORD_CALLCHAIN_DEFERRED
// records (attr.defer_output, bit 39; final ABI only).
func (a *EventAttr) DeferOutput() bool { return a.Flags&AttrDeferOutput != 0 }

// DerivedName returns the name perf 6.1 derives from the attr alone (type,
// config and exclude bits, e.g. "cycles:uH"), whatever name the file
// records. perf report --stats prints it for pipe-mode streams.
func (a *EventAttr) DerivedName() string { return defaultName(a, nil) }
