package output

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/pprof/profile"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// fakeMappings is a Mappings function over fixed mappings.
func fakeMappings(ms ...symbolize.Mapping) func(int32, uint64, bool) (symbolize.Mapping, bool) {
	return func(_ int32, addr uint64, kernel bool) (symbolize.Mapping, bool) {
		for _, m := range ms {
			if addr >= m.Start && addr < m.Limit && kernel == (m.File == "[kernel.kallsyms]") {
				return m, true
			}
		}
		return symbolize.Mapping{}, false
	}
}

func writePprof(t *testing.T, attrs []*decode.EventAttr, opts PprofOptions, evs ...*symbolize.Event) *profile.Profile {
	t.Helper()
	var out bytes.Buffer
	w := NewPprof(&out, func() []*decode.EventAttr { return attrs }, opts)
	for _, ev := range evs {
		if err := w.Add(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&out)
	if err != nil {
		t.Fatalf("profile.Parse: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("CheckValid: %v", err)
	}
	return p
}

// lines returns the function names of a sample's locations, leaf first,
// inline frames joined with "+".
func lines(s *profile.Sample) []string {
	var out []string
	for _, l := range s.Location {
		n := ""
		for i, ln := range l.Line {
			if i > 0 {
				n += "+"
			}
			n += ln.Function.Name
		}
		out = append(out, n)
	}
	return out
}

func TestPprof(t *testing.T) {
	attrs := fixture()
	evs := events(attrs)
	kernel := symbolize.Mapping{Start: 0xffffffff81000000, Limit: 0xffffffff83000000, Offset: 0xffffffff81000000, File: "[kernel.kallsyms]", BuildID: "aa"}
	prog := symbolize.Mapping{Start: 0x401000, Limit: 0x402000, Offset: 0x1000, File: "/opt/perfstitch-corpus/bin/prog_a"}
	libc := symbolize.Mapping{Start: 0x7fe375300000, Limit: 0x7fe375400000, Offset: 0x26000, File: "/usr/lib/x86_64-linux-gnu/libc.so.6", BuildID: "bb"}
	p := writePprof(t, attrs, PprofOptions{Mappings: fakeMappings(kernel, prog, libc)}, evs...)

	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if want := []string{"samples/count", "cpu-clock/nanoseconds", "task-clock/nanoseconds"}; !cmp.Equal(types, want) {
		t.Errorf("sample types %v, want %v", types, want)
	}
	if p.DefaultSampleType != "cpu-clock" {
		t.Errorf("default sample type %q", p.DefaultSampleType)
	}
	var total, samples int64
	for _, s := range p.Sample {
		samples += s.Value[0]
		total += s.Value[1] + s.Value[2]
		if s.Label["comm"] == nil || s.Label["stitch"] == nil || s.NumLabel["pid"] == nil || s.NumLabel["tid"] == nil || s.NumLabel["cpu"] == nil {
			t.Errorf("sample without its labels: %v %v", s.Label, s.NumLabel)
		}
	}
	if samples != int64(len(evs)) || total != int64(len(evs))*1000000 {
		t.Errorf("%d samples of %d ns, want %d of %d", samples, total, len(evs), len(evs)*1000000)
	}
	if len(p.Mapping) == 0 || p.Mapping[0].File != prog.File {
		t.Errorf("first mapping %v, want the executable", p.Mapping)
	}
	for _, m := range p.Mapping {
		if !m.HasFunctions {
			t.Errorf("mapping %s without has_functions", m.File)
		}
	}
	for _, l := range p.Location {
		covered := false
		for _, m := range []symbolize.Mapping{kernel, prog, libc} {
			covered = covered || l.Address >= m.Start && l.Address < m.Limit
		}
		if covered != (l.Mapping != nil) {
			t.Errorf("location %#x: mapping %v, want one: %v", l.Address, l.Mapping, covered)
		}
	}
	if p.DurationNanos <= 0 {
		t.Errorf("duration %d", p.DurationNanos)
	}
}

func TestPprofInlineAndUnresolved(t *testing.T) {
	attrs := fixture()
	prog := "/opt/prog"
	inl := uframe(0x401010, 0x1010, "inner", 0x10, prog)
	inl.Inlined = true
	outer := uframe(0x401010, 0x1010, "outer", 0x10, prog)
	unres := uframe(0x7f0000001234, 0x1234, "", 0, "/lib/libx.so")
	nomap := symbolize.Frame{Addr: 0xdead, MapAddr: 0xdead, DSO: "[unknown]", DSOShort: "[unknown]", Reason: symbolize.NoMap}
	caller := uframe(0x401100, 0x1100, "main", 0x5, prog)
	s := &decode.Sample{IP: inl.Addr, Period: 5}
	s.Attr, s.Format = attrs[0], attrs[0].SampleType
	s.PID, s.TID, s.Time = 9, 10, 100
	ev := &symbolize.Event{Sample: &stitch.Sample{Sample: s, State: stitch.Stitched}, Comm: "x", IP: outer,
		Frames: []symbolize.Frame{inl, outer, unres, nomap, caller}}
	mp := fakeMappings(symbolize.Mapping{Start: 0x401000, Limit: 0x402000, Offset: 0x1000, File: prog},
		symbolize.Mapping{Start: 0x7f0000000000, Limit: 0x7f0000010000, File: "/lib/libx.so"})
	for _, tc := range []struct {
		name     string
		maxStack int
		want     []string
	}{
		{"all", 0, []string{"inner+outer", "libx.so+0x1234", "0xdead", "main"}},
		{"max-stack", 3, []string{"inner+outer", "libx.so+0x1234"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writePprof(t, attrs, PprofOptions{MaxStack: tc.maxStack, Mappings: mp}, ev, ev)
			if len(p.Sample) != 1 {
				t.Fatalf("%d samples, want the two events merged into one", len(p.Sample))
			}
			if got := lines(p.Sample[0]); !cmp.Equal(got, tc.want) {
				t.Errorf("locations %q, want %q", got, tc.want)
			}
			if got := p.Sample[0].Label["stitch"]; !cmp.Equal(got, []string{"stitched"}) {
				t.Errorf("stitch label %q", got)
			}
			if got := p.Sample[0].Value; !cmp.Equal(got, []int64{2, 10, 0}) {
				t.Errorf("values %v, want [2 10 0]", got)
			}
			if !p.Mapping[0].HasInlineFrames {
				t.Errorf("mapping %s without has_inline_frames", p.Mapping[0].File)
			}
		})
	}
}

func TestPprofSingleEvent(t *testing.T) {
	for _, tc := range []struct {
		attr *decode.EventAttr
		want string
	}{
		{&decode.EventAttr{Type: decode.AttrTypeSoftware, Name: "cpu-clock", SampleType: fixtureSampleType, SamplePeriod: 1000, Flags: decode.AttrFreq}, "cpu/nanoseconds"},
		{&decode.EventAttr{Type: 0, Name: "cycles", SampleType: fixtureSampleType, SamplePeriod: 4000}, "events/count"},
	} {
		attrs := []*decode.EventAttr{tc.attr}
		s := &decode.Sample{IP: 0xffffffff81000010, Period: 1000000}
		s.Attr, s.Format = tc.attr, tc.attr.SampleType&^decode.SampleCallchain
		k := kframe(s.IP, "f", 0)
		ev := &symbolize.Event{Sample: &stitch.Sample{Sample: s}, Comm: "x", IP: k}
		p := writePprof(t, attrs, PprofOptions{}, ev)
		if got := p.SampleType[1].Type + "/" + p.SampleType[1].Unit; got != tc.want {
			t.Errorf("%s: value type %s, want %s", tc.attr.Name, got, tc.want)
		}
		if got := lines(p.Sample[0]); !cmp.Equal(got, []string{"f"}) {
			t.Errorf("%s: sample without callchain has locations %q, want the IP's", tc.attr.Name, got)
		}
		wantPeriod := int64(tc.attr.SamplePeriod)
		if tc.attr.Freq() {
			wantPeriod = 1e9 / int64(tc.attr.SamplePeriod)
		}
		if p.Period != wantPeriod {
			t.Errorf("%s: period %d, want %d", tc.attr.Name, p.Period, wantPeriod)
		}
	}
}
