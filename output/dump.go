package output

import (
	"io"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/symbolize"
)

// DumpOptions configure a [Dump].
type DumpOptions struct {
	// Path is the input as perf names it in the dump ("perf.data", the
	// -i argument); a pipe-mode stream is "pipe" whatever this says.
	Path string
	// Pipe is set for a pipe-mode stream.
	Pipe bool
	// Report prints what perf report's handlers print (": unhandled!"
	// for the records perf report has no handler for), else perf
	// script's.
	Report bool
	// Compat is the perf release whose layout is printed; the zero value
	// means [compat.Default].
	Compat compat.Dialect
	// Meta returns the recording's feature sections, for the pipe-mode
	// HEADER_FEATURE records perf 7.3.4 prints; nil prints their names
	// only.
	Meta func() *decode.Meta
}

// Dump prints perf's raw dump (perf script -D, perf report -D): every
// record in the order perf delivers it, with its file offset, size, a hex
// dump of its bytes and a decoded line, and for each sample the thread
// and DSO lines perf's sample processing prints. It writes nothing else:
// perf script -D interleaves its own sample text, which the caller writes
// to the same writer after [Dump.Sample].
type Dump struct {
	w     io.Writer
	attrs func() []*decode.EventAttr
	opts  DumpOptions
	buf   []byte
	err   error

	pipeAttrs int // HEADER_ATTR records dumped so far
}

// NewDump returns a Dump writing to w; attrs returns the recording's
// events (it may grow in pipe mode).
func NewDump(w io.Writer, attrs func() []*decode.EventAttr, opts DumpOptions) *Dump {
	if opts.Compat.Version == "" {
		opts.Compat = compat.Default
	}
	if opts.Pipe {
		opts.Path = "pipe"
	}
	return &Dump{w: w, attrs: attrs, opts: opts, buf: make([]byte, 0, 4096)}
}

// Err returns the first write error.
func (d *Dump) Err() error { return d.err }

func (d *Dump) write(b []byte) {
	d.buf = b[:0]
	if d.err != nil {
		return
	}
	_, d.err = d.w.Write(b)
}

// Record prints one record as perf's dump_event and the record's
// handler print it: raw is its bytes as in the file (header included).
// Records perf does not dump (COMPRESSED containers, whose records are
// dumped one by one) print nothing.
func (d *Dump) Record(r decode.Record, raw []byte) {
	typ := r.Type()
	if raw == nil || typ == decode.RecordTypeCompressed || typ == decode.RecordTypeCompressed2 {
		return
	}
	c := r.Common()
	b := d.buf[:0]
	// dump_event
	b = append(b, '\n')
	b = appendAltHex(b, uint64(c.Offset))
	b = append(b, '@')
	b = append(b, d.opts.Path...)
	b = append(b, " ["...)
	b = appendAltHex(b, uint64(len(raw)))
	b = append(b, "]: event: "...)
	b = strconv.AppendUint(b, uint64(typ), 10)
	b = append(b, '\n')
	b = appendRawHex(b, raw)
	b = d.appendTstamp(b, r)
	b = appendAltHex(b, uint64(c.Offset))
	b = append(b, " ["...)
	b = appendAltHex(b, uint64(len(raw)))
	b = append(b, "]: "...)
	b = d.appendBody(b, r, raw)
	if typ == decode.RecordTypeHeaderAttr {
		d.pipeAttrs++
	}
	d.write(b)
}

// Sample prints what perf's sample processing (machine__resolve) prints
// under a dumped sample: its thread and the DSO of its IP.
func (d *Dump) Sample(ev *symbolize.Event) {
	b := append(d.buf[:0], " ... thread: "...)
	b = append(b, commOf(ev.Comm, ev.TID)...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(ev.TID), 10)
	b = append(b, "\n ...... dso: "...)
	if ev.IP.DSO == "" || ev.IP.Reason == symbolize.NoMap {
		b = append(b, "<not found>"...)
	} else {
		b = append(b, ev.IP.DSO...)
	}
	b = append(b, '\n')
	d.write(b)
}

// appendRawHex is perf's trace_event: the bytes 16 a line, with their
// offset and their printable characters.
func appendRawHex(b, raw []byte) []byte {
	b = append(b, ".\n. ... raw event: size "...)
	b = strconv.AppendInt(b, int64(len(raw)), 10)
	b = append(b, " bytes\n"...)
	const hexdigits = "0123456789abcdef"
	for off := 0; off < len(raw); off += 16 {
		line := raw[off:min(off+16, len(raw))]
		b = append(b, ".  "...)
		b = append(b, hexdigits[off>>12&15], hexdigits[off>>8&15], hexdigits[off>>4&15], hexdigits[off&15])
		b = append(b, ": "...)
		for _, x := range line {
			b = append(b, ' ', hexdigits[x>>4], hexdigits[x&15])
		}
		for range 16 - len(line) {
			b = append(b, "   "...)
		}
		b = append(b, "  "...)
		for _, x := range line {
			if x < 0x20 || x > 0x7e {
				x = '.'
			}
			b = append(b, x)
		}
		for range 16 - len(line) {
			b = append(b, ' ')
		}
		b = append(b, '\n')
	}
	return append(b, '\n')
}

// appendTstamp is perf's evlist__print_tstamp: the CPU and time of the
// record when the events sample them, "-1 -1 " for a record without a
// sample_id trailer. perf-tool records (types 64 and up) print zeros.
func (d *Dump) appendTstamp(b []byte, r decode.Record) []byte {
	attrs := d.attrs()
	if d.opts.Pipe {
		// Only the events whose HEADER_ATTR records came before; perf
		// prints an attr record before it adds its event.
		attrs = attrs[:min(d.pipeAttrs, len(attrs))]
	}
	var combined decode.SampleFormat
	for _, a := range attrs {
		combined |= a.SampleType
	}
	typ := r.Type()
	if typ != decode.RecordTypeSample && (len(attrs) == 0 || !attrs[0].SampleIDAll()) {
		return append(b, "-1 -1 "...)
	}
	c := r.Common()
	cpu, tm := uint64(0xffffffff), ^uint64(0)
	if typ >= 64 {
		cpu, tm = 0, 0
	} else {
		if c.Format&decode.SampleCPU != 0 {
			cpu = uint64(c.CPU)
		}
		if c.Format&decode.SampleTime != 0 {
			tm = c.Time
			if typ != decode.RecordTypeSample {
				tm = c.TrailerTime // FORK and EXIT have a time of their own
			}
		}
	}
	if combined&decode.SampleCPU != 0 {
		b = strconv.AppendUint(b, cpu, 10)
		b = append(b, ' ')
	}
	if combined&decode.SampleTime != 0 {
		b = strconv.AppendUint(b, tm, 10)
		b = append(b, ' ')
	}
	return b
}

// appendIPHead appends "NAME(IP, 0xMISC): PID/TID: ", the head perf's
// sample and deferred-callchain dumps share.
func appendIPHead(b []byte, name string, c *decode.RecordCommon) []byte {
	b = append(b, name...)
	b = append(b, "(IP, 0x"...)
	b = strconv.AppendUint(b, uint64(c.Misc), 16)
	b = append(b, "): "...)
	b = strconv.AppendInt(b, int64(c.PID), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(c.TID), 10)
	return append(b, ": "...)
}

// appendBody appends "PERF_RECORD_NAME" and what the record's handler
// prints after it under -D, newline included.
func (d *Dump) appendBody(b []byte, r decode.Record, raw []byte) []byte {
	c := r.Common()
	switch rr := r.(type) {
	case *decode.Sample:
		b = appendIPHead(b, "PERF_RECORD_SAMPLE", c)
		b = appendAltHex(b, rr.IP)
		b = append(b, " period: "...)
		b = strconv.AppendUint(b, rr.Period, 10)
		b = append(b, " addr: "...)
		b = appendAltHex(b, rr.Addr)
		b = append(b, '\n')
		if c.Format&decode.SampleCallchain != 0 {
			b = d.appendChain(b, rr.Callchain)
			if d.opts.Compat.DumpContextNames && deferredChain(rr.Callchain) {
				b = append(b, "...... (deferred)\n"...)
			}
		}
		return d.appendSampleTail(b, rr, len(raw))
	case *decode.CallchainDeferred:
		b = appendIPHead(b, "PERF_RECORD_CALLCHAIN_DEFERRED", c)
		b = appendAltHex(b, rr.Cookie)
		b = append(b, '\n')
		b = d.appendChain(b, rr.IPs)
		if d.opts.Report {
			b = append(b, ": unhandled!\n"...)
		}
		return b
	case *decode.Mmap, *decode.Comm, *decode.Fork, *decode.Exit, *decode.Switch,
		*decode.Namespaces, *decode.Cgroup:
		return appendRecordBody(b, r)
	case *decode.Lost:
		b = append(b, "PERF_RECORD_LOST: id:"...)
		b = strconv.AppendUint(b, rr.LostID, 10)
		b = append(b, ": lost:"...)
		b = strconv.AppendUint(b, rr.Lost, 10)
		return append(b, '\n')
	case *decode.LostSamples:
		b = append(b, "PERF_RECORD_LOST_SAMPLES: id:"...)
		id := ^uint64(0)
		if c.Format&(decode.SampleID|decode.SampleIdentifier) != 0 {
			id = c.ID
		}
		b = strconv.AppendUint(b, id, 10)
		b = append(b, ": lost samples :"...)
		b = strconv.AppendUint(b, rr.Lost, 10)
		return append(b, '\n')
	case *decode.HeaderAttr:
		// perf 6.1 prints the name alone, without a newline.
		b = append(b, "PERF_RECORD_ATTR"...)
		if d.opts.Compat.DumpHeaderRecords && rr.Attr != nil {
			var sb strings.Builder
			writeAttrFields(&sb, rr.Attr, d.opts.Compat)
			b = append(b, sb.String()...)
		}
		return b
	case *decode.HeaderFeature:
		// perf 6.1 prints the name alone, without a newline; perf 7.3.4
		// adds the section as its header printer has it, except for the
		// end marker (feature 32, perf 6.1's HEADER_LAST_FEATURE).
		b = append(b, "PERF_RECORD_FEATURE"...)
		if d.opts.Compat.DumpHeaderRecords && rr.Feature < 32 && d.opts.Meta != nil {
			var sb strings.Builder
			writeFeature(&sb, d.opts.Meta(), rr.Feature, d.opts.Compat)
			b = append(b, ", "...)
			b = append(b, sb.String()...)
		}
		return b
	case *decode.Throttle:
		if rr.Unthrottle {
			b = append(b, "PERF_RECORD_UNTHROTTLE"...)
		} else {
			b = append(b, "PERF_RECORD_THROTTLE"...)
		}
		if d.opts.Report {
			b = append(b, ": unhandled!\n"...)
		}
		return b // perf script's handler prints nothing, not even a newline
	case *decode.HeaderEventType:
		return append(b, "PERF_RECORD_EVENT_TYPE"...) // no newline
	case *decode.Ksymbol:
		return append(appendKsymbol(append(b, "PERF_RECORD_"...), rr), '\n')
	case *decode.BPFEvent:
		return append(appendBPFEvent(append(b, "PERF_RECORD_"...), rr), '\n')
	case *decode.FinishedRound:
		return append(b, "PERF_RECORD_FINISHED_ROUND\n"...)
	case *decode.FinishedInit:
		return append(b, "PERF_RECORD_FINISHED_INIT: unhandled!\n"...)
	case *decode.IDIndex:
		b = append(b, "PERF_RECORD_ID_INDEX nr: "...)
		b = strconv.AppendInt(b, int64(len(rr.Entries)), 10)
		b = append(b, '\n')
		for _, e := range rr.Entries {
			b = append(b, " ... id: "...)
			b = strconv.AppendUint(b, e.ID, 10)
			b = append(b, "  idx: "...)
			b = strconv.AppendUint(b, e.Idx, 10)
			b = append(b, "  cpu: "...)
			b = strconv.AppendInt(b, int64(int32(e.CPU)), 10)
			b = append(b, "  tid: "...)
			b = strconv.AppendInt(b, int64(int32(e.TID)), 10)
			b = append(b, '\n')
		}
		return b
	case *decode.ThreadMap:
		b = append(b, "PERF_RECORD_THREAD_MAP nr: "...)
		b = strconv.AppendInt(b, int64(len(rr.Threads)), 10)
		b = append(b, " thread"...)
		if len(rr.Threads) > 1 {
			b = append(b, 's')
		}
		b = append(b, ": "...)
		for i, t := range rr.Threads {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, int64(int32(t.PID)), 10)
		}
		b = append(b, '\n')
		return d.unhandledInReport(b)
	case *decode.CPUMap:
		b = append(b, "PERF_RECORD_CPU_MAP: "...)
		b = appendCPURanges(b, rr.CPUs)
		b = append(b, '\n')
		return d.unhandledInReport(b)
	case *decode.EventUpdate:
		b = append(b, "PERF_RECORD_EVENT_UPDATE\n... id:    "...)
		b = strconv.AppendUint(b, rr.EventID, 10)
		b = append(b, '\n')
		switch rr.UpdateType {
		case 0:
			b = append(b, "... unit:  "...)
			b = append(b, rr.Unit...)
		case 1:
			b = append(b, "... scale: "...)
			b = strconv.AppendFloat(b, rr.Scale, 'f', 6, 64)
		case 2:
			b = append(b, "... name:  "...)
			b = append(b, rr.Name...)
		case 3:
			b = append(b, "... "...)
			b = appendCPURanges(b, rr.CPUs)
		default:
			b = append(b, "... unknown type"...)
		}
		return append(b, '\n')
	case *decode.TimeConv:
		b = append(b, "PERF_RECORD_TIME_CONV\n"...)
		b = appendTimeConvLine(b, "Time Shift      ", rr.TimeShift)
		mult := "Time Muliplier  "
		if d.opts.Compat.DumpTimeMultiplier {
			mult = "Time Multiplier "
		}
		b = appendTimeConvLine(b, mult, rr.TimeMult)
		b = appendTimeConvLine(b, "Time Zero       ", rr.TimeZero)
		if c.Size >= 56 { // the layout with cycles and mask
			b = appendTimeConvLine(b, "Time Cycles     ", rr.TimeCycles)
			b = append(b, "... Time Mask       "...)
			b = appendAltHex(b, rr.TimeMask)
			b = append(b, '\n')
			b = appendTimeConvLine(b, "Cap Time Zero   ", boolU64(rr.CapUserTimeZero))
			b = appendTimeConvLine(b, "Cap Time Short  ", boolU64(rr.CapUserTimeShort))
		}
		return append(b, ": unhandled!\n"...)
	}
	b = append(b, "PERF_RECORD_"...)
	b = append(b, dumpTypeName(r.Type())...)
	return append(b, '\n')
}

// unhandledInReport adds perf report's line for a record it has no
// handler for.
func (d *Dump) unhandledInReport(b []byte) []byte {
	if d.opts.Report {
		b = append(b, ": unhandled!\n"...)
	}
	return b
}

func appendTimeConvLine(b []byte, label string, v uint64) []byte {
	b = append(b, "... "...)
	b = append(b, label...)
	b = strconv.AppendUint(b, v, 10)
	return append(b, '\n')
}

func boolU64(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// appendChain is perf's callchain__printf: the entries, perf 7.3.4
// naming the context markers.
func (d *Dump) appendChain(b []byte, ips []uint64) []byte {
	b = append(b, "... FP chain: nr:"...)
	b = strconv.AppendInt(b, int64(len(ips)), 10)
	b = append(b, '\n')
	for i, ip := range ips {
		b = append(b, "..... "...)
		if i < 10 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ": "...)
		b = appendHexPad0(b, ip)
		if d.opts.Compat.DumpContextNames {
			if name := contextName(ip); name != "" {
				b = append(b, " ("...)
				b = append(b, name...)
				b = append(b, ')')
			}
		}
		b = append(b, '\n')
	}
	return b
}

// deferredChain reports whether a callchain ends in the user-deferred
// marker and its cookie, as a sample whose user half comes later does.
func deferredChain(ips []uint64) bool {
	for _, ip := range ips {
		if ip == decode.ContextUserDeferred {
			return true
		}
	}
	return false
}

// contextName names a PERF_CONTEXT_* callchain marker, "" for an address.
func contextName(ip uint64) string {
	switch ip {
	case 0xffffffffffffffe0:
		return "PERF_CONTEXT_HV"
	case decode.ContextKernel:
		return "PERF_CONTEXT_KERNEL"
	case decode.ContextUser:
		return "PERF_CONTEXT_USER"
	case decode.ContextUserDeferred:
		return "PERF_CONTEXT_USER_DEFERRED"
	case 0xfffffffffffff800:
		return "PERF_CONTEXT_GUEST"
	case 0xfffffffffffff780:
		return "PERF_CONTEXT_GUEST_KERNEL"
	case 0xfffffffffffff600:
		return "PERF_CONTEXT_GUEST_USER"
	}
	return ""
}

// appendHexPad0 appends v as 16 zero-padded hex digits.
func appendHexPad0(b []byte, v uint64) []byte {
	const hexdigits = "0123456789abcdef"
	for s := 60; s >= 0; s -= 4 {
		b = append(b, hexdigits[v>>uint(s)&15])
	}
	return b
}

// appendCPURanges appends a CPU list as perf's cpu_map__snprint: runs of
// consecutive CPUs as "A-B", separated by commas.
func appendCPURanges(b []byte, cpus []uint32) []byte {
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(cpus[i]), 10)
		if j > i {
			b = append(b, '-')
			b = strconv.AppendUint(b, uint64(cpus[j]), 10)
		}
		i = j + 1
	}
	return b
}

// dumpTypeName is perf_event__name without the PERF_RECORD_ prefix.
func dumpTypeName(t decode.RecordType) string { return t.String() }

// Write writes p to the text output after everything added so far: the
// raw dump ([Dump]) interleaves its lines with the samples this way.
func (t *Text) Write(p []byte) (int, error) { return t.w.Write(p) }

// appendSampleTail is the rest of perf's dump_sample after the
// callchain: registers, the user stack copy, weight, data source,
// physical address, transaction. n is the record's size, from which the
// offset of the stack copy is found.
func (d *Dump) appendSampleTail(b []byte, s *decode.Sample, n int) []byte {
	f := s.Format
	if f&decode.SampleBranchStack != 0 && (s.Attr == nil || s.Attr.BranchSampleType&branchCallStack == 0) {
		b = appendBranchStack(b, s.Branches, d.opts.Compat.DumpBranchSpec)
	}
	if f&decode.SampleRegsUser != 0 && s.RegsUserABI != 0 && s.Attr != nil {
		b = appendRegs(b, "user", s.Attr.SampleRegsUser, s.RegsUserABI, s.RegsUser)
	}
	if f&decode.SampleRegsIntr != 0 && s.RegsIntrABI != 0 && s.Attr != nil {
		b = appendRegs(b, "intr", s.Attr.SampleRegsIntr, s.RegsIntrABI, s.RegsIntr)
	}
	if f&decode.SampleStackUser != 0 {
		var size uint64
		if len(s.StackUser) > 0 {
			size = s.StackUserDyn
		}
		b = append(b, "... ustack: size "...)
		b = strconv.AppendUint(b, size, 10)
		b = append(b, ", offset 0x"...)
		b = strconv.AppendUint(b, uint64(stackUserOffset(s, n)), 16)
		b = append(b, '\n')
	}
	if f&(decode.SampleWeight|decode.SampleWeightStruct) != 0 {
		b = append(b, "... weight: "...)
		if f&decode.SampleWeightStruct != 0 {
			b = strconv.AppendUint(b, s.Weight&0xffffffff, 10)
			b = append(b, ",0x"...)
			b = strconv.AppendUint(b, s.Weight>>32&0xffff, 16)
			b = append(b, ",0x"...)
			b = strconv.AppendUint(b, s.Weight>>48, 16)
		} else {
			b = strconv.AppendUint(b, s.Weight, 10)
		}
		b = append(b, '\n')
	}
	if f&decode.SampleDataSrc != 0 {
		b = append(b, " . data_src: 0x"...)
		b = strconv.AppendUint(b, s.DataSrc, 16)
		b = append(b, '\n')
	}
	if f&decode.SamplePhysAddr != 0 {
		b = append(b, " .. phys_addr: 0x"...)
		b = strconv.AppendUint(b, s.PhysAddr, 16)
		b = append(b, '\n')
	}
	if f&decode.SampleTransaction != 0 {
		b = append(b, "... transaction: "...)
		b = strconv.AppendUint(b, s.Transaction, 16)
		b = append(b, '\n')
	}
	return b
}

// stackUserOffset is the offset in the record of the user stack's size
// field, as perf's dump prints it: the record's size less everything
// that follows that field in the sample layout.
func stackUserOffset(s *decode.Sample, n int) int {
	f := s.Format
	tail := 8 // the size field
	if len(s.StackUser) > 0 {
		tail += len(s.StackUser) + 8 // the copy and its dynamic size
	}
	for _, bit := range []decode.SampleFormat{decode.SampleWeight | decode.SampleWeightStruct,
		decode.SampleDataSrc, decode.SampleTransaction, decode.SamplePhysAddr, decode.SampleCgroup,
		decode.SampleDataPageSize, decode.SampleCodePageSize} {
		if f&bit != 0 {
			tail += 8
		}
	}
	if f&decode.SampleRegsIntr != 0 {
		tail += 8
		if s.RegsIntrABI != 0 {
			tail += 8 * len(s.RegsIntr)
		}
	}
	if f&decode.SampleAux != 0 {
		tail += 8 + len(s.Aux)
	}
	return n - tail
}

// regsABI are perf's names of the PERF_SAMPLE_REGS_ABI_* values.
var regsABI = [...]string{"none", "32-bit", "64-bit"}

// x86Regs are perf's names of the x86 registers by perf_event_x86_regs
// index (perf_reg_name); XMM registers from index 32.
var x86Regs = [...]string{"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS",
	"CS", "SS", "DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"}

// appendRegs is perf's regs__printf for x86 recordings: the mask, the
// ABI, and each sampled register.
func appendRegs(b []byte, kind string, mask, abi uint64, regs []uint64) []byte {
	b = append(b, "... "...)
	b = append(b, kind...)
	b = append(b, " regs: mask 0x"...)
	b = strconv.AppendUint(b, mask, 16)
	b = append(b, " ABI "...)
	if abi < uint64(len(regsABI)) {
		b = append(b, regsABI[abi]...)
	} else {
		b = append(b, "unknown"...)
	}
	b = append(b, '\n')
	i := 0
	for bit := range 64 {
		if mask&(1<<bit) == 0 || i >= len(regs) {
			continue
		}
		name := "unknown"
		switch {
		case bit < len(x86Regs):
			name = x86Regs[bit]
		case bit >= 32 && bit < 64:
			name = "XMM" + strconv.Itoa((bit-32)/2)
		}
		b = append(b, ".... "...)
		b = append(b, name...)
		for range 5 - len(name) {
			b = append(b, ' ')
		}
		b = append(b, " 0x"...)
		b = appendHexPad0(b, regs[i])
		b = append(b, '\n')
		i++
	}
	return b
}

// branchCallStack is PERF_SAMPLE_BRANCH_CALL_STACK: such a branch stack
// is a call stack, which perf prints in another layout (not reproduced).
const branchCallStack = 1 << 11

// branchTypeNames are perf's branch_type_name, by PERF_BR_* value.
var branchTypeNames = [...]string{"", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
	"SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "EXTEND_ABI"}

// branchSpecNames are perf's branch_spec_desc, by PERF_BR_SPEC_* value.
var branchSpecNames = [...]string{"N/A", "SPEC_WRONG_PATH", "NON_SPEC_CORRECT_PATH", "SPEC_CORRECT_PATH"}

// appendBranchStack is perf's branch_stack__printf for a branch stack
// that is not a call stack: each entry's addresses, cycles, flags
// (mispredicted, predicted, abort, in transaction), reserved bits, type
// and (specs, perf 7.3.4) speculation.
func appendBranchStack(b []byte, entries []decode.BranchEntry, specs bool) []byte {
	b = append(b, "... branch stack: nr:"...)
	b = strconv.AppendInt(b, int64(len(entries)), 10)
	b = append(b, '\n')
	flag := func(b []byte, set bool, c byte) []byte {
		if set {
			return append(b, c)
		}
		return append(b, ' ')
	}
	for i, e := range entries {
		fl := e.Flags
		b = append(b, "..... "...)
		if i < 10 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ": "...)
		b = appendHexPad0(b, e.From)
		b = append(b, " -> "...)
		b = appendHexPad0(b, e.To)
		b = append(b, ' ')
		b = strconv.AppendUint(b, fl>>4&0xffff, 10)
		b = append(b, " cycles "...)
		b = flag(b, fl&1 != 0, 'M')
		b = flag(b, fl&2 != 0, 'P')
		b = flag(b, fl&8 != 0, 'A')
		b = flag(b, fl&4 != 0, 'T')
		b = append(b, ' ')
		b = strconv.AppendUint(b, fl>>33, 16)
		b = append(b, ' ')
		if t := fl >> 20 & 15; t != 0 {
			b = append(b, branchTypeNames[t]...)
		}
		if specs {
			b = append(b, ' ')
			if spec := fl >> 24 & 3; spec != 0 {
				b = append(b, branchSpecNames[spec]...)
			}
		}
		b = append(b, '\n')
	}
	return b
}
