package symbolize

import (
	"cmp"
	"debug/elf"
	"slices"
	"sort"
	"strings"
)

// symbol is one entry of a DSO's symbol table. Addresses are in the DSO's
// map_ip space: file offsets for ELF DSOs (perf's adjusted symbols),
// absolute addresses for the kernel and perf-PID.map files.
type symbol struct {
	start, end uint64 // [start, end); end == start for a zero-size symbol
	name       string
	bind       elf.SymBind
	// ifunc: an STT_GNU_IFUNC symbol, or the one kept of a group of
	// aliases holding one (perf's ifunc_alias); for PLT slot names.
	ifunc bool
	// dem, if set, demangles name, which is still mangled ([symbol.printName]).
	dem *demangler
}

// symtab is a DSO's symbols sorted by start, after perf's fixups.
type symtab struct {
	syms []symbol
	// tree is the shape of perf's search tree over syms when symbols
	// overlap ([symtab.shape]); nil when a binary search answers alike.
	tree *symTree
}

// fixup sorts the symbols and applies perf's symbols__fixup_end and
// symbols__fixup_duplicate (tools/perf/util/symbol.c, perf 6.1): a
// zero-size symbol extends to the next symbol's start (for kallsyms, the
// last symbol before a module boundary ends one page after its start,
// rounded up), the last zero-size symbol ends at the page after its start,
// and among symbols with the same start only the best one
// ([chooseBest]) is kept.
func (t *symtab) fixup(kallsyms bool) {
	s := t.syms
	// Stable: symbols with equal starts stay in table order, as perf's
	// rb-tree insertion keeps them. (kallsyms is mostly sorted already:
	// sortStable checks first, in one pass.)
	sortStable(s)
	// The module test of a kallsyms name is made once, carried from
	// one pair to the next.
	prevMod := kallsyms && len(s) > 0 && isModuleSym(s[0].name)
	for i := 0; i+1 < len(s); i++ {
		prev, curr := &s[i], &s[i+1]
		currMod := false
		if kallsyms {
			currMod = isModuleSym(curr.name)
		}
		mod := prevMod
		prevMod = currMod
		if prev.end != prev.start {
			continue
		}
		if kallsyms && mod != currMod {
			prev.end = roundUp(prev.end+4096, 4096)
		} else {
			prev.end = curr.start
		}
	}
	if n := len(s); n > 0 && s[n-1].end == s[n-1].start {
		s[n-1].end = roundUp(s[n-1].start, 4096) + 4096
	}
	// symbols__fixup_duplicate.
	out := s[:0]
	for i := 0; i < len(s); i++ {
		cur := s[i]
		for i+1 < len(s) && s[i+1].start == cur.start {
			ifunc := cur.ifunc || s[i+1].ifunc
			if !chooseBest(&cur, &s[i+1]) {
				cur = s[i+1]
			}
			cur.ifunc = ifunc
			i++
		}
		out = append(out, cur)
	}
	t.syms = out
}

// add inserts symbols after fixup (perf inserts synthesized PLT symbols
// after the fixups) keeping the order by start.
func (t *symtab) add(syms []symbol) {
	if len(syms) == 0 {
		return
	}
	// Merge in place from the back: a symbol inserted later goes after
	// those with its start.
	add := slices.Clone(syms)
	sortStable(add)
	i, j := len(t.syms)-1, len(add)-1
	t.syms = slices.Grow(t.syms, len(add))[:len(t.syms)+len(add)]
	for k := len(t.syms) - 1; j >= 0; k-- {
		if i >= 0 && t.syms[i].start > add[j].start {
			t.syms[k] = t.syms[i]
			i--
		} else {
			t.syms[k] = add[j]
			j--
		}
	}
}

// find returns the index of the symbol covering addr, or -1. A symbol
// covers [start, end), and a zero-size symbol covers its start only
// (symbols__find). Where symbols overlap, it is the one perf's tree
// search meets first.
func (t *symtab) find(addr uint64) int {
	s := t.syms
	if tr := t.tree; tr != nil && len(tr.left) == len(s) {
		return tr.find(s, addr)
	}
	i := sort.Search(len(s), func(i int) bool { return s[i].start > addr }) - 1
	if i < 0 {
		return -1
	}
	if addr < s[i].end || addr == s[i].start {
		return i
	}
	return -1
}

// chooseBest reports whether a is preferred over b, two symbols with the
// same start (perf 6.1 choose_best_symbol): a non-zero size, then non-weak,
// then global binding, then fewer leading underscores, then the longer name;
// a wins ties unless its name starts with "SyS" or "compat_SyS" (the
// generic arch__choose_best_symbol).
func chooseBest(a, b *symbol) bool {
	la, lb := a.end-a.start, b.end-b.start
	if lb == 0 && la > 0 {
		return true
	}
	if la == 0 && lb > 0 {
		return false
	}
	wa, wb := a.bind == elf.STB_WEAK, b.bind == elf.STB_WEAK
	if wb && !wa {
		return true
	}
	if wa && !wb {
		return false
	}
	ga, gb := a.bind == elf.STB_GLOBAL, b.bind == elf.STB_GLOBAL
	if ga && !gb {
		return true
	}
	if gb && !ga {
		return false
	}
	an, bn := a.fullName(), b.fullName()
	ua, ub := leadingUnderscores(an), leadingUnderscores(bn)
	if ub > ua {
		return true
	}
	if ua > ub {
		return false
	}
	if len(an) != len(bn) {
		return len(an) > len(bn)
	}
	return !strings.HasPrefix(an, "SyS") && !strings.HasPrefix(an, "compat_SyS")
}

func leadingUnderscores(s string) int {
	n := 0
	for n < len(s) && s[n] == '_' {
		n++
	}
	return n
}

// isModuleSym reports whether a kallsyms name carries a module ("name\t[mod]"
// or "name [mod]"); perf tests for '['.
func isModuleSym(name string) bool { return strings.IndexByte(name, '[') >= 0 }

func roundUp(x, to uint64) uint64 { return (x + to - 1) / to * to }

// sortSyms sorts symbols listed in insertion order without perf's fixups
// (a perf-PID.map file: dso__load_perf_map inserts each line as it comes)
// and keeps perf's tree shape when they overlap.
func sortSyms(t *symtab) {
	raw := t.syms
	if !slices.IsSortedFunc(t.syms, func(a, b symbol) int { return cmp.Compare(a.start, b.start) }) {
		raw = slices.Clone(t.syms)
		sortStable(t.syms)
	}
	t.shape(func() []loadStep { return []loadStep{{insert: raw}} })
}

// sortStable sorts s by start, keeping the order of symbols with equal
// starts. It sorts small keys (start, index) and then moves each symbol
// once, along the permutation's cycles, which is several times faster on
// large tables than a stable sort of the symbols themselves.
func sortStable(s []symbol) {
	sorted := true
	for i := 1; i < len(s) && sorted; i++ {
		sorted = s[i].start >= s[i-1].start
	}
	if sorted {
		return
	}
	type key struct {
		start uint64
		i     int
	}
	keys := make([]key, len(s))
	for i := range s {
		keys[i] = key{s[i].start, i}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	// keys[j].i is the symbol that goes to j; -1 once it is there.
	for j := range keys {
		if keys[j].i < 0 {
			continue
		}
		first := s[j]
		k := j
		for {
			src := keys[k].i
			keys[k].i = -1
			if src == j {
				s[k] = first
				break
			}
			s[k] = s[src]
			k = src
		}
	}
}
