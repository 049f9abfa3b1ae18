package output

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
	"github.com/perfstitch/perfstitch/symbolize"
)

// sideBand returns one record of every type the writers print.
func sideBand(attrs []*decode.EventAttr) []*Record {
	common := func(pid, tid int32, tm uint64) decode.RecordCommon {
		return decode.RecordCommon{Attr: attrs[0], Format: decode.SampleTID | decode.SampleTime | decode.SampleCPU,
			PID: pid, TID: tid, TrailerPID: pid, TrailerTID: tid, Time: tm, TrailerTime: tm, CPU: 1}
	}
	fork := &decode.Fork{RecordCommon: common(2616, 2619, 2224607520000), PPID: 2616, PTID: 2616}
	fork.TrailerTID = 2616 // perf prints the parent's tid
	return []*Record{
		{Record: &decode.Mmap{RecordCommon: common(-1, 0, 0), Addr: 0xffffffff81000000, Len: 0x1277288, Pgoff: 0xffffffff81000000, Filename: "[kernel.kallsyms]_text"}, Comm: "swapper"},
		{Record: &decode.Mmap{RecordCommon: common(12107, 12107, 2274196785000), V2: true, Addr: 0x401000, Len: 0x1000, Pgoff: 0x1000,
			Maj: 0xfe, Ino: 811030, InoGeneration: 2644884881, Prot: 5, Flags: 2, Filename: "/opt/perfstitch-corpus/bin/prog_a"}, Comm: "prog_a"},
		{Record: &decode.Mmap{RecordCommon: decode.RecordCommon{Attr: attrs[0], Misc: decode.MiscMmapBuildID, PID: 7, TID: 7, TrailerPID: 7, TrailerTID: 7}, V2: true,
			Addr: 0x7f0000, Len: 0x2000, BuildID: []byte{0xab, 0x01, 0x02}, Prot: 7, Flags: 1, Filename: "/lib/x \"q\""}, Comm: "x"},
		{Record: &decode.Comm{RecordCommon: common(12107, 12107, 2274196758000), Comm: "prog_a"}, Comm: "prog_a"},
		{Record: fork, Comm: "prog_f"},
		{Record: &decode.Exit{RecordCommon: common(2616, 2622, 2225607446000), PPID: 2615, PTID: 2615}, Comm: "wk-rec-b"},
		{Record: &decode.Lost{RecordCommon: common(5, 5, 10), Lost: 42}, Comm: "a"},
		{Record: &decode.CallchainDeferred{RecordCommon: common(2312, 2312, 121163447000), ABI: decode.DeferredCookie, Cookie: 0xb00000006, IPs: []uint64{0x7f18fe337fa7}},
			Comm: "pwd", Frames: []symbolize.Frame{uframe(0x7f18fe337fa7, 0x7f18fe337fa7, "mprotect", 7, "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")}},
	}
}

// deferredEvent returns an unmerged deferred sample, whose callchain ends
// with the cookie.
func deferredEvent(attrs []*decode.EventAttr, state stitch.State) *symbolize.Event {
	s := &decode.Sample{IP: 0xffffffff845b78d8, Period: 249113}
	s.Attr, s.Format = attrs[0], attrs[0].SampleType
	s.PID, s.TID, s.CPU, s.Time = 2312, 2312, 0, 121163435000
	s.Callchain = []uint64{decode.ContextKernel, 0xffffffff845b78d8, decode.ContextUserDeferred, 0xb00000006}
	k := kframe(0xffffffff845b78d8, "__build_id_parse.isra.0", 0x218)
	return &symbolize.Event{
		Sample: &stitch.Sample{Sample: s, State: state, ABI: decode.DeferredCookie, Cookie: 0xb00000006},
		Comm:   "pwd", IP: k,
		Frames: []symbolize.Frame{k, {Addr: 0xb00000006, MapAddr: 0xb00000006, DSO: "[unknown]", Reason: symbolize.Special, Cookie: true}},
	}
}

func TestTextRecords(t *testing.T) {
	attrs := fixture()
	for _, hide := range []bool{false, true} {
		var out bytes.Buffer
		w := NewText(&out, func() []*decode.EventAttr { return attrs }, TextOptions{HideCallchain: hide, Compat: compat.Perf61})
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
		name := "text-records.txt"
		if hide {
			name = "text-records-G.txt"
		}
		testfixture.Golden(t, filepath.Join("testdata", name), out.Bytes())
	}
}

// compileSchema compiles docs/json.schema.json.
func compileSchema(t *testing.T) *jsonschema.Schema { return testfixture.JSONSchema(t) }

// ValidateJSONLines checks every line of out against the schema.
func validateJSONLines(t *testing.T, sch *jsonschema.Schema, out []byte) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(sc.Text()))
		if err != nil {
			t.Fatalf("line %d: %v: %s", n, err, sc.Text())
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("line %d does not match docs/json.schema.json: %v\n%s", n, err, sc.Text())
		}
	}
}

func TestJSON(t *testing.T) {
	sch := compileSchema(t)
	attrs := fixture()
	var out bytes.Buffer
	w := NewJSON(&out, func() []*decode.EventAttr { return attrs }, JSONOptions{})
	for _, r := range sideBand(attrs) {
		if err := w.AddRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	evs := append(events(attrs), deferredEvent(attrs, stitch.Unmerged), deferredEvent(attrs, stitch.Stitched))
	evs[0].Comm = "we\"ird\tcomm\x01\xff"
	for _, ev := range evs {
		if err := w.Add(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	validateJSONLines(t, sch, out.Bytes())
	testfixture.Golden(t, filepath.Join("testdata", "json.jsonl"), out.Bytes())
}

func TestAppendJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\n\r\t\x00\x1f", `"\n\r\t\u0000\u001f"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
		{"é\u2028", `"é\u2028"`},
	}
	for _, tt := range tests {
		if got := string(appendJSONString(nil, tt.in)); got != tt.want {
			t.Errorf("appendJSONString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
