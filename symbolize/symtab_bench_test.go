package symbolize

import (
	"os"
	"testing"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// nodeBinary is a big C++ binary with assembler labels inside functions
// (V8's builtins), present when Node.js is installed.
const nodeBinary = "/usr/bin/node"

// BenchmarkLoadELFNode loads the symbol table of /usr/bin/node (about
// 180k .symtab entries) as perf does: both tables, fixups, PLT entries
// and, where symbols overlap, perf's search tree.
func BenchmarkLoadELFNode(b *testing.B) {
	if _, err := os.Stat(nodeBinary); err != nil {
		b.Skip("no " + nodeBinary)
	}
	f, err := elfsafe.Open(nodeBinary)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loadELFSymbols(f, f, demangler{}); err != nil {
			b.Fatal(err)
		}
	}
}
