package stats

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/table"
	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// Collector gathers what perfstitch stats reports from the pipeline:
// samples per event, lost and throttle records, and how well frames
// resolved. It implements [output.RecordSink]; feed it every sample and the LOST,
// LOST_SAMPLES, THROTTLE and UNTHROTTLE records, then call [Collector.Stats].
type Collector struct {
	events map[*decode.EventAttr]*eventCounts

	lostRecords, lostEvents uint64
	throttle, unthrottle    uint64
	firstTime, lastTime     uint64

	samples, weight, ipResolved, weightResolved uint64
	frames, framesResolved                      uint64
	states                                      [4]uint64
	// ipUnresolved is the weight of samples whose IP stayed unresolved,
	// per DSO (long name, "[unknown]" outside every map).
	ipUnresolved map[string]uint64
}

type eventCounts struct {
	samples, period, lostSamples uint64
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{events: make(map[*decode.EventAttr]*eventCounts), ipUnresolved: make(map[string]uint64)}
}

func (c *Collector) event(a *decode.EventAttr) *eventCounts {
	e := c.events[a]
	if e == nil {
		e = &eventCounts{}
		c.events[a] = e
	}
	return e
}

// Add counts one sample.
func (c *Collector) Add(ev *symbolize.Event) error {
	if ev == nil || ev.Sample == nil || ev.Sample.Sample == nil {
		return nil
	}
	s := ev.Sample.Sample
	period := s.Period
	e := c.event(s.Attr)
	e.samples++
	e.period += period
	if s.HasTime() {
		if c.firstTime == 0 || s.Time < c.firstTime {
			c.firstTime = s.Time
		}
		c.lastTime = max(c.lastTime, s.Time)
	}
	c.samples++
	c.weight += period
	if ev.IP.Reason == symbolize.Resolved {
		c.ipResolved++
		c.weightResolved += period
	} else {
		c.ipUnresolved[ev.IP.DSO] += period
	}
	for i := range ev.Frames {
		if ev.Frames[i].Cookie {
			continue
		}
		c.frames++
		if ev.Frames[i].Reason == symbolize.Resolved {
			c.framesResolved++
		}
	}
	if int(ev.Sample.State) < len(c.states) {
		c.states[ev.Sample.State]++
	}
	return nil
}

// AddRecord counts lost and throttle records.
func (c *Collector) AddRecord(rec *output.Record) error {
	switch x := rec.Record.(type) {
	case *decode.Lost:
		c.lostRecords++
		c.lostEvents += x.Lost
	case *decode.LostSamples:
		c.event(x.Attr).lostSamples += x.Lost
	case *decode.Throttle:
		if x.Unthrottle {
			c.unthrottle++
		} else {
			c.throttle++
		}
	}
	return nil
}

// Flush does nothing; see [Collector.Stats].
func (c *Collector) Flush() error { return nil }

// Stats is everything perfstitch stats prints.
type Stats struct {
	Header  Header        `json:"header"`
	Events  []Event       `json:"events"`
	Records []RecordCount `json:"records"`
	Lost    Lost          `json:"lost"`
	Stitch  *Stitch       `json:"stitch,omitempty"`
	Symbols Symbolized    `json:"symbolization"`
	// Warnings counts what was skipped, repaired or distrusted (printed
	// on stderr).
	Warnings uint64 `json:"warnings,omitempty"`

	// compat is the dialect of WritePerf.
	compat compat.Dialect
}

// Header is what the file says about the recording.
type Header struct {
	Hostname    string   `json:"hostname,omitempty"`
	OSRelease   string   `json:"os_release,omitempty"`
	PerfVersion string   `json:"perf_version,omitempty"`
	Arch        string   `json:"arch,omitempty"`
	NrCPUs      uint32   `json:"nr_cpus_online,omitempty"`
	NrCPUsAvail uint32   `json:"nr_cpus_available,omitempty"`
	Cmdline     []string `json:"cmdline,omitempty"`
	Pipe        bool     `json:"pipe_mode"`
	// AuxTrace says the file has an AUXTRACE feature section (AUX area
	// data, e.g. Intel PT).
	AuxTrace bool `json:"auxtrace"`
	// FirstSample and LastSample are perf clock nanoseconds.
	FirstSample uint64 `json:"first_sample_ns"`
	LastSample  uint64 `json:"last_sample_ns"`
	// DeferredABI is "none", "seed" (patch series without cookies) or
	// "cookie" (Linux/perf 6.19).
	DeferredABI string `json:"deferred_abi"`
}

// Event is one event (attr) and its sample counts.
type Event struct {
	Name        string `json:"name"`
	Type        uint32 `json:"type"`
	Config      uint64 `json:"config"`
	SampleType  string `json:"sample_type"`
	Freq        bool   `json:"freq"`
	Period      uint64 `json:"sample_period_or_freq"`
	Callchain   string `json:"callchain"`
	Defer       string `json:"defer,omitempty"`
	Samples     uint64 `json:"samples"`
	EventCount  uint64 `json:"event_count"`
	LostSamples uint64 `json:"lost_samples"`

	// perfName is the name perf report --stats prints: the attr-derived
	// one for pipe-mode streams in the 6.1 dialect, where perf 6.1
	// ignores the recorded names (compat.Dialect.StatsPipeRecordedNames).
	perfName string
}

// RecordCount is the number of records of one type.
type RecordCount struct {
	Type  string `json:"type"`
	Count uint64 `json:"count"`
}

// Lost counts what the kernel could not deliver.
type Lost struct {
	LostRecords uint64 `json:"lost_records"`
	LostEvents  uint64 `json:"lost_events"`
	LostSamples uint64 `json:"lost_samples"`
	Throttle    uint64 `json:"throttle"`
	Unthrottle  uint64 `json:"unthrottle"`
}

// Stitch summarises the stitcher's counters.
type Stitch struct {
	Samples          uint64            `json:"samples"`
	NotDeferred      uint64            `json:"not_deferred"`
	Deferred         uint64            `json:"deferred"`
	Stitched         uint64            `json:"stitched"`
	CookieMismatch   uint64            `json:"cookie_mismatch"`
	NoRecord         uint64            `json:"no_record"`
	NoRecordAtExit   uint64            `json:"no_record_at_exit"`
	NoRecordAtEnd    uint64            `json:"no_record_at_end"`
	NoRecordCap      uint64            `json:"no_record_cap"`
	NoRecordNoTID    uint64            `json:"no_record_no_tid"`
	CookieOnly       uint64            `json:"stitched_by_cookie_only"`
	RecordsSeed      uint64            `json:"records_seed_abi"`
	RecordsCookie    uint64            `json:"records_cookie_abi"`
	Duplicate        uint64            `json:"duplicate_records"`
	Orphan           uint64            `json:"orphan_records"`
	UnknownTID       uint64            `json:"unknown_tid_records"`
	PerRecordMin     uint64            `json:"samples_per_record_min"`
	PerRecordMean    float64           `json:"samples_per_record_mean"`
	PerRecordMax     uint64            `json:"samples_per_record_max"`
	PerRecordBuckets []HistogramBucket `json:"samples_per_record_histogram"`
	PendingHighWater int               `json:"pending_high_water"`
	QueueHighWater   int               `json:"queue_high_water"`
}

// HistogramBucket is one bucket of the samples-per-record histogram.
type HistogramBucket struct {
	Range string `json:"range"`
	Count uint64 `json:"count"`
}

// Symbolized says how well the profile resolved.
type Symbolized struct {
	Frames         uint64 `json:"frames"`
	FramesResolved uint64 `json:"frames_resolved"`
	// Samples and Weight count sample IPs; *Resolved those with a symbol.
	Samples        uint64 `json:"samples"`
	SamplesResolve uint64 `json:"samples_resolved"`
	Weight         uint64 `json:"weight"`
	WeightResolved uint64 `json:"weight_resolved"`
	// DSOs with unresolved frames, the heaviest unresolved weight first.
	DSOs []DSOQuality `json:"dsos"`
}

// DSOQuality is one DSO's share of unresolved frames. DSOs are ranked by
// UnresolvedWeight, then by ChainWeight.
type DSOQuality struct {
	DSO     string `json:"dso"`
	Reason  string `json:"reason"`
	Path    string `json:"path,omitempty"`
	BuildID string `json:"build_id,omitempty"`
	// UnresolvedWeight sums the period of the samples whose sampled IP
	// lies in this DSO without a symbol: the weight perf report shows as
	// bare addresses, which supplying the DSO would name.
	UnresolvedWeight uint64 `json:"unresolved_weight"`
	// ChainWeight sums the period of the samples with any unresolved
	// frame in this DSO (sampled IP or callchain).
	ChainWeight uint64 `json:"unresolved_chain_weight"`
	Frames      uint64 `json:"frames"`
	Unresolved  uint64 `json:"unresolved_frames"`
}

// Input is what the pipeline knows at the end besides the samples.
type Input struct {
	File        *decode.File
	Records     *decode.Stats
	Stitch      *stitch.Stats // nil if unknown
	Diagnostics []symbolize.DSODiagnostic
	// Compat is the perf release whose perf report --stats text WritePerf
	// prints (--compat); the zero value means [compat.Default].
	Compat   compat.Dialect
	Warnings uint64 // the run's warnings (internal/diag)
}

var sampleFormatNames = []string{"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
	"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
	"TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT"}

func sampleFormatString(f decode.SampleFormat) string {
	var parts []string
	for i, n := range sampleFormatNames {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if f >= decode.SampleFormatMax {
		parts = append(parts, fmt.Sprintf("0x%x", uint64(f&^(decode.SampleFormatMax-1))))
	}
	return strings.Join(parts, "|")
}

// Stats combines the collected counts with the pipeline's.
func (c *Collector) Stats(in Input) *Stats {
	attrs := c.attrs(in.File)
	if in.Compat.Version == "" {
		in.Compat = compat.Default
	}
	st := &Stats{
		compat:  in.Compat,
		Header:  c.header(in.File),
		Records: recordCounts(in.Records),
		Lost: Lost{
			LostRecords: c.lostRecords, LostEvents: c.lostEvents,
			Throttle: c.throttle, Unthrottle: c.unthrottle,
		},
		Symbols:  c.symbolized(in.Diagnostics),
		Warnings: in.Warnings,
	}
	st.Events = c.eventStats(attrs, st.Header.Pipe && !in.Compat.StatsPipeRecordedNames)
	for _, e := range st.Events {
		st.Lost.LostSamples += e.LostSamples
	}
	if in.Stitch != nil {
		st.Stitch = stitchStats(in.Stitch)
	}
	st.Header.DeferredABI = deferredABI(st.Stitch, attrs)
	return st
}

// header is what f says about the recording, with the time span of the
// samples seen when f has none.
func (c *Collector) header(f *decode.File) Header {
	h := Header{FirstSample: c.firstTime, LastSample: c.lastTime}
	if f == nil {
		return h
	}
	m := &f.Meta
	h.Hostname, h.OSRelease, h.PerfVersion, h.Arch = m.Hostname, m.OSRelease, m.Version, m.Arch
	h.NrCPUs, h.NrCPUsAvail, h.Cmdline = m.NrCPUsOnline, m.NrCPUsAvail, m.Cmdline
	h.Pipe = f.Header.Pipe
	h.AuxTrace = slices.Contains(m.Features, decode.FeatureAuxtrace)
	if m.SampleTime != nil && m.SampleTime.Last != 0 {
		h.FirstSample, h.LastSample = m.SampleTime.First, m.SampleTime.Last
	}
	return h
}

// attrs returns the events of f and those samples came with that f does
// not list, in index order.
func (c *Collector) attrs(f *decode.File) []*decode.EventAttr {
	var attrs []*decode.EventAttr
	if f != nil {
		attrs = f.Attrs
	}
	for a := range c.events {
		if a != nil && !slices.Contains(attrs, a) {
			attrs = append(attrs, a)
		}
	}
	sort.SliceStable(attrs, func(i, j int) bool { return attrs[i].Index < attrs[j].Index })
	return attrs
}

// eventStats describes each event with its counts; derived says perf
// names the events by their attrs (see Event.perfName).
func (c *Collector) eventStats(attrs []*decode.EventAttr, derived bool) []Event {
	out := make([]Event, 0, len(attrs))
	for _, a := range attrs {
		e := c.events[a]
		if e == nil {
			e = &eventCounts{}
		}
		se := Event{
			Name: a.Name, Type: uint32(a.Type), Config: a.Config, SampleType: sampleFormatString(a.SampleType),
			Freq: a.Freq(), Period: a.SamplePeriod, Callchain: callchainText(a), Defer: deferText(a),
			Samples: e.samples, EventCount: e.period, LostSamples: e.lostSamples,
			perfName: a.Name,
		}
		if derived {
			se.perfName = a.DerivedName()
		}
		out = append(out, se)
	}
	return out
}

// callchainText says which callchains the event records.
func callchainText(a *decode.EventAttr) string {
	switch {
	case a.SampleType&decode.SampleCallchain == 0:
		return "no"
	case a.Flags&decode.AttrExcludeCallchainUser != 0:
		return "kernel only"
	case a.Flags&decode.AttrExcludeCallchainKernel != 0:
		return "user only"
	}
	return "yes"
}

// deferText lists the event's deferral flags.
func deferText(a *decode.EventAttr) string {
	var d []string
	if a.DeferCallchain() {
		d = append(d, "defer_callchain")
	}
	if a.DeferOutput() {
		d = append(d, "defer_output")
	}
	return strings.Join(d, ",")
}

// recordCounts lists the record types seen, in type order.
func recordCounts(rs *decode.Stats) []RecordCount {
	out := []RecordCount{}
	if rs == nil {
		return out
	}
	var types []decode.RecordType
	for t := range rs.Counts {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	for _, t := range types {
		if n := rs.Counts[t]; n > 0 {
			out = append(out, RecordCount{Type: t.String(), Count: n})
		}
	}
	return out
}

// stitchStats summarises the stitcher's counters.
func stitchStats(s *stitch.Stats) *Stitch {
	hs := s.SamplesPerRecord
	ss := &Stitch{
		Samples:          s.Total(),
		NotDeferred:      s.Count(stitch.NotDeferred),
		Deferred:         s.Deferred(),
		Stitched:         s.Count(stitch.Stitched),
		CookieMismatch:   s.Count(stitch.CookieMismatch),
		NoRecord:         s.Count(stitch.NoRecord),
		NoRecordAtExit:   s.NoRecordAtExit,
		NoRecordAtEnd:    s.NoRecordAtEnd,
		NoRecordCap:      s.NoRecordCap,
		NoRecordNoTID:    s.NoRecordNoTID,
		CookieOnly:       s.CookieOnlyStitched,
		RecordsSeed:      s.Records[decode.DeferredSeed],
		RecordsCookie:    s.Records[decode.DeferredCookie],
		Duplicate:        s.DuplicateRecords,
		Orphan:           s.OrphanRecords,
		UnknownTID:       s.UnknownTIDRecords,
		PerRecordMin:     hs.Min,
		PerRecordMax:     hs.Max,
		PendingHighWater: s.PendingHighWater,
		QueueHighWater:   s.QueueHighWater,
	}
	if hs.N > 0 {
		ss.PerRecordMean = float64(hs.Sum) / float64(hs.N)
	}
	for i, n := range hs.Buckets {
		ss.PerRecordBuckets = append(ss.PerRecordBuckets, HistogramBucket{Range: bucketRange(i), Count: n})
	}
	return ss
}

// deferredABI names the deferred-callchain ABI of the recording: the
// records' when the stitcher saw any (ss may be nil), else what the
// events ask for (the last deferring event decides).
func deferredABI(ss *Stitch, attrs []*decode.EventAttr) string {
	switch {
	case ss != nil && ss.RecordsCookie > 0:
		return "cookie"
	case ss != nil && ss.RecordsSeed > 0:
		return "seed"
	}
	abi := "none"
	for _, a := range attrs {
		if a.DeferCallchain() {
			abi = "seed"
			if a.DeferOutput() {
				abi = "cookie"
			}
		}
	}
	return abi
}

// symbolized says how well the samples resolved, with the DSOs that left
// frames unresolved, the heaviest unresolved weight first.
func (c *Collector) symbolized(diags []symbolize.DSODiagnostic) Symbolized {
	sym := Symbolized{
		Frames: c.frames, FramesResolved: c.framesResolved,
		Samples: c.samples, SamplesResolve: c.ipResolved,
		Weight: c.weight, WeightResolved: c.weightResolved,
		DSOs: []DSOQuality{},
	}
	for _, d := range diags {
		if d.Unresolved == 0 {
			continue
		}
		sym.DSOs = append(sym.DSOs, DSOQuality{
			DSO: d.DSO, Reason: reasonText(d), Path: d.Path, BuildID: d.BuildID,
			UnresolvedWeight: c.ipUnresolved[d.DSO], ChainWeight: d.UnresolvedWeight,
			Frames: d.Frames, Unresolved: d.Unresolved,
		})
	}
	sort.SliceStable(sym.DSOs, func(i, j int) bool {
		a, b := sym.DSOs[i], sym.DSOs[j]
		if a.UnresolvedWeight != b.UnresolvedWeight {
			return a.UnresolvedWeight > b.UnresolvedWeight
		}
		if a.ChainWeight != b.ChainWeight {
			return a.ChainWeight > b.ChainWeight
		}
		return a.Unresolved > b.Unresolved
	})
	return sym
}

// reasonText says why a DSO's frames stayed unresolved.
func reasonText(d symbolize.DSODiagnostic) string {
	if d.Reason == symbolize.Resolved {
		return "no symbol covers some addresses (stripped?)"
	}
	return d.Reason.String()
}

// bucketRange names bucket i of a stitch.Histogram: 1, 2, 3-4, 5-8, ...
func bucketRange(i int) string {
	switch {
	case i == 0:
		return "1"
	case i == 1:
		return "2"
	case i == stitch.HistogramBuckets-1:
		return strconv.Itoa(1<<(i-1)+1) + "+"
	}
	return strconv.Itoa(1<<(i-1)+1) + "-" + strconv.Itoa(1<<i)
}

// WritePerf prints the record counts as perf report --stats does:
// "Aggregated stats:" with every record type seen, then the samples (and
// lost samples) of each event.
func (st *Stats) WritePerf(w io.Writer) error {
	bw := bufio.NewWriter(w)
	width := st.compat.StatsNameWidth
	if width == 0 {
		width = compat.Default.StatsNameWidth
	}
	var total uint64
	for _, r := range st.Records {
		total += r.Count
	}
	msg := ""
	if st.Header.AuxTrace {
		msg = " (excludes AUX area (e.g. instruction trace) decoded / synthesized events)"
	}
	bw.WriteString("\nAggregated stats:" + msg + "\n")
	fmt.Fprintf(bw, "%*s events: %10d\n", width, "TOTAL", uint32(total))
	for _, r := range st.Records {
		if strings.HasPrefix(r.Type, "type ") {
			continue // perf skips types it has no name for
		}
		fmt.Fprintf(bw, "%*s events: %10d  (%4.1f%%)\n", width, r.Type, uint32(r.Count), 100.0*float64(uint32(r.Count))/float64(uint32(total)))
	}
	for _, e := range st.Events {
		if e.Samples == 0 && e.LostSamples == 0 {
			continue
		}
		name := e.perfName
		if name == "" {
			name = e.Name
		}
		fmt.Fprintf(bw, "%s stats:\n", name)
		if e.Samples != 0 {
			fmt.Fprintf(bw, "%*s events: %10d\n", width, "SAMPLE", uint32(e.Samples))
		}
		if e.LostSamples != 0 {
			fmt.Fprintf(bw, "%*s events: %10d\n", width, "LOST_SAMPLES", uint32(e.LostSamples))
		}
	}
	return bw.Flush()
}

// WriteJSON prints the stats as one indented JSON document.
func (st *Stats) WriteJSON(w io.Writer) error {
	return table.WriteJSON(w, st, "stats")
}

// Write prints the stats in format f.
func (st *Stats) Write(w io.Writer, f table.Format) error {
	return table.Write(w, f, st)
}

func share(part, whole uint64) string {
	return strconv.FormatFloat(table.Percent(part, whole), 'f', 1, 64) + "%"
}

// WriteTable prints the stats as tablewriter tables, one per topic.
func (st *Stats) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, write := range []func(*bufio.Writer) error{
		st.writeRecording, st.writeEvents, st.writeRecords, st.writeStitch, st.writeSymbolization,
	} {
		if err := write(bw); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// render draws t, which the write* methods have filled.
func render(t *tablewriter.Table) error {
	if err := t.Render(); err != nil {
		return fmt.Errorf("stats table: %w", err)
	}
	return nil
}

// section starts the table of a topic.
func section(bw *bufio.Writer, title string) { fmt.Fprintf(bw, "\n%s\n", title) }

// deferredABIText describes a value of Header.DeferredABI.
func deferredABIText(abi string) string {
	switch abi {
	case "none":
		return "none (no deferred callchains)"
	case "seed":
		return "seed (records without cookie)"
	case "cookie":
		return "cookie (Linux/perf 6.19)"
	}
	return ""
}

// writeRecording prints the header's table.
func (st *Stats) writeRecording(bw *bufio.Writer) error {
	h := st.Header
	bw.WriteString("Recording\n")
	t := table.New(bw, []string{"Field", "Value"})
	span := "-"
	if h.LastSample > h.FirstSample {
		span = fmt.Sprintf("%.6f s (%.6f to %.6f)", float64(h.LastSample-h.FirstSample)/1e9, float64(h.FirstSample)/1e9, float64(h.LastSample)/1e9)
	}
	mode := "file"
	if h.Pipe {
		mode = "pipe"
	}
	for _, kv := range [][2]string{
		{"hostname", h.Hostname}, {"os release", h.OSRelease}, {"perf version", h.PerfVersion},
		{"arch", h.Arch}, {"nr cpus", fmt.Sprintf("%d online, %d available", h.NrCPUs, h.NrCPUsAvail)},
		{"cmdline", strings.Join(h.Cmdline, " ")}, {"format", mode}, {"time span", span},
		{"deferred ABI", deferredABIText(h.DeferredABI)},
	} {
		t.Append([]string{kv[0], kv[1]})
	}
	return render(t)
}

// writeEvents prints one row per event.
func (st *Stats) writeEvents(bw *bufio.Writer) error {
	section(bw, "Events")
	t := table.New(bw, []string{"Event", "Sample type", "Freq/period", "Callchain", "Defer", "Samples", "Event count", "Lost samples"}, 5, 6, 7)
	for _, e := range st.Events {
		fp := "period " + strconv.FormatUint(e.Period, 10)
		if e.Freq {
			fp = strconv.FormatUint(e.Period, 10) + " Hz"
		}
		t.Append([]string{e.Name, e.SampleType, fp, e.Callchain, e.Defer,
			strconv.FormatUint(e.Samples, 10), strconv.FormatUint(e.EventCount, 10), strconv.FormatUint(e.LostSamples, 10)})
	}
	return render(t)
}

// writeRecords prints the record counts, then the lost and throttle line.
func (st *Stats) writeRecords(bw *bufio.Writer) error {
	section(bw, "Records")
	t := table.New(bw, []string{"Type", "Count", "Share"}, 1, 2)
	var total uint64
	for _, r := range st.Records {
		total += r.Count
	}
	for _, r := range st.Records {
		t.Append([]string{r.Type, strconv.FormatUint(r.Count, 10), share(r.Count, total)})
	}
	t.Append([]string{"TOTAL", strconv.FormatUint(total, 10), ""})
	if err := render(t); err != nil {
		return err
	}
	l := st.Lost
	fmt.Fprintf(bw, "lost: %d LOST records (%d events), %d samples; throttled %d times, unthrottled %d times\n",
		l.LostRecords, l.LostEvents, l.LostSamples, l.Throttle, l.Unthrottle)
	if st.Warnings > 0 {
		fmt.Fprintf(bw, "warnings: %d (records, fields or symbol sources skipped, repaired or distrusted; see stderr)\n", st.Warnings)
	}
	return nil
}

// writeStitch prints the stitcher's counters and, if there were deferred
// records, the samples-per-record histogram; nothing without counters.
func (st *Stats) writeStitch(bw *bufio.Writer) error {
	s := st.Stitch
	if s == nil {
		return nil
	}
	section(bw, "Stitching")
	t := table.New(bw, []string{"Counter", "Value"}, 1)
	for _, kv := range []struct {
		k string
		v uint64
	}{
		{"samples", s.Samples}, {"not deferred", s.NotDeferred}, {"deferred", s.Deferred},
		{"stitched", s.Stitched}, {"cookie mismatch", s.CookieMismatch}, {"no record", s.NoRecord},
		{"no record: thread exited", s.NoRecordAtExit}, {"no record: input ended", s.NoRecordAtEnd}, {"no record: pending cap", s.NoRecordCap}, {"no record: records carry no thread id", s.NoRecordNoTID},
		{"stitched by cookie alone", s.CookieOnly},
		{"deferred records (seed ABI)", s.RecordsSeed}, {"deferred records (cookie ABI)", s.RecordsCookie},
		{"duplicate records", s.Duplicate}, {"records without a waiting sample", s.Orphan},
		{"records without a thread id", s.UnknownTID},
	} {
		t.Append([]string{kv.k, strconv.FormatUint(kv.v, 10)})
	}
	t.Append([]string{"samples per record (min/mean/max)", fmt.Sprintf("%d / %.2f / %d", s.PerRecordMin, s.PerRecordMean, s.PerRecordMax)})
	t.Append([]string{"most samples held (queue)", fmt.Sprintf("%d (%d)", s.PendingHighWater, s.QueueHighWater)})
	if err := render(t); err != nil {
		return err
	}
	if s.RecordsSeed+s.RecordsCookie == 0 {
		return nil
	}
	t = table.New(bw, []string{"Samples per record", "Records"}, 1)
	for _, b := range s.PerRecordBuckets {
		t.Append([]string{b.Range, strconv.FormatUint(b.Count, 10)})
	}
	return render(t)
}

// writeSymbolization prints the resolution summary and the DSOs that
// left frames unresolved.
func (st *Stats) writeSymbolization(bw *bufio.Writer) error {
	section(bw, "Symbolization")
	sy := st.Symbols
	fmt.Fprintf(bw, "frames resolved: %d of %d (%s); sample IPs resolved: %d of %d (%s of the weight)\n",
		sy.FramesResolved, sy.Frames, share(sy.FramesResolved, sy.Frames),
		sy.SamplesResolve, sy.Samples, share(sy.WeightResolved, sy.Weight))
	if len(sy.DSOs) == 0 {
		return nil
	}
	t := table.New(bw, []string{"DSO", "Reason", "Unresolved IP weight", "Share", "In chains", "Unresolved frames", "Frames"}, 2, 3, 4, 5, 6)
	for _, d := range sy.DSOs {
		t.Append([]string{d.DSO, d.Reason, strconv.FormatUint(d.UnresolvedWeight, 10), share(d.UnresolvedWeight, sy.Weight),
			share(d.ChainWeight, sy.Weight), strconv.FormatUint(d.Unresolved, 10), strconv.FormatUint(d.Frames, 10)})
	}
	return render(t)
}

var _ output.RecordSink = (*Collector)(nil)
