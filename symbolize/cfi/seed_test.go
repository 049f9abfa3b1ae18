package cfi

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readSeed returns the section and eh flag of a FuzzCFI corpus file.
func readSeed(t *testing.T, path string) ([]byte, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 3 || lines[0] != "go test fuzz v1" {
		t.Fatalf("%s: not a two-value corpus file", path)
	}
	q, ok := strings.CutPrefix(lines[1], "[]byte(")
	q, ok2 := strings.CutSuffix(q, ")")
	data, err := strconv.Unquote(q)
	if !ok || !ok2 || err != nil {
		t.Fatalf("%s: bad []byte line: %v", path, err)
	}
	eh, err := strconv.ParseBool(strings.TrimSuffix(strings.TrimPrefix(lines[2], "bool("), ")"))
	if err != nil {
		t.Fatalf("%s: bad bool line: %v", path, err)
	}
	return []byte(data), eh
}

// TestSeeds parses the real sections FuzzCFI is seeded with, placed at
// their address in the program: every FDE readelf lists is found, and its
// rules compute at its first and last address. The .debug_frame's
// signal trampoline is not: its CIE's augmentation is "S" without "z".
func TestSeeds(t *testing.T) {
	tests := []struct {
		name string
		addr uint64
		fdes int
	}{
		{"eh-frame-O2", 0x2048, 7},
		{"eh-frame-O0", 0x2048, 7},
		{"debug-frame-O0", 0, 3},
		{"eh-frame-plt", 0x2048 + 0x30, 2},
		{"eh-frame-signal", 0x2048 + 0x88, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, eh := readSeed(t, filepath.Join("testdata", "fuzz", "FuzzCFI", tt.name))
			tab, err := Parse(data, tt.addr, eh)
			if err != nil {
				t.Fatal(err)
			}
			if tab.Len() != tt.fdes {
				t.Fatalf("%d FDEs, want %d", tab.Len(), tt.fdes)
			}
			for i := range tab.fdes {
				fd := &tab.fdes[i]
				for _, pc := range []uint64{fd.start, fd.end - 1} {
					if got := tab.Find(pc); got != fd {
						t.Errorf("Find(%#x) = %p, want FDE %d", pc, got, i)
					}
					if _, err := fd.row(pc); err != nil {
						t.Errorf("FDE %d at %#x: %v", i, pc, err)
					}
				}
			}
		})
	}
}
