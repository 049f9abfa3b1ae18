package symbolize

import (
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/stitch"
)

// fixtureDir holds the ELF fixtures, at their recorded path below the
// fixture symfs (testdata/symfs).
const fixtureDir = "testdata/symfs/opt/perfstitch-symfix"

// fixturePath is the path the fixtures were recorded under.
const fixturePath = "/opt/perfstitch-symfix/"

// userMmap is an executable (r-x) MMAP2 of a user process.
func userMmap(pid int32, start, length, pgoff uint64, name string) *decode.Mmap {
	return &decode.Mmap{
		RecordCommon: decode.RecordCommon{PID: pid, TID: pid, Misc: uint16(decode.CPUModeUser)},
		V2:           true, Addr: start, Len: length, Pgoff: pgoff, Filename: name, Prot: 5,
	}
}

// dataMmap is a non-executable (rw-) MMAP2 of a user process, as perf
// records them for --call-graph dwarf (mmap_data).
func dataMmap(pid int32, start, length uint64, name string) *decode.Mmap {
	m := userMmap(pid, start, length, 0, name)
	m.Misc |= decode.MiscMmapData
	m.Prot = 3
	return m
}

func kernelMmap(start, length, pgoff uint64, name string) *decode.Mmap {
	return &decode.Mmap{
		RecordCommon: decode.RecordCommon{PID: -1, TID: 0, Misc: uint16(decode.CPUModeKernel)},
		Addr:         start, Len: length, Pgoff: pgoff, Filename: name,
	}
}

// fixtureSymbolizer returns a Symbolizer over the testdata fixtures, with
// process 1 running fix-pie + libfixlib.so, 2 fix-nopie, 3 the stripped
// binary, 4 JIT code in anonymous memory, 6 anonymous data, and a kernel
// booted 0x200000 above the addresses of testdata/kallsyms.
func fixtureSymbolizer(t testing.TB) *Symbolizer {
	t.Helper()
	td, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Symfs: filepath.Join(td, "symfs"), Kallsyms: filepath.Join(td, "kallsyms"), Compat: compat.Perf61})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []decode.Record{
		kernelMmap(0xffffffff81200000, 0x1000, 0xffffffff81200000, "[kernel.kallsyms]_text"),
		kernelMmap(0xffffffffc0001000, 0x1000, 0, "/lib/modules/6.1.0/kernel/fix-mod.ko"),
		userMmap(1, 0x555555555000, 0x1000, 0x1000, fixturePath+"fix-pie"),
		userMmap(1, 0x7f0000001000, 0x1000, 0x1000, fixturePath+"libfixlib.so"),
		userMmap(2, 0x401000, 0x1000, 0x1000, fixturePath+"fix-nopie"),
		userMmap(3, 0x560000001000, 0x1000, 0x1000, fixturePath+"fix-stripped"),
		userMmap(4, 0x7f1000000000, 0x10000, 0, "//anon"),
		userMmap(5, 0x600000001000, 0x1000, 0x1000, "/missing-binary"),
		dataMmap(6, 0x7f2000000000, 0x10000, "//anon"),
	} {
		s.Observe(r)
	}
	return s
}

// TestResolveFixtures checks frames of the fixtures: map_ip arithmetic of
// PIE, non-PIE and shared-library mappings with a pgoff, static, weak and
// zero-size symbols, PLT entries, a stripped binary resolved through its
// .gnu_debuglink, JIT symbols from perf-PID.map, and kallsyms relocated
// by the kernel MMAP's _text with module symbols.
func TestResolveFixtures(t *testing.T) {
	s := fixtureSymbolizer(t)
	tests := []struct {
		name   string
		pid    int32
		kernel bool
		addr   uint64
		want   Frame
	}{
		{"pie global", 1, false, 0x5555555551c9 + 4, Frame{MapAddr: 0x11cd, Symbol: "global_leaf", Offset: 4, DSO: fixturePath + "fix-pie", DSOShort: "fix-pie"}},
		{"pie static", 1, false, 0x555555555195, Frame{MapAddr: 0x1195, Symbol: "static_leaf", Offset: 0, DSO: fixturePath + "fix-pie", DSOShort: "fix-pie"}},
		{"pie weak", 1, false, 0x5555555551b7, Frame{MapAddr: 0x11b7, Symbol: "weak_leaf", Offset: 2, DSO: fixturePath + "fix-pie", DSOShort: "fix-pie"}},
		{"pie zero-size extended", 1, false, 0x55555555518c, Frame{MapAddr: 0x118c, Symbol: "zero_size_fn", Offset: 3, DSO: fixturePath + "fix-pie", DSOShort: "fix-pie"}},
		{"pie plt", 1, false, 0x555555555074, Frame{MapAddr: 0x1074, Symbol: "snprintf@plt", Offset: 4, DSO: fixturePath + "fix-pie", DSOShort: "fix-pie"}},
		// _init (size 0, extended to _start) covers the PLT, and perf
		// 6.1's tree search meets it before getpid@plt.
		{"pie plt first", 1, false, 0x555555555030, Frame{MapAddr: 0x1030, Symbol: "_init", Offset: 0x30, DSO: fixturePath + "fix-pie", DSOShort: "fix-pie"}},
		{"shared lib", 1, false, 0x7f0000001140, Frame{MapAddr: 0x1140, Symbol: "fixlib_work", Offset: 2, DSO: fixturePath + "libfixlib.so", DSOShort: "libfixlib.so"}},
		{"shared lib plt", 1, false, 0x7f0000001030, Frame{MapAddr: 0x1030, Symbol: "fixlib_inner@plt", Offset: 0, DSO: fixturePath + "libfixlib.so", DSOShort: "libfixlib.so"}},
		{"non-pie", 2, false, 0x401200 + 0x10, Frame{MapAddr: 0x1210, Symbol: "main", Offset: 0x10, DSO: fixturePath + "fix-nopie", DSOShort: "fix-nopie"}},
		{"non-pie plt", 2, false, 0x401060, Frame{MapAddr: 0x1060, Symbol: "fixlib_work@plt", Offset: 0, DSO: fixturePath + "fix-nopie", DSOShort: "fix-nopie"}},
		{"stripped via debuglink", 3, false, 0x560000001213 + 1, Frame{MapAddr: 0x1214, Symbol: "main", Offset: 1, DSO: fixturePath + "fix-stripped", DSOShort: "fix-stripped"}},
		{"stripped plt from runtime file", 3, false, 0x560000001050, Frame{MapAddr: 0x1050, Symbol: "printf@plt", Offset: 0, DSO: fixturePath + "fix-stripped", DSOShort: "fix-stripped"}},
		{"jit", 4, false, 0x7f1000000110, Frame{MapAddr: 0x7f1000000110, Symbol: "jit_compiled_loop", Offset: 0x10, DSO: "/tmp/perf-4.map", DSOShort: "[JIT] tid 4"}},
		{"jit name kept mangled", 4, false, 0x7f1000000201, Frame{MapAddr: 0x7f1000000201, Symbol: "_ZN3jit6Engine3runEv", Offset: 1, DSO: "/tmp/perf-4.map", DSOShort: "[JIT] tid 4"}},
		{"jit gap", 4, false, 0x7f1000000180, Frame{MapAddr: 0x7f1000000180, DSO: "/tmp/perf-4.map", DSOShort: "[JIT] tid 4", Reason: NoSymbols}},
		{"data anon stays //anon", 6, false, 0x7f2000000010, Frame{MapAddr: 0x7f2000000010, DSO: "//anon", DSOShort: "//anon", Reason: NotFound}},
		{"missing file", 5, false, 0x600000001010, Frame{MapAddr: 0x1010, DSO: "/missing-binary", DSOShort: "missing-binary", Reason: NotFound}},
		{"no map", 1, false, 0x1234, Frame{MapAddr: 0x1234, DSO: "[unknown]", DSOShort: "[unknown]", Reason: NoMap}},
		{"kernel relocated", 1, true, 0xffffffff81200014, Frame{MapAddr: 0xffffffff81200014, Symbol: "entry_a", Offset: 4, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Kernel: true}},
		{"kernel weak vs local alias", 1, true, 0xffffffff81200041, Frame{MapAddr: 0xffffffff81200041, Symbol: "weak_b", Offset: 1, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Kernel: true}},
		{"kernel fewer underscores", 1, true, 0xffffffff81200080, Frame{MapAddr: 0xffffffff81200080, Symbol: "alias_c", Offset: 0, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Kernel: true}},
		{"kernel rodata skipped", 1, true, 0xffffffff812000c8, Frame{MapAddr: 0xffffffff812000c8, Symbol: "alias_c", Offset: 0x48, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Kernel: true}},
		{"kernel last symbol page", 1, true, 0xffffffff81201fff, Frame{MapAddr: 0xffffffff81201fff, Symbol: "last_text", Offset: 0x1eff, DSO: "[kernel.kallsyms]", DSOShort: "[kernel.kallsyms]", Kernel: true}},
		{"kernel module", 1, true, 0xffffffffc0001084, Frame{MapAddr: 0xffffffffc0001084, Symbol: "mod_fn2", Offset: 4, DSO: "[fix_mod]", DSOShort: "[fix_mod]", Kernel: true}},
		{"kernel no map", 1, true, 0xffffffff90000000, Frame{MapAddr: 0xffffffff90000000, DSO: "[unknown]", DSOShort: "[unknown]", Reason: NoMap}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ip := []uint64{decode.ContextUser, tt.addr}
			mode := decode.CPUModeUser
			if tt.kernel {
				ip[0] = decode.ContextKernel
				mode = decode.CPUModeKernel
			}
			smp := &decode.Sample{
				RecordCommon: decode.RecordCommon{PID: tt.pid, TID: tt.pid, Misc: uint16(mode)},
				IP:           tt.addr, Callchain: ip, Period: 1,
			}
			var ev Event
			s.Resolve(&stitch.Sample{Sample: smp}, &ev)
			if len(ev.Frames) != 1 {
				t.Fatalf("%d frames, want 1", len(ev.Frames))
			}
			want := tt.want
			want.Addr = tt.addr
			if have := ev.Frames[0]; have != want {
				t.Errorf("\n\thave %+v\n\twant %+v", have, want)
			}
		})
	}
}
