package encode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/perfstitch/perfstitch/decode"
)

// ErrUnencodable is wrapped by errors for records or attrs that cannot be
// laid out (a sample_type bit beyond PERF_SAMPLE_MAX, a field whose length
// contradicts the attr, a record longer than 64 KiB, ...).
var ErrUnencodable = errors.New("record cannot be encoded")

func unencodable(typ decode.RecordType, format string, args ...any) error {
	return fmt.Errorf("%v record: %s: %w", typ, fmt.Sprintf(format, args...), ErrUnencodable)
}

// AppendRecord appends r, header included, in the given byte order (nil:
// little-endian) and returns the extended slice. header.size is computed;
// the record's Size and Offset fields are ignored.
//
// attr is the event whose layout applies: its sample_type, read_format,
// branch_sample_type and register masks lay out SAMPLE and READ records,
// and with sample_id_all set every other kernel record (types 1-22) gets a
// sample_id trailer built from r's RecordCommon: PID/TID (TrailerPID and
// TrailerTID for records whose body names a task: MMAP, MMAP2, COMM, FORK,
// EXIT, READ, ITRACE_START, NAMESPACES), Time (TrailerTime for FORK and
// EXIT, whose Time is the body's), ID, StreamID, CPU. attr may be nil for records that need no layout.
// Perf-tool records (types 64 and up) ignore it.
//
// Strings are NUL-terminated and zero-padded as perf and the kernel write
// them. Two record types carry bytes outside header.size: TracingData is
// followed by its Data (padded to 8 bytes), and an Auxtrace record can only
// be written with AuxSize 0, since the decoder does not keep AUX data.
func AppendRecord(dst []byte, order binary.ByteOrder, r decode.Record, attr *decode.EventAttr) ([]byte, error) {
	if order == nil {
		order = binary.LittleEndian
	}
	start := len(dst)
	b := Builder{Order: order, B: dst}
	c := r.Common()
	typ := r.Type()
	b.Header(typ, c.Misc, 0)

	var extra []byte // bytes after the record, outside header.size
	var err error
	switch r := r.(type) {
	case *decode.Sample:
		err = appendSample(&b, r, attr)
	case *decode.Unknown:
		b.Bytes(r.Data)
	default:
		if typ < 64 {
			err = appendKernelBody(&b, start, r, attr)
			if err == nil && attr != nil && attr.SampleIDAll() {
				b.Zeros(padLen(len(b.B)-start, 8))
				appendTrailer(&b, r, attr.SampleType)
			}
		} else {
			extra, err = appendToolBody(&b, start, r)
		}
	}
	if err != nil {
		return dst, err
	}
	size := len(b.B) - start
	if size > 0xffff {
		return dst, unencodable(typ, "%d bytes do not fit header.size", size)
	}
	order.PutUint16(b.B[start+6:], uint16(size))
	return append(b.B, extra...), nil
}

// hasTaskBody reports whether records of typ carry a pid/tid in their body,
// so that the trailer's pid/tid are RecordCommon.TrailerPID/TrailerTID.
func hasTaskBody(typ decode.RecordType) bool {
	switch typ {
	case decode.RecordTypeMmap, decode.RecordTypeMmap2, decode.RecordTypeComm,
		decode.RecordTypeFork, decode.RecordTypeExit, decode.RecordTypeRead,
		decode.RecordTypeItraceStart, decode.RecordTypeNamespaces:
		return true
	}
	return false
}

// appendTrailer appends the sample_id trailer of a non-sample kernel record.
func appendTrailer(b *Builder, r decode.Record, st decode.SampleFormat) {
	c := r.Common()
	pid, tid, time := c.PID, c.TID, c.Time
	if hasTaskBody(r.Type()) {
		pid, tid = c.TrailerPID, c.TrailerTID
	}
	if t := r.Type(); t == decode.RecordTypeFork || t == decode.RecordTypeExit {
		time = c.TrailerTime
	}
	if st&decode.SampleTID != 0 {
		b.I32(pid).I32(tid)
	}
	if st&decode.SampleTime != 0 {
		b.U64(time)
	}
	if st&decode.SampleID != 0 {
		b.U64(c.ID)
	}
	if st&decode.SampleStreamID != 0 {
		b.U64(c.StreamID)
	}
	if st&decode.SampleCPU != 0 {
		b.U32(c.CPU).U32(0)
	}
	if st&decode.SampleIdentifier != 0 {
		b.U64(c.ID)
	}
}

// padRecord pads the record that starts at start to a multiple of 8 bytes.
func padRecord(b *Builder, start int) { b.Zeros(padLen(len(b.B)-start, 8)) }

// appendReadValues appends a read_format block.
func appendReadValues(b *Builder, typ decode.RecordType, rf decode.ReadFormat, rv *decode.ReadValues) error {
	if rf&decode.ReadFormatGroup == 0 && len(rv.Values) != 1 {
		return unencodable(typ, "read_format without GROUP needs 1 value, have %d", len(rv.Values))
	}
	if rf&decode.ReadFormatGroup != 0 {
		b.U64(uint64(len(rv.Values)))
	} else {
		b.U64(rv.Values[0].Value)
	}
	if rf&decode.ReadFormatTotalTimeEnabled != 0 {
		b.U64(rv.TimeEnabled)
	}
	if rf&decode.ReadFormatTotalTimeRunning != 0 {
		b.U64(rv.TimeRunning)
	}
	for i, v := range rv.Values {
		if rf&decode.ReadFormatGroup != 0 {
			b.U64(v.Value)
		} else if i > 0 {
			break
		}
		if rf&decode.ReadFormatID != 0 {
			b.U64(v.ID)
		}
		if rf&decode.ReadFormatLost != 0 {
			b.U64(v.Lost)
		}
	}
	return nil
}

func appendKernelBody(b *Builder, start int, r decode.Record, attr *decode.EventAttr) error {
	switch r := r.(type) {
	case *decode.Mmap:
		b.I32(r.PID).I32(r.TID).U64(r.Addr).U64(r.Len).U64(r.Pgoff)
		if r.V2 {
			if r.Misc&decode.MiscMmapBuildID != 0 {
				id := r.BuildID
				if len(id) > 20 {
					return unencodable(r.Type(), "build id of %d bytes (at most 20)", len(id))
				}
				b.U8(uint8(len(id))).U8(0).U16(0).Bytes(id).Zeros(20 - len(id))
			} else {
				b.U32(r.Maj).U32(r.Min).U64(r.Ino).U64(r.InoGeneration)
			}
			b.U32(r.Prot).U32(r.Flags)
		}
		b.CString(r.Filename, 1)
		padRecord(b, start)
	case *decode.Comm:
		b.I32(r.PID).I32(r.TID).CString(r.Comm, 1)
		padRecord(b, start)
	case *decode.Fork:
		b.I32(r.PID).I32(r.PPID).I32(r.TID).I32(r.PTID).U64(r.Time)
	case *decode.Exit:
		b.I32(r.PID).I32(r.PPID).I32(r.TID).I32(r.PTID).U64(r.Time)
	case *decode.Lost:
		b.U64(r.LostID).U64(r.Lost)
	case *decode.LostSamples:
		b.U64(r.Lost)
	case *decode.Throttle:
		b.U64(r.BodyTime).U64(r.BodyID).U64(r.BodyStreamID)
	case *decode.Read:
		if attr == nil {
			return unencodable(r.Type(), "no attr for read_format")
		}
		b.I32(r.PID).I32(r.TID)
		return appendReadValues(b, r.Type(), attr.ReadFormat, &r.Values)
	case *decode.Aux:
		b.U64(r.AuxOffset).U64(r.AuxSize).U64(r.Flags)
	case *decode.ItraceStart:
		b.I32(r.PID).I32(r.TID)
	case *decode.Switch:
		if r.CPUWide {
			b.I32(r.NextPrevPID).I32(r.NextPrevTID)
		}
	case *decode.Namespaces:
		b.I32(r.PID).I32(r.TID).U64(uint64(len(r.Namespaces)))
		for _, l := range r.Namespaces {
			b.U64(l.Dev).U64(l.Ino)
		}
	case *decode.Ksymbol:
		b.U64(r.Addr).U32(r.Len).U16(r.KsymType).U16(r.KsymFlags).CString(r.Name, 1)
		padRecord(b, start)
	case *decode.BPFEvent:
		b.U16(r.EventType).U16(r.Flags).U32(r.ProgID).Bytes(r.Tag[:])
	case *decode.Cgroup:
		b.U64(r.CgroupID).CString(r.Path, 1)
		padRecord(b, start)
	case *decode.TextPoke:
		if len(r.OldBytes) > 0xffff || len(r.NewBytes) > 0xffff {
			return unencodable(r.Type(), "poke of %d+%d bytes", len(r.OldBytes), len(r.NewBytes))
		}
		b.U64(r.Addr).U16(uint16(len(r.OldBytes))).U16(uint16(len(r.NewBytes)))
		b.Bytes(r.OldBytes).Bytes(r.NewBytes)
		padRecord(b, start)
	case *decode.AuxOutputHWID:
		b.U64(r.HWID)
	case *decode.CallchainDeferred:
		switch r.ABI {
		case decode.DeferredSeed:
			b.U64(uint64(len(r.IPs)) + 1).U64(decode.ContextUser)
		case decode.DeferredCookie:
			b.U64(r.Cookie).U64(uint64(len(r.IPs)))
		default:
			return unencodable(r.Type(), "deferred ABI %d is neither seed nor cookie", r.ABI)
		}
		for _, ip := range r.IPs {
			b.U64(ip)
		}
	default:
		return unencodable(r.Type(), "no kernel layout for %T", r)
	}
	return nil
}

// appendSample appends the body of a PERF_RECORD_SAMPLE laid out from the
// attr's sample_type (perf-format.md §4.5).
func appendSample(b *Builder, s *decode.Sample, attr *decode.EventAttr) error {
	typ := decode.RecordTypeSample
	if attr == nil {
		return unencodable(typ, "no attr for sample_type")
	}
	st := attr.SampleType
	if st >= decode.SampleFormatMax {
		return unencodable(typ, "sample_type %#x has bits beyond PERF_SAMPLE_MAX", uint64(st))
	}
	if st&decode.SampleIdentifier != 0 {
		b.U64(s.ID)
	}
	if st&decode.SampleIP != 0 {
		b.U64(s.IP)
	}
	if st&decode.SampleTID != 0 {
		b.I32(s.PID).I32(s.TID)
	}
	if st&decode.SampleTime != 0 {
		b.U64(s.Time)
	}
	if st&decode.SampleAddr != 0 {
		b.U64(s.Addr)
	}
	if st&decode.SampleID != 0 {
		b.U64(s.ID)
	}
	if st&decode.SampleStreamID != 0 {
		b.U64(s.StreamID)
	}
	if st&decode.SampleCPU != 0 {
		b.U32(s.CPU).U32(0)
	}
	if st&decode.SamplePeriod != 0 {
		b.U64(s.Period)
	}
	return appendSampleRest(b, s, attr)
}

// appendSampleRest appends the fields of a SAMPLE after the fixed u64
// slots (read values onwards).
func appendSampleRest(b *Builder, s *decode.Sample, attr *decode.EventAttr) error {
	typ, st := decode.RecordTypeSample, attr.SampleType
	if st&decode.SampleRead != 0 {
		if err := appendReadValues(b, typ, attr.ReadFormat, &s.Read); err != nil {
			return err
		}
	}
	if st&decode.SampleCallchain != 0 {
		b.U64(uint64(len(s.Callchain)))
		for _, ip := range s.Callchain {
			b.U64(ip)
		}
	}
	if st&decode.SampleRaw != 0 {
		b.U32(uint32(len(s.Raw))).Bytes(s.Raw)
	}
	if st&decode.SampleBranchStack != 0 {
		if err := appendBranchStack(b, s, attr); err != nil {
			return err
		}
	}
	if st&decode.SampleRegsUser != 0 {
		if err := appendRegs(b, "regs_user", s.RegsUserABI, s.RegsUser, attr.SampleRegsUser); err != nil {
			return err
		}
	}
	if st&decode.SampleStackUser != 0 {
		b.U64(uint64(len(s.StackUser)))
		if len(s.StackUser) != 0 {
			b.Bytes(s.StackUser).U64(s.StackUserDyn)
		}
	}
	if st&(decode.SampleWeight|decode.SampleWeightStruct) != 0 {
		b.U64(s.Weight)
	}
	if st&decode.SampleDataSrc != 0 {
		b.U64(s.DataSrc)
	}
	if st&decode.SampleTransaction != 0 {
		b.U64(s.Transaction)
	}
	if st&decode.SampleRegsIntr != 0 {
		if err := appendRegs(b, "regs_intr", s.RegsIntrABI, s.RegsIntr, attr.SampleRegsIntr); err != nil {
			return err
		}
	}
	if st&decode.SamplePhysAddr != 0 {
		b.U64(s.PhysAddr)
	}
	if st&decode.SampleCgroup != 0 {
		b.U64(s.Cgroup)
	}
	if st&decode.SampleDataPageSize != 0 {
		b.U64(s.DataPageSize)
	}
	if st&decode.SampleCodePageSize != 0 {
		b.U64(s.CodePageSize)
	}
	if st&decode.SampleAux != 0 {
		b.U64(uint64(len(s.Aux))).Bytes(s.Aux)
	}
	return nil
}

// appendBranchStack appends a SAMPLE's branch stack, with hw_idx and the
// counters when attr asks for them.
func appendBranchStack(b *Builder, s *decode.Sample, attr *decode.EventAttr) error {
	b.U64(uint64(len(s.Branches)))
	if attr.BranchSampleType&decode.BranchSampleHWIndex != 0 {
		b.U64(s.BranchHWIndex)
	}
	for _, e := range s.Branches {
		b.U64(e.From).U64(e.To).U64(branchFlagsWord(e.Flags, b.order()))
	}
	if attr.BranchSampleType&decode.BranchSampleCounters != 0 {
		if len(s.BranchCounters) != len(s.Branches) {
			return unencodable(decode.RecordTypeSample, "%d branch counters for %d branches", len(s.BranchCounters), len(s.Branches))
		}
		for _, v := range s.BranchCounters {
			b.U64(v)
		}
	}
	return nil
}

func appendRegs(b *Builder, field string, abi uint64, regs []uint64, mask uint64) error {
	b.U64(abi)
	if abi == 0 {
		if len(regs) != 0 {
			return unencodable(decode.RecordTypeSample, "%s: %d registers with abi 0", field, len(regs))
		}
		return nil
	}
	if n := bits.OnesCount64(mask); n != len(regs) {
		return unencodable(decode.RecordTypeSample, "%s: %d registers for a mask of %d", field, len(regs), n)
	}
	for _, v := range regs {
		b.U64(v)
	}
	return nil
}
