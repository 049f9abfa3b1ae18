package output

import (
	"io"
	"strconv"
	"time"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// bufferSize is the size of each of the two output buffers.
const bufferSize = 256 << 10

// TextOptions are the perf script options that change the text output.
type TextOptions struct {
	// Fields is -F; the zero value prints perf's defaults.
	Fields Fields
	// HideCallchain is -G/--hide-call-graph.
	HideCallchain bool
	// NS prints times with nanoseconds (--ns).
	NS bool
	// RelTime prints times relative to the first printed record (--reltime).
	RelTime bool
	// DeltaTime prints times relative to the previous printed record
	// (--deltatime; the first one at 0).
	DeltaTime bool
	// MaxStack is --max-stack; 0 means [symbolize.DefaultMaxStack].
	MaxStack int
	// Compat is the perf release whose layout is printed (--compat); the
	// zero value means [compat.Default].
	Compat compat.Dialect
	// ClockData is the recording's CLOCK_DATA, which -F tod needs (nil:
	// tod prints "disabled", as perf would).
	ClockData *decode.ClockData
	// Location is the time zone of -F tod; nil means time.Local.
	Location *time.Location
	// Cgroups names the cgroup ids of -F cgroup; the caller adds the
	// CGROUP records to it as they come.
	Cgroups *CgroupNames
}

// Text writes perf script text. It is a [RecordSink].
type Text struct {
	w     *asyncWriter
	opts  TextOptions
	attrs func() []*decode.EventAttr
	set   eventSet

	initialTime  uint64
	previousTime uint64 // --deltatime: the time of the last printed record
	buf          []byte
	lines        *[1 << lineBits]lineEntry // formatted callchain lines
	dataSrcWidth int                       // -F data_src: the widest text so far
}

// NewText returns a Text writer on w. attrs returns the events of the
// recording (it may grow in pipe mode); it is called when an event is
// first seen.
func NewText(w io.Writer, attrs func() []*decode.EventAttr, opts TextOptions) *Text {
	if opts.MaxStack <= 0 {
		opts.MaxStack = symbolize.DefaultMaxStack
	}
	if opts.Compat.Version == "" {
		opts.Compat = compat.Default
	}
	return &Text{
		w:     newAsyncWriter(w, bufferSize),
		opts:  opts,
		attrs: attrs,
		set:   eventSet{fields: opts.Fields, hideCallchain: opts.HideCallchain, attrs: attrs, newer: opts.Compat.DataSrcLevelNum},
		buf:   make([]byte, 0, 4096),
	}
}

// CheckFields resolves the fields of every event known so far, returning
// the error perf would print for a field the samples cannot provide
// ("samples for 'cpu-clock' event do not have CPU attribute set ...").
func (t *Text) CheckFields() error { return t.set.checkAll() }

// Add prints one sample.
func (t *Text) Add(ev *symbolize.Event) error {
	cfg, err := t.set.config(ev.Attr)
	if err != nil {
		return err
	}
	if cfg == nil || cfg.fields == 0 {
		return nil
	}
	// Formatted straight into the writer's buffer.
	b := t.appendSampleHeader(t.w.buffer(), cfg, ev)
	if cfg.fields&FieldIP != 0 {
		if cfg.callchain && ev.Format&decode.SampleCallchain != 0 {
			b = append(b, '\n')
			b = t.appendFrames(b, cfg.fields, ev.Frames, ev.Unwound, ev.Sample)
		} else {
			b = append(b, ' ')
			b = appendHexPad(b, ev.Sample.IP, 16)
			b = appendSymDSO(b, cfg.fields, &ev.IP, false)
			b = appendSrcLine(b, cfg.fields, &ev.IP)
		}
	}
	if cfg.fields&trailerFields != 0 {
		b = appendTrailer(b, cfg.fields, ev.Sample.Sample)
	}
	b = append(b, '\n')
	return t.w.commit(b)
}

// appendSampleHeader appends what perf prints before the IP of a sample:
// comm, tid, cpu, time, period, event name and addr.
func (t *Text) appendSampleHeader(b []byte, cfg *evConfig, ev *symbolize.Event) []byte {
	s := ev.Sample.Sample
	b = t.appendStart(b, cfg, commOf(ev.Comm, s.TID), s.PID, s.TID, s.CPU, s.Time, s.Misc, decode.RecordTypeSample)
	if cfg.fields&FieldPeriod != 0 {
		b = appendUintPad(b, s.Period, 10)
		b = append(b, ' ')
	}
	if cfg.fields&FieldEvent != 0 {
		b = appendPadLeft(b, cfg.name, t.set.nameWidth)
		b = append(b, ':', ' ')
	}
	if cfg.fields&FieldFlags != 0 {
		b = appendFlags(b)
	}
	if cfg.fields&FieldAddr != 0 {
		b = appendHexPad(b, s.Addr, 16)
	}
	if cfg.fields&headerExtraFields != 0 {
		b = t.appendHeaderExtra(b, cfg.fields, s)
	}
	return b
}

// commOf returns the comm perf prints for a thread that has comm c: a
// thread without one is named ":TID".
func commOf(c string, tid int32) string {
	if c != "" {
		return c
	}
	return ":" + strconv.Itoa(int(tid))
}

// appendStart is perf_sample__fprintf_start.
func (t *Text) appendStart(b []byte, cfg *evConfig, comm string, pid, tid int32, cpu uint32, tm uint64, misc uint16, typ decode.RecordType) []byte {
	f := cfg.fields
	if f&FieldComm != 0 {
		if f&FieldIP != 0 && cfg.callchain {
			b = append(b, comm...)
			b = append(b, ' ')
		} else {
			b = appendPadLeft(b, comm, 16)
			b = append(b, ' ')
		}
	}
	w := t.opts.Compat.PidWidth
	switch {
	case f&FieldPID != 0 && f&FieldTID != 0:
		b = appendIntPad(b, int64(pid), w)
		b = append(b, '/')
		b = appendIntPadRight(b, int64(tid), w)
		b = append(b, ' ')
	case f&FieldPID != 0:
		b = appendIntPad(b, int64(pid), w)
		b = append(b, ' ')
	case f&FieldTID != 0:
		b = appendIntPad(b, int64(tid), w)
		b = append(b, ' ')
	}
	if f&FieldCPU != 0 {
		b = append(b, '[')
		c := int64(int32(cpu))
		if c < 0 {
			b = append(b, '-')
			c = -c
			b = appendZeroPad(b, uint64(c), 2)
		} else {
			b = appendZeroPad(b, uint64(c), 3)
		}
		b = append(b, ']', ' ')
	}
	if f&FieldMisc != 0 {
		b = appendMisc(b, misc, typ)
	}
	if f&FieldTod != 0 {
		b = t.appendTod(b, tm)
	}
	if f&FieldTime != 0 {
		if t.opts.RelTime {
			if t.initialTime == 0 {
				t.initialTime = tm
			}
			tm -= t.initialTime
		} else if t.opts.DeltaTime {
			prev := t.previousTime
			t.previousTime = tm
			if prev == 0 {
				tm = 0
			} else {
				tm -= prev
			}
		}
		secs, nsecs := tm/1e9, tm%1e9
		if t.opts.NS {
			b = appendUintPad(b, secs, 5)
			b = append(b, '.')
			b = appendZeroPad(b, nsecs, 9)
		} else {
			var tmp [32]byte
			ts := strconv.AppendUint(tmp[:0], secs, 10)
			ts = append(ts, '.')
			ts = appendZeroPad(ts, nsecs/1000, 6)
			b = appendPadLeftBytes(b, ts, 12)
		}
		b = append(b, ':', ' ')
	}
	return b
}

// appendFrames appends one line per callchain entry
// (sample__fprintf_callchain): at most MaxStack of the recorded ones, then
// the last unwound frames (DWARF-unwound, already limited by the
// Symbolizer), all of them.
func (t *Text) appendFrames(b []byte, fields Field, frames []symbolize.Frame, unwound int, s *stitch.Sample) []byte {
	if n := len(frames) - min(max(unwound, 0), len(frames)); n > t.opts.MaxStack {
		frames = append(frames[:t.opts.MaxStack:t.opts.MaxStack], frames[n:]...)
	}
	cookieTag := showsCookie(s)
	if t.lines == nil {
		t.lines = new([1 << lineBits]lineEntry)
	}
	abs := t.opts.Compat.AbsoluteCallchainAddrs
	for i := range frames {
		fr := &frames[i]
		cookie := fr.Cookie && cookieTag
		addr := fr.MapAddr
		if abs || fr.Kernel {
			addr = fr.Addr // perf 6.1 too prints kernel entries as recorded
		}
		e := &t.lines[(addr*0x9e3779b97f4a7c15^fr.Offset)>>(64-lineBits)]
		if e.set && e.addr == addr && e.offset == fr.Offset && e.fields == fields &&
			e.cookie == cookie && e.inlined == fr.Inlined && e.sym == fr.Symbol && e.dso == fr.DSO {
			b = append(b, e.line...)
			continue
		}
		n := len(b)
		if fields&FieldIP != 0 {
			b = append(b, '\t')
			b = appendHexPad(b, addr, 16)
		}
		b = appendSymDSO(b, fields, fr, cookie)
		b = appendSrcLine(b, fields, fr)
		b = append(b, '\n')
		*e = lineEntry{
			addr: addr, offset: fr.Offset, sym: fr.Symbol, dso: fr.DSO,
			fields: fields, cookie: cookie, inlined: fr.Inlined, set: true,
			line: append(e.line[:0], b[n:]...),
		}
	}
	return b
}

// lineBits sizes the callchain line cache: 1<<lineBits entries.
const lineBits = 13

// lineEntry is one formatted callchain line and what it was formatted
// from (addr is the address printed). The cache is direct-mapped: a recording has few distinct frames
// and many samples, so most lines are copied rather than formatted.
type lineEntry struct {
	addr, offset         uint64
	sym, dso             string
	fields               Field
	cookie, inlined, set bool
	line                 []byte
}

// appendSymDSO appends " sym+0xoff (dso)" as the fields ask
// (__symbol__fprintf_symname_offs and map__fprintf_dsoname); cookie prints
// perf 6.19's "(cookie)" in place of the symbol.
func appendSymDSO(b []byte, fields Field, fr *symbolize.Frame, cookie bool) []byte {
	if fields&FieldSym != 0 {
		b = append(b, ' ')
		switch {
		case cookie:
			b = append(b, "(cookie)"...)
		case fr.Symbol != "":
			b = append(b, fr.Symbol...)
			if fields&FieldSymOff != 0 {
				b = append(b, '+', '0', 'x')
				b = appendHex(b, fr.Offset)
			}
		default:
			b = append(b, "[unknown]"...)
		}
	}
	if fr.Inlined {
		// perf prints " (inlined)" in place of the DSO of an inlined
		// function's frame, whatever the fields; after its source line
		// when there is one (appendSrcLine).
		if fields&FieldSrcline != 0 && fr.SrcLine != "" {
			return b
		}
		return append(b, " (inlined)"...)
	}
	if fields&FieldDSO != 0 {
		b = append(b, ' ', '(')
		if fr.DSO != "" {
			b = append(b, fr.DSO...)
		} else {
			b = append(b, "[unknown]"...)
		}
		b = append(b, ')')
	}
	return b
}

// appendMisc appends the misc field as perf_sample__fprintf_start does:
// a letter per cpumode value the bits contain (perf tests each mode as a
// mask, so a hypervisor sample is "KUH"), the record type's own flag, all
// padded to 6 columns.
func appendMisc(b []byte, misc uint16, typ decode.RecordType) []byte {
	n := len(b)
	has := func(m uint16) bool { return misc&m == m }
	for _, m := range []struct {
		bits uint16
		c    byte
	}{{1, 'K'}, {2, 'U'}, {3, 'H'}, {4, 'G'}, {5, 'g'}} {
		if has(m.bits) {
			b = append(b, m.c)
		}
	}
	switch typ {
	case decode.RecordTypeMmap, decode.RecordTypeMmap2:
		if has(decode.MiscMmapData) {
			b = append(b, 'M')
		}
	case decode.RecordTypeComm:
		if has(decode.MiscCommExec) {
			b = append(b, 'E')
		}
	case decode.RecordTypeSwitch, decode.RecordTypeSwitchCPUWide:
		if has(decode.MiscSwitchOut) {
			b = append(b, 'S')
			if misc&decode.MiscSwitchOutPreempt != 0 {
				b = append(b, 'p')
			}
		}
	}
	// fprintf("%*s", 6 - ret, " "): at least the one space.
	pad := max(6-(len(b)-n), 1)
	for range pad {
		b = append(b, ' ')
	}
	return b
}

// appendSrcLine appends the frame's source line on a line of its own
// ("\n  file:line", map__fprintf_srcline) when -F srcline asks for it.
func appendSrcLine(b []byte, fields Field, fr *symbolize.Frame) []byte {
	if fields&FieldSrcline == 0 || fr.SrcLine == "" {
		return b
	}
	b = append(b, "\n  "...)
	b = append(b, fr.SrcLine...)
	if fr.Inlined {
		b = append(b, " (inlined)"...)
	}
	return b
}

// Flush writes what is buffered.
func (t *Text) Flush() error { return t.w.Flush() }
