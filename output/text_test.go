package output

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

const fixtureSampleType = decode.SampleIP | decode.SampleTID | decode.SampleTime |
	decode.SampleCallchain | decode.SampleCPU | decode.SamplePeriod

// fixture returns two events, cpu-clock with callchains and a
// task-clock without, as perf records them with -g and without.
func fixture() []*decode.EventAttr {
	return []*decode.EventAttr{
		{Type: decode.AttrTypeSoftware, Name: "cpu-clock", SampleType: fixtureSampleType, Flags: decode.AttrSampleIDAll},
		{Type: decode.AttrTypeSoftware, Config: 1, Name: "task-clock", SampleType: fixtureSampleType &^ decode.SampleCallchain, Flags: decode.AttrSampleIDAll, Index: 1},
	}
}

func kframe(addr uint64, sym string, off uint64) symbolize.Frame {
	return symbolize.Frame{Addr: addr, MapAddr: addr, Symbol: sym, Offset: off, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Kernel: true}
}

func uframe(addr, mapAddr uint64, sym string, off uint64, dso string) symbolize.Frame {
	f := symbolize.Frame{Addr: addr, MapAddr: mapAddr, Symbol: sym, Offset: off, DSO: dso, DSOShort: filepath.Base(dso)}
	if sym == "" {
		f.Reason = symbolize.NoSymbols
	}
	return f
}

// events returns hand-made samples modelled on the corpus case c-nopie.
func events(attrs []*decode.EventAttr) []*symbolize.Event {
	mk := func(attr *decode.EventAttr, comm string, tid int32, cpu uint32, tm uint64, ip symbolize.Frame, frames ...symbolize.Frame) *symbolize.Event {
		s := &decode.Sample{IP: ip.Addr, Period: 1000000}
		s.Attr, s.Format = attr, attr.SampleType
		s.PID, s.TID, s.CPU, s.Time = tid, tid, cpu, tm
		s.Callchain = make([]uint64, len(frames))
		return &symbolize.Event{Sample: &stitch.Sample{Sample: s}, Comm: comm, IP: ip, Frames: frames}
	}
	libc := "/usr/lib/x86_64-linux-gnu/libc.so.6"
	prog := "/opt/perfstitch-corpus/bin/prog_a"
	k := kframe(0xffffffff81602c9d, "do_anonymous_page", 0x23d)
	return []*symbolize.Event{
		mk(attrs[0], "prog_a", 12107, 0, 2274398389123, k,
			k,
			kframe(0xffffffff81000c82, "asm_exc_page_fault", 0x22),
			uframe(0x401620, 0x1620, "leaf_mmap_touch.constprop.0", 0x40, prog),
			uframe(0x4011ec, 0x11ec, "main", 0xcc, prog),
			uframe(0x7fe37537124a, 0x2724a, "", 0, libc),
			symbolize.Frame{Reason: symbolize.NoMap},
		),
		mk(attrs[0], "prog_a", 12107, 1, 2274399687000, uframe(0x7fe375375bec, 0x3fbec, "", 0, libc),
			uframe(0x7fe375375bec, 0x3fbec, "", 0, libc)),
		mk(attrs[1], "wk-reader", 9802, 1, 2275000000999, uframe(0x55b1b3d2f39b, 0x139b, "leaf_compute", 0x2b, prog)),
		mk(attrs[0], "", 77, 0, 2276000000000, symbolize.Frame{}),
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name   string
		fields string
		opts   TextOptions
	}{
		{name: "default"},
		{name: "hide-callchain", opts: TextOptions{HideCallchain: true}},
		{name: "fields", fields: "comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period"},
		{name: "fields-minus", fields: "-cpu,-period,-symoff"},
		{name: "ns-reltime-maxstack", opts: TextOptions{NS: true, RelTime: true, MaxStack: 2}},
		{name: "no-ip", fields: "comm,tid,time,event"},
	}
	// perf 6.1's goldens keep their names; every other dialect's carry
	// its version.
	dialects := []struct {
		d      compat.Dialect
		suffix string
	}{{compat.Perf61, ""}, {compat.Perf73, "-7.3"}}
	for _, tt := range tests {
		for _, dl := range dialects {
			t.Run(tt.name+dl.suffix, func(t *testing.T) {
				attrs := fixture()
				opts := tt.opts
				opts.Compat = dl.d
				if tt.fields != "" {
					fs, err := ParseFields(tt.fields)
					if err != nil {
						t.Fatal(err)
					}
					opts.Fields = fs
				}
				var out bytes.Buffer
				w := NewText(&out, func() []*decode.EventAttr { return attrs }, opts)
				if err := w.CheckFields(); err != nil {
					t.Fatal(err)
				}
				for _, ev := range events(attrs) {
					if err := w.Add(ev); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				testfixture.Golden(t, filepath.Join("testdata", "text-"+tt.name+dl.suffix+".txt"), out.Bytes())
			})
		}
	}
}

// TestTextRecords73 is TestTextRecords in perf 7.3's layout: the side-band
// records, the unmerged deferred samples and a CALLCHAIN_DEFERRED block.
func TestTextRecords73(t *testing.T) {
	attrs := fixture()
	for _, hide := range []bool{false, true} {
		var out bytes.Buffer
		w := NewText(&out, func() []*decode.EventAttr { return attrs }, TextOptions{HideCallchain: hide, Compat: compat.Perf73})
		for _, r := range sideBand(attrs) {
			if err := w.AddRecord(r); err != nil {
				t.Fatal(err)
			}
		}
		for _, st := range []stitch.State{stitch.Unmerged, stitch.CookieMismatch} {
			if err := w.Add(deferredEvent(attrs, st)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		name := "text-records-7.3.txt"
		if hide {
			name = "text-records-G-7.3.txt"
		}
		testfixture.Golden(t, filepath.Join("testdata", name), out.Bytes())
	}
}

func TestParseFields(t *testing.T) {
	tests := []struct {
		in      string
		want    Fields
		wantErr bool
	}{
		{in: "comm,tid", want: Fields{Mode: FieldsSet, Only: FieldComm | FieldTID}},
		{in: "+addr,-cpu", want: Fields{Mode: FieldsModify, Add: FieldAddr, Remove: FieldCPU}},
		{in: "comm,+tid", wantErr: true},
		{in: "+tid,comm", wantErr: true},
		{in: "bogus", wantErr: true},
		{in: "sw:comm", want: Fields{Mode: FieldsSet, Only: FieldComm, Typed: true, EventType: decode.AttrTypeSoftware}},
		{in: "synth:comm", wantErr: true},
		{in: "bogus:comm", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseFields(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseFields(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		got.raw = ""
		if got != tt.want {
			t.Errorf("ParseFields(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestResolveFieldsErrors(t *testing.T) {
	attr := &decode.EventAttr{Type: decode.AttrTypeSoftware, Name: "cpu-clock", SampleType: decode.SampleIP | decode.SampleTID | decode.SampleTime | decode.SamplePeriod}
	// Defaults silently drop cpu; asking for it is perf's error.
	if f, err := resolveFields(&Fields{}, attr, false); err != nil || f&FieldCPU != 0 {
		t.Errorf("defaults: fields %b, err %v; want no cpu and no error", f, err)
	}
	fs, _ := ParseFields("comm,cpu,ip")
	if _, err := resolveFields(&fs, attr, false); err == nil {
		t.Error("-F cpu without PERF_SAMPLE_CPU: no error")
	}
	fs, _ = ParseFields("symoff,ip")
	if _, err := resolveFields(&fs, attr, false); err == nil {
		t.Error("symoff without sym: no error")
	}
}
