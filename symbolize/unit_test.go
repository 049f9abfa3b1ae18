package symbolize

import (
	"debug/elf"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// TestSymtabFixup pins perf 6.1's symbols__fixup_end and
// symbols__fixup_duplicate rules.
func TestSymtabFixup(t *testing.T) {
	g, w, l := elf.STB_GLOBAL, elf.STB_WEAK, elf.STB_LOCAL
	tests := []struct {
		name     string
		kallsyms bool
		in       []symbol
		want     []symbol
	}{
		{
			name: "zero size extends to next",
			in:   []symbol{{0x10, 0x10, "a", g, false, nil}, {0x20, 0x28, "b", g, false, nil}},
			want: []symbol{{0x10, 0x20, "a", g, false, nil}, {0x20, 0x28, "b", g, false, nil}},
		},
		{
			name: "last zero size ends a page later",
			in:   []symbol{{0x1010, 0x1010, "a", g, false, nil}},
			want: []symbol{{0x1010, 0x3000, "a", g, false, nil}},
		},
		{
			name: "sized symbols keep their end",
			in:   []symbol{{0x10, 0x14, "a", g, false, nil}, {0x20, 0x28, "b", g, false, nil}},
			want: []symbol{{0x10, 0x14, "a", g, false, nil}, {0x20, 0x28, "b", g, false, nil}},
		},
		{
			name: "unsorted input",
			in:   []symbol{{0x20, 0x28, "b", g, false, nil}, {0x10, 0x18, "a", g, false, nil}},
			want: []symbol{{0x10, 0x18, "a", g, false, nil}, {0x20, 0x28, "b", g, false, nil}},
		},
		{
			name: "alias: sized beats zero size",
			in:   []symbol{{0x10, 0x10, "zero", g, false, nil}, {0x10, 0x18, "sized", l, false, nil}, {0x20, 0x28, "b", g, false, nil}},
			want: []symbol{{0x10, 0x18, "sized", l, false, nil}, {0x20, 0x28, "b", g, false, nil}},
		},
		{
			name: "alias: global beats weak beats local",
			in:   []symbol{{0x10, 0x18, "loc", l, false, nil}, {0x10, 0x18, "wk", w, false, nil}, {0x10, 0x18, "glob", g, false, nil}},
			want: []symbol{{0x10, 0x18, "glob", g, false, nil}},
		},
		{
			name: "alias: non-weak local beats weak",
			in:   []symbol{{0x10, 0x18, "wk", w, false, nil}, {0x10, 0x18, "loc", l, false, nil}},
			want: []symbol{{0x10, 0x18, "loc", l, false, nil}},
		},
		{
			name: "alias: fewer underscores",
			in:   []symbol{{0x10, 0x18, "__x", g, false, nil}, {0x10, 0x18, "_y", g, false, nil}},
			want: []symbol{{0x10, 0x18, "_y", g, false, nil}},
		},
		{
			name: "alias: longer name, first on ties",
			in:   []symbol{{0x10, 0x18, "ab", g, false, nil}, {0x10, 0x18, "abc", g, false, nil}, {0x10, 0x18, "xyz", g, false, nil}},
			want: []symbol{{0x10, 0x18, "abc", g, false, nil}},
		},
		{
			name:     "kallsyms: kernel symbol before a module ends a page later",
			kallsyms: true,
			in:       []symbol{{0x1010, 0x1010, "k", g, false, nil}, {0x9000, 0x9000, "m\t[mod]", l, false, nil}},
			want:     []symbol{{0x1010, 0x3000, "k", g, false, nil}, {0x9000, 0xa000, "m\t[mod]", l, false, nil}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := symtab{syms: append([]symbol(nil), tt.in...)}
			tab.fixup(tt.kallsyms)
			if diff := cmp.Diff(tt.want, tab.syms, cmp.AllowUnexported(symbol{})); diff != "" {
				t.Errorf("(-want +have):\n%s", diff)
			}
		})
	}
}

func TestSymtabFind(t *testing.T) {
	tab := symtab{syms: []symbol{{0x10, 0x18, "a", 0, false, nil}, {0x20, 0x20, "zero", 0, false, nil}, {0x30, 0x40, "c", 0, false, nil}}}
	tests := []struct {
		addr uint64
		want int
	}{
		{0x0f, -1}, {0x10, 0}, {0x17, 0}, {0x18, -1}, {0x20, 1}, {0x21, -1}, {0x3f, 2}, {0x40, -1},
	}
	for _, tt := range tests {
		if got := tab.find(tt.addr); got != tt.want {
			t.Errorf("find(%#x) = %d, want %d", tt.addr, got, tt.want)
		}
	}
}

// TestFileOffset is the elfexec-style table of the symbol address
// arithmetic: a symbol's virtual address becomes a file offset through its
// section (perf's map_ip space), so that map_ip = addr - start + pgoff
// lands on it.
func TestFileOffset(t *testing.T) {
	tests := []struct {
		name                     string
		vaddr, secAddr, secOff   uint64
		want                     uint64
		start, pgoff, runtimeHit uint64 // a mapping and an address that must hit the symbol
	}{
		{"non-PIE text", 0x401620, 0x401120, 0x1120, 0x1620, 0x401000, 0x1000, 0x401620},
		{"PIE text", 0x1149, 0x1120, 0x1120, 0x1149, 0x55e0d6a41000, 0x1000, 0x55e0d6a41149},
		{"shared library, text offset differs", 0x26380, 0x26380, 0x26380, 0x26380, 0x7fe37535c000, 0x26000, 0x7fe37535c380},
		{"linked at a shifted base", 0x201234, 0x201000, 0x1000, 0x1234, 0x7f0000001000, 0x1000, 0x7f0000001234},
		{"data section with a gap", 0x4010, 0x3db0, 0x2db0, 0x3010, 0, 0, 0},
		{"Go end marker at the end of .noptrbss", 0x5ca6c0, 0x5b5100, 0x1b5100, 0x1ca6c0, 0, 0, 0},
	}
	for _, tt := range tests {
		got := fileOffset(tt.vaddr, tt.secAddr, tt.secOff)
		if got != tt.want {
			t.Errorf("%s: fileOffset(%#x) = %#x, want %#x", tt.name, tt.vaddr, got, tt.want)
		}
		if tt.runtimeHit != 0 {
			m := mapping{start: tt.start, end: tt.start + 0x100000, pgoff: tt.pgoff}
			if ip := m.mapIP(tt.runtimeHit); ip != got {
				t.Errorf("%s: map_ip(%#x) = %#x, symbol at %#x", tt.name, tt.runtimeHit, ip, got)
			}
		}
	}
}

// TestMapIP checks the map_ip arithmetic of mappings: addr - start + pgoff,
// identity for anonymous and kernel maps.
func TestMapIP(t *testing.T) {
	tests := []struct {
		m    mapping
		addr uint64
		want uint64
	}{
		{mapping{start: 0x401000, end: 0x402000, pgoff: 0x1000}, 0x401620, 0x1620},
		{mapping{start: 0x7fe37535c000, end: 0x7fe3754b2000, pgoff: 0x26000}, 0x7fe37537d24a, 0x4724a},
		{mapping{start: 0x555555554000, end: 0x555555556000}, 0x5555555551ab, 0x11ab},
		{mapping{start: 0x7f1000000000, end: 0x7f1000010000, identity: true}, 0x7f1000000110, 0x7f1000000110},
	}
	for _, tt := range tests {
		if got := tt.m.mapIP(tt.addr); got != tt.want {
			t.Errorf("mapIP(%+v, %#x) = %#x, want %#x", tt.m, tt.addr, got, tt.want)
		}
	}
}

// TestAddrSpaceInsert checks perf's maps__fixup_overlappings: a new map
// cuts the parts of old ones it overlaps, keeping what lies before and
// after (with the pgoff of the tail advanced).
func TestAddrSpaceInsert(t *testing.T) {
	a, b := &dso{name: "a"}, &dso{name: "b"}
	type r struct{ start, end, pgoff uint64 }
	tests := []struct {
		name string
		ins  []mapping
		want []r
	}{
		{"disjoint", []mapping{{start: 0x3000, end: 0x4000, dso: a}, {start: 0x1000, end: 0x2000, dso: b}},
			[]r{{0x1000, 0x2000, 0}, {0x3000, 0x4000, 0}}},
		{"replace exact", []mapping{{start: 0x1000, end: 0x2000, dso: a}, {start: 0x1000, end: 0x2000, pgoff: 0x5000, dso: b}},
			[]r{{0x1000, 0x2000, 0x5000}}},
		{"split middle", []mapping{{start: 0x1000, end: 0x5000, pgoff: 0x100000, dso: a}, {start: 0x2000, end: 0x3000, dso: b}},
			[]r{{0x1000, 0x2000, 0x100000}, {0x2000, 0x3000, 0}, {0x3000, 0x5000, 0x102000}}},
		{"cover several", []mapping{{start: 0x1000, end: 0x2000, dso: a}, {start: 0x3000, end: 0x4000, dso: a}, {start: 0x1800, end: 0x3800, dso: b}},
			[]r{{0x1000, 0x1800, 0}, {0x1800, 0x3800, 0}, {0x3800, 0x4000, 0x800}}},
		{"empty ignored", []mapping{{start: 0x1000, end: 0x1000, dso: a}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var as addrSpace
			for _, m := range tt.ins {
				as.insert(m)
			}
			var got []r
			for _, m := range as.maps {
				got = append(got, r{m.start, m.end, m.pgoff})
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(r{})); diff != "" {
				t.Errorf("(-want +have):\n%s", diff)
			}
		})
	}
}

func TestParseMaps(t *testing.T) {
	in := `00400000-00401000 r--p 00000000 fe:00 811030                             /opt/perfstitch-corpus/bin/prog_a
00401000-00402000 r-xp 00001000 fe:00 811030                             /opt/perfstitch-corpus/bin/prog_a
7fe37535c000-7fe3754b2000 r-xp 00026000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libc.so.6
7fe375529000-7fe37552b000 r-xp 00000000 00:00 0                          [vdso]
7fe375600000-7fe375601000 rw-s 00000000 00:05 12                         /my file (deleted)
7ffd7f5e1000-7ffd7f602000 rw-p 00000000 00:00 0 
`
	got, err := ParseMaps("x.maps", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []MapsEntry{
		{0x400000, 0x401000, "r--p", 0, 0xfe, 0, 811030, "/opt/perfstitch-corpus/bin/prog_a"},
		{0x401000, 0x402000, "r-xp", 0x1000, 0xfe, 0, 811030, "/opt/perfstitch-corpus/bin/prog_a"},
		{0x7fe37535c000, 0x7fe3754b2000, "r-xp", 0x26000, 0xfe, 0, 326269, "/usr/lib/x86_64-linux-gnu/libc.so.6"},
		{0x7fe375529000, 0x7fe37552b000, "r-xp", 0, 0, 0, 0, "[vdso]"},
		{0x7fe375600000, 0x7fe375601000, "rw-s", 0, 0, 5, 12, "/my file (deleted)"},
		{0x7ffd7f5e1000, 0x7ffd7f602000, "rw-p", 0, 0, 0, 0, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +have):\n%s", diff)
	}
	if !got[1].Executable() || got[0].Executable() {
		t.Error("Executable wrong")
	}
}

func TestParseMapsErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"00400000 r-xp 0 fe:00 1 /x", "x.maps:1: address range \"00400000\": missing '-'"},
		{"\n00400000-0040g000 r-xp 0 fe:00 1 /x", "x.maps:2: end address \"0040g000\""},
		{"00401000-00400000 r-xp 0 fe:00 1 /x", "x.maps:1: address range \"00401000-00400000\": start not below end"},
		{"00400000-00401000 rxp 0 fe:00 1 /x", "x.maps:1: permissions \"rxp\""},
		{"00400000-00401000 r-xp zz fe:00 1 /x", "x.maps:1: offset \"zz\""},
		{"00400000-00401000 r-xp 0 fe00 1 /x", "x.maps:1: device \"fe00\": missing ':'"},
		{"00400000-00401000 r-xp 0 fe:00 -1 /x", "x.maps:1: inode \"-1\""},
		{"00400000-00401000 r-xp 0 fe:00", "x.maps:1: too few fields"},
	}
	for _, tt := range tests {
		got, err := ParseMaps("x.maps", strings.NewReader(tt.in))
		var me *MapsError
		if err == nil || !errors.As(err, &me) || got != nil {
			t.Errorf("ParseMaps(%q) = %v, %v; want a *MapsError", tt.in, got, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ParseMaps(%q) error\n\thave %v\n\twant prefix %s", tt.in, err, tt.want)
		}
	}
}

func FuzzParseMaps(f *testing.F) {
	f.Add([]byte("00400000-00401000 r-xp 00001000 fe:00 811030 /bin/x\n"))
	f.Add([]byte("7fe375529000-7fe37552b000 r-xp 00000000 00:00 0   [vdso]\n\n"))
	f.Add([]byte("0-1 ---s 0 0:0 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseMaps("fuzz", strings.NewReader(string(b)))
		// Entries come with an error only when bad lines were skipped.
		if err != nil && got != nil && !linesSkipped(err) {
			t.Fatalf("both entries and error: %v", err)
		}
		for _, e := range got {
			if e.Start >= e.End || !validPerms(e.Perms) {
				t.Fatalf("invalid entry accepted: %+v", e)
			}
		}
	})
}

func TestParseKallsyms(t *testing.T) {
	in := "ffffffff81000000 T _text\nffffffff81000010 t foo\nffffffff81000020 r ro\n" +
		"ffffffff81000030 W wk\nffffffff81000040 T $x\nffffffffc0000000 t m1\t[mod_a]\n"
	ks, err := parseKallsyms([]byte(in), "k")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range ks.kernel.syms {
		names = append(names, s.name)
	}
	if diff := cmp.Diff([]string{"_text", "foo", "wk"}, names); diff != "" {
		t.Errorf("kernel symbols (-want +have):\n%s", diff)
	}
	if m := ks.modules["[mod_a]"]; m == nil || len(m.syms) != 1 || m.syms[0].name != "m1" {
		t.Errorf("module symbols: %+v", ks.modules)
	}
	// wk ends a page after its start, rounded: the next symbol is a module's.
	if got := ks.kernel.syms[2].end; got != 0xffffffff81002000 {
		t.Errorf("wk end = %#x", got)
	}
	ks.relocate(0xffffffff9a000000)
	if got := ks.kernel.syms[1].start; got != 0xffffffff9a000010 {
		t.Errorf("relocated foo = %#x", got)
	}
	// A bad line is skipped, counted and named; the others are used.
	ks, err = parseKallsyms([]byte("zz T x\nffffffff81000000 T _text\nnot a line\nffffffff81000010 T foo\n"), "k")
	if err != nil {
		t.Fatal(err)
	}
	if len(ks.kernel.syms) != 2 {
		t.Errorf("%d symbols kept, want 2 (_text, foo)", len(ks.kernel.syms))
	}
	if ks.bad == nil || ks.bad.Error() != `k:1: bad address: strconv.ParseUint: parsing "zz": invalid syntax (2 bad lines skipped)` {
		t.Errorf("bad lines: %v", ks.bad)
	}
}

// TestProcessModel checks comms and address spaces through COMM, FORK
// (thread and process) and exec.
func TestProcessModel(t *testing.T) {
	s, _ := New(Options{})
	common := func(pid, tid int32) decode.RecordCommon {
		return decode.RecordCommon{PID: pid, TID: tid, Misc: uint16(decode.CPUModeUser)}
	}
	s.Observe(&decode.Comm{RecordCommon: common(10, 10), Comm: "parent"})
	s.Observe(userMmap(10, 0x1000, 0x1000, 0, "/bin/parent"))
	s.Observe(&decode.Fork{RecordCommon: common(10, 11), PPID: 10, PTID: 10}) // thread
	s.Observe(&decode.Fork{RecordCommon: common(20, 20), PPID: 10, PTID: 10}) // process
	s.Observe(userMmap(20, 0x5000, 0x1000, 0, "/bin/child-lib"))
	s.Observe(userMmap(10, 0x8000, 0x1000, 0, "/bin/parent-late"))
	c := &decode.Comm{RecordCommon: common(20, 20), Comm: "child"}
	c.Misc |= decode.MiscCommExec
	s.Observe(c)
	// Forks of the idle task inherit its name, as perf's do (system-wide
	// recordings synthesize FORK(1:1):(0:0)).
	s.Observe(&decode.Fork{RecordCommon: common(1, 1), PPID: 0, PTID: 0})

	for _, tt := range []struct {
		pid, tid int32
		comm     string
	}{{10, 10, "parent"}, {10, 11, "parent"}, {20, 20, "child"}, {30, 31, ":31"}, {0, 0, "swapper"}, {1, 1, "swapper"}} {
		if got := s.Comm(tt.pid, tt.tid); got != tt.comm {
			t.Errorf("Comm(%d, %d) = %q, want %q", tt.pid, tt.tid, got, tt.comm)
		}
	}
	dsoAt := func(pid int32, addr uint64) string {
		var ev Event
		smp := &decode.Sample{RecordCommon: common(pid, pid), IP: addr, Callchain: []uint64{decode.ContextUser, addr}}
		s.Resolve(&stitch.Sample{Sample: smp}, &ev)
		return ev.Frames[0].DSO
	}
	for _, tt := range []struct {
		pid  int32
		addr uint64
		dso  string
	}{
		{10, 0x1100, "/bin/parent"}, {10, 0x5100, "[unknown]"}, {10, 0x8100, "/bin/parent-late"},
		{20, 0x1100, "/bin/parent"}, {20, 0x5100, "/bin/child-lib"}, {20, 0x8100, "[unknown]"},
	} {
		if got := dsoAt(tt.pid, tt.addr); got != tt.dso {
			t.Errorf("pid %d addr %#x: dso %q, want %q", tt.pid, tt.addr, got, tt.dso)
		}
	}
}

// TestCallchainContexts checks marker handling: kernel then user parts,
// the deferred cookie frame, and perf 6.1 dropping a chain with an unknown
// context.
func TestCallchainContexts(t *testing.T) {
	s := fixtureSymbolizer(t)
	resolve := func(smp *stitch.Sample) []Frame {
		var ev Event
		s.Resolve(smp, &ev)
		return ev.Frames
	}
	mk := func(chain ...uint64) *decode.Sample {
		return &decode.Sample{RecordCommon: decode.RecordCommon{PID: 1, TID: 1, Misc: uint16(decode.CPUModeKernel)},
			IP: chain[1], Callchain: chain, Period: 7}
	}
	fr := resolve(&stitch.Sample{Sample: mk(decode.ContextKernel, 0xffffffff81200014, decode.ContextUser, 0x5555555551cd)})
	if len(fr) != 2 || fr[0].Symbol != "entry_a" || !fr[0].Kernel || fr[1].Symbol != "global_leaf" || fr[1].Kernel {
		t.Errorf("kernel+user frames: %+v", fr)
	}
	fr = resolve(&stitch.Sample{Sample: mk(decode.ContextKernel, 0xffffffff81200014, decode.ContextUserDeferred, 0xb00000006),
		ABI: decode.DeferredCookie, State: stitch.NoRecord})
	if len(fr) != 2 || !fr[1].Cookie || fr[1].Addr != 0xb00000006 || fr[1].Reason != Special {
		t.Errorf("cookie frames: %+v", fr)
	}
	fr = resolve(&stitch.Sample{Sample: mk(decode.ContextKernel, 0xffffffff81200014, 0xfffffffffffffff0, 0x1)})
	if len(fr) != 0 {
		t.Errorf("unknown context: %d frames, want none", len(fr))
	}
}

// TestDiagnostics checks the per-DSO counts.
func TestDiagnostics(t *testing.T) {
	s := fixtureSymbolizer(t)
	var ev Event
	for _, a := range []uint64{0x5555555551cd, 0x600000001010, 0x600000001020, 0x1234} {
		smp := &decode.Sample{RecordCommon: decode.RecordCommon{PID: 1, TID: 1, Misc: uint16(decode.CPUModeUser)},
			IP: a, Period: 5}
		if a >= 0x600000000000 {
			smp.PID, smp.TID = 5, 5
		}
		s.Resolve(&stitch.Sample{Sample: smp}, &ev)
	}
	got := map[string]DSODiagnostic{}
	for _, d := range s.Diagnostics() {
		got[d.DSO] = d
	}
	if d := got[fixturePath+"fix-pie"]; d.Frames != 1 || d.Unresolved != 0 || d.Reason != Resolved || !strings.HasSuffix(d.Path, "fix-pie") {
		t.Errorf("fix-pie: %+v", d)
	}
	if d := got["/missing-binary"]; d.Frames != 2 || d.Unresolved != 2 || d.UnresolvedWeight != 10 || d.Reason != NotFound {
		t.Errorf("missing-binary: %+v", d)
	}
	if d := got["[unknown]"]; d.Frames != 1 || d.Reason != NoMap || d.UnresolvedWeight != 5 {
		t.Errorf("[unknown]: %+v", d)
	}
}

// TestPerfMapTID checks the report name of JIT map DSOs, as perf's
// dso__set_basename scans it ("/tmp/perf-%d.map").
func TestPerfMapTID(t *testing.T) {
	for _, tt := range []struct{ name, short string }{
		{"/tmp/perf-6601.map", "[JIT] tid 6601"},
		{"/tmp/perf-12.other", "[JIT] tid 12"}, // sscanf stops after %d
		{"/tmp/perf-x.map", "perf-x.map"},
		{"/opt/perf-1.map", "perf-1.map"},
	} {
		if d := newDSO(tt.name, dsoPerfMap); d.short != tt.short {
			t.Errorf("%s: short name %q, want %q", tt.name, d.short, tt.short)
		}
	}
}
