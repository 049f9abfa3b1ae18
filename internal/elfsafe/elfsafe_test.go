package elfsafe

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenMalformed(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("..", "..", "symbolize", "testdata", "symfs", "opt", "perfstitch-symfix", "fix-pie"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"not elf", []byte("#!/bin/sh\necho hi\n"), "bad magic"},
		{"truncated header", good[:20], "EOF"},
	}
	for _, tt := range tests {
		p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
		if err := os.WriteFile(p, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(p)
		if err == nil {
			f.Close()
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q, want it to name the file and say %q", tt.name, err, tt.want)
		}
	}
	f, err := NewFile(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if syms, err := f.Symbols(); err != nil || len(syms) == 0 {
		t.Errorf("Symbols: %d, %v", len(syms), err)
	}
	// A .dynsym claiming more bytes than the file holds is refused before
	// debug/elf allocates them.
	s := f.Section(".dynsym")
	s.FileSize = 1 << 40
	s.Size = 1 << 40
	if _, err := f.DynamicSymbols(); err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("DynamicSymbols on an oversized section: %v", err)
	}
}
