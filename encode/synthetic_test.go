package encode

import (
	"bytes"
	"encoding/binary"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
)

// trailerBits are the sample_type bits a sample_id trailer carries.
const trailerBits = decode.SampleTID | decode.SampleTime | decode.SampleID |
	decode.SampleStreamID | decode.SampleCPU | decode.SampleIdentifier

// synthAttrs are two events whose layouts together use every sample field:
// attr 0 (VER8, 136 bytes) has every PERF_SAMPLE_* bit but WEIGHT, every
// read_format bit, branch hw_idx and counters, register masks; attr 1 is a
// VER0 (64-byte) attr with a small layout. Both have IDENTIFIER, as perf
// record sets it when there are several events, and sample_id_all.
func synthAttrs() []*decode.EventAttr {
	all := decode.SampleFormatMax - 1&^decode.SampleWeight
	return []*decode.EventAttr{
		{
			Type: decode.AttrTypeHardware, Size: 136, Config: 0, SamplePeriod: 4000,
			SampleType: all,
			ReadFormat: decode.ReadFormatTotalTimeEnabled | decode.ReadFormatTotalTimeRunning |
				decode.ReadFormatID | decode.ReadFormatGroup | decode.ReadFormatLost,
			Flags: decode.AttrDisabled | decode.AttrFreq | decode.AttrSampleIDAll | decode.AttrMmap2 |
				decode.AttrComm | decode.AttrTask | 2<<15 /* precise_ip 2 */ | decode.AttrDeferCallchain | decode.AttrDeferOutput,
			WakeupEvents: 1, BPType: 0, Config1: 0x11, Config2: 0x22,
			BranchSampleType: decode.BranchSampleHWIndex | decode.BranchSampleCounters | 1,
			SampleRegsUser:   0x7, SampleStackUser: 64, ClockID: 1, SampleRegsIntr: 0x3,
			AuxWatermark: 5, SampleMaxStack: 127, AuxSampleSize: 8, AuxAction: 1, SigData: 0x99, Config3: 0x33,
			IDs: []uint64{100, 101}, Name: "cycles", Index: 0,
		},
		{
			Type: decode.AttrTypeSoftware, Size: 64, Config: 0, SamplePeriod: 1000,
			SampleType: decode.SampleIdentifier | decode.SampleIP | decode.SampleTID | decode.SampleTime |
				decode.SampleCPU | decode.SamplePeriod | decode.SampleCallchain | decode.SampleRead,
			ReadFormat: decode.ReadFormatID | decode.ReadFormatLost,
			Flags:      decode.AttrSampleIDAll | decode.AttrExcludeKernel,
			IDs:        []uint64{200}, Name: "cpu-clock", Index: 1,
		},
		{
			// Larger than any layout this package knows (VER9 is 144):
			// the tail is written as zeros and ignored on reading.
			Type: decode.AttrTypeSoftware, Size: 160, Config: 9, SamplePeriod: 1,
			SampleType: decode.SampleIdentifier | decode.SampleTID | decode.SampleTime | decode.SampleCallchain,
			Flags:      decode.AttrSampleIDAll | decode.AttrDeferCallchain,
			Config3:    0x33, Config4: 0x44,
			IDs: []uint64{300, 301, 302}, Name: "dummy:u", Index: 2,
		},
	}
}

// kc is the RecordCommon a decoder fills for a kernel record of attr a
// whose trailer holds pid/tid, time, id, cpu (stream id 7).
func kc(a *decode.EventAttr, misc uint16, pid, tid int32, time, id uint64, cpu uint32) decode.RecordCommon {
	c := decode.RecordCommon{Misc: misc, Attr: a, Format: a.SampleType & trailerBits,
		PID: pid, TID: tid, Time: time, ID: id, CPU: cpu,
		TrailerPID: pid, TrailerTID: tid, TrailerTime: time}
	if a.SampleType&decode.SampleStreamID != 0 {
		c.StreamID = 7
	}
	return c
}

// tc is the RecordCommon of a perf-tool record.
func tc(misc uint16) decode.RecordCommon {
	return decode.RecordCommon{Misc: misc, PID: -1, TID: -1, TrailerPID: -1, TrailerTID: -1}
}

// withBody sets the body pid/tid (and time) of a task record, keeping the
// trailer's in Trailer*.
func withBody(c decode.RecordCommon, pid, tid int32) decode.RecordCommon {
	c.PID, c.TID = pid, tid
	return c
}

// synthRecords returns one record of every type (both deferred ABIs, both
// MMAP2 layouts), and samples of both attrs, as a decoder delivers them.
func synthRecords(attrs []*decode.EventAttr) []decode.Record {
	a0, a1 := attrs[0], attrs[1]
	fork := kc(a0, 0, 50, 51, 1500, 100, 1)
	fork.PID, fork.TID, fork.Time = 60, 61, 1499 // body vs trailer
	exit := kc(a1, 0, 60, 61, 1600, 200, 0)
	exit.Time = 1598
	full := &decode.Sample{
		RecordCommon: decode.RecordCommon{Misc: uint16(decode.CPUModeKernel) | decode.MiscExactIP, Attr: a0,
			Format: a0.SampleType, PID: 10, TID: 11, Time: 1000, ID: 100, StreamID: 77, CPU: 1,
			TrailerPID: 10, TrailerTID: 11, TrailerTime: 1000},
		IP: 0xffffffff81000010, Addr: 0xdead0000, Period: 4000,
		Read: decode.ReadValues{TimeEnabled: 5, TimeRunning: 4, Values: []decode.ReadValue{
			{Value: 1, ID: 100, Lost: 0}, {Value: 2, ID: 200, Lost: 3}}},
		Callchain: []uint64{decode.ContextKernel, 0xffffffff81000010, 0xffffffff81000020,
			decode.ContextUserDeferred, 0xb00000006},
		Raw: []byte{1, 2, 3, 4},
		Branches: []decode.BranchEntry{{From: 0x401000, To: 0x401100, Flags: 1 | 1<<2 | 0x1234<<4 | 5<<20 | 2<<24 | 9<<26 | 3<<30},
			{From: 0x401200, To: 0x401300, Flags: 2}},
		BranchHWIndex: 3, BranchCounters: []uint64{10, 20},
		RegsUserABI: 2, RegsUser: []uint64{1, 2, 3},
		StackUser: bytes.Repeat([]byte{0xab}, 64), StackUserDyn: 48,
		Weight: 0x0003000200000001, DataSrc: 0x1234, Transaction: 0x55,
		RegsIntrABI: 2, RegsIntr: []uint64{7, 8},
		PhysAddr: 0x1000, Cgroup: 42, DataPageSize: 4096, CodePageSize: 2 << 20,
		Aux: []byte{9, 9, 9, 9, 9, 9, 9, 9},
	}
	small := &decode.Sample{
		RecordCommon: decode.RecordCommon{Misc: uint16(decode.CPUModeUser), Attr: a1,
			Format: a1.SampleType, PID: 10, TID: 12, Time: 1001, ID: 200, CPU: 0,
			TrailerPID: 10, TrailerTID: 12, TrailerTime: 1001},
		IP: 0x401234, Period: 1000,
		Read:      decode.ReadValues{Values: []decode.ReadValue{{Value: 77, ID: 200, Lost: 1}}},
		Callchain: []uint64{decode.ContextUserDeferred},
	}
	big := &decode.Sample{
		RecordCommon: decode.RecordCommon{Misc: uint16(decode.CPUModeKernel), Attr: attrs[2],
			Format: attrs[2].SampleType, PID: 10, TID: 12, Time: 1003, ID: 301,
			TrailerPID: 10, TrailerTID: 12, TrailerTime: 1003},
		Callchain: []uint64{decode.ContextKernel, 0xffffffff81000010, decode.ContextUserDeferred, 0x2000001f9},
	}
	regsOff := *small
	regsOff.RecordCommon.Time = 1002
	regsOff.TrailerTime = 1002
	regsOff.Callchain = nil
	return []decode.Record{
		&decode.IDIndex{RecordCommon: tc(0), Entries: []decode.IDIndexEntry{{ID: 100, Idx: 0, CPU: 0, TID: ^uint64(0)},
			{ID: 101, Idx: 0, CPU: 1, TID: ^uint64(0)}, {ID: 200, Idx: 1, CPU: ^uint64(0), TID: 12}}},
		&decode.ThreadMap{RecordCommon: tc(0), Threads: []decode.ThreadMapEntry{{PID: 10, Comm: "spin"}, {PID: 12, Comm: "a-rather-long-comm"[:15]}}},
		&decode.CPUMap{RecordCommon: tc(0), CPUs: []uint32{0, 1, 3}},
		&decode.CPUMap{RecordCommon: tc(0), CPUs: []uint32{0, 1}, AnyCPU: true},
		&decode.EventUpdate{RecordCommon: tc(0), UpdateType: 0, EventID: 100, Unit: "msec"},
		&decode.EventUpdate{RecordCommon: tc(0), UpdateType: 1, EventID: 100, Scale: 1e-6},
		&decode.EventUpdate{RecordCommon: tc(0), UpdateType: 3, EventID: 200, CPUs: []uint32{0, 1}},
		&decode.StatConfig{RecordCommon: tc(0), Config: []decode.StatConfigEntry{{Tag: 0, Val: 1}, {Tag: 2, Val: 1000}}},
		&decode.Stat{RecordCommon: tc(0), StatID: 100, StatCPU: 1, Thread: 0, Val: 5, Ena: 6, Run: 7},
		&decode.StatRound{RecordCommon: tc(0), RoundType: 1, RoundTime: 123},
		&decode.TimeConv{RecordCommon: tc(0), TimeShift: 31, TimeMult: 1000, TimeZero: 5},
		&decode.TimeConv{RecordCommon: tc(0), TimeShift: 31, TimeMult: 1000, TimeZero: 5, TimeCycles: 9, TimeMask: 0xff, CapUserTimeZero: true},
		&decode.AuxtraceInfo{RecordCommon: tc(0), AuxType: 3, Priv: []uint64{1, 2}},
		&decode.Auxtrace{RecordCommon: tc(0), AuxOffset: 8, Reference: 9, Idx: 1, AuxTID: 10, AuxCPU: 1},
		&decode.AuxtraceError{RecordCommon: tc(0), ErrType: 1, Code: 2, ErrCPU: 1, ErrPID: 10, ErrTID: 11, Fmt: 1, IP: 0x401000, ErrTime: 55, Msg: "lost sync"},
		&decode.HeaderEventType{RecordCommon: tc(0), EventID: 100, Name: "cycles"},
		&decode.HeaderBuildID{RecordCommon: tc(uint16(decode.CPUModeUser) | decode.MiscBuildIDSize), BuildPID: -1,
			BuildID: bytes.Repeat([]byte{0x42}, 20), Filename: "/usr/bin/spin"},
		&decode.HeaderBuildID{RecordCommon: tc(uint16(decode.CPUModeKernel)), BuildPID: 7,
			BuildID: []byte{1, 2, 3, 4, 5, 6, 7, 8}, Filename: "[kernel.kallsyms]"},
		&decode.BPFMetadata{RecordCommon: tc(0), ProgName: "prog", Entries: []decode.BPFMetadataEntry{{Key: "k", Value: "v"}}},
		&decode.TracingData{RecordCommon: tc(0), Data: []byte("\x17\x08\x44tracing0.6\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")},
		&decode.FinishedInit{RecordCommon: tc(0)},
		&decode.Mmap{RecordCommon: withBody(kc(a0, uint16(decode.CPUModeKernel), 0, 0, 0, 0, 0), -1, 0),
			Addr: 0xffffffff81000000, Len: 0x1000000, Pgoff: 0xffffffff81000000, Filename: "[kernel.kallsyms]_text"},
		&decode.Comm{RecordCommon: withBody(kc(a0, decode.MiscCommExec, 10, 10, 900, 100, 0), 10, 10), Comm: "spin"},
		&decode.Mmap{RecordCommon: withBody(kc(a1, uint16(decode.CPUModeUser), 10, 10, 901, 200, 1), 10, 10), V2: true,
			Addr: 0x401000, Len: 0x1000, Pgoff: 0x1000, Maj: 254, Min: 0, Ino: 778243, InoGeneration: 220833278,
			Prot: 5, Flags: 2, Filename: "/opt/perfstitch-testdata/bin/spin"},
		&decode.Mmap{RecordCommon: withBody(kc(a0, uint16(decode.CPUModeUser)|decode.MiscMmapBuildID, 10, 10, 902, 100, 1), 10, 10), V2: true,
			Addr: 0x7f0000000000, Len: 0x2000, BuildID: bytes.Repeat([]byte{0xcd}, 20), Prot: 5, Flags: 2, Filename: "[vdso]"},
		&decode.Fork{RecordCommon: fork, PPID: 10, PTID: 10},
		full,
		small,
		&regsOff,
		big,
		&decode.Lost{RecordCommon: kc(a0, 0, 10, 11, 1700, 101, 1), LostID: 101, Lost: 3},
		&decode.LostSamples{RecordCommon: kc(a1, 0, 10, 11, 1701, 200, 0), Lost: 4},
		&decode.Throttle{RecordCommon: kc(a0, 0, 10, 11, 1702, 100, 1), BodyTime: 1702, BodyID: 100, BodyStreamID: 77},
		&decode.Throttle{RecordCommon: kc(a0, 0, 10, 11, 1703, 100, 1), Unthrottle: true, BodyTime: 1703, BodyID: 100, BodyStreamID: 77},
		&decode.Read{RecordCommon: withBody(kc(a1, 0, 10, 11, 1704, 200, 0), 10, 12),
			Values: decode.ReadValues{Values: []decode.ReadValue{{Value: 5, ID: 200, Lost: 0}}}},
		&decode.Read{RecordCommon: withBody(kc(a0, 0, 10, 11, 1705, 100, 0), 10, 12),
			Values: decode.ReadValues{TimeEnabled: 1, TimeRunning: 1, Values: []decode.ReadValue{{Value: 5, ID: 100}, {Value: 6, ID: 200, Lost: 1}}}},
		&decode.Aux{RecordCommon: kc(a0, 0, 10, 11, 1706, 100, 1), AuxOffset: 0x1000, AuxSize: 0x200, Flags: 1},
		&decode.ItraceStart{RecordCommon: withBody(kc(a0, 0, 10, 11, 1707, 100, 1), 10, 13)},
		&decode.Switch{RecordCommon: kc(a0, decode.MiscSwitchOut, 10, 11, 1708, 100, 1)},
		&decode.Switch{RecordCommon: kc(a0, decode.MiscSwitchOut|decode.MiscSwitchOutPreempt, 0, 0, 1709, 100, 1), CPUWide: true, NextPrevPID: 10, NextPrevTID: 11},
		&decode.Namespaces{RecordCommon: withBody(kc(a0, 0, 10, 11, 1710, 100, 1), 10, 11),
			Namespaces: []decode.NamespaceLink{{Dev: 1, Ino: 2}, {Dev: 3, Ino: 4}}},
		&decode.Ksymbol{RecordCommon: kc(a0, 0, 0, 0, 1711, 100, 1), Addr: 0xffffffffc0000000, Len: 256, KsymType: 1, KsymFlags: 0, Name: "bpf_prog_6deef7357e7b4530"},
		&decode.BPFEvent{RecordCommon: kc(a0, 0, 0, 0, 1712, 100, 1), EventType: 1, Flags: 0, ProgID: 17, Tag: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}},
		&decode.Cgroup{RecordCommon: kc(a0, 0, 0, 0, 1713, 100, 1), CgroupID: 1234, Path: "/user.slice"},
		&decode.TextPoke{RecordCommon: kc(a0, 0, 0, 0, 1714, 100, 1), Addr: 0xffffffff81001000, OldBytes: []byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, NewBytes: []byte{0xe8, 1, 2, 3, 4}},
		&decode.AuxOutputHWID{RecordCommon: kc(a0, 0, 10, 11, 1715, 100, 1), HWID: 6},
		&decode.CallchainDeferred{RecordCommon: kc(a0, uint16(decode.CPUModeUser), 10, 11, 1716, 100, 1), ABI: decode.DeferredCookie,
			Cookie: 0xb00000006, IPs: []uint64{0x401010, 0x401020, 0x401030}},
		&decode.CallchainDeferred{RecordCommon: kc(a1, uint16(decode.CPUModeUser), 10, 12, 1717, 200, 0), ABI: decode.DeferredSeed,
			IPs: []uint64{0x401040}},
		&decode.CallchainDeferred{RecordCommon: kc(a1, uint16(decode.CPUModeUser), 10, 12, 1718, 200, 0), ABI: decode.DeferredCookie,
			Cookie: 0x2000001f9},
		&decode.Exit{RecordCommon: withBody(exit, 60, 61), PPID: 10, PTID: 10},
		&decode.FinishedRound{RecordCommon: tc(0)},
		&decode.Unknown{RecordCommon: tc(0), RecType: 99, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
	}
}

// synthMeta has every feature the writer encodes from parsed fields, plus
// raw ones.
func synthMeta() *decode.Meta {
	return &decode.Meta{
		Features: []decode.Feature{decode.FeatureBuildID, decode.FeatureHostname, decode.FeatureOSRelease,
			decode.FeatureVersion, decode.FeatureArch, decode.FeatureNrCPUs, decode.FeatureCPUDesc,
			decode.FeatureCPUID, decode.FeatureTotalMem, decode.FeatureCmdline, decode.FeatureEventDesc,
			decode.FeatureCPUTopology, decode.FeatureNUMATopology, decode.FeatureBranchStack,
			decode.FeaturePMUMappings, decode.FeatureGroupDesc, decode.FeatureSampleTime,
			decode.FeatureClockID, decode.FeatureClockData, decode.FeatureCompressed},
		BuildIDs: []decode.BuildID{
			{CPUMode: decode.CPUModeKernel, PID: -1, ID: bytes.Repeat([]byte{0x85}, 20), Filename: "[kernel.kallsyms]"},
			{CPUMode: decode.CPUModeUser, PID: -1, ID: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, Filename: "/usr/lib/libx.so"},
		},
		Hostname: "vm", OSRelease: "6.19.0-test", Version: "6.19", Arch: "x86_64",
		NrCPUsAvail: 2, NrCPUsOnline: 2, CPUDesc: "AMD EPYC", CPUID: "AuthenticAMD,26,2,1",
		TotalMem: 24683652, Cmdline: []string{"/usr/bin/perf", "record", "-g", "--", "spin"},
		CPUTopology: &decode.CPUTopology{CoreSiblings: []string{"0-1"}, ThreadSiblings: []string{"0", "1"},
			CoreID: []uint32{0, 1}, SocketID: []uint32{0, 0}, DieSiblings: []string{"0-1"}, DieID: []uint32{0, 0}},
		PMUMappings: map[uint32]string{1: "software", 4: "cpu", 8: "breakpoint"},
		GroupDesc:   []decode.GroupDesc{{Name: "{cycles,cpu-clock}", LeaderIdx: 0, NrMembers: 2}},
		SampleTime:  &decode.SampleTimeRange{First: 1000, Last: 1718},
		ClockIDRes:  1, HasClockID: true,
		ClockData:  &decode.ClockData{Version: 1, ClockID: 1, WallClockNS: 1796083200000000000, ClockIDTimeNS: 600000000000},
		Compressed: &decode.CompressedInfo{Version: 0, Type: 1, Level: 1, Ratio: 3, MmapLen: defaultMmapLen},
		// NUMA_TOPOLOGY is parsed and also kept raw (Raw is written back).
		NUMANodes: []decode.NUMANode{{Node: 0, MemTotal: 9, MemFree: 7, CPUs: "0-1"}},
		Raw: map[decode.Feature][]byte{decode.FeatureNUMATopology: {1, 0, 0, 0, 0, 0, 0, 0,
			9, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, '0', '-', '1', 0}},
	}
}

// TestRoundTripSynthetic encodes one record of every type and a sample with
// every field, in file and pipe mode, both byte orders, plain and
// compressed, and checks that decoding gives back the same attrs, features
// and records.
func TestRoundTripSynthetic(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			attrs := synthAttrs()
			meta := synthMeta()
			recs := synthRecords(attrs)
			opts := v.opts
			opts.Attrs, opts.Meta = attrs, meta
			// The raw NUMA_TOPOLOGY payload is little-endian: a big-endian
			// file leaves it out (RawOrder), with what was parsed from it.
			opts.RawOrder = binary.LittleEndian
			got := decodeBytes(t, encodeFile(t, opts, recs))

			wantAttrs := synthAttrs()
			for _, a := range wantAttrs {
				if a.Size == 0 {
					a.Size = 64
				}
			}
			if diff := cmp.Diff(wantAttrs, got.f.Attrs, attrOpts); diff != "" {
				t.Errorf("attrs differ (-want +got):\n%s", diff)
			}
			wantMeta := *meta
			wantMeta.EventDesc = nil
			slices.Sort(wantMeta.Features)
			// BRANCH_STACK has no payload to parse: the decoder keeps it raw.
			wantMeta.Raw = maps.Clone(meta.Raw)
			wantMeta.Raw[decode.FeatureBranchStack] = nil
			if v.opts.ByteOrder == binary.BigEndian {
				delete(wantMeta.Raw, decode.FeatureNUMATopology)
				wantMeta.NUMANodes = nil
				wantMeta.Features = slices.DeleteFunc(slices.Clone(wantMeta.Features),
					func(f decode.Feature) bool { return f == decode.FeatureNUMATopology })
			}
			gotMeta := dropEndMarker(got.f.Meta)
			for _, ed := range gotMeta.EventDesc {
				a := attrs[0]
				for _, x := range attrs {
					if ed.Name == x.Name {
						a = x
					}
				}
				if ed.Name != a.Name || !cmp.Equal(ed.IDs, a.IDs) || ed.Attr.SampleType != a.SampleType || ed.Attr.Flags != a.Flags {
					t.Errorf("EVENT_DESC entry %+v does not match attr %+v", ed, a)
				}
			}
			gotMeta.EventDesc = nil
			// The encoder writes PMU_MAPPINGS by type; PMUOrder is that order.
			if !slices.IsSorted(gotMeta.PMUOrder) || len(gotMeta.PMUOrder) != len(gotMeta.PMUMappings) {
				t.Errorf("PMUOrder %v: want the %d types of PMUMappings in ascending order", gotMeta.PMUOrder, len(gotMeta.PMUMappings))
			}
			gotMeta.PMUOrder = nil
			if diff := cmp.Diff(wantMeta, gotMeta, attrOpts); diff != "" {
				t.Errorf("meta differs (-want +got):\n%s", diff)
			}
			want := dataRecords(recs)
			for _, r := range want {
				// A sample without PERF_SAMPLE_PERIOD decodes with its
				// attr's sample_period, as perf's evsel__parse_sample
				// fills it in.
				if s, ok := r.(*decode.Sample); ok && s.Format&decode.SamplePeriod == 0 {
					s.Period = attrs[s.Attr.Index].SamplePeriod
				}
			}
			compareRecords(t, want, dataRecords(got.recs))
		})
	}
}

// TestAppendRecordErrors: records that contradict their attr are refused,
// not written wrong.
func TestAppendRecordErrors(t *testing.T) {
	attrs := synthAttrs()
	a0, a1 := attrs[0], attrs[1]
	tests := []struct {
		name string
		rec  decode.Record
		attr *decode.EventAttr
	}{
		{"sample without attr", &decode.Sample{}, nil},
		{"read values for a non-group read_format", &decode.Sample{Read: decode.ReadValues{Values: make([]decode.ReadValue, 2)}}, a1},
		{"regs for the mask", &decode.Sample{Read: decode.ReadValues{Values: make([]decode.ReadValue, 1)}, RegsUserABI: 2, RegsUser: []uint64{1}}, a0},
		{"branch counters", &decode.Sample{Branches: make([]decode.BranchEntry, 2), BranchCounters: []uint64{1}}, a0},
		{"unknown sample bit", &decode.Sample{}, &decode.EventAttr{SampleType: decode.SampleFormatMax}},
		{"too long", &decode.Comm{Comm: string(bytes.Repeat([]byte("x"), 70000))}, nil},
		{"deferred without ABI", &decode.CallchainDeferred{}, nil},
		{"auxtrace data", &decode.Auxtrace{AuxSize: 8}, nil},
		{"long build id", &decode.Mmap{V2: true, RecordCommon: decode.RecordCommon{Misc: decode.MiscMmapBuildID}, BuildID: make([]byte, 21)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
				dst := []byte("keep")
				got, err := AppendRecord(dst, order, tt.rec, tt.attr)
				if err == nil {
					t.Fatalf("AppendRecord = % x, want an error", got)
				}
				if string(got) != "keep" {
					t.Errorf("AppendRecord changed dst on error: %q", got)
				}
			}
		})
	}
}
