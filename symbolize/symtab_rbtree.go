package symbolize

import "strings"

// Where a DSO's symbols overlap (an assembler label inside a function, a
// JIT map listing one address twice), perf 6.1 does not pick the innermost
// or the last symbol: symbols__find (tools/perf/util/symbol.c) walks the
// DSO's red-black tree from the root and returns the first symbol on the
// way that contains the address. Which one that is depends on the tree's
// shape, which depends on the order the symbols were inserted in
// (symbols__insert; a symbol whose start equals a node's goes right) and
// on the nodes symbols__fixup_duplicate erased. The types below replay
// that history on a model of the kernel's lib/rbtree.c (rb_insert_color,
// rb_erase) and keep the resulting shape next to the sorted symbols.

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
	sim := rbSim{root: -1, nodes: make([]rbNode, 0, total), info: make([]rbInfo, 0, total)}
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

// rbSim is a red-black tree of symbols keyed by start, shaped exactly as
// lib/rbtree.c shapes perf's: the same insertion fix-up, the same erase
// (the successor takes an erased inner node's place) and the same
// rebalancing cases. Nodes are indexes; erased nodes stay in the array.
// The zero value is not ready: root must start at -1.
type rbSim struct {
	nodes []rbNode
	info  []rbInfo   // by node
	src   [][]symbol // the symbols inserted, read only: info has their ends
	root  int32
	n     int // nodes in the tree
}

// rbNode is a node of rbSim, its key a copy of its symbol's start: small,
// so that descents touch few cache lines.
type rbNode struct {
	start               uint64
	left, right, parent int32
	red                 bool
}

// rbInfo is the rest of a node: its symbol's (fixed-up) end and where the
// symbol is in rbSim.src.
type rbInfo struct {
	end       uint64
	step, idx int32
}

// sym returns node n's symbol as inserted (its end may be out of date).
func (r *rbSim) sym(n int32) *symbol { return &r.src[r.info[n].step][r.info[n].idx] }

// symbol returns node n's symbol with its current end.
func (r *rbSim) symbol(n int32) symbol {
	s := *r.sym(n)
	s.end = r.info[n].end
	return s
}

// insert adds src[step][idx] as symbols__insert does: down the tree,
// left while it starts below the node, then rb_insert_color.
func (r *rbSim) insert(step, idx int32) {
	s := &r.src[step][idx]
	n := int32(len(r.nodes))
	p, goLeft := int32(-1), false
	for c := r.root; c >= 0; {
		p = c
		goLeft = s.start < r.nodes[c].start
		if goLeft {
			c = r.nodes[c].left
		} else {
			c = r.nodes[c].right
		}
	}
	r.nodes = append(r.nodes, rbNode{start: s.start, left: -1, right: -1, parent: p, red: true})
	r.info = append(r.info, rbInfo{end: s.end, step: step, idx: idx})
	switch {
	case p < 0:
		r.root = n
	case goLeft:
		r.nodes[p].left = n
	default:
		r.nodes[p].right = n
	}
	r.n++
	r.insertColor(n)
}

func (r *rbSim) isRed(n int32) bool { return n >= 0 && r.nodes[n].red }

// replaceChild makes n take old's place under parent (or at the root).
func (r *rbSim) replaceChild(old, n, parent int32) {
	switch {
	case parent < 0:
		r.root = n
	case r.nodes[parent].left == old:
		r.nodes[parent].left = n
	default:
		r.nodes[parent].right = n
	}
}

// rotateLeft lifts x's right child into x's place.
func (r *rbSim) rotateLeft(x int32) {
	y := r.nodes[x].right
	r.nodes[x].right = r.nodes[y].left
	if c := r.nodes[y].left; c >= 0 {
		r.nodes[c].parent = x
	}
	p := r.nodes[x].parent
	r.nodes[y].parent = p
	r.replaceChild(x, y, p)
	r.nodes[y].left = x
	r.nodes[x].parent = y
}

// rotateRight lifts x's left child into x's place.
func (r *rbSim) rotateRight(x int32) {
	y := r.nodes[x].left
	r.nodes[x].left = r.nodes[y].right
	if c := r.nodes[y].right; c >= 0 {
		r.nodes[c].parent = x
	}
	p := r.nodes[x].parent
	r.nodes[y].parent = p
	r.replaceChild(x, y, p)
	r.nodes[y].right = x
	r.nodes[x].parent = y
}

// insertColor restores the red-black rules after inserting the red node
// n, with rb_insert_color's cases: a red uncle flips colors and moves up;
// otherwise one or two rotations end it.
func (r *rbSim) insertColor(n int32) {
	for {
		p := r.nodes[n].parent
		if p < 0 {
			r.nodes[n].red = false
			return
		}
		if !r.nodes[p].red {
			return
		}
		g := r.nodes[p].parent // exists: a red node is not the root
		if p == r.nodes[g].left {
			if u := r.nodes[g].right; r.isRed(u) {
				r.nodes[u].red, r.nodes[p].red, r.nodes[g].red = false, false, true
				n = g
				continue
			}
			if n == r.nodes[p].right {
				r.rotateLeft(p)
				p = n
			}
			r.rotateRight(g)
		} else {
			if u := r.nodes[g].left; r.isRed(u) {
				r.nodes[u].red, r.nodes[p].red, r.nodes[g].red = false, false, true
				n = g
				continue
			}
			if n == r.nodes[p].left {
				r.rotateRight(p)
				p = n
			}
			r.rotateLeft(g)
		}
		r.nodes[p].red, r.nodes[g].red = false, true
		return
	}
}

// erase removes n as rb_erase does. A node with at most one child is
// replaced by that child; otherwise its in-order successor is unlinked
// and takes n's place and color. When a black node left its place empty,
// the tree is rebalanced from that place's parent.
func (r *rbSim) erase(n int32) {
	rebalance := int32(-1)
	left, right, parent := r.nodes[n].left, r.nodes[n].right, r.nodes[n].parent
	switch {
	case left < 0:
		r.replaceChild(n, right, parent)
		if right >= 0 {
			r.nodes[right].parent, r.nodes[right].red = parent, r.nodes[n].red
		} else if !r.nodes[n].red {
			rebalance = parent
		}
	case right < 0:
		r.replaceChild(n, left, parent)
		r.nodes[left].parent, r.nodes[left].red = parent, r.nodes[n].red
	default:
		// The successor: n's right child, or the leftmost node below it,
		// which then leaves its right subtree to its parent sp.
		succ, sp := right, right
		child := r.nodes[right].right
		if r.nodes[right].left >= 0 {
			for c := r.nodes[right].left; c >= 0; c = r.nodes[c].left {
				sp, succ = succ, c
			}
			child = r.nodes[succ].right
			r.nodes[sp].left = child
			r.nodes[succ].right = right
			r.nodes[right].parent = succ
		}
		r.nodes[succ].left = left
		r.nodes[left].parent = succ
		r.replaceChild(n, succ, parent)
		if child >= 0 {
			r.nodes[child].parent, r.nodes[child].red = sp, false
		} else if !r.nodes[succ].red {
			rebalance = sp
		}
		r.nodes[succ].parent, r.nodes[succ].red = parent, r.nodes[n].red
	}
	r.nodes[n].left, r.nodes[n].right, r.nodes[n].parent = -1, -1, -1
	r.n--
	if rebalance >= 0 {
		r.eraseColor(rebalance)
	}
}

// eraseColor rebalances after a black node left an empty place below
// parent, with ____rb_erase_color's cases: a red sibling is rotated up
// first; a sibling with black children turns red and the shortage moves
// up (or ends at a red parent); otherwise one or two rotations end it.
func (r *rbSim) eraseColor(parent int32) {
	n := int32(-1)
	for {
		if s := r.nodes[parent].right; n != s { // n is parent's left child
			if r.isRed(s) {
				r.rotateLeft(parent)
				r.nodes[s].red, r.nodes[parent].red = false, true
				s = r.nodes[parent].right
			}
			if !r.isRed(r.nodes[s].right) {
				if !r.isRed(r.nodes[s].left) {
					r.nodes[s].red = true
					if r.nodes[parent].red {
						r.nodes[parent].red = false
						return
					}
					n, parent = parent, r.nodes[parent].parent
					if parent < 0 {
						return
					}
					continue
				}
				r.rotateRight(s)
				s = r.nodes[s].parent
			}
			r.rotateLeft(parent)
			r.nodes[s].red, r.nodes[parent].red, r.nodes[r.nodes[s].right].red = r.nodes[parent].red, false, false
			return
		}
		s := r.nodes[parent].left
		if r.isRed(s) {
			r.rotateRight(parent)
			r.nodes[s].red, r.nodes[parent].red = false, true
			s = r.nodes[parent].left
		}
		if !r.isRed(r.nodes[s].left) {
			if !r.isRed(r.nodes[s].right) {
				r.nodes[s].red = true
				if r.nodes[parent].red {
					r.nodes[parent].red = false
					return
				}
				n, parent = parent, r.nodes[parent].parent
				if parent < 0 {
					return
				}
				continue
			}
			r.rotateLeft(s)
			s = r.nodes[s].parent
		}
		r.rotateRight(parent)
		r.nodes[s].red, r.nodes[parent].red, r.nodes[r.nodes[s].left].red = r.nodes[parent].red, false, false
		return
	}
}

// first returns the leftmost node, or -1.
func (r *rbSim) first() int32 {
	n := r.root
	if n < 0 {
		return -1
	}
	for r.nodes[n].left >= 0 {
		n = r.nodes[n].left
	}
	return n
}

// next returns n's in-order successor, or -1.
func (r *rbSim) next(n int32) int32 {
	if c := r.nodes[n].right; c >= 0 {
		for r.nodes[c].left >= 0 {
			c = r.nodes[c].left
		}
		return c
	}
	for {
		p := r.nodes[n].parent
		if p < 0 || r.nodes[p].left == n {
			return p
		}
		n = p
	}
}

// fixupEnd is symbols__fixup_end on the tree (see [symtab.fixup]).
func (r *rbSim) fixupEnd(kallsyms bool) {
	cur := r.first()
	if cur < 0 {
		return
	}
	for nx := r.next(cur); nx >= 0; nx = r.next(nx) {
		prev, prevStart := &r.info[cur].end, r.nodes[cur].start
		prevNode := cur
		cur = nx
		if *prev != prevStart {
			continue
		}
		if kallsyms && isModuleSym(r.sym(prevNode).name) != isModuleSym(r.sym(cur).name) {
			*prev = roundUp(*prev+4096, 4096)
		} else {
			*prev = r.nodes[cur].start
		}
	}
	if end, start := &r.info[cur].end, r.nodes[cur].start; *end == start {
		*end = roundUp(start, 4096) + 4096
	}
}

// fixupDuplicate is symbols__fixup_duplicate: walking in order, of two
// neighbours with the same start the worse one ([chooseBest]) is erased
// at once, and the winner meets the next neighbour.
func (r *rbSim) fixupDuplicate() {
	for cur := r.first(); cur >= 0; {
		nx := r.next(cur)
		if nx < 0 {
			return
		}
		if r.nodes[cur].start != r.nodes[nx].start {
			cur = nx
			continue
		}
		a, b := r.symbol(cur), r.symbol(nx)
		if chooseBest(&a, &b) {
			r.erase(nx)
			continue
		}
		r.erase(cur)
		cur = nx
	}
}

// eraseIf erases, in order, the nodes whose symbol matches drop.
func (r *rbSim) eraseIf(drop func(*symbol) bool) {
	for cur := r.first(); cur >= 0; {
		nx := r.next(cur)
		if drop(r.sym(cur)) {
			r.erase(cur)
		}
		cur = nx
	}
}

// shapeOf returns the tree's shape over syms, the same symbols sorted; nil
// if the tree does not hold exactly those symbols in that order.
func (r *rbSim) shapeOf(syms []symbol) *symTree {
	if r.n != len(syms) {
		return nil
	}
	pos := make([]int32, len(r.nodes)) // node -> index in syms
	order := make([]int32, 0, len(syms))
	for n := r.first(); n >= 0; n = r.next(n) {
		want := &syms[len(order)]
		if r.nodes[n].start != want.start || r.info[n].end != want.end || r.sym(n).name != want.name {
			return nil
		}
		pos[n] = int32(len(order))
		order = append(order, n)
	}
	at := func(n int32) int32 {
		if n < 0 {
			return -1
		}
		return pos[n]
	}
	tr := &symTree{root: at(r.root), left: make([]int32, len(syms)), right: make([]int32, len(syms))}
	for i, n := range order {
		tr.left[i], tr.right[i] = at(r.nodes[n].left), at(r.nodes[n].right)
	}
	return tr
}
