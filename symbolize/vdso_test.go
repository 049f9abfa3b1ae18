package symbolize

import (
	"bytes"
	"debug/elf"
	"os"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

// ownVDSOSymbol returns this process's vDSO image and one function in it.
func ownVDSOSymbol(t *testing.T) ([]byte, elf.Symbol) {
	t.Helper()
	img, err := readOwnVDSO()
	if err != nil {
		t.Skipf("no vDSO to read: %v", err)
	}
	f, err := elf.NewFile(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("the vDSO read is not ELF: %v", err)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 1 && strings.HasPrefix(s.Name, "__vdso_") {
			return img, s
		}
	}
	t.Skip("the vDSO has no __vdso_ function")
	return nil, elf.Symbol{}
}

// TestOwnVDSO checks perf's stand-in for a [vdso] without build id: the
// running machine's own vDSO, and only without a symfs.
func TestOwnVDSO(t *testing.T) {
	img, sym := ownVDSOSymbol(t)
	const base = 0x7f0000000000
	empty := t.TempDir()
	tests := []struct {
		name    string
		opts    Options
		buildID bool
		want    string
	}{
		{"no build id, no symfs", Options{}, false, sym.Name},
		{"symfs", Options{Symfs: empty}, false, ""},
		{"build id not in the cache", Options{BuildIDDir: empty}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.buildID {
				tt.opts.Meta = &decode.Meta{BuildIDs: []decode.BuildID{{Filename: "[vdso]", ID: bytes.Repeat([]byte{0xab}, 20)}}}
			}
			s, err := New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			s.Observe(userMmap(10, base, uint64(len(img)), 0, "[vdso]"))
			ip := base + sym.Value + 1 // vDSO images are linked at 0
			smp := &decode.Sample{RecordCommon: decode.RecordCommon{PID: 10, TID: 10, Misc: uint16(decode.CPUModeUser)},
				IP: ip, Callchain: []uint64{decode.ContextUser, ip}}
			var ev Event
			s.Resolve(&stitch.Sample{Sample: smp}, &ev)
			f := ev.Frames[0]
			if f.Symbol != tt.want || f.DSO != "[vdso]" {
				t.Errorf("frame %q in %q, want %q in [vdso]", f.Symbol, f.DSO, tt.want)
			}
		})
	}
}

// TestKallsymsNotWithSymfs checks that a symfs keeps the running kernel's
// /proc/kallsyms out, as perf tries no local files then.
func TestKallsymsNotWithSymfs(t *testing.T) {
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Skip(err)
	}
	meta := &decode.Meta{OSRelease: strings.TrimSpace(string(rel))}
	for _, tt := range []struct {
		symfs string
		want  string
	}{{"", "/proc/kallsyms"}, {t.TempDir(), ""}} {
		s, err := New(Options{Symfs: tt.symfs, Meta: meta})
		if err != nil {
			t.Fatal(err)
		}
		if s.opts.Kallsyms != tt.want {
			t.Errorf("symfs %q: kallsyms %q, want %q", tt.symfs, s.opts.Kallsyms, tt.want)
		}
	}
}
