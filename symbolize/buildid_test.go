package symbolize

import (
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/elfsafe"
	"github.com/perfstitch/perfstitch/stitch"
)

func fileBuildID(t *testing.T, p string) []byte {
	t.Helper()
	f, err := elfsafe.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	id := readBuildID(f)
	if len(id) == 0 {
		t.Fatalf("%s has no build id", p)
	}
	return id
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFindBinary checks where a DSO's file is found and that a build-id
// mismatch rejects a candidate: the symfs path, perf's build-id cache,
// and /usr/lib/debug/.build-id below symfs.
func TestFindBinary(t *testing.T) {
	nopie, err := filepath.Abs(filepath.Join(fixtureDir, "fix-nopie"))
	if err != nil {
		t.Fatal(err)
	}
	id := fileBuildID(t, nopie)
	hexID := hex.EncodeToString(id)
	wrong := append([]byte(nil), id...)
	wrong[0] ^= 0xff
	padded := append(append([]byte(nil), id...), 0, 0, 0, 0)

	symfs := t.TempDir()
	copyFile(t, nopie, filepath.Join(symfs, "usr/bin/prog"))
	copyFile(t, nopie, filepath.Join(symfs, "usr/lib/debug/.build-id", hexID[:2], hexID[2:]+".debug"))
	cache := t.TempDir()
	copyFile(t, nopie, filepath.Join(cache, ".build-id", hexID[:2], hexID[2:], "elf"))
	// A symfs holding a file that also exists on this machine at its
	// recorded path (perf tests the host path, then reads the symfs copy).
	hostSymfs := t.TempDir()
	copyFile(t, nopie, filepath.Join(hostSymfs, nopie))

	tests := []struct {
		name, file  string
		buildID     []byte
		symfs       string
		cache       string
		wantPath    string
		wantReason  Reason
		mismatches  int
		wantSymbol  string
		wantBuildID string
	}{
		{"symfs, no build id", "/usr/bin/prog", nil, symfs, "", filepath.Join(symfs, "usr/bin/prog"), Resolved, 0, "main", ""},
		{"symfs, padded build id", "/usr/bin/prog", padded, symfs, "", filepath.Join(symfs, "usr/lib/debug/.build-id", hexID[:2], hexID[2:]+".debug"), Resolved, 0, "main", hexID},
		{"build-id cache first", "/usr/bin/prog", id, symfs, cache, filepath.Join(cache, ".build-id", hexID[:2], hexID[2:], "elf"), Resolved, 0, "main", hexID},
		{"only in build-id cache", "/gone/prog", id, t.TempDir(), cache, filepath.Join(cache, ".build-id", hexID[:2], hexID[2:], "elf"), Resolved, 0, "main", hexID},
		{"mismatch", "/usr/bin/prog", wrong, symfs, "", "", BuildIDMismatch, 1, "", hex.EncodeToString(wrong)},
		{"not found", "/nowhere/prog", nil, symfs, "", "", NotFound, 0, "", ""},
		{"no recorded build id: the file's finds the cache", nopie, nil, hostSymfs, cache, filepath.Join(cache, ".build-id", hexID[:2], hexID[2:], "elf"), Resolved, 0, "main", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Options{Symfs: tt.symfs, BuildIDDir: tt.cache})
			if err != nil {
				t.Fatal(err)
			}
			if tt.buildID != nil {
				s.Observe(&decode.HeaderBuildID{BuildPID: -1, BuildID: tt.buildID, Filename: tt.file})
			}
			s.Observe(userMmap(1, 0x401000, 0x1000, 0x1000, tt.file))
			var ev Event
			smp := &decode.Sample{RecordCommon: decode.RecordCommon{PID: 1, TID: 1, Misc: uint16(decode.CPUModeUser)}, IP: 0x401200, Period: 1}
			s.Resolve(&stitch.Sample{Sample: smp}, &ev)
			if ev.IP.Symbol != tt.wantSymbol || ev.IP.Reason != tt.wantReason || ev.IP.BuildID != tt.wantBuildID {
				t.Errorf("frame %+v, want symbol %q reason %v build id %q", ev.IP, tt.wantSymbol, tt.wantReason, tt.wantBuildID)
			}
			diags := s.Diagnostics()
			if len(diags) != 1 {
				t.Fatalf("diagnostics: %+v", diags)
			}
			if d := diags[0]; d.Path != tt.wantPath || d.Mismatches != tt.mismatches || d.Reason != tt.wantReason {
				t.Errorf("diagnostic %+v, want path %q mismatches %d", d, tt.wantPath, tt.mismatches)
			}
		})
	}
}

// TestRunningKernelMatches checks when /proc/kallsyms may stand in for a
// missing --kallsyms: only for the recording's own kernel.
func TestRunningKernelMatches(t *testing.T) {
	notes, err := os.ReadFile("/sys/kernel/notes")
	if err != nil {
		t.Skipf("no kernel notes: %v", err)
	}
	id := findBuildIDNote(notes, binary.NativeEndian)
	if id == nil {
		t.Skip("running kernel has no build id")
	}
	wrong := append([]byte(nil), id...)
	wrong[0] ^= 1
	rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	tests := []struct {
		name string
		meta *decode.Meta
		want bool
	}{
		{"nil", nil, false},
		{"same build id", &decode.Meta{BuildIDs: []decode.BuildID{{Filename: "[kernel.kallsyms]", ID: id}}}, true},
		{"other build id, same release", &decode.Meta{OSRelease: strings.TrimSpace(string(rel)),
			BuildIDs: []decode.BuildID{{Filename: "[kernel.kallsyms]", ID: wrong}}}, false},
		{"same release, no kernel build id", &decode.Meta{OSRelease: strings.TrimSpace(string(rel))}, len(rel) > 0},
		{"other release", &decode.Meta{OSRelease: "0.0.0-none"}, false},
	}
	for _, tt := range tests {
		if got := runningKernelMatches(tt.meta); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
