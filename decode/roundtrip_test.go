package decode_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/klauspost/compress/zstd"
	"github.com/perfstitch/perfstitch/decode"
)

// The synthetic recording: two events and one record of every type, with
// every sample field set, written in both byte orders, in file and pipe
// format, with and without compression.

const (
	idA0, idA1 = 100, 101 // ids of event 0 (every sample_type bit)
	idB        = 200      // id of event 1
)

var (
	attrA = tAttr{
		typ: 1, config: 0, period: 4000,
		sampleType: decode.SampleFormatMax - 1 - decode.SampleWeightStruct,
		readFormat: decode.ReadFormatTotalTimeEnabled | decode.ReadFormatTotalTimeRunning |
			decode.ReadFormatID | decode.ReadFormatGroup | decode.ReadFormatLost,
		flags: decode.AttrDisabled | decode.AttrFreq | decode.AttrSampleIDAll | decode.AttrMmap |
			decode.AttrComm | decode.AttrTask | decode.AttrExcludeGuest | decode.AttrMmap2 |
			2<<15 | decode.AttrDeferCallchain | decode.AttrDeferOutput,
		branchSampleType: decode.BranchSampleHWIndex | decode.BranchSampleCounters,
		regsUser:         0b1011, regsIntr: 0b11, stackUser: 64,
		ids: []uint64{idA0, idA1},
	}
	attrB = tAttr{
		typ: 0, config: 1, period: 100000,
		sampleType: decode.SampleIdentifier | decode.SampleIP | decode.SampleTID | decode.SampleTime |
			decode.SampleCPU | decode.SamplePeriod,
		flags: decode.AttrExcludeKernel | decode.AttrExcludeHV | decode.AttrSampleIDAll,
		ids:   []uint64{idB},
	}
)

// wantAttr is the EventAttr the decoder must make of a (at index i).
func wantAttr(a tAttr, i int, name string) *decode.EventAttr {
	return &decode.EventAttr{
		Type: decode.AttrType(a.typ), Size: 128, Config: a.config, SamplePeriod: a.period,
		SampleType: a.sampleType, ReadFormat: a.readFormat, Flags: a.flags,
		BranchSampleType: a.branchSampleType, SampleRegsUser: a.regsUser,
		SampleStackUser: a.stackUser, SampleRegsIntr: a.regsIntr,
		IDs: a.ids, Name: name, Index: i,
	}
}

// item is one record of the synthetic recording and what it decodes to.
type item struct {
	b    []byte
	want decode.Record
}

const (
	sidPID, sidTID = 11, 12
	sidStream      = 7
	sidCPU         = 1
)

// sid is the sample_id trailer of event 0 (every trailer field).
func sid(bo byteOrder, time uint64) []byte {
	w := &wr{bo: bo}
	w.u32(sidPID).u32(sidTID).u64(time).u64(idA0).u64(sidStream).u32(sidCPU).u32(0).u64(idA0)
	return w.b
}

// common is the RecordCommon a record with sid(time) decodes to.
func common(a *decode.EventAttr, misc uint16, size int, time uint64) decode.RecordCommon {
	return decode.RecordCommon{Misc: misc, Size: uint16(size), Attr: a,
		Format: decode.SampleTID | decode.SampleTime | decode.SampleID | decode.SampleStreamID |
			decode.SampleCPU | decode.SampleIdentifier,
		PID: sidPID, TID: sidTID, Time: time, ID: idA0, StreamID: sidStream, CPU: sidCPU,
		TrailerPID: sidPID, TrailerTID: sidTID, TrailerTime: time}
}

// tool is the RecordCommon of a perf-tool record.
func tool(misc uint16, size int) decode.RecordCommon {
	return decode.RecordCommon{Misc: misc, Size: uint16(size), PID: -1, TID: -1, TrailerPID: -1, TrailerTID: -1}
}

const branchFlags = 1 | 0x123<<4 | 3<<20 // mispred, cycles 0x123, type 3

// items builds the records (in file order) and their decoded values.
func items(bo byteOrder, a, b *decode.EventAttr) []item {
	var out []item
	add := func(raw []byte, want decode.Record) { out = append(out, item{raw, want}) }
	t := uint64(1_000_000_000)
	next := func() uint64 { t += 1000; return t }
	be := bo == binary.BigEndian

	// SAMPLE with every field.
	{
		tm := next()
		bf := uint64(branchFlags)
		if be {
			bf = toBEBitfields(bf, branchFlagWidths)
		}
		w := &wr{bo: bo}
		w.u64(idA0).u64(0x401000).u32(21).u32(22).u64(tm).u64(0xadd0).u64(idA0).u64(sidStream).
			u32(1).u32(0).u64(250000)
		w.u64(2).u64(1000).u64(900).u64(5).u64(idA0).u64(0).u64(6).u64(idA1).u64(1)
		w.u64(4).u64(decode.ContextKernel).u64(0xffffffff81000000).u64(decode.ContextUser).u64(0x401000)
		w.u32(12).raw([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
		w.u64(2).u64(5).u64(0x1000).u64(0x2000).u64(bf).u64(0x3000).u64(0x4000).u64(bf).u64(77).u64(78)
		w.u64(2).u64(1).u64(2).u64(3)
		w.u64(16).raw(bytes.Repeat([]byte{0xab}, 16)).u64(8)
		w.u64(33).u64(0x1234).u64(3)
		w.u64(2).u64(4).u64(5)
		w.u64(0xdead000).u64(9).u64(4096).u64(8192)
		w.u64(8).raw([]byte{8, 7, 6, 5, 4, 3, 2, 1})
		raw := rec(bo, decode.RecordTypeSample, 0x4001, w.b)
		add(raw, &decode.Sample{
			RecordCommon: decode.RecordCommon{Misc: 0x4001, Size: uint16(len(raw)), Attr: a, Format: a.SampleType,
				PID: 21, TID: 22, Time: tm, ID: idA0, StreamID: sidStream, CPU: 1,
				TrailerPID: 21, TrailerTID: 22, TrailerTime: tm},
			IP: 0x401000, Addr: 0xadd0, Period: 250000,
			Read: decode.ReadValues{TimeEnabled: 1000, TimeRunning: 900,
				Values: []decode.ReadValue{{Value: 5, ID: idA0}, {Value: 6, ID: idA1, Lost: 1}}},
			Callchain:      []uint64{decode.ContextKernel, 0xffffffff81000000, decode.ContextUser, 0x401000},
			Raw:            []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
			Branches:       []decode.BranchEntry{{0x1000, 0x2000, branchFlags}, {0x3000, 0x4000, branchFlags}},
			BranchHWIndex:  5,
			BranchCounters: []uint64{77, 78},
			RegsUserABI:    2, RegsUser: []uint64{1, 2, 3},
			StackUser: bytes.Repeat([]byte{0xab}, 16), StackUserDyn: 8,
			Weight: 33, DataSrc: 0x1234, Transaction: 3,
			RegsIntrABI: 2, RegsIntr: []uint64{4, 5},
			PhysAddr: 0xdead000, Cgroup: 9, DataPageSize: 4096, CodePageSize: 8192,
			Aux: []byte{8, 7, 6, 5, 4, 3, 2, 1},
		})
	}
	// SAMPLE of event 1.
	{
		tm := next()
		w := &wr{bo: bo}
		w.u64(idB).u64(0x7f0000001000).u32(31).u32(32).u64(tm).u32(0).u32(0).u64(100000)
		raw := rec(bo, decode.RecordTypeSample, 2, w.b)
		add(raw, &decode.Sample{
			RecordCommon: decode.RecordCommon{Misc: 2, Size: uint16(len(raw)), Attr: b, Format: b.SampleType,
				PID: 31, TID: 32, Time: tm, ID: idB, TrailerPID: 31, TrailerTID: 32, TrailerTime: tm},
			IP: 0x7f0000001000, Period: 100000,
		})
	}
	kernel := func(typ decode.RecordType, misc uint16, body func(w *wr), want func(c decode.RecordCommon) decode.Record) {
		tm := next()
		w := &wr{bo: bo}
		body(w)
		w.raw(sid(bo, tm))
		raw := rec(bo, typ, misc, w.b)
		add(raw, want(common(a, misc, len(raw), tm)))
	}
	withPID := func(c decode.RecordCommon, pid, tid int32) decode.RecordCommon {
		c.PID, c.TID = pid, tid
		return c
	}
	kernel(decode.RecordTypeMmap, 2, func(w *wr) {
		w.u32(21).u32(22).u64(0x400000).u64(0x1000).u64(0).str("/bin/prog", 8)
	}, func(c decode.RecordCommon) decode.Record {
		return &decode.Mmap{RecordCommon: withPID(c, 21, 22), Addr: 0x400000, Len: 0x1000, Filename: "/bin/prog"}
	})
	kernel(decode.RecordTypeMmap2, 2, func(w *wr) {
		w.u32(21).u32(22).u64(0x7f0000000000).u64(0x2000).u64(0x1000).u32(8).u32(1).u64(4242).u64(3).
			u32(5).u32(2).str("/lib/libc.so.6", 8)
	}, func(c decode.RecordCommon) decode.Record {
		return &decode.Mmap{RecordCommon: withPID(c, 21, 22), V2: true, Addr: 0x7f0000000000, Len: 0x2000,
			Pgoff: 0x1000, Maj: 8, Min: 1, Ino: 4242, InoGeneration: 3, Prot: 5, Flags: 2, Filename: "/lib/libc.so.6"}
	})
	kernel(decode.RecordTypeMmap2, 2|decode.MiscMmapBuildID, func(w *wr) {
		w.u32(21).u32(22).u64(0x7f0000100000).u64(0x2000).u64(0).u8(20).u8(0).u16(0).
			raw(bytes.Repeat([]byte{0xbe}, 20)).u32(5).u32(2).str("/lib/libm.so.6", 8)
	}, func(c decode.RecordCommon) decode.Record {
		return &decode.Mmap{RecordCommon: withPID(c, 21, 22), V2: true, Addr: 0x7f0000100000, Len: 0x2000,
			BuildID: bytes.Repeat([]byte{0xbe}, 20), Prot: 5, Flags: 2, Filename: "/lib/libm.so.6"}
	})
	kernel(decode.RecordTypeLost, 0, func(w *wr) { w.u64(idA0).u64(17) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.Lost{RecordCommon: c, LostID: idA0, Lost: 17}
		})
	kernel(decode.RecordTypeComm, decode.MiscCommExec, func(w *wr) { w.u32(21).u32(22).str("prog", 8) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.Comm{RecordCommon: withPID(c, 21, 22), Comm: "prog"}
		})
	var exitTime, forkTime uint64
	kernel(decode.RecordTypeExit, 0, func(w *wr) { exitTime = t; w.u32(21).u32(20).u32(22).u32(20).u64(t) },
		func(c decode.RecordCommon) decode.Record {
			c = withPID(c, 21, 22)
			c.Time = exitTime
			return &decode.Exit{RecordCommon: c, PPID: 20, PTID: 20}
		})
	kernel(decode.RecordTypeThrottle, 0, func(w *wr) { w.u64(5).u64(idA0).u64(sidStream) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.Throttle{RecordCommon: c, BodyTime: 5, BodyID: idA0, BodyStreamID: sidStream}
		})
	kernel(decode.RecordTypeUnthrottle, 0, func(w *wr) { w.u64(6).u64(idA0).u64(sidStream) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.Throttle{RecordCommon: c, Unthrottle: true, BodyTime: 6, BodyID: idA0, BodyStreamID: sidStream}
		})
	kernel(decode.RecordTypeFork, 0, func(w *wr) { forkTime = t; w.u32(23).u32(21).u32(24).u32(22).u64(t) },
		func(c decode.RecordCommon) decode.Record {
			c = withPID(c, 23, 24)
			c.Time = forkTime
			return &decode.Fork{RecordCommon: c, PPID: 21, PTID: 22}
		})
	kernel(decode.RecordTypeRead, 0, func(w *wr) {
		w.u32(21).u32(22).u64(1).u64(10).u64(9).u64(5).u64(idA0).u64(0)
	}, func(c decode.RecordCommon) decode.Record {
		return &decode.Read{RecordCommon: withPID(c, 21, 22), Values: decode.ReadValues{TimeEnabled: 10, TimeRunning: 9,
			Values: []decode.ReadValue{{Value: 5, ID: idA0}}}}
	})
	kernel(decode.RecordTypeAux, 0, func(w *wr) { w.u64(0x100).u64(0x200).u64(1) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.Aux{RecordCommon: c, AuxOffset: 0x100, AuxSize: 0x200, Flags: 1}
		})
	kernel(decode.RecordTypeItraceStart, 0, func(w *wr) { w.u32(21).u32(22) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.ItraceStart{RecordCommon: withPID(c, 21, 22)}
		})
	kernel(decode.RecordTypeLostSamples, 0, func(w *wr) { w.u64(3) },
		func(c decode.RecordCommon) decode.Record { return &decode.LostSamples{RecordCommon: c, Lost: 3} })
	kernel(decode.RecordTypeSwitch, decode.MiscSwitchOut, func(w *wr) {},
		func(c decode.RecordCommon) decode.Record { return &decode.Switch{RecordCommon: c} })
	kernel(decode.RecordTypeSwitchCPUWide, 0, func(w *wr) { w.u32(41).u32(42) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.Switch{RecordCommon: c, CPUWide: true, NextPrevPID: 41, NextPrevTID: 42}
		})
	kernel(decode.RecordTypeNamespaces, 0, func(w *wr) { w.u32(21).u32(22).u64(2).u64(1).u64(2).u64(3).u64(4) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.Namespaces{RecordCommon: withPID(c, 21, 22), Namespaces: []decode.NamespaceLink{{1, 2}, {3, 4}}}
		})
	kernel(decode.RecordTypeKsymbol, 0, func(w *wr) { w.u64(0xffffffffc0000000).u32(0x100).u16(1).u16(0).str("bpf_prog_x", 8) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.Ksymbol{RecordCommon: c, Addr: 0xffffffffc0000000, Len: 0x100, KsymType: 1, Name: "bpf_prog_x"}
		})
	kernel(decode.RecordTypeBPFEvent, 0, func(w *wr) { w.u16(1).u16(0).u32(42).raw([]byte("tagtagta")) },
		func(c decode.RecordCommon) decode.Record {
			r := &decode.BPFEvent{RecordCommon: c, EventType: 1, ProgID: 42}
			copy(r.Tag[:], "tagtagta")
			return r
		})
	kernel(decode.RecordTypeCgroup, 0, func(w *wr) { w.u64(99).str("/sys/fs/cgroup/x", 8) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.Cgroup{RecordCommon: c, CgroupID: 99, Path: "/sys/fs/cgroup/x"}
		})
	kernel(decode.RecordTypeTextPoke, 0, func(w *wr) { w.u64(0xffffffff81000000).u16(2).u16(3).raw([]byte{1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0}) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.TextPoke{RecordCommon: c, Addr: 0xffffffff81000000, OldBytes: []byte{1, 2}, NewBytes: []byte{3, 4, 5}}
		})
	kernel(decode.RecordTypeAuxOutputHWID, 0, func(w *wr) { w.u64(12) },
		func(c decode.RecordCommon) decode.Record { return &decode.AuxOutputHWID{RecordCommon: c, HWID: 12} })
	// CALLCHAIN_DEFERRED: seed, final and v16 layouts.
	kernel(decode.RecordTypeCallchainDeferred, 2, func(w *wr) { w.u64(3).u64(decode.ContextUser).u64(0x401000).u64(0x401100) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.CallchainDeferred{RecordCommon: c, ABI: decode.DeferredSeed, IPs: []uint64{0x401000, 0x401100}}
		})
	kernel(decode.RecordTypeCallchainDeferred, 2, func(w *wr) { w.u64(0xb00000006).u64(3).u64(0x401000).u64(0x401100).u64(0x401200) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.CallchainDeferred{RecordCommon: c, ABI: decode.DeferredCookie, Cookie: 0xb00000006,
				IPs: []uint64{0x401000, 0x401100, 0x401200}}
		})
	kernel(decode.RecordTypeCallchainDeferred, 2, func(w *wr) { w.u64(0xc00000006).u64(2).u64(decode.ContextUser).u64(0x401000) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.CallchainDeferred{RecordCommon: c, ABI: decode.DeferredCookie, Cookie: 0xc00000006,
				IPs: []uint64{0x401000}}
		})
	kernel(decode.RecordTypeCallchainDeferred, 2, func(w *wr) { w.u64(0xd00000006).u64(0) },
		func(c decode.RecordCommon) decode.Record {
			return &decode.CallchainDeferred{RecordCommon: c, ABI: decode.DeferredCookie, Cookie: 0xd00000006, IPs: []uint64{}}
		})
	// An unknown kernel type keeps its bytes (trailer included).
	{
		body := (&wr{bo: bo}).u64(1).u64(2).b
		raw := rec(bo, 40, 0, body)
		add(raw, &decode.Unknown{RecordCommon: decode.RecordCommon{Size: uint16(len(raw)), PID: -1, TID: -1,
			TrailerPID: -1, TrailerTID: -1},
			RecType: 40, Data: body})
	}

	// perf-tool records.
	toolRec := func(typ decode.RecordType, misc uint16, body []byte, extra []byte, want func(c decode.RecordCommon) decode.Record) {
		raw := rec(bo, typ, misc, body)
		add(append(raw, extra...), want(tool(misc, len(raw))))
	}
	w := func() *wr { return &wr{bo: bo} }
	toolRec(decode.RecordTypeHeaderEventType, 0, w().u64(7).fixed("old-event", 64).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.HeaderEventType{RecordCommon: c, EventID: 7, Name: "old-event"}
		})
	toolRec(decode.RecordTypeHeaderTracingData, 0, w().u32(5).u32(0).b, []byte("trace\x00\x00\x00"[:5]),
		func(c decode.RecordCommon) decode.Record {
			return &decode.TracingData{RecordCommon: c, Data: []byte("trace")}
		})
	toolRec(decode.RecordTypeHeaderBuildID, 0x8002, w().i32(-1).raw(bytes.Repeat([]byte{0x11}, 20)).u8(20).raw([]byte{0, 0, 0}).fixed("/bin/prog", 64).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.HeaderBuildID{RecordCommon: c, BuildPID: -1, BuildID: bytes.Repeat([]byte{0x11}, 20), Filename: "/bin/prog"}
		})
	toolRec(decode.RecordTypeIDIndex, 0, w().u64(1).u64(idA1).u64(0).u64(1).u64(math.MaxUint64).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.IDIndex{RecordCommon: c, Entries: []decode.IDIndexEntry{{ID: idA1, Idx: 0, CPU: 1, TID: math.MaxUint64}}}
		})
	toolRec(decode.RecordTypeAuxtraceInfo, 0, w().u32(8).u32(0).u64(1).u64(2).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.AuxtraceInfo{RecordCommon: c, AuxType: 8, Priv: []uint64{1, 2}}
		})
	{
		raw := rec(bo, decode.RecordTypeAuxtrace, 0, w().u64(16).u64(0x40).u64(0x99).u32(1).u32(22).u32(1).u32(0).b)
		add(append(raw, bytes.Repeat([]byte{0xaa}, 16)...), &decode.Auxtrace{RecordCommon: tool(0, len(raw)),
			AuxSize: 16, AuxOffset: 0x40, Reference: 0x99, Idx: 1, AuxTID: 22, AuxCPU: 1})
	}
	toolRec(decode.RecordTypeAuxtraceError, 0, w().u32(1).u32(2).u32(1).u32(21).u32(22).u32(1).u64(0x401000).u64(123).fixed("decoder error", 64).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.AuxtraceError{RecordCommon: c, ErrType: 1, Code: 2, ErrCPU: 1, ErrPID: 21, ErrTID: 22, Fmt: 1,
				IP: 0x401000, ErrTime: 123, Msg: "decoder error"}
		})
	toolRec(decode.RecordTypeThreadMap, 0, w().u64(2).u64(21).fixed("prog", 16).u64(22).fixed("worker", 16).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.ThreadMap{RecordCommon: c, Threads: []decode.ThreadMapEntry{{21, "prog"}, {22, "worker"}}}
		})
	toolRec(decode.RecordTypeCPUMap, 0, w().u16(0).u16(3).u16(0).u16(2).u16(0xffff).u16(0).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.CPUMap{RecordCommon: c, CPUs: []uint32{0, 2}, AnyCPU: true}
		})
	toolRec(decode.RecordTypeCPUMap, 0, w().u16(1).u16(1).u16(8).u32(0).u64(0b1010).u16(0).u32(0).u16(0).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.CPUMap{RecordCommon: c, CPUs: []uint32{1, 3}}
		})
	toolRec(decode.RecordTypeCPUMap, 0, w().u16(2).u8(1).u8(0).u16(4).u16(6).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.CPUMap{RecordCommon: c, CPUs: []uint32{4, 5, 6}, AnyCPU: true}
		})
	toolRec(decode.RecordTypeStatConfig, 0, w().u64(1).u64(0).u64(2).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.StatConfig{RecordCommon: c, Config: []decode.StatConfigEntry{{0, 2}}}
		})
	toolRec(decode.RecordTypeStat, 0, w().u64(idA0).u32(1).u32(0).u64(10).u64(20).u64(30).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.Stat{RecordCommon: c, StatID: idA0, StatCPU: 1, Val: 10, Ena: 20, Run: 30}
		})
	toolRec(decode.RecordTypeStatRound, 0, w().u64(1).u64(555).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.StatRound{RecordCommon: c, RoundType: 1, RoundTime: 555}
		})
	toolRec(decode.RecordTypeEventUpdate, 0, w().u64(0).u64(idA0).str("msec", 8).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.EventUpdate{RecordCommon: c, UpdateType: 0, EventID: idA0, Unit: "msec"}
		})
	toolRec(decode.RecordTypeEventUpdate, 0, w().u64(1).u64(idA0).u64(math.Float64bits(0.5)).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.EventUpdate{RecordCommon: c, UpdateType: 1, EventID: idA0, Scale: 0.5}
		})
	toolRec(decode.RecordTypeEventUpdate, 0, w().u64(3).u64(idA0).u16(0).u16(2).u16(0).u16(1).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.EventUpdate{RecordCommon: c, UpdateType: 3, EventID: idA0, CPUs: []uint32{0, 1}}
		})
	toolRec(decode.RecordTypeTimeConv, 0, w().u64(10).u64(20).u64(30).u64(40).u64(50).u8(1).u8(1).raw(make([]byte, 6)).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.TimeConv{RecordCommon: c, TimeShift: 10, TimeMult: 20, TimeZero: 30, TimeCycles: 40, TimeMask: 50,
				CapUserTimeZero: true, CapUserTimeShort: true}
		})
	toolRec(decode.RecordTypeFinishedInit, 0, nil, nil,
		func(c decode.RecordCommon) decode.Record { return &decode.FinishedInit{RecordCommon: c} })
	{
		bw := w().fixed("prog_x", 512).u64(1).fixed("key", 64).fixed("value", 256)
		toolRec(decode.RecordTypeBPFMetadata, 0, bw.b, nil,
			func(c decode.RecordCommon) decode.Record {
				return &decode.BPFMetadata{RecordCommon: c, ProgName: "prog_x", Entries: []decode.BPFMetadataEntry{{"key", "value"}}}
			})
	}
	toolRec(90, 0, w().u64(1).b, nil,
		func(c decode.RecordCommon) decode.Record {
			return &decode.Unknown{RecordCommon: c, RecType: 90, Data: w().u64(1).b}
		})
	toolRec(decode.RecordTypeFinishedRound, 0, nil, nil,
		func(c decode.RecordCommon) decode.Record { return &decode.FinishedRound{RecordCommon: c} })
	return out
}

// features are the feature sections of the synthetic file.
func features(bo byteOrder) ([]tFeature, decode.Meta) {
	w := func() *wr { return &wr{bo: bo} }
	bid := w().u32(uint32(decode.RecordTypeHeaderBuildID)).u16(0x8001).u16(8+4+24+64).i32(-1).
		raw(bytes.Repeat([]byte{0x22}, 20)).u8(20).raw([]byte{0, 0, 0}).fixed("[kernel.kallsyms]", 64).b
	evdesc := w().u32(1).u32(128).raw(encAttr(bo, attrB)).u32(1).pstr("insn-custom").u64(idB).b
	topo := w().u32(1).pstr("0-1").u32(2).pstr("0").pstr("1").u32(0).u32(0).u32(1).u32(0).b
	feats := []tFeature{
		{decode.FeatureBuildID, bid},
		{decode.FeatureHostname, w().pstr("host").b},
		{decode.FeatureOSRelease, w().pstr("6.18.44").b},
		{decode.FeatureVersion, w().pstr("6.1.187").b},
		{decode.FeatureArch, w().pstr("x86_64").b},
		{decode.FeatureNrCPUs, w().u32(2).u32(2).b},
		{decode.FeatureCPUDesc, w().pstr("AMD EPYC").b},
		{decode.FeatureCPUID, w().pstr("AuthenticAMD,26,2,1").b},
		{decode.FeatureTotalMem, w().u64(24683652).b},
		{decode.FeatureCmdline, w().u32(3).pstr("/usr/bin/perf").pstr("record").pstr("-g").b},
		{decode.FeatureEventDesc, evdesc},
		{decode.FeatureCPUTopology, topo},
		{decode.FeaturePMUMappings, w().u32(1).u32(1).pstr("software").b},
		{decode.FeatureGroupDesc, w().u32(1).pstr("{cpu-clock,insn}").u32(0).u32(2).b},
		{decode.FeatureSampleTime, w().u64(5).u64(6).b},
		{decode.FeatureClockID, w().u64(1).b},
		{decode.FeatureClockData, w().u32(1).u32(1).u64(1700000000000000000).u64(123456).b},
		{decode.FeatureCompressed, w().u32(0).u32(1).u32(1).u32(2).u32(528384).b},
		{decode.FeatureCache, w().u32(1).u32(0).b},
	}
	var descAttr = *wantAttr(attrB, 0, "insn-custom")
	descAttr.IDs = []uint64{idB}
	meta := decode.Meta{
		Features: []decode.Feature{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 20, 21, 23, 27, 29},
		BuildIDs: []decode.BuildID{{CPUMode: decode.CPUModeKernel, PID: -1, ID: bytes.Repeat([]byte{0x22}, 20),
			Filename: "[kernel.kallsyms]"}},
		Hostname: "host", OSRelease: "6.18.44", Version: "6.1.187", Arch: "x86_64",
		NrCPUsAvail: 2, NrCPUsOnline: 2, CPUDesc: "AMD EPYC", CPUID: "AuthenticAMD,26,2,1", TotalMem: 24683652,
		Cmdline:   []string{"/usr/bin/perf", "record", "-g"},
		EventDesc: []decode.EventDesc{{Attr: descAttr, Name: "insn-custom", IDs: []uint64{idB}}},
		CPUTopology: &decode.CPUTopology{CoreSiblings: []string{"0-1"}, ThreadSiblings: []string{"0", "1"},
			CoreID: []uint32{0, 1}, SocketID: []uint32{0, 0}},
		PMUMappings: map[uint32]string{1: "software"},
		PMUOrder:    []uint32{1},
		GroupDesc:   []decode.GroupDesc{{Name: "{cpu-clock,insn}", LeaderIdx: 0, NrMembers: 2}},
		SampleTime:  &decode.SampleTimeRange{First: 5, Last: 6},
		ClockIDRes:  1, HasClockID: true,
		ClockData:  &decode.ClockData{Version: 1, ClockID: 1, WallClockNS: 1700000000000000000, ClockIDTimeNS: 123456},
		Compressed: &decode.CompressedInfo{Version: 0, Type: 1, Level: 1, Ratio: 2, MmapLen: 528384},
		Raw:        map[decode.Feature][]byte{decode.FeatureCache: w().u32(1).u32(0).b},
	}
	return feats, meta
}

// normalize clears what the expected values do not predict: offsets
// (checked separately) and the EventAttr's IDs grown by ID_INDEX.
func normalize(r decode.Record) decode.Record {
	r = r.Clone()
	c := r.Common()
	if a, ok := r.(*decode.Auxtrace); ok {
		if a.DataOffset != c.Offset+int64(c.Size) {
			a.DataOffset = -1 // reported as a difference
		} else {
			a.DataOffset = 0
		}
	}
	c.Offset, c.InnerOffset = 0, 0
	return r
}

func TestRoundTrip(t *testing.T) {
	for _, bo := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, mode := range []string{"file", "pipe", "file+zstd", "file+zstd2", "pipe+zstd2"} {
			t.Run(bo.String()+"/"+mode, func(t *testing.T) {
				a := wantAttr(attrA, 0, "cpu-clock:ppH")
				b := wantAttr(attrB, 1, "insn-custom")
				// ID_INDEX adds idA1 again (already known): no change.
				its := items(bo, a, b)
				feats, meta := features(bo)
				pf := &perfFile{bo: bo, attrs: []tAttr{attrA, attrB}, features: feats}
				for _, it := range its {
					pf.recs = append(pf.recs, it.b)
				}
				switch mode {
				case "file+zstd":
					pf.recs = compress(t, bo, pf.recs, false, 5)
				case "file+zstd2", "pipe+zstd2":
					pf.recs = compress(t, bo, pf.recs, true, 7)
				}
				var raw []byte
				if mode[:4] == "pipe" {
					raw = pf.pipe()
				} else {
					raw = pf.file()
				}
				f, err := decode.NewFile(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				rs := f.Records(decode.FileOrder)
				var got []decode.Record
				var offsets []int64
				lastInner := int64(-1)
				for rs.Next() {
					r := rs.Record()
					switch r.Type() {
					case decode.RecordTypeHeaderAttr, decode.RecordTypeHeaderFeature,
						decode.RecordTypeCompressed, decode.RecordTypeCompressed2:
						continue
					}
					offsets = append(offsets, r.Common().Offset)
					if in := r.Common().InnerOffset; in >= 0 {
						if in <= lastInner || mode == "file" || mode == "pipe" {
							t.Errorf("record %s: inner offset %d after %d", r.Type(), in, lastInner)
						}
						lastInner = in
					}
					got = append(got, normalize(r))
				}
				if err := rs.Err(); err != nil {
					t.Fatal(err)
				}
				if st := rs.Stats(); len(st.Warnings) > 0 {
					t.Errorf("warnings: %v", st.Warnings)
				}
				if len(got) != len(its) {
					t.Fatalf("%d records, want %d", len(got), len(its))
				}
				for i, it := range its {
					if d := cmp.Diff(it.want, got[i], cmpopts.EquateEmpty()); d != "" {
						t.Errorf("record %d (%s) (-want +got):\n%s", i, it.want.Type(), d)
					}
				}
				if d := cmp.Diff([]*decode.EventAttr{a, b}, f.Attrs); d != "" {
					t.Errorf("attrs (-want +got):\n%s", d)
				}
				if f.EventByID(idA1) != f.Attrs[0] || f.EventByID(idB) != f.Attrs[1] || f.EventByID(12345) != nil {
					t.Errorf("EventByID maps ids wrongly")
				}
				if d := cmp.Diff(meta, f.Meta, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("meta (-want +got):\n%s", d)
				}
				if mode == "file" {
					for i := 1; i < len(offsets); i++ {
						if offsets[i] <= offsets[i-1] {
							t.Fatalf("offsets not ascending at %d: %v", i, offsets)
						}
					}
				}
			})
		}
	}
}

// TestCompressedSplitBlocks cuts one zstd stream into containers at
// arbitrary byte positions, not at flush points (perf does this when a
// flush does not fit one record): a block then straddles adjacent
// containers and the decoder must pull the next one mid-block.
func TestCompressedSplitBlocks(t *testing.T) {
	bo := byteOrder(binary.LittleEndian)
	a := wantAttr(attrA, 0, "cpu-clock:ppH")
	b := wantAttr(attrB, 1, "instructions:u")
	its := items(bo, a, b)
	var kernel []item
	var raw bytes.Buffer
	for _, it := range its {
		if bo.Uint32(it.b) < 64 {
			kernel = append(kernel, it)
			raw.Write(it.b)
		}
	}
	var z bytes.Buffer
	enc, err := zstd.NewWriter(&z, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(512<<10))
	if err != nil {
		t.Fatal(err)
	}
	enc.Write(raw.Bytes())
	enc.Flush()
	payload := z.Bytes()
	for _, piece := range []int{1, 7, 100, 333} {
		for _, v2 := range []bool{false, true} {
			t.Run(fmt.Sprintf("piece%d/v2=%v", piece, v2), func(t *testing.T) {
				var recs [][]byte
				for off := 0; off < len(payload); off += piece {
					p := payload[off:min(off+piece, len(payload))]
					if v2 {
						w := &wr{bo: bo}
						w.u64(uint64(len(p))).raw(p)
						for len(w.b)%8 != 0 {
							w.u8(0)
						}
						recs = append(recs, rec(bo, decode.RecordTypeCompressed2, 0, w.b))
					} else {
						recs = append(recs, rec(bo, decode.RecordTypeCompressed, 0, p))
					}
				}
				recs = append(recs, rec(bo, decode.RecordTypeFinishedRound, 0, nil))
				pf := &perfFile{bo: bo, attrs: []tAttr{attrA, attrB}, recs: recs}
				f, err := decode.NewFile(bytes.NewReader(pf.file()))
				if err != nil {
					t.Fatal(err)
				}
				rs := f.Records(decode.FileOrder)
				var got []decode.Record
				containers := 0
				for rs.Next() {
					switch rs.Record().Type() {
					case decode.RecordTypeCompressed, decode.RecordTypeCompressed2:
						containers++
						continue
					case decode.RecordTypeFinishedRound:
						continue
					}
					got = append(got, normalize(rs.Record()))
				}
				if err := rs.Err(); err != nil {
					t.Fatal(err)
				}
				if st := rs.Stats(); st.WarningCount > 0 {
					t.Fatalf("warnings: %v", st.Warnings)
				}
				if containers != len(recs)-1 {
					t.Errorf("%d containers delivered, %d written", containers, len(recs)-1)
				}
				if len(got) != len(kernel) {
					t.Fatalf("%d records, want %d", len(got), len(kernel))
				}
				for i, it := range kernel {
					if d := cmp.Diff(it.want, got[i], cmpopts.EquateEmpty()); d != "" {
						t.Errorf("record %d (%s) (-want +got):\n%s", i, it.want.Type(), d)
					}
				}
				// Time order delivers the same records.
				f, _ = decode.NewFile(bytes.NewReader(pf.file()))
				rs = f.Records(decode.TimeOrder)
				n := 0
				for rs.Next() {
					n++
				}
				if want := len(recs) + len(kernel); rs.Err() != nil || n != want {
					t.Errorf("time order: %d records, want %d (err %v)", n, want, rs.Err())
				}
			})
		}
	}
}
