package decode

import "strconv"

var recordTypeNames = map[RecordType]string{
	RecordTypeMmap: "MMAP", RecordTypeLost: "LOST", RecordTypeComm: "COMM", RecordTypeExit: "EXIT",
	RecordTypeThrottle: "THROTTLE", RecordTypeUnthrottle: "UNTHROTTLE", RecordTypeFork: "FORK",
	RecordTypeRead: "READ", RecordTypeSample: "SAMPLE", RecordTypeMmap2: "MMAP2", RecordTypeAux: "AUX",
	RecordTypeItraceStart: "ITRACE_START", RecordTypeLostSamples: "LOST_SAMPLES", RecordTypeSwitch: "SWITCH",
	RecordTypeSwitchCPUWide: "SWITCH_CPU_WIDE", RecordTypeNamespaces: "NAMESPACES", RecordTypeKsymbol: "KSYMBOL",
	RecordTypeBPFEvent: "BPF_EVENT", RecordTypeCgroup: "CGROUP", RecordTypeTextPoke: "TEXT_POKE",
	RecordTypeAuxOutputHWID: "AUX_OUTPUT_HW_ID", RecordTypeCallchainDeferred: "CALLCHAIN_DEFERRED",
	RecordTypeHeaderAttr: "ATTR", RecordTypeHeaderEventType: "EVENT_TYPE",
	RecordTypeHeaderTracingData: "TRACING_DATA", RecordTypeHeaderBuildID: "BUILD_ID",
	RecordTypeFinishedRound: "FINISHED_ROUND", RecordTypeIDIndex: "ID_INDEX",
	RecordTypeAuxtraceInfo: "AUXTRACE_INFO", RecordTypeAuxtrace: "AUXTRACE",
	RecordTypeAuxtraceError: "AUXTRACE_ERROR", RecordTypeThreadMap: "THREAD_MAP", RecordTypeCPUMap: "CPU_MAP",
	RecordTypeStatConfig: "STAT_CONFIG", RecordTypeStat: "STAT", RecordTypeStatRound: "STAT_ROUND",
	RecordTypeEventUpdate: "EVENT_UPDATE", RecordTypeTimeConv: "TIME_CONV", RecordTypeHeaderFeature: "FEATURE",
	RecordTypeCompressed: "COMPRESSED", RecordTypeFinishedInit: "FINISHED_INIT",
	RecordTypeCompressed2: "COMPRESSED2", RecordTypeBPFMetadata: "BPF_METADATA",
}

// String returns perf's name for the record type (as perf report --stats
// prints it, without the PERF_RECORD_ prefix), or "type N" for unknown types.
func (t RecordType) String() string {
	if s, ok := recordTypeNames[t]; ok {
		return s
	}
	return "type " + strconv.FormatUint(uint64(t), 10)
}
