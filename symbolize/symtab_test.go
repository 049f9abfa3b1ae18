package symbolize

import (
	"os"
	"testing"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// TestNodeLabelInsideBuiltin checks, on /usr/bin/node when installed, the
// case that needs perf's tree: construct_stub_create_deopt_addr is a
// zero-size label inside Builtins_JSConstructStubGeneric, extended to the
// next symbol, and perf 6.1 names the address after the builtin.
func TestNodeLabelInsideBuiltin(t *testing.T) {
	if _, err := os.Stat(nodeBinary); err != nil {
		t.Skip("no " + nodeBinary)
	}
	f, err := elfsafe.Open(nodeBinary)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := loadELFSymbols(f, f, demangler{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.tree == nil {
		t.Fatal("no tree for overlapping symbols")
	}
	// 0x18cd402 is a virtual address; the table is in file offsets.
	var off uint64
	for _, p := range f.Progs {
		if p.Vaddr <= 0x18cd402 && 0x18cd402 < p.Vaddr+p.Filesz {
			off = 0x18cd402 - p.Vaddr + p.Off
		}
	}
	i := tab.find(off)
	if i < 0 {
		t.Fatalf("no symbol at %#x", off)
	}
	if got := tab.syms[i].name; got != "Builtins_JSConstructStubGeneric" {
		t.Errorf("symbol at %#x = %s, want Builtins_JSConstructStubGeneric", off, got)
	}
}
