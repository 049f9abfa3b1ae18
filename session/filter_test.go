package session

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/symbolize"
)

// TestCPUSampled checks when -C can filter: the first event of every
// event type must sample the CPU, as perf_session__cpu_bitmap requires.
func TestCPUSampled(t *testing.T) {
	ev := func(typ decode.AttrType, st decode.SampleFormat) *decode.EventAttr {
		return &decode.EventAttr{Type: typ, SampleType: st}
	}
	cpu := decode.SampleIP | decode.SampleCPU
	tests := []struct {
		name  string
		attrs []*decode.EventAttr
		want  bool
	}{
		{"one event with cpu", []*decode.EventAttr{ev(1, cpu)}, true},
		{"one event without", []*decode.EventAttr{ev(1, decode.SampleIP)}, false},
		{"only the first of a type counts", []*decode.EventAttr{ev(1, cpu), ev(1, decode.SampleIP)}, true},
		{"every type's first", []*decode.EventAttr{ev(1, cpu), ev(0, decode.SampleIP)}, false},
	}
	for _, tt := range tests {
		if got := cpuSampled(tt.attrs); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestFilterTimeRanges checks --time made absolute: absolute ranges as
// given, percent slices of the sample time span, both together, and the
// error when a percent range meets a recording without a span.
func TestFilterTimeRanges(t *testing.T) {
	const first, last = 100e9, 200e9
	tests := []struct {
		name        string
		f           Filter
		first, last uint64
		want        []TimeRange
		wantErr     bool
	}{
		{name: "none", first: first, last: last},
		{name: "none, no span", first: 0, last: 0},
		{name: "absolute", f: Filter{Time: []TimeRange{{Start: 1, End: 2}}}, first: first, last: last, want: []TimeRange{{Start: 1, End: 2}}},
		{name: "absolute, no span", f: Filter{Time: []TimeRange{{Start: 0, End: 5}}}, want: []TimeRange{{Start: 0, End: 5}}},
		{name: "10%/2", f: Filter{TimePercent: []PercentRange{{From: 0.1, To: 0.2}}}, first: first, last: last, want: []TimeRange{{Start: 110e9, End: 120e9}}},
		{name: "two slices", f: Filter{TimePercent: []PercentRange{{From: 0, To: 0.1}, {From: 0.5, To: 1}}}, first: first, last: last,
			want: []TimeRange{{Start: 100e9, End: 110e9}, {Start: 150e9, End: 200e9}}},
		{name: "both", f: Filter{Time: []TimeRange{{Start: 7, End: 0}}, TimePercent: []PercentRange{{From: 0.9, To: 1}}}, first: first, last: last,
			want: []TimeRange{{Start: 7, End: 0}, {Start: 190e9, End: 200e9}}},
		// An end at 0 would be open: a slice ending at time 0 ends at 1.
		{name: "zero end", f: Filter{TimePercent: []PercentRange{{From: 0, To: 0}}}, first: 0, last: 10, want: []TimeRange{{Start: 0, End: 1}}},
		{name: "percent, no span", f: Filter{TimePercent: []PercentRange{{From: 0, To: 0.1}}}, first: 5, last: 5, wantErr: true},
	}
	for _, tt := range tests {
		got, err := tt.f.TimeRanges(tt.first, tt.last)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: error %v, want error %v", tt.name, err, tt.wantErr)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestKeepSample checks the filters that drop samples outright (perf
// report does not count them): CPUs, Event and the time ranges, whose
// ends are inclusive and 0 open.
func TestKeepSample(t *testing.T) {
	cycles := &decode.EventAttr{Name: "cycles"}
	clock := &decode.EventAttr{Name: "cpu-clock"}
	smp := func(cpu uint32, attr *decode.EventAttr, time uint64) decode.RecordCommon {
		return decode.RecordCommon{CPU: cpu, Attr: attr, Time: time}
	}
	tests := []struct {
		name string
		f    filter
		c    decode.RecordCommon
		want bool
	}{
		{"zero keeps all", filter{}, smp(3, nil, 0), true},
		{"cpu in list", filter{Filter: Filter{CPUs: []uint32{1, 3}}}, smp(3, nil, 0), true},
		{"cpu not in list", filter{Filter: Filter{CPUs: []uint32{1, 2}}}, smp(3, nil, 0), false},
		{"event", filter{Filter: Filter{Event: "cycles"}}, smp(0, cycles, 0), true},
		{"other event", filter{Filter: Filter{Event: "cycles"}}, smp(0, clock, 0), false},
		{"event, no attr", filter{Filter: Filter{Event: "cycles"}}, smp(0, nil, 0), false},
		{"in range", filter{ranges: []TimeRange{{Start: 10, End: 20}}}, smp(0, nil, 15), true},
		{"start inclusive", filter{ranges: []TimeRange{{Start: 10, End: 20}}}, smp(0, nil, 10), true},
		{"end inclusive", filter{ranges: []TimeRange{{Start: 10, End: 20}}}, smp(0, nil, 20), true},
		{"before", filter{ranges: []TimeRange{{Start: 10, End: 20}}}, smp(0, nil, 9), false},
		{"after", filter{ranges: []TimeRange{{Start: 10, End: 20}}}, smp(0, nil, 21), false},
		{"open start", filter{ranges: []TimeRange{{End: 20}}}, smp(0, nil, 1), true},
		{"open end", filter{ranges: []TimeRange{{Start: 10}}}, smp(0, nil, 1<<60), true},
		{"second range", filter{ranges: []TimeRange{{Start: 1, End: 2}, {Start: 10, End: 20}}}, smp(0, nil, 15), true},
		{"between ranges", filter{ranges: []TimeRange{{Start: 1, End: 2}, {Start: 10, End: 20}}}, smp(0, nil, 5), false},
		{"all must hold", filter{Filter: Filter{CPUs: []uint32{0}, Event: "cycles"}, ranges: []TimeRange{{Start: 10}}}, smp(0, cycles, 5), false},
	}
	for _, tt := range tests {
		if got := tt.f.keepSample(&tt.c); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestKeepThread checks --pid and --tid: both must match when both are
// given.
func TestKeepThread(t *testing.T) {
	tests := []struct {
		name     string
		f        Filter
		pid, tid int32
		want     bool
	}{
		{"zero keeps all", Filter{}, 5, 6, true},
		{"pid", Filter{PIDs: []int32{4, 5}}, 5, 6, true},
		{"other pid", Filter{PIDs: []int32{4}}, 5, 6, false},
		{"tid", Filter{TIDs: []int32{6}}, 5, 6, true},
		{"pid's other thread", Filter{TIDs: []int32{5}}, 5, 6, false},
		{"pid and tid", Filter{PIDs: []int32{5}, TIDs: []int32{6}}, 5, 6, true},
		{"pid but not tid", Filter{PIDs: []int32{5}, TIDs: []int32{7}}, 5, 6, false},
	}
	for _, tt := range tests {
		f := filter{Filter: tt.f}
		if got := f.keepThread(&decode.RecordCommon{PID: tt.pid, TID: tt.tid}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestKeepResolved checks --comms, --dsos and --symbols on a symbolized
// sample, as perf's machine__resolve: the DSO by its short or full name
// (an address without a map is in none), the symbol by name when it
// resolved, else (or also) the sampled address as 0x%x.
func TestKeepResolved(t *testing.T) {
	resolved := symbolize.Frame{Addr: 0x4011d6, DSO: "/usr/bin/prog", DSOShort: "prog", Symbol: "main", Reason: symbolize.Resolved}
	noSyms := symbolize.Frame{Addr: 0x7f0010, DSO: "/lib/libx.so", DSOShort: "libx.so", Reason: symbolize.NoSymbols}
	noMap := symbolize.Frame{Addr: 0xdead, DSO: "[unknown]", DSOShort: "[unknown]", Reason: symbolize.NoMap}
	tests := []struct {
		name string
		f    Filter
		comm string
		ip   symbolize.Frame
		want bool
	}{
		{"zero keeps all", Filter{}, "prog", noMap, true},
		{"comm", Filter{Comms: []string{"x", "prog"}}, "prog", resolved, true},
		{"other comm", Filter{Comms: []string{"x"}}, "prog", resolved, false},
		{"dso short name", Filter{DSOs: []string{"prog"}}, "prog", resolved, true},
		{"dso full name", Filter{DSOs: []string{"/usr/bin/prog"}}, "prog", resolved, true},
		{"other dso", Filter{DSOs: []string{"libc.so.6"}}, "prog", resolved, false},
		{"dso without symbols", Filter{DSOs: []string{"libx.so"}}, "prog", noSyms, true},
		{"no map is in no dso", Filter{DSOs: []string{"[unknown]"}}, "prog", noMap, false},
		{"symbol", Filter{Symbols: []string{"main"}}, "prog", resolved, true},
		{"other symbol", Filter{Symbols: []string{"foo"}}, "prog", resolved, false},
		{"address of a resolved sample", Filter{Symbols: []string{"0x4011d6"}}, "prog", resolved, true},
		{"address without symbols", Filter{Symbols: []string{"0x7f0010"}}, "prog", noSyms, true},
		{"address without a map", Filter{Symbols: []string{"0xdead"}}, "prog", noMap, true},
		{"address is lower-case hex without padding", Filter{Symbols: []string{"0xDEAD", "0x0000dead"}}, "prog", noMap, false},
		{"all must hold", Filter{Comms: []string{"prog"}, DSOs: []string{"prog"}, Symbols: []string{"foo"}}, "prog", resolved, false},
	}
	for _, tt := range tests {
		f := filter{Filter: tt.f}
		ev := &symbolize.Event{Comm: tt.comm, IP: tt.ip}
		if got := f.keepResolved(ev); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestNewFilter checks what perf refuses before reading any event: an
// event the file does not have, -C on a file whose events do not sample
// the CPU, and percent ranges without a sample time span; a stream is
// not checked (its events come later).
func TestNewFilter(t *testing.T) {
	noCPU := []*decode.EventAttr{{Name: "cpu-clock", SampleType: decode.SampleIP}}
	file := func(pipe bool, attrs []*decode.EventAttr, st *decode.SampleTimeRange) *decode.File {
		f := &decode.File{Attrs: attrs}
		f.Header.Pipe = pipe
		f.Meta.SampleTime = st
		return f
	}
	tests := []struct {
		name    string
		f       Filter
		file    *decode.File
		wantErr string
	}{
		{"event present", Filter{Event: "cpu-clock"}, file(false, noCPU, nil), ""},
		{"event absent", Filter{Event: "cycles"}, file(false, noCPU, nil), `event "cycles" is not in the recording (it has: cpu-clock)`},
		{"event absent from a stream", Filter{Event: "cycles"}, file(true, noCPU, nil), ""},
		{"cpu not sampled", Filter{CPUs: []uint32{0}}, file(false, noCPU, nil), "file does not contain CPU events; remove -C to proceed"},
		{"cpu not sampled, stream", Filter{CPUs: []uint32{0}}, file(true, noCPU, nil), ""},
		{"percent without span", Filter{TimePercent: []PercentRange{{From: 0, To: 0.5}}}, file(false, noCPU, nil), "percent time ranges need"},
		{"percent with span", Filter{TimePercent: []PercentRange{{From: 0, To: 0.5}}}, file(false, noCPU, &decode.SampleTimeRange{First: 10, Last: 20}), ""},
	}
	for _, tt := range tests {
		_, err := newFilter(tt.f, tt.file)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}
