package output

import (
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/symbolize"
)

// PprofOptions change the pprof profile.
type PprofOptions struct {
	// MaxStack caps the recorded callchain entries as --max-stack does
	// for text (unwound user frames are capped by the symbolizer); 0
	// means [symbolize.DefaultMaxStack].
	MaxStack int
	// Mappings returns the memory mapping that covers an address at the
	// time of the sample being added (see [symbolize.Symbolizer.MappingAt]).
	// Nil, or a false result, leaves the frame's location without a
	// mapping.
	Mappings func(pid int32, addr uint64, kernel bool) (symbolize.Mapping, bool)
	// SourceLine returns the source file and line of a frame (caller: its
	// address is a return address), "" and 0 when unknown (see
	// [symbolize.Symbolizer.SourceLine]). Nil leaves lines without them.
	SourceLine func(f *symbolize.Frame, caller bool) (file string, line int)
	// Meta returns the recording's feature sections (for CLOCK_DATA, which
	// turns sample times into wall-clock time); nil or a nil result leaves
	// the profile's time in the perf clock.
	Meta func() *decode.Meta
	// Comments are added to the profile's comments (the command line, say).
	Comments []string
}

// Pprof aggregates samples into a gzipped profile.proto, the format of
// `go tool pprof`, Pyroscope, Parca and Grafana. See docs/compat.md for
// where each field comes from. It writes in Flush.
type Pprof struct {
	w     io.Writer
	attrs func() []*decode.EventAttr
	opts  PprofOptions

	p         *profile.Profile
	mappings  map[symbolize.Mapping]*profile.Mapping
	locations map[string]*profile.Location
	functions map[profile.Function]*profile.Function
	samples   map[string]*profile.Sample
	events    map[string]int // event name → index into eventNames
	eventName []string
	eventAttr []*decode.EventAttr
	// one holds the IP of a sample without callchain, so that it is
	// passed as a slice without an allocation per sample.
	one [1]symbolize.Frame

	first, last uint64
	timed       bool
	key         []byte
	locs        []*profile.Location
}

// NewPprof returns a pprof writer on w; attrs returns the recording's
// events.
func NewPprof(w io.Writer, attrs func() []*decode.EventAttr, opts PprofOptions) *Pprof {
	if opts.MaxStack <= 0 {
		opts.MaxStack = symbolize.DefaultMaxStack
	}
	return &Pprof{
		w:         w,
		attrs:     attrs,
		opts:      opts,
		p:         &profile.Profile{},
		mappings:  map[symbolize.Mapping]*profile.Mapping{},
		locations: map[string]*profile.Location{},
		functions: map[profile.Function]*profile.Function{},
		samples:   map[string]*profile.Sample{},
		events:    map[string]int{},
	}
}

// eventIndex returns the value column of the sample's event.
func (p *Pprof) eventIndex(attr *decode.EventAttr) int {
	name := ""
	if attr != nil {
		name = attr.Name
	}
	if i, ok := p.events[name]; ok {
		return i
	}
	i := len(p.eventName)
	p.events[name] = i
	p.eventName = append(p.eventName, name)
	p.eventAttr = append(p.eventAttr, attr)
	return i
}

// Add adds one sample.
func (p *Pprof) Add(ev *symbolize.Event) error {
	s := ev.Sample.Sample
	if s.Format&decode.SampleTime != 0 {
		if !p.timed || s.Time < p.first {
			p.first = s.Time
		}
		if !p.timed || s.Time > p.last {
			p.last = s.Time
		}
		p.timed = true
	}
	evi := p.eventIndex(s.Attr)

	p.locs = p.locs[:0]
	if s.Format&decode.SampleCallchain != 0 && len(ev.Frames) > 0 {
		frames := ev.Frames
		unwound := min(max(ev.Unwound, 0), len(frames))
		recorded := frames[:len(frames)-unwound]
		if len(recorded) > p.opts.MaxStack {
			recorded = recorded[:p.opts.MaxStack]
		}
		p.addFrames(recorded, s.PID)
		p.addFrames(frames[len(frames)-unwound:], s.PID)
	} else {
		p.one[0] = ev.IP
		p.addFrames(p.one[:], s.PID)
	}

	comm := commOf(ev.Comm, s.TID)
	state := ev.Sample.State.String()
	k := p.key[:0]
	for _, l := range p.locs {
		k = strconv.AppendUint(k, l.ID, 16)
		k = append(k, ',')
	}
	k = append(k, '|')
	k = strconv.AppendInt(k, int64(s.PID), 10)
	k = append(k, '/')
	k = strconv.AppendInt(k, int64(s.TID), 10)
	hasCPU := s.Format&decode.SampleCPU != 0
	if hasCPU {
		k = append(k, '@')
		k = strconv.AppendUint(k, uint64(s.CPU), 10)
	}
	k = append(k, '|')
	k = append(k, state...)
	k = append(k, '|')
	k = strconv.AppendInt(k, int64(evi), 10)
	k = append(k, '|')
	k = append(k, comm...)
	p.key = k

	period := s.Period
	if s.Format&decode.SamplePeriod == 0 {
		period = 1
	}
	smp := p.samples[string(k)]
	if smp == nil {
		smp = &profile.Sample{
			Location: slices.Clone(p.locs),
			Value:    make([]int64, 1+evi+1),
			Label:    map[string][]string{"comm": {comm}, "stitch": {state}},
			NumLabel: map[string][]int64{"pid": {int64(s.PID)}, "tid": {int64(s.TID)}},
			// With a unit, pprof keeps a label whose value is 0 (CPU 0,
			// the idle task) when it decodes the profile.
			NumUnit: map[string][]string{"pid": {"id"}, "tid": {"id"}},
		}
		if hasCPU {
			smp.NumLabel["cpu"] = []int64{int64(s.CPU)}
			smp.NumUnit["cpu"] = []string{"id"}
		}
		p.samples[string(k)] = smp
		p.p.Sample = append(p.p.Sample, smp)
	}
	smp.Value[0]++
	smp.Value[1+evi] += int64(period)
	return nil
}

// addFrames appends the locations of frames (leaf first) to p.locs: a
// run of inlined frames at one address and the frame they are inlined
// into make one location with one line each, innermost first, as pprof
// expects.
func (p *Pprof) addFrames(frames []symbolize.Frame, pid int32) {
	for i := 0; i < len(frames); {
		j := i
		for j+1 < len(frames) && frames[j].Inlined && frames[j+1].Addr == frames[j].Addr {
			j++
		}
		if frames[i].Cookie {
			i = j + 1
			continue // the stitch label says the user part is missing
		}
		p.locs = append(p.locs, p.location(frames[i:j+1], pid, len(p.locs) > 0))
		i = j + 1
	}
}

// location returns the location of one address and its inline frames;
// caller says it is not the sample's leaf.
func (p *Pprof) location(group []symbolize.Frame, pid int32, caller bool) *profile.Location {
	f := &group[len(group)-1]
	var m *profile.Mapping
	if p.opts.Mappings != nil && f.Reason != symbolize.NoMap {
		if sm, ok := p.opts.Mappings(pid, f.Addr, f.Kernel); ok {
			m = p.mapping(sm)
		}
	}
	k := make([]byte, 0, 64)
	if m != nil {
		k = strconv.AppendUint(k, m.ID, 10)
	}
	k = append(k, ':')
	k = strconv.AppendUint(k, f.Addr, 16)
	if caller {
		k = append(k, 'c') // looked up at the call, one byte before
	}
	for i := range group {
		k = append(k, ':')
		k = append(k, group[i].Symbol...)
	}
	if l := p.locations[string(k)]; l != nil {
		return l
	}
	l := &profile.Location{ID: uint64(len(p.p.Location) + 1), Mapping: m, Address: f.Addr}
	for i := range group {
		g := &group[i]
		name := g.Symbol
		if name == "" {
			name = unresolvedName(g)
		}
		// The line table gives the innermost function's line; the call
		// sites of inlined functions stay without one.
		file, line := "", 0
		if i == 0 && p.opts.SourceLine != nil {
			file, line = p.opts.SourceLine(g, caller)
		}
		l.Line = append(l.Line, profile.Line{Function: p.function(name, file), Line: int64(line)})
	}
	if m != nil && len(l.Line) > 1 {
		m.HasInlineFrames = true
	}
	p.locations[string(k)] = l
	p.p.Location = append(p.p.Location, l)
	return l
}

// unresolvedName names a frame without a symbol by its DSO and map
// address ("libc.so.6+0x3fbfb"), or its address when no map covers it, so
// that each unresolved address stays a function of its own, as perf
// report keeps it a row of its own.
func unresolvedName(f *symbolize.Frame) string {
	if f.Reason == symbolize.NoMap || f.DSOShort == "" || f.DSOShort == "[unknown]" {
		return "0x" + strconv.FormatUint(f.Addr, 16)
	}
	return f.DSOShort + "+0x" + strconv.FormatUint(f.MapAddr, 16)
}

// mapping returns the profile mapping of sm.
func (p *Pprof) mapping(sm symbolize.Mapping) *profile.Mapping {
	if m := p.mappings[sm]; m != nil {
		return m
	}
	m := &profile.Mapping{
		ID:      uint64(len(p.p.Mapping) + 1),
		Start:   sm.Start,
		Limit:   sm.Limit,
		Offset:  sm.Offset,
		File:    sm.File,
		BuildID: sm.BuildID,
		// Symbolized here: pprof must not look the addresses up again.
		HasFunctions: true,
	}
	p.mappings[sm] = m
	p.p.Mapping = append(p.p.Mapping, m)
	return m
}

// function returns the profile function named name, in source file file
// ("" if unknown). The symbolizer hands over one name per frame
// (demangled unless --no-demangle), so it is both the name and the system
// name.
func (p *Pprof) function(name, file string) *profile.Function {
	key := profile.Function{Name: name, SystemName: name, Filename: file}
	if fn := p.functions[key]; fn != nil {
		return fn
	}
	fn := &profile.Function{ID: uint64(len(p.p.Function) + 1), Name: name, SystemName: name, Filename: file}
	p.functions[key] = fn
	p.p.Function = append(p.p.Function, fn)
	return fn
}

// isClock reports whether attr is a software clock event (cpu-clock,
// task-clock), whose period is nanoseconds.
func isClock(attr *decode.EventAttr) bool {
	return attr != nil && attr.Type == decode.AttrTypeSoftware && (attr.Config == 0 || attr.Config == 1)
}

// valueType names the value column of one event: with one event in the
// file, cpu/nanoseconds for a clock event and events/count for others;
// with several, the event's name and its unit.
func valueType(attr *decode.EventAttr, name string, single bool) *profile.ValueType {
	unit := "count"
	if isClock(attr) {
		unit = "nanoseconds"
	}
	if single {
		if unit == "nanoseconds" {
			return &profile.ValueType{Type: "cpu", Unit: unit}
		}
		return &profile.ValueType{Type: "events", Unit: unit}
	}
	if name == "" {
		name = "events"
	}
	return &profile.ValueType{Type: name, Unit: unit}
}

// Flush writes the profile.
func (p *Pprof) Flush() error {
	if p.attrs != nil {
		for _, a := range p.attrs() {
			p.eventIndex(a) // every event of the file gets its column
		}
	}
	if len(p.eventName) == 0 {
		p.eventIndex(nil)
	}
	single := len(p.eventName) == 1
	pr := p.p
	pr.SampleType = []*profile.ValueType{{Type: "samples", Unit: "count"}}
	for i, name := range p.eventName {
		pr.SampleType = append(pr.SampleType, valueType(p.eventAttr[i], name, single))
	}
	n := len(pr.SampleType)
	for _, s := range pr.Sample {
		if len(s.Value) < n {
			s.Value = append(s.Value, make([]int64, n-len(s.Value))...)
		}
	}
	p.mainFirst()
	first := pr.SampleType[1]
	pr.DefaultSampleType = first.Type
	pr.PeriodType = &profile.ValueType{Type: first.Type, Unit: first.Unit}
	pr.Period = p.period(0)
	for _, name := range p.eventName {
		if name != "" {
			pr.Comments = append(pr.Comments, "event: "+name)
		}
	}
	pr.Comments = append(pr.Comments, p.opts.Comments...)
	if p.timed {
		// Without CLOCK_DATA the perf clock (monotonic) cannot be turned
		// into wall-clock time, so the start stays unset and the range
		// goes into a comment.
		pr.DurationNanos = int64(p.last - p.first)
		pr.Comments = append(pr.Comments, "perf clock: "+strconv.FormatUint(p.first, 10)+" .. "+strconv.FormatUint(p.last, 10)+" ns")
		if p.opts.Meta != nil {
			if m := p.opts.Meta(); m != nil && m.ClockData != nil {
				cd := m.ClockData
				pr.TimeNanos = int64(cd.WallClockNS) + (int64(p.first) - int64(cd.ClockIDTimeNS))
			}
		}
	}
	if err := pr.CheckValid(); err != nil {
		return err
	}
	return pr.Write(p.w)
}

// mainFirst moves the executable (else the library) with the most leaf
// samples to the front, since pprof takes the first mapping for the main binary, and
// numbers the mappings again.
func (p *Pprof) mainFirst() {
	pr := p.p
	weight := map[*profile.Mapping]int64{}
	for _, s := range pr.Sample {
		if len(s.Location) > 0 && s.Location[0].Mapping != nil {
			weight[s.Location[0].Mapping] += s.Value[0]
		}
	}
	best := -1
	for _, libs := range []bool{false, true} {
		for i, m := range pr.Mapping {
			if strings.HasPrefix(m.File, "[") || !libs && strings.Contains(path.Base(m.File), ".so") {
				continue // the kernel, modules, [vdso]; libraries if there is an executable
			}
			if best < 0 || weight[m] > weight[pr.Mapping[best]] {
				best = i
			}
		}
		if best >= 0 {
			break
		}
	}
	if best > 0 {
		m := pr.Mapping[best]
		copy(pr.Mapping[1:best+1], pr.Mapping[:best])
		pr.Mapping[0] = m
	}
	for i, m := range pr.Mapping {
		m.ID = uint64(i + 1)
	}
}

// period returns the sampling period of event column i: the fixed period,
// or for a frequency a clock event's period in ns (1e9/freq), else the
// mean period of its samples.
func (p *Pprof) period(i int) int64 {
	a := p.eventAttr[i]
	if a != nil && !a.Freq() {
		return int64(a.SamplePeriod)
	}
	if a != nil && isClock(a) && a.SamplePeriod > 0 {
		return int64(1e9 / a.SamplePeriod)
	}
	var total, count int64
	for _, s := range p.p.Sample {
		total += s.Value[1+i]
		if s.Value[1+i] != 0 {
			count += s.Value[0]
		}
	}
	if count == 0 {
		return 0
	}
	return total / count
}
