package decode

// Feature is a bit of the feature bitmap of the file header (HEADER_* enum
// of tools/perf/util/header.h), also used as feat_id in pipe-mode
// HEADER_FEATURE records.
type Feature uint8

// Feature bits.
const (
	FeatureTracingData    Feature = 1
	FeatureBuildID        Feature = 2
	FeatureHostname       Feature = 3
	FeatureOSRelease      Feature = 4
	FeatureVersion        Feature = 5
	FeatureArch           Feature = 6
	FeatureNrCPUs         Feature = 7
	FeatureCPUDesc        Feature = 8
	FeatureCPUID          Feature = 9
	FeatureTotalMem       Feature = 10
	FeatureCmdline        Feature = 11
	FeatureEventDesc      Feature = 12
	FeatureCPUTopology    Feature = 13
	FeatureNUMATopology   Feature = 14
	FeatureBranchStack    Feature = 15
	FeaturePMUMappings    Feature = 16
	FeatureGroupDesc      Feature = 17
	FeatureAuxtrace       Feature = 18
	FeatureStat           Feature = 19
	FeatureCache          Feature = 20
	FeatureSampleTime     Feature = 21
	FeatureMemTopology    Feature = 22
	FeatureClockID        Feature = 23
	FeatureDirFormat      Feature = 24
	FeatureBPFProgInfo    Feature = 25
	FeatureBPFBTF         Feature = 26
	FeatureCompressed     Feature = 27
	FeatureCPUPMUCaps     Feature = 28
	FeatureClockData      Feature = 29
	FeatureHybridTopology Feature = 30
	FeaturePMUCaps        Feature = 31
	FeatureCPUDomainInfo  Feature = 32 // perf 6.19+
	FeatureEMachine       Feature = 33 // perf 6.19+
	FeatureClnSize        Feature = 34 // perf 6.19+
)

// Meta is what the feature sections (file mode) or HEADER_FEATURE records
// (pipe mode) say about the recording. A field is zero when its feature is
// absent or could not be parsed; Features says which were present.
type Meta struct {
	// Features lists the feature bits present, ascending.
	Features []Feature

	BuildIDs     []BuildID // BUILD_ID
	Hostname     string    // HOSTNAME
	OSRelease    string    // OSRELEASE
	Version      string    // VERSION (perf version)
	Arch         string    // ARCH
	NrCPUsAvail  uint32    // NRCPUS
	NrCPUsOnline uint32    // NRCPUS
	CPUDesc      string    // CPUDESC
	CPUID        string    // CPUID
	TotalMem     uint64    // TOTAL_MEM, in kB as perf writes it
	Cmdline      []string  // CMDLINE
	EventDesc    []EventDesc
	CPUTopology  *CPUTopology
	PMUMappings  map[uint32]string // PMU_MAPPINGS: attr type -> PMU name
	// PMUOrder lists the PMU_MAPPINGS types in file order.
	PMUOrder   []uint32
	GroupDesc  []GroupDesc
	SampleTime *SampleTimeRange // SAMPLE_TIME
	ClockIDRes uint64           // CLOCKID: resolution in ns
	HasClockID bool
	ClockData  *ClockData
	Compressed *CompressedInfo

	// The sections perf prints in full only with -I/--show-info, and the
	// smaller ones of perf 6.1 and later (features_info.go).
	NUMANodes     []NUMANode     // NUMA_TOPOLOGY
	Caches        []CacheLevel   // CACHE
	MemTopology   *MemTopology   // MEM_TOPOLOGY
	CPUPMUCaps    []string       // CPU_PMU_CAPS: "name=value"
	HasCPUPMUCaps bool           // CPU_PMU_CAPS present (perhaps empty)
	PMUCaps       []PMUCaps      // PMU_CAPS
	HybridNodes   []HybridNode   // HYBRID_TOPOLOGY
	CPUDomainInfo *CPUDomainInfo // CPU_DOMAIN_INFO
	EMachine      *EMachine      // E_MACHINE
	CachelineSize uint32         // CLN_SIZE
	HasClnSize    bool           // CLN_SIZE present

	// Raw holds the payload of every feature not parsed into a field above
	// (and of those that failed to parse), and of the sections from
	// NUMANodes on, which are parsed as well.
	Raw map[Feature][]byte

	// Errors lists feature sections that were malformed and ignored.
	Errors []error
}

// BuildID is one entry of the BUILD_ID feature (or a HEADER_BUILD_ID
// record): the build id of a DSO as recorded.
type BuildID struct {
	CPUMode  CPUMode
	PID      int32
	ID       []byte
	Filename string
}

// EventDesc is one event of the EVENT_DESC feature.
type EventDesc struct {
	Attr EventAttr
	Name string
	IDs  []uint64
}

// CPUTopology is the CPU_TOPOLOGY feature.
type CPUTopology struct {
	CoreSiblings   []string
	ThreadSiblings []string
	CoreID         []uint32 // per CPU, if present
	SocketID       []uint32 // per CPU, if present
	DieSiblings    []string // if present
	DieID          []uint32 // per CPU, if present
}

// GroupDesc is one group of the GROUP_DESC feature.
type GroupDesc struct {
	Name      string
	LeaderIdx uint32
	NrMembers uint32
}

// SampleTimeRange is the SAMPLE_TIME feature: first and last sample time
// in ns of the perf clock (both 0 when perf did not fill them in).
type SampleTimeRange struct{ First, Last uint64 }

// ClockData is the CLOCK_DATA feature.
type ClockData struct {
	Version       uint32
	ClockID       uint32
	WallClockNS   uint64
	ClockIDTimeNS uint64
}

// CompressedInfo is the COMPRESSED feature.
type CompressedInfo struct {
	Version, Type, Level, Ratio, MmapLen uint32
}
