package session

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/symbolize"
)

// Filter selects samples the way perf's --pid, --tid, --comms, --dsos,
// --symbols, --cpu, --time and --event do. Each non-empty list keeps only
// the samples that match one of its entries; the zero value keeps
// everything.
type Filter struct {
	PIDs []int32 // --pid: the sample's process
	TIDs []int32 // --tid: its thread
	// Comms are the command names of the sample's thread (-c/--comms).
	Comms []string
	// DSOs are the short or full names of the sampled address's DSO
	// (--dsos); an address with no map is in none.
	DSOs []string
	// Symbols are the names of the sampled address's symbol, or the
	// sampled address itself as "0x%x" (-S/--symbols, as perf 6.1
	// matches it).
	Symbols []string
	// CPUs are the CPUs sampled (-C/--cpu); the recording's first event
	// of every event type must sample PERF_SAMPLE_CPU, as perf requires.
	CPUs []uint32
	// Time and TimePercent are --time: absolute ranges, and slices of the
	// recording's sample time span (from its SAMPLE_TIME feature); a
	// sample is kept if it is in any of them.
	Time        []TimeRange
	TimePercent []PercentRange
	// Event is the name of the sample's event (--event); a file (not a
	// stream) must have it.
	Event string
}

// TimeRange is an inclusive range of perf clock nanoseconds; 0 is an open
// end.
type TimeRange struct{ Start, End uint64 }

// PercentRange is a slice of the recording, as fractions in [0,1] of its
// sample time span: perf's "10%/2" is {0.1, 0.2}.
type PercentRange struct{ From, To float64 }

// TimeRanges returns the absolute ranges Time and TimePercent select in a
// recording whose samples span first to last (needed only for percent
// ranges), nil if they select all.
func (f *Filter) TimeRanges(first, last uint64) ([]TimeRange, error) {
	out := slices.Clone(f.Time)
	if len(f.TimePercent) == 0 {
		return out, nil
	}
	if last <= first {
		return nil, errors.New("percent time ranges need the recording's sample time range, which this file does not have")
	}
	span := float64(last - first)
	for _, p := range f.TimePercent {
		r := TimeRange{Start: first + uint64(p.From*span), End: first + uint64(p.To*span)}
		if r.End == 0 {
			r.End = 1
		}
		out = append(out, r)
	}
	return out, nil
}

// filter is a Filter checked against a recording, with its time ranges
// made absolute.
type filter struct {
	Filter
	ranges []TimeRange
}

// newFilter checks fl against the recording f, as perf does before
// reading any event, and resolves its time ranges.
func newFilter(fl Filter, f *decode.File) (filter, error) {
	if fl.Event != "" && !f.Header.Pipe {
		if !slices.ContainsFunc(f.Attrs, func(a *decode.EventAttr) bool { return a.Name == fl.Event }) {
			names := make([]string, len(f.Attrs))
			for i, a := range f.Attrs {
				names[i] = a.Name
			}
			return filter{}, fmt.Errorf("event %q is not in the recording (it has: %s)", fl.Event, strings.Join(names, ", "))
		}
	}
	if len(fl.CPUs) > 0 && !f.Header.Pipe && !cpuSampled(f.Attrs) {
		return filter{}, errors.New("file does not contain CPU events; remove -C to proceed")
	}
	var first, last uint64
	if st := f.Meta.SampleTime; st != nil {
		first, last = st.First, st.Last
	}
	r, err := fl.TimeRanges(first, last)
	if err != nil {
		return filter{}, err
	}
	return filter{Filter: fl, ranges: r}, nil
}

// cpuSampled reports whether -C can select samples by CPU: perf requires
// the first event of every event type to sample PERF_SAMPLE_CPU
// (perf_session__cpu_bitmap).
func cpuSampled(attrs []*decode.EventAttr) bool {
	seen := map[decode.AttrType]bool{}
	for _, a := range attrs {
		if seen[a.Type] {
			continue
		}
		seen[a.Type] = true
		if a.SampleType&decode.SampleCPU == 0 {
			return false
		}
	}
	return true
}

// keepSample applies CPUs, Event and Time to a sample (or to a
// CALLCHAIN_DEFERRED record, which perf 6.19 filters like a sample).
func (f *filter) keepSample(c *decode.RecordCommon) bool {
	if !f.keepCPU(c.CPU) {
		return false
	}
	if f.Event != "" && (c.Attr == nil || c.Attr.Name != f.Event) {
		return false
	}
	if len(f.ranges) > 0 {
		in := false
		for _, r := range f.ranges {
			if (r.Start == 0 || c.Time >= r.Start) && (r.End == 0 || c.Time <= r.End) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// keepCPU applies CPUs; it filters shown side-band records too.
func (f *filter) keepCPU(cpu uint32) bool {
	return len(f.CPUs) == 0 || slices.Contains(f.CPUs, cpu)
}

// keepThread applies PIDs and TIDs.
func (f *filter) keepThread(c *decode.RecordCommon) bool {
	if len(f.PIDs) > 0 && !slices.Contains(f.PIDs, c.PID) {
		return false
	}
	return len(f.TIDs) == 0 || slices.Contains(f.TIDs, c.TID)
}

// keepComm applies Comms to a thread of command comm.
func (f *filter) keepComm(comm string) bool {
	return len(f.Comms) == 0 || slices.Contains(f.Comms, comm)
}

// keepResolved applies Comms, DSOs and Symbols to a symbolized sample, as
// perf's machine__resolve marks it filtered: its command, the short or
// full name of the sampled address's DSO, and its symbol's name or the
// sampled address itself ("0x%x", as perf 6.1 matches it).
func (f *filter) keepResolved(ev *symbolize.Event) bool {
	if !f.keepComm(ev.Comm) {
		return false
	}
	ip := &ev.IP
	if len(f.DSOs) > 0 && (ip.Reason == symbolize.NoMap || !slices.Contains(f.DSOs, ip.DSOShort) && !slices.Contains(f.DSOs, ip.DSO)) {
		return false
	}
	if len(f.Symbols) > 0 {
		named := ip.Reason == symbolize.Resolved && ip.Symbol != "" && slices.Contains(f.Symbols, ip.Symbol)
		if !named && !slices.Contains(f.Symbols, "0x"+strconv.FormatUint(ip.Addr, 16)) {
			return false
		}
	}
	return true
}
