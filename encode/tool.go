package encode

import (
	"github.com/perfstitch/perfstitch/decode"
)

// nameAlign is perf's NAME_ALIGN: strings in features and HEADER_BUILD_ID
// records are padded to a multiple of 64 bytes.
const nameAlign = 64

// appendToolBody appends the body of a perf-tool record (type 64 and up)
// and returns the bytes that follow the record outside header.size. The
// record families are those of decode's parser.
func appendToolBody(b *Builder, start int, r decode.Record) ([]byte, error) {
	switch r.(type) {
	case *decode.HeaderAttr, *decode.HeaderEventType, *decode.TracingData, *decode.HeaderBuildID,
		*decode.HeaderFeature, *decode.IDIndex:
		return appendHeaderBody(b, r)
	case *decode.FinishedRound, *decode.FinishedInit, *decode.TimeConv, *decode.Compressed,
		*decode.BPFMetadata:
		appendSessionBody(b, start, r)
		return nil, nil
	case *decode.AuxtraceInfo, *decode.Auxtrace, *decode.AuxtraceError:
		return nil, appendAuxtraceBody(b, r)
	case *decode.ThreadMap, *decode.CPUMap, *decode.StatConfig, *decode.Stat, *decode.StatRound,
		*decode.EventUpdate:
		return nil, appendStatBody(b, start, r)
	}
	return nil, unencodable(r.Type(), "no perf-tool layout for %T", r)
}

// appendHeaderBody appends the body of a record that stands for the file
// header in pipe mode, and the tracing data that follows the record.
func appendHeaderBody(b *Builder, r decode.Record) ([]byte, error) {
	switch r := r.(type) {
	case *decode.HeaderAttr:
		if r.Attr == nil {
			return nil, unencodable(r.Type(), "no attr")
		}
		b.B = AppendAttr(b.B, b.order(), r.Attr)
		for _, id := range r.Attr.IDs {
			b.U64(id)
		}
	case *decode.HeaderEventType:
		b.U64(r.EventID).Fixed(r.Name, 64)
	case *decode.TracingData:
		n := len(r.Data) + padLen(len(r.Data), 8)
		b.U32(uint32(n)).U32(0)
		extra := make([]byte, n)
		copy(extra, r.Data)
		return extra, nil
	case *decode.HeaderBuildID:
		appendBuildIDBody(b, r.Misc, r.BuildPID, r.BuildID, r.Filename)
	case *decode.HeaderFeature:
		b.U64(uint64(r.Feature)).Bytes(r.Data)
	case *decode.IDIndex:
		b.U64(uint64(len(r.Entries)))
		ext := int(r.Size) >= 16+48*len(r.Entries) && len(r.Entries) > 0
		for _, e := range r.Entries {
			b.U64(e.ID).U64(e.Idx).U64(e.CPU).U64(e.TID)
			ext = ext || e.MachinePID != 0 || e.VCPU != 0
		}
		if ext {
			for _, e := range r.Entries {
				b.U64(e.MachinePID).U64(e.VCPU)
			}
		}
	}
	return nil, nil
}

// appendSessionBody appends the body of a record about the session:
// round and init markers, the time conversion, compressed containers and
// BPF metadata.
func appendSessionBody(b *Builder, start int, r decode.Record) {
	switch r := r.(type) {
	case *decode.TimeConv:
		b.U64(r.TimeShift).U64(r.TimeMult).U64(r.TimeZero)
		if r.Size >= 56 || r.TimeCycles != 0 || r.TimeMask != 0 || r.CapUserTimeZero || r.CapUserTimeShort {
			b.U64(r.TimeCycles).U64(r.TimeMask).U8(b2u8(r.CapUserTimeZero)).U8(b2u8(r.CapUserTimeShort)).Zeros(6)
		}
	case *decode.Compressed:
		if r.V2 {
			b.U64(uint64(len(r.Data))).Bytes(r.Data)
			padRecord(b, start)
		} else {
			b.Bytes(r.Data)
		}
	case *decode.BPFMetadata:
		b.Fixed(r.ProgName, 512).U64(uint64(len(r.Entries)))
		for _, e := range r.Entries {
			b.Fixed(e.Key, 64).Fixed(e.Value, 256)
		}
	}
	// FINISHED_ROUND and FINISHED_INIT have no body.
}

// appendAuxtraceBody appends the body of an AUX area tracing record.
func appendAuxtraceBody(b *Builder, r decode.Record) error {
	switch r := r.(type) {
	case *decode.AuxtraceInfo:
		b.U32(r.AuxType).U32(0)
		for _, v := range r.Priv {
			b.U64(v)
		}
	case *decode.Auxtrace:
		if r.AuxSize != 0 {
			return unencodable(r.Type(), "%d bytes of AUX data are not available", r.AuxSize)
		}
		b.U64(r.AuxSize).U64(r.AuxOffset).U64(r.Reference).U32(r.Idx).U32(r.AuxTID).U32(r.AuxCPU).U32(0)
	case *decode.AuxtraceError:
		b.U32(r.ErrType).U32(r.Code).U32(r.ErrCPU).U32(r.ErrPID).U32(r.ErrTID).U32(r.Fmt)
		b.U64(r.IP).U64(r.ErrTime).Fixed(r.Msg, 64).U32(0).U32(0) // machine_pid, vcpu
	}
	return nil
}

// appendStatBody appends the body of a perf stat record or an
// EVENT_UPDATE.
func appendStatBody(b *Builder, start int, r decode.Record) error {
	switch r := r.(type) {
	case *decode.ThreadMap:
		b.U64(uint64(len(r.Threads)))
		for _, t := range r.Threads {
			b.U64(t.PID).Fixed(t.Comm, 16)
		}
	case *decode.CPUMap:
		if err := appendCPUMapData(b, r.Type(), r.CPUs, r.AnyCPU); err != nil {
			return err
		}
		padRecord(b, start)
	case *decode.StatConfig:
		b.U64(uint64(len(r.Config)))
		for _, e := range r.Config {
			b.U64(e.Tag).U64(e.Val)
		}
	case *decode.Stat:
		b.U64(r.StatID).U32(r.StatCPU).U32(r.Thread).U64(r.Val).U64(r.Ena).U64(r.Run)
	case *decode.StatRound:
		b.U64(r.RoundType).U64(r.RoundTime)
	case *decode.EventUpdate:
		b.U64(r.UpdateType).U64(r.EventID)
		switch r.UpdateType {
		case 0:
			b.CString(r.Unit, 1)
		case 1:
			b.F64(r.Scale)
		case 2:
			b.CString(r.Name, 1)
		case 3:
			if err := appendCPUMapData(b, r.Type(), r.CPUs, false); err != nil {
				return err
			}
		default:
			return unencodable(r.Type(), "update type %d has no layout", r.UpdateType)
		}
		padRecord(b, start)
	}
	return nil
}

func b2u8(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}

// appendBuildIDBody appends the body of a perf_record_header_build_id: pid,
// the 24-byte id field (with misc bit 15: up to 20 id bytes, the size byte
// and 3 reserved bytes; else the id zero-padded) and the filename padded to
// a multiple of 64 bytes.
func appendBuildIDBody(b *Builder, misc uint16, pid int32, id []byte, filename string) {
	b.I32(pid)
	if len(id) > 20 {
		id = id[:20]
	}
	b.Bytes(id).Zeros(20 - len(id))
	if misc&decode.MiscBuildIDSize != 0 {
		b.U8(uint8(len(id))).Zeros(3)
	} else {
		b.Zeros(4)
	}
	b.CString(filename, nameAlign)
}

// appendCPUMapData appends struct perf_record_cpu_map_data in the CPUS-list
// form every perf reads (type 0: u16 nr, u16 cpu[nr]); the "any CPU" (-1)
// is the entry 0xffff, first as in perf's sorted maps.
func appendCPUMapData(b *Builder, typ decode.RecordType, cpus []uint32, anyCPU bool) error {
	n := len(cpus)
	if anyCPU {
		n++
	}
	if n > 0xffff {
		return unencodable(typ, "%d CPUs in a cpu map", n)
	}
	b.U16(0).U16(uint16(n))
	if anyCPU {
		b.U16(0xffff)
	}
	for _, c := range cpus {
		if c >= 0xffff {
			return unencodable(typ, "CPU %d does not fit a u16 cpu map entry", c)
		}
		b.U16(uint16(c))
	}
	return nil
}
