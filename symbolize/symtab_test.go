package symbolize

import (
	"cmp"
	"debug/elf"
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

// TestSymtabTreeLookup pins lookups where symbols overlap and perf 6.1's
// answer depends on its rb-tree's shape: the same symbols inserted in
// another order, or a duplicate erased by symbols__fixup_duplicate, give
// another symbol. Shapes were checked against the kernel's lib/rbtree.c.
func TestSymtabTreeLookup(t *testing.T) {
	g := elf.STB_GLOBAL
	// a, f [0x100, 0x200) with a label L at 0x150 inside, z: in order
	// a, f, L the middle one, f, becomes the root; L and z first leave
	// L at the root.
	a := symbol{0x50, 0x60, "a", g, false, nil}
	f := symbol{0x100, 0x200, "f", g, false, nil}
	l := symbol{0x150, 0x150, "L", g, false, nil}
	z := symbol{0x300, 0x310, "z", g, false, nil}
	type lookup struct {
		addr uint64
		want string // "" for none
	}
	tests := []struct {
		name string
		// Exactly one of: ELF table order (one table, fixed up), a
		// perf-PID.map in file order (no fixups), a kallsyms text.
		elf, perfMap []symbol
		kallsyms     string
		lookups      []lookup
	}{
		{
			name: "outer function at the root",
			elf:  []symbol{a, f, l, z},
			lookups: []lookup{
				{0x120, "f"}, {0x150, "f"}, {0x180, "f"}, {0x1ff, "f"}, {0x200, "L"}, {0x2ff, "L"}, {0x300, "z"}, {0x60, ""},
			},
		},
		{
			name: "label at the root",
			elf:  []symbol{l, z, a, f},
			lookups: []lookup{
				{0x120, "f"}, {0x150, "L"}, {0x180, "L"}, {0x1ff, "L"}, {0x200, "L"}, {0x300, "z"},
			},
		},
		{
			// b ends at d/e's start; d (empty) loses to its alias e and
			// is erased, which lifts e above c: e is found at 0x200, where
			// inserting a, b, c, e alone would find c.
			name: "erased duplicate reshapes the tree",
			elf: []symbol{
				{0x100, 0x180, "a", g, false, nil}, {0x180, 0x180, "b", g, false, nil}, {0x200, 0x240, "c", g, false, nil},
				{0x1c0, 0x1c0, "d", g, false, nil}, {0x1c0, 0x2c0, "e", g, false, nil},
			},
			lookups: []lookup{{0x1c0, "e"}, {0x200, "e"}, {0x23f, "e"}, {0x240, "e"}, {0x190, "b"}},
		},
		{
			// A JIT map listing one address twice: the first line is the
			// root and is found first.
			name:    "perf map: first of two at one address",
			perfMap: []symbol{{0x100, 0x140, "old", g, false, nil}, {0x100, 0x120, "new", g, false, nil}},
			lookups: []lookup{{0x100, "old"}, {0x110, "old"}, {0x130, "old"}, {0x140, ""}},
		},
		{
			// k1, the last kernel symbol before a module's, ends a page
			// later and covers k2; k1 is the kernel tree's root once the
			// module symbol is moved out.
			name: "kallsyms: kernel symbol before a module",
			kallsyms: "0000000000001000 T k1\n0000000000000500 T x\n" +
				"0000000000001800 t m1\t[mod]\n0000000000001900 T k2\n",
			lookups: []lookup{{0x500, "x"}, {0x1000, "k1"}, {0x1950, "k1"}, {0x1fff, "k1"}, {0x2000, "k2"}, {0x2fff, "k2"}, {0x3000, ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tab symtab
			switch {
			case tt.elf != nil:
				tab.syms = append([]symbol(nil), tt.elf...)
				tab.fixup(false)
				tab.shape(func() []loadStep { return []loadStep{{insert: tt.elf, fixup: true}} })
			case tt.perfMap != nil:
				tab.syms = append([]symbol(nil), tt.perfMap...)
				sortSyms(&tab)
			default:
				ks, err := parseKallsymsText(tt.kallsyms, "kallsyms")
				if err != nil {
					t.Fatal(err)
				}
				tab = ks.kernel
			}
			if tab.tree == nil {
				t.Fatal("no tree for overlapping symbols")
			}
			for _, lk := range tt.lookups {
				have := ""
				if i := tab.find(lk.addr); i >= 0 {
					have = tab.syms[i].name
				}
				if have != lk.want {
					t.Errorf("find(%#x) = %q, want %q", lk.addr, have, lk.want)
				}
			}
		})
	}
}

// TestSymtabNoOverlapNoTree checks the cheap path: symbols that do not
// overlap (after the fixups) need no tree, and the binary search answers.
func TestSymtabNoOverlapNoTree(t *testing.T) {
	g := elf.STB_GLOBAL
	in := []symbol{{0x200, 0x200, "b", g, false, nil}, {0x100, 0x100, "a", g, false, nil}, {0x100, 0x180, "a2", g, false, nil}, {0x300, 0x340, "c", g, false, nil}}
	tab := symtab{syms: append([]symbol(nil), in...)}
	tab.fixup(false)
	tab.shape(func() []loadStep {
		t.Error("history replayed for a table without overlaps")
		return nil
	})
	if tab.tree != nil {
		t.Error("tree built")
	}
}

// TestNodeLabelInsideBuiltin checks, on /usr/bin/node when installed, the
// case that needs perf's tree: construct_stub_create_deopt_addr is a
// zero-size label inside Builtins_JSConstructStubGeneric, extended to the
// next symbol, and perf 6.1 names the address after the builtin.
func TestNodeLabelInsideBuiltin(t *testing.T) {
	f := openNode(t)
	tab, err := loadELFSymbols(f, f, demangler{}, false)
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

// TestChooseBestSyS pins the last rule of perf's choose_best_symbol: of
// two equally good names of one length, the first wins unless it starts
// with "SyS" or "compat_SyS" (old kernels' syscall aliases).
func TestChooseBestSyS(t *testing.T) {
	g := elf.STB_GLOBAL
	tests := []struct {
		a, b string
		want bool
	}{
		{"sys_read", "abc_read", true},
		{"SyS_read", "sys_read", false},
		{"compat_SyS_read", "compat_sys_read", false},
		{"sys_read", "SyS_read", true},
	}
	for _, tt := range tests {
		a, b := symbol{0x10, 0x20, tt.a, g, false, nil}, symbol{0x10, 0x20, tt.b, g, false, nil}
		if have := chooseBest(&a, &b); have != tt.want {
			t.Errorf("chooseBest(%s, %s) = %v, want %v", tt.a, tt.b, have, tt.want)
		}
	}
}

// TestSortStable checks the key sort against the library's stable sort
// on tables with many equal starts.
func TestSortStable(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 17, 1000} {
		s := make([]symbol, n)
		for i := range s {
			s[i] = symbol{start: uint64(rng.Intn(n/3 + 1)), name: strconv.Itoa(i)}
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, func(a, b symbol) int { return cmp.Compare(a.start, b.start) })
		sortStable(s)
		if !slices.Equal(s, want) {
			t.Errorf("n=%d: order differs from a stable sort", n)
		}
	}
}

// TestSymtabAdd checks that symbols added after the fixups (PLT entries)
// are merged by start, after the symbols that share their start.
func TestSymtabAdd(t *testing.T) {
	g := elf.STB_GLOBAL
	tab := symtab{syms: []symbol{{0x10, 0x20, "a", g, false, nil}, {0x30, 0x40, "c", g, false, nil}}}
	tab.add([]symbol{{0x30, 0x38, "p2", g, false, nil}, {0x20, 0x28, "p1", g, false, nil}, {0x50, 0x58, "p3", g, false, nil}})
	var have []string
	for _, s := range tab.syms {
		have = append(have, s.name)
	}
	if want := []string{"a", "p1", "c", "p2", "p3"}; !slices.Equal(have, want) {
		t.Errorf("have %v, want %v", have, want)
	}
}
