package symbolize

import (
	"os"
	"testing"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// nodeBinary is a big C++ binary with assembler labels inside functions
// (V8's builtins), present when Node.js is installed.
const nodeBinary = "/usr/bin/node"

// openNode opens /usr/bin/node, skipping where Node.js is not installed;
// the file is closed when tb ends.
func openNode(tb testing.TB) *elfsafe.File {
	tb.Helper()
	if _, err := os.Stat(nodeBinary); err != nil {
		tb.Skip("no " + nodeBinary)
	}
	f, err := elfsafe.Open(nodeBinary)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

// BenchmarkLoadELFNode loads the symbol table of /usr/bin/node (about
// 180k .symtab entries) as perf does: both tables, fixups, PLT entries
// and, where symbols overlap, perf's search tree.
func BenchmarkLoadELFNode(b *testing.B) {
	f := openNode(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loadELFSymbols(f, f, demangler{}, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShapeNode measures what perf's tree costs on /usr/bin/node
// (whose labels overlap functions): the fixups of both tables alone, and
// with the replay of perf's tree that [symtab.shape] adds.
func BenchmarkShapeNode(b *testing.B) {
	f := openNode(b)
	var lists [][]symbol
	for _, dynamic := range []bool{false, true} {
		l, err := readELFSymbols(f, f, demangler{}, dynamic)
		if err != nil {
			b.Fatal(err)
		}
		lists = append(lists, l)
	}
	build := func(shape bool) {
		var tab symtab
		var steps []loadStep
		for _, l := range lists {
			tab.syms = append(tab.syms, l...)
			tab.fixup(false)
			steps = append(steps, loadStep{insert: l, fixup: true})
		}
		if shape {
			tab.shape(func() []loadStep { return steps })
			if tab.tree == nil {
				b.Fatal("no tree")
			}
		}
	}
	for _, shape := range []bool{false, true} {
		name := "fixups"
		if shape {
			name = "fixups+tree"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				build(shape)
			}
		})
	}
}
