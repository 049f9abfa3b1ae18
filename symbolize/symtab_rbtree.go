package symbolize

import (
	"strings"

	"github.com/perfstitch/perfstitch/internal/rbtree"
)

// Where a DSO's symbols overlap (an assembler label inside a function, a
// JIT map listing one address twice), perf 6.1 does not pick the innermost
// or the last symbol: symbols__find (tools/perf/util/symbol.c) walks the
// DSO's red-black tree from the root and returns the first symbol on the
// way that contains the address. Which one that is depends on the tree's
// shape, which depends on the order the symbols were inserted in
// (symbols__insert; a symbol whose start equals a node's goes right) and
// on the nodes symbols__fixup_duplicate erased. The types below replay
// that history on internal/rbtree's model of the kernel's lib/rbtree.c
// (rb_insert_color, rb_erase) and keep the resulting shape next to the sorted symbols.

// symTree is the shape of perf's tree over a symtab's sorted symbols:
// the root and each symbol's children, as indexes into symtab.syms (-1:
// none).
type symTree struct {
	root        int32
	left, right []int32
}

// find walks the tree as symbols__find does: left when addr is below a
// symbol's start, right when it is past its end (or at the end of a
// symbol that is not empty), else that symbol.
func (tr *symTree) find(s []symbol, addr uint64) int {
	for n := tr.root; n >= 0; {
		sym := &s[n]
		switch {
		case addr < sym.start:
			n = tr.left[n]
		case addr > sym.end || (addr == sym.end && addr != sym.start):
			n = tr.right[n]
		default:
			return int(n)
		}
	}
	return -1
}

// loadStep is one step of perf's loading of a symbol table: symbols
// inserted in order, then optionally the fixups, then optionally the
// module symbols moved out (maps__split_kallsyms erasing them from the
// kernel's tree in address order).
type loadStep struct {
	insert      []symbol
	fixup       bool // symbols__fixup_end, then symbols__fixup_duplicate
	kallsyms    bool // fixup_end's kallsyms rule
	dropModules bool // erase symbols whose name carries "\t[module]"
}

// shape gives t the shape of perf's tree when two of its symbols overlap
// (only then can the tree's answer differ from a binary search). steps
// returns the loading history that produced t.syms; it is called only
// then. If the replay does not end with t's symbols (which would be a
// bug), t keeps its binary search.
func (t *symtab) shape(steps func() []loadStep) {
	t.tree = nil
	if !overlapping(t.syms) {
		return
	}
	history := steps()
	total := 0
	for _, st := range history {
		total += len(st.insert)
	}
	sim := rbSim{info: make([]rbInfo, 0, total)}
	sim.tree.Grow(total)
	for _, st := range history {
		sim.src = append(sim.src, st.insert)
		for i := range st.insert {
			sim.insert(int32(len(sim.src)-1), int32(i))
		}
		if st.fixup {
			sim.fixupEnd(st.kallsyms)
			sim.fixupDuplicate()
		}
		if st.dropModules {
			sim.eraseIf(func(s *symbol) bool { return strings.IndexByte(s.name, '\t') >= 0 })
		}
	}
	t.tree = sim.shapeOf(t.syms)
}

// shapeSorted gives t the shape of a tree its sorted symbols were
// inserted into in order, as perf fills a module's tree from the kernel's.
func (t *symtab) shapeSorted() {
	t.shape(func() []loadStep { return []loadStep{{insert: t.syms}} })
}

// overlapping reports whether, in symbols sorted by start, two share a
// start or one starts inside another's [start, end). Otherwise at most
// one symbol contains any address, and the tree search finds it whatever
// the tree's shape, as a binary search does.
func overlapping(s []symbol) bool {
	var end uint64
	for i := range s {
		if i > 0 && (s[i].start == s[i-1].start || s[i].start < end) {
			return true
		}
		end = max(end, s[i].end)
	}
	return false
}

// rbSim is perf's red-black tree of symbols keyed by start, on the model
// of lib/rbtree.c in [rbtree.Tree]: the same insertion fix-up, the same
// erase (the successor takes an erased inner node's place) and the same
// rebalancing cases. The tree's values are the symbols' starts, small so
// that descents touch few cache lines; info has the rest, by node.
type rbSim struct {
	tree rbtree.Tree[uint64]
	info []rbInfo   // by node
	src  [][]symbol // the symbols inserted, read only: info has their ends
}

// rbInfo is the rest of a node: its symbol's (fixed-up) end and where the
// symbol is in rbSim.src.
type rbInfo struct {
	end       uint64
	step, idx int32
}

// sym returns node n's symbol as inserted (its end may be out of date).
func (r *rbSim) sym(n rbtree.Node) *symbol { return &r.src[r.info[n].step][r.info[n].idx] }

// symbol returns node n's symbol with its current end.
func (r *rbSim) symbol(n rbtree.Node) symbol {
	s := *r.sym(n)
	s.end = r.info[n].end
	return s
}

// insert adds src[step][idx] as symbols__insert does: down the tree,
// left while it starts below the node, then rb_insert_color.
func (r *rbSim) insert(step, idx int32) {
	s := &r.src[step][idx]
	r.tree.Insert(s.start, func(v, node uint64) bool { return v < node })
	r.info = append(r.info, rbInfo{end: s.end, step: step, idx: idx}) // node numbers count insertions
}

// fixupEnd is symbols__fixup_end on the tree (see [symtab.fixup]).
func (r *rbSim) fixupEnd(kallsyms bool) {
	cur := r.tree.First()
	if cur < 0 {
		return
	}
	for nx := r.tree.Next(cur); nx >= 0; nx = r.tree.Next(nx) {
		prev, prevStart := &r.info[cur].end, r.tree.Value(cur)
		prevNode := cur
		cur = nx
		if *prev != prevStart {
			continue
		}
		if kallsyms && isModuleSym(r.sym(prevNode).name) != isModuleSym(r.sym(cur).name) {
			*prev = roundUp(*prev+4096, 4096)
		} else {
			*prev = r.tree.Value(cur)
		}
	}
	if end, start := &r.info[cur].end, r.tree.Value(cur); *end == start {
		*end = roundUp(start, 4096) + 4096
	}
}

// fixupDuplicate is symbols__fixup_duplicate: walking in order, of two
// neighbours with the same start the worse one ([chooseBest]) is erased
// at once, and the winner meets the next neighbour.
func (r *rbSim) fixupDuplicate() {
	for cur := r.tree.First(); cur >= 0; {
		nx := r.tree.Next(cur)
		if nx < 0 {
			return
		}
		if r.tree.Value(cur) != r.tree.Value(nx) {
			cur = nx
			continue
		}
		a, b := r.symbol(cur), r.symbol(nx)
		if chooseBest(&a, &b) {
			r.tree.Erase(nx)
			continue
		}
		r.tree.Erase(cur)
		cur = nx
	}
}

// eraseIf erases, in order, the nodes whose symbol matches drop.
func (r *rbSim) eraseIf(drop func(*symbol) bool) {
	for cur := r.tree.First(); cur >= 0; {
		nx := r.tree.Next(cur)
		if drop(r.sym(cur)) {
			r.tree.Erase(cur)
		}
		cur = nx
	}
}

// shapeOf returns the tree's shape over syms, the same symbols sorted; nil
// if the tree does not hold exactly those symbols in that order.
func (r *rbSim) shapeOf(syms []symbol) *symTree {
	if r.tree.Len() != len(syms) {
		return nil
	}
	pos := make([]int32, len(r.info)) // node -> index in syms
	order := make([]rbtree.Node, 0, len(syms))
	for n := r.tree.First(); n >= 0; n = r.tree.Next(n) {
		want := &syms[len(order)]
		if r.tree.Value(n) != want.start || r.info[n].end != want.end || r.sym(n).name != want.name {
			return nil
		}
		pos[n] = int32(len(order))
		order = append(order, n)
	}
	at := func(n rbtree.Node) int32 {
		if n < 0 {
			return -1
		}
		return pos[n]
	}
	tr := &symTree{root: at(r.tree.Root()), left: make([]int32, len(syms)), right: make([]int32, len(syms))}
	for i, n := range order {
		tr.left[i], tr.right[i] = at(r.tree.Left(n)), at(r.tree.Right(n))
	}
	return tr
}
