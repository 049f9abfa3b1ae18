package decode

// RecordType is perf_event_header.type.
type RecordType uint32

// Kernel record types (include/uapi/linux/perf_event.h) and perf-tool record
// types (tools/lib/perf/include/perf/event.h).
const (
	RecordTypeMmap              RecordType = 1  // PERF_RECORD_MMAP
	RecordTypeLost              RecordType = 2  // PERF_RECORD_LOST
	RecordTypeComm              RecordType = 3  // PERF_RECORD_COMM
	RecordTypeExit              RecordType = 4  // PERF_RECORD_EXIT
	RecordTypeThrottle          RecordType = 5  // PERF_RECORD_THROTTLE
	RecordTypeUnthrottle        RecordType = 6  // PERF_RECORD_UNTHROTTLE
	RecordTypeFork              RecordType = 7  // PERF_RECORD_FORK
	RecordTypeRead              RecordType = 8  // PERF_RECORD_READ
	RecordTypeSample            RecordType = 9  // PERF_RECORD_SAMPLE
	RecordTypeMmap2             RecordType = 10 // PERF_RECORD_MMAP2
	RecordTypeAux               RecordType = 11 // PERF_RECORD_AUX
	RecordTypeItraceStart       RecordType = 12 // PERF_RECORD_ITRACE_START
	RecordTypeLostSamples       RecordType = 13 // PERF_RECORD_LOST_SAMPLES
	RecordTypeSwitch            RecordType = 14 // PERF_RECORD_SWITCH
	RecordTypeSwitchCPUWide     RecordType = 15 // PERF_RECORD_SWITCH_CPU_WIDE
	RecordTypeNamespaces        RecordType = 16 // PERF_RECORD_NAMESPACES
	RecordTypeKsymbol           RecordType = 17 // PERF_RECORD_KSYMBOL
	RecordTypeBPFEvent          RecordType = 18 // PERF_RECORD_BPF_EVENT
	RecordTypeCgroup            RecordType = 19 // PERF_RECORD_CGROUP
	RecordTypeTextPoke          RecordType = 20 // PERF_RECORD_TEXT_POKE
	RecordTypeAuxOutputHWID     RecordType = 21 // PERF_RECORD_AUX_OUTPUT_HW_ID
	RecordTypeCallchainDeferred RecordType = 22 // PERF_RECORD_CALLCHAIN_DEFERRED

	RecordTypeHeaderAttr        RecordType = 64 // PERF_RECORD_HEADER_ATTR
	RecordTypeHeaderEventType   RecordType = 65 // PERF_RECORD_HEADER_EVENT_TYPE
	RecordTypeHeaderTracingData RecordType = 66 // PERF_RECORD_HEADER_TRACING_DATA
	RecordTypeHeaderBuildID     RecordType = 67 // PERF_RECORD_HEADER_BUILD_ID
	RecordTypeFinishedRound     RecordType = 68 // PERF_RECORD_FINISHED_ROUND
	RecordTypeIDIndex           RecordType = 69 // PERF_RECORD_ID_INDEX
	RecordTypeAuxtraceInfo      RecordType = 70 // PERF_RECORD_AUXTRACE_INFO
	RecordTypeAuxtrace          RecordType = 71 // PERF_RECORD_AUXTRACE
	RecordTypeAuxtraceError     RecordType = 72 // PERF_RECORD_AUXTRACE_ERROR
	RecordTypeThreadMap         RecordType = 73 // PERF_RECORD_THREAD_MAP
	RecordTypeCPUMap            RecordType = 74 // PERF_RECORD_CPU_MAP
	RecordTypeStatConfig        RecordType = 75 // PERF_RECORD_STAT_CONFIG
	RecordTypeStat              RecordType = 76 // PERF_RECORD_STAT
	RecordTypeStatRound         RecordType = 77 // PERF_RECORD_STAT_ROUND
	RecordTypeEventUpdate       RecordType = 78 // PERF_RECORD_EVENT_UPDATE
	RecordTypeTimeConv          RecordType = 79 // PERF_RECORD_TIME_CONV
	RecordTypeHeaderFeature     RecordType = 80 // PERF_RECORD_HEADER_FEATURE
	RecordTypeCompressed        RecordType = 81 // PERF_RECORD_COMPRESSED
	RecordTypeFinishedInit      RecordType = 82 // PERF_RECORD_FINISHED_INIT
	RecordTypeCompressed2       RecordType = 83 // PERF_RECORD_COMPRESSED2
	RecordTypeBPFMetadata       RecordType = 84 // PERF_RECORD_BPF_METADATA
)

// CPUMode is the low three bits of perf_event_header.misc
// (PERF_RECORD_MISC_CPUMODE_MASK).
type CPUMode uint8

// PERF_RECORD_MISC_* cpumode values.
const (
	CPUModeUnknown     CPUMode = 0 // PERF_RECORD_MISC_CPUMODE_UNKNOWN
	CPUModeKernel      CPUMode = 1 // PERF_RECORD_MISC_KERNEL
	CPUModeUser        CPUMode = 2 // PERF_RECORD_MISC_USER
	CPUModeHypervisor  CPUMode = 3 // PERF_RECORD_MISC_HYPERVISOR
	CPUModeGuestKernel CPUMode = 4 // PERF_RECORD_MISC_GUEST_KERNEL
	CPUModeGuestUser   CPUMode = 5 // PERF_RECORD_MISC_GUEST_USER
)

// perf_event_header.misc bits whose meaning depends on the record type.
const (
	MiscProcMapParseTimeout uint16 = 1 << 12 // PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT
	MiscMmapData            uint16 = 1 << 13 // MMAP/MMAP2: non-executable mapping
	MiscCommExec            uint16 = 1 << 13 // COMM: from exec
	MiscSwitchOut           uint16 = 1 << 13 // SWITCH*: switch-out
	MiscExactIP             uint16 = 1 << 14 // SAMPLE: precise IP
	MiscSwitchOutPreempt    uint16 = 1 << 14 // SWITCH*: preempted
	MiscMmapBuildID         uint16 = 1 << 14 // MMAP2: build-id layout
	MiscBuildIDSize         uint16 = 1 << 15 // HEADER_BUILD_ID: size byte valid
)

// Callchain context markers (enum perf_callchain_context). Entries at or
// above ContextMax are markers, not addresses.
const (
	ContextHV           uint64 = 0xffffffffffffffe0 // PERF_CONTEXT_HV (-32)
	ContextKernel       uint64 = 0xffffffffffffff80 // PERF_CONTEXT_KERNEL (-128)
	ContextUser         uint64 = 0xfffffffffffffe00 // PERF_CONTEXT_USER (-512)
	ContextUserDeferred uint64 = 0xfffffffffffffd80 // PERF_CONTEXT_USER_DEFERRED (-640)
	ContextGuest        uint64 = 0xfffffffffffff800 // PERF_CONTEXT_GUEST (-2048)
	ContextGuestKernel  uint64 = 0xfffffffffffff780 // PERF_CONTEXT_GUEST_KERNEL (-2176)
	ContextGuestUser    uint64 = 0xfffffffffffff600 // PERF_CONTEXT_GUEST_USER (-2560)
	ContextMax          uint64 = 0xfffffffffffff001 // PERF_CONTEXT_MAX (-4095)
)

// Record is one record of the data stream. It is implemented only by the
// concrete types of this package (*Sample, *Mmap, *Comm, ...); use a type
// switch to get at the fields.
//
// Records returned by [Records.Record] are owned by the iterator and valid
// only until the next call to [Records.Next]; use Clone to keep one.
type Record interface {
	// Type is the record's perf_event_header.type.
	Type() RecordType
	// Common returns the fields shared by every record.
	Common() *RecordCommon
	// Clone returns a deep copy that does not share storage with the
	// iterator.
	Clone() Record
	isRecord()
}

// RecordCommon holds what every record has: its place in the file, its
// header, its event and the sample_id fields (from the sample itself or from
// the sample_id trailer of other kernel records).
type RecordCommon struct {
	// Offset is the file offset of the record's header. Records that came
	// out of a COMPRESSED/COMPRESSED2 container carry the container's offset
	// (as perf script -D prints them); InnerOffset then is the offset within
	// the decompressed stream, else -1.
	Offset      int64
	InnerOffset int64

	// Misc is perf_event_header.misc; Size is perf_event_header.size.
	Misc uint16
	Size uint16

	// Attr is the event the record belongs to, found through its sample id
	// (nil for perf-tool records and records whose id is unknown).
	Attr *EventAttr

	// Format is the sample_type the sample_id fields below were parsed
	// with: the attr's sample_type for SAMPLE records and for kernel
	// records with a sample_id trailer, 0 when there is none. A field is
	// valid only if its bit is set.
	Format SampleFormat

	PID, TID int32  // if SampleTID (or from the record body: MMAP, COMM, FORK, EXIT, ...); -1 if unknown
	Time     uint64 // if SampleTime
	ID       uint64 // if SampleID or SampleIdentifier
	StreamID uint64 // if SampleStreamID
	CPU      uint32 // if SampleCPU

	// TrailerPID and TrailerTID are the pid/tid of the sample_id trailer
	// (if SampleTID) of a record whose body also names a task (MMAP,
	// MMAP2, COMM, FORK, EXIT, ...), where PID and TID hold the body's
	// values; for every other record they equal PID and TID. perf script
	// prints these on side-band lines (a FORK shows the parent's tid, a
	// synthesized COMM shows 0).
	TrailerPID, TrailerTID int32
	// TrailerTime is the sample_id time (if SampleTime). It differs from
	// Time only for FORK and EXIT, whose Time is the body's; perf script
	// prints this one.
	TrailerTime uint64
}

// CPUMode returns the cpumode bits of Misc.
func (c *RecordCommon) CPUMode() CPUMode { return CPUMode(c.Misc & 7) }

// HasTime reports whether the record carries a usable timestamp (perf
// delivers records without one immediately, unordered).
func (c *RecordCommon) HasTime() bool {
	return c.Format&SampleTime != 0 && c.Time != 0 && c.Time != ^uint64(0)
}

// Common returns c; it lets every record type satisfy [Record] by embedding.
func (c *RecordCommon) Common() *RecordCommon { return c }

func (*RecordCommon) isRecord() {}

// Sample is PERF_RECORD_SAMPLE. Optional fields are valid only when their
// bit is in Format (see the comments).
type Sample struct {
	RecordCommon

	IP     uint64 // if SampleIP
	Addr   uint64 // if SampleAddr
	Period uint64 // if SamplePeriod; else the attr's sample_period, as perf sets it

	Read ReadValues // if SampleRead

	// Callchain is the raw callchain including context markers
	// (if SampleCallchain).
	Callchain []uint64

	Raw []byte // if SampleRaw

	Branches       []BranchEntry // if SampleBranchStack
	BranchHWIndex  uint64        // if SampleBranchStack and the attr has BranchSampleHWIndex
	BranchCounters []uint64      // if SampleBranchStack and the attr has BranchSampleCounters
	RegsUserABI    uint64        // if SampleRegsUser
	RegsUser       []uint64      // if SampleRegsUser and RegsUserABI != 0
	StackUser      []byte        // if SampleStackUser
	StackUserDyn   uint64        // if SampleStackUser and len(StackUser) != 0
	Weight         uint64        // if SampleWeight or SampleWeightStruct (the raw u64)
	DataSrc        uint64        // if SampleDataSrc
	Transaction    uint64        // if SampleTransaction
	RegsIntrABI    uint64        // if SampleRegsIntr
	RegsIntr       []uint64      // if SampleRegsIntr and RegsIntrABI != 0
	PhysAddr       uint64        // if SamplePhysAddr
	Cgroup         uint64        // if SampleCgroup
	DataPageSize   uint64        // if SampleDataPageSize
	CodePageSize   uint64        // if SampleCodePageSize
	Aux            []byte        // if SampleAux
}

// ReadValues is the read_format block of a sample or READ record.
type ReadValues struct {
	TimeEnabled uint64 // if ReadFormatTotalTimeEnabled
	TimeRunning uint64 // if ReadFormatTotalTimeRunning
	// Values has one entry, or one per group member with ReadFormatGroup.
	Values []ReadValue
}

// ReadValue is one counter value of a read_format block.
type ReadValue struct {
	Value uint64
	ID    uint64 // if ReadFormatID
	Lost  uint64 // if ReadFormatLost
}

// BranchEntry is struct perf_branch_entry. Flags keeps the little-endian bit
// layout (mispred bit 0, predicted bit 1, ... cycles bits 4-19).
type BranchEntry struct {
	From, To, Flags uint64
}

// WeightStruct splits a PERF_SAMPLE_WEIGHT_STRUCT value (union
// perf_sample_weight) into its parts.
func WeightStruct(w uint64) (var1 uint32, var2, var3 uint16) {
	return uint32(w), uint16(w >> 32), uint16(w >> 48)
}

// Mmap is PERF_RECORD_MMAP or PERF_RECORD_MMAP2 (V2 true). PID and TID of
// the body are stored in RecordCommon.
type Mmap struct {
	RecordCommon
	V2    bool
	Addr  uint64
	Len   uint64
	Pgoff uint64

	// MMAP2 only: either device/inode or (misc MiscMmapBuildID) a build id.
	Maj, Min      uint32
	Ino           uint64
	InoGeneration uint64
	BuildID       []byte // if MiscMmapBuildID; length from the record's size byte
	Prot, Flags   uint32

	Filename string
}

// Executable reports whether the mapping is executable code (the
// MiscMmapData bit is clear).
func (m *Mmap) Executable() bool { return m.Misc&MiscMmapData == 0 }

// Comm is PERF_RECORD_COMM. PID and TID are in RecordCommon.
type Comm struct {
	RecordCommon
	Comm string
}

// Exec reports whether the comm change came from exec (MiscCommExec).
func (c *Comm) Exec() bool { return c.Misc&MiscCommExec != 0 }

// Fork is PERF_RECORD_FORK; Exit is PERF_RECORD_EXIT (same layout). PID and
// TID of the body are stored in RecordCommon; Time is the body's time.
type Fork struct {
	RecordCommon
	PPID, PTID int32
}

// Exit is PERF_RECORD_EXIT; see [Fork].
type Exit struct {
	RecordCommon
	PPID, PTID int32
}

// Lost is PERF_RECORD_LOST.
type Lost struct {
	RecordCommon
	LostID uint64 // the id of the event that lost records
	Lost   uint64
}

// LostSamples is PERF_RECORD_LOST_SAMPLES.
type LostSamples struct {
	RecordCommon
	Lost uint64
}

// Throttle is PERF_RECORD_THROTTLE or PERF_RECORD_UNTHROTTLE (Unthrottle
// true). Time, ID and StreamID of the body are in BodyTime, BodyID,
// BodyStreamID.
type Throttle struct {
	RecordCommon
	Unthrottle   bool
	BodyTime     uint64
	BodyID       uint64
	BodyStreamID uint64
}

// Read is PERF_RECORD_READ.
type Read struct {
	RecordCommon
	Values ReadValues
}

// Aux is PERF_RECORD_AUX.
type Aux struct {
	RecordCommon
	AuxOffset, AuxSize, Flags uint64
}

// ItraceStart is PERF_RECORD_ITRACE_START (pid/tid in RecordCommon).
type ItraceStart struct {
	RecordCommon
}

// Switch is PERF_RECORD_SWITCH or PERF_RECORD_SWITCH_CPU_WIDE (CPUWide
// true, with the next/previous task in NextPrevPID/TID).
type Switch struct {
	RecordCommon
	CPUWide                  bool
	NextPrevPID, NextPrevTID int32
}

// Out reports a switch-out (MiscSwitchOut).
func (s *Switch) Out() bool { return s.Misc&MiscSwitchOut != 0 }

// Namespaces is PERF_RECORD_NAMESPACES (pid/tid in RecordCommon).
type Namespaces struct {
	RecordCommon
	Namespaces []NamespaceLink
}

// NamespaceLink is struct perf_ns_link_info.
type NamespaceLink struct {
	Dev, Ino uint64
}

// Ksymbol is PERF_RECORD_KSYMBOL.
type Ksymbol struct {
	RecordCommon
	Addr      uint64
	Len       uint32
	KsymType  uint16
	KsymFlags uint16
	Name      string
}

// BPFEvent is PERF_RECORD_BPF_EVENT.
type BPFEvent struct {
	RecordCommon
	EventType uint16
	Flags     uint16
	ProgID    uint32
	Tag       [8]byte
}

// Cgroup is PERF_RECORD_CGROUP.
type Cgroup struct {
	RecordCommon
	CgroupID uint64
	Path     string
}

// TextPoke is PERF_RECORD_TEXT_POKE.
type TextPoke struct {
	RecordCommon
	Addr     uint64
	OldBytes []byte
	NewBytes []byte
}

// AuxOutputHWID is PERF_RECORD_AUX_OUTPUT_HW_ID.
type AuxOutputHWID struct {
	RecordCommon
	HWID uint64
}

// DeferredABI says which layout a PERF_RECORD_CALLCHAIN_DEFERRED record (or
// a deferred sample) uses.
type DeferredABI uint8

// Deferred-callchain ABIs (perf-format.md §8).
const (
	// DeferredNone: the sample is not deferred.
	DeferredNone DeferredABI = iota
	// DeferredSeed: the original patch series — no cookie; the record is
	// {nr, ips} with ips[0] == ContextUser; samples end with
	// ContextUserDeferred.
	DeferredSeed
	// DeferredCookie: the merged upstream ABI (Linux/perf 6.19) — record
	// {cookie, nr, ips}; samples end with ContextUserDeferred, cookie. The
	// intermediate v16 variant (ips starting with ContextUser) decodes to
	// this too, with the marker removed.
	DeferredCookie
)

// CallchainDeferred is PERF_RECORD_CALLCHAIN_DEFERRED in either ABI. The
// sample_id fields in RecordCommon are those of the event that emitted it.
type CallchainDeferred struct {
	RecordCommon
	ABI    DeferredABI
	Cookie uint64 // if ABI == DeferredCookie
	// IPs are the user PCs, innermost first, without a leading ContextUser
	// marker.
	IPs []uint64
}

// HeaderAttr is PERF_RECORD_HEADER_ATTR (pipe mode). Attr is the event it
// defines (also appended to File.Attrs).
type HeaderAttr struct {
	RecordCommon
	Attr *EventAttr
}

// HeaderEventType is the obsolete PERF_RECORD_HEADER_EVENT_TYPE.
type HeaderEventType struct {
	RecordCommon
	EventID uint64
	Name    string
}

// TracingData is PERF_RECORD_HEADER_TRACING_DATA. Data is the trace-cmd blob
// that follows the record outside its size.
type TracingData struct {
	RecordCommon
	Data []byte
}

// HeaderBuildID is PERF_RECORD_HEADER_BUILD_ID, in the data stream or as an
// entry of the BUILD_ID feature.
type HeaderBuildID struct {
	RecordCommon
	BuildPID int32
	BuildID  []byte
	Filename string
}

// FinishedRound is PERF_RECORD_FINISHED_ROUND.
type FinishedRound struct{ RecordCommon }

// FinishedInit is PERF_RECORD_FINISHED_INIT.
type FinishedInit struct{ RecordCommon }

// IDIndex is PERF_RECORD_ID_INDEX.
type IDIndex struct {
	RecordCommon
	Entries []IDIndexEntry
}

// IDIndexEntry is one entry of an ID_INDEX record.
type IDIndexEntry struct {
	ID, Idx, CPU, TID uint64
	MachinePID, VCPU  uint64 // when the record has the extension
}

// AuxtraceInfo is PERF_RECORD_AUXTRACE_INFO.
type AuxtraceInfo struct {
	RecordCommon
	AuxType uint32
	Priv    []uint64
}

// Auxtrace is PERF_RECORD_AUXTRACE. The AUX data that follows the record is
// skipped, not read; DataOffset says where it is.
type Auxtrace struct {
	RecordCommon
	AuxSize, AuxOffset, Reference uint64
	Idx                           uint32
	AuxTID, AuxCPU                uint32
	DataOffset                    int64
}

// AuxtraceError is PERF_RECORD_AUXTRACE_ERROR.
type AuxtraceError struct {
	RecordCommon
	ErrType, Code, ErrCPU, ErrPID, ErrTID, Fmt uint32
	IP, ErrTime                                uint64
	Msg                                        string
}

// ThreadMap is PERF_RECORD_THREAD_MAP.
type ThreadMap struct {
	RecordCommon
	Threads []ThreadMapEntry
}

// ThreadMapEntry is one entry of a THREAD_MAP record.
type ThreadMapEntry struct {
	PID  uint64
	Comm string
}

// CPUMap is PERF_RECORD_CPU_MAP, decoded to a CPU list.
type CPUMap struct {
	RecordCommon
	CPUs []uint32
	// AnyCPU is set for a RANGE_CPUS map that includes the "any CPU" (-1).
	AnyCPU bool
}

// StatConfig is PERF_RECORD_STAT_CONFIG.
type StatConfig struct {
	RecordCommon
	Config []StatConfigEntry
}

// StatConfigEntry is one tag/value pair of a STAT_CONFIG record.
type StatConfigEntry struct{ Tag, Val uint64 }

// Stat is PERF_RECORD_STAT.
type Stat struct {
	RecordCommon
	StatID          uint64
	StatCPU, Thread uint32
	Val, Ena, Run   uint64
}

// StatRound is PERF_RECORD_STAT_ROUND.
type StatRound struct {
	RecordCommon
	RoundType, RoundTime uint64
}

// EventUpdate is PERF_RECORD_EVENT_UPDATE.
type EventUpdate struct {
	RecordCommon
	UpdateType uint64 // 0 UNIT, 1 SCALE, 2 NAME, 3 CPUS
	EventID    uint64
	Unit, Name string  // UNIT, NAME
	Scale      float64 // SCALE
	CPUs       []uint32
}

// TimeConv is PERF_RECORD_TIME_CONV.
type TimeConv struct {
	RecordCommon
	TimeShift, TimeMult, TimeZero uint64
	TimeCycles, TimeMask          uint64 // newer layout only
	CapUserTimeZero               bool
	CapUserTimeShort              bool
}

// HeaderFeature is PERF_RECORD_HEADER_FEATURE (pipe mode): one feature
// section, also merged into File.Meta.
type HeaderFeature struct {
	RecordCommon
	Feature Feature
	Data    []byte
}

// Compressed is a PERF_RECORD_COMPRESSED or PERF_RECORD_COMPRESSED2
// container. The decoder delivers it (so it is counted) and then the records
// decompressed from it; Data is the zstd payload.
type Compressed struct {
	RecordCommon
	V2   bool
	Data []byte
}

// BPFMetadata is PERF_RECORD_BPF_METADATA.
type BPFMetadata struct {
	RecordCommon
	ProgName string
	Entries  []BPFMetadataEntry
}

// BPFMetadataEntry is one key/value pair of a BPF_METADATA record.
type BPFMetadataEntry struct{ Key, Value string }

// Unknown is a record of a type the decoder does not know. Data is the
// record body after the 8-byte header.
type Unknown struct {
	RecordCommon
	RecType RecordType
	Data    []byte
}
