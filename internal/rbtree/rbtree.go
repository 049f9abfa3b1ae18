// Package rbtree is a model of the kernel's red-black tree
// (lib/rbtree.c: rb_link_node, rb_insert_color, rb_erase), which perf
// keeps its symbols, histogram entries and call-graph branches in. perf
// searches these trees with comparisons that are not total orders, and
// erases nodes while fixing up symbol tables, so what it finds and the
// order it prints depend on the tree's shape; this tree builds the same
// shape for the same history of insertions and erasures.
//
// Nodes live in one slice and are named by index ([Node]); erased nodes
// keep their slot. The zero Tree is empty and ready to use.
package rbtree

// Node names a node of a [Tree]: its insertion index. [Nil] is no node.
type Node int32

// Nil is the absent node (an empty child, the root's parent).
const Nil Node = -1

type node[T any] struct {
	val                 T
	left, right, parent Node
	red                 bool
}

// Tree is a red-black tree of values of type T. Where a value goes is
// decided by the function each insertion is given, as in the kernel,
// where every caller walks the tree itself.
type Tree[T any] struct {
	nodes []node[T]
	root  Node // meaningful once nodes is not empty
	n     int
}

// Len returns the number of nodes in the tree.
func (t *Tree[T]) Len() int { return t.n }

// Root returns the root, [Nil] for an empty tree.
func (t *Tree[T]) Root() Node {
	if len(t.nodes) == 0 {
		return Nil
	}
	return t.root
}

// Left returns n's left child.
func (t *Tree[T]) Left(n Node) Node { return t.nodes[n].left }

// Right returns n's right child.
func (t *Tree[T]) Right(n Node) Node { return t.nodes[n].right }

// Value returns n's value.
func (t *Tree[T]) Value(n Node) T { return t.nodes[n].val }

// Insert adds v below the leaf reached by going left while left(v, node
// value) holds and right otherwise, then rebalances (rb_link_node and
// rb_insert_color). It returns v's node.
func (t *Tree[T]) Insert(v T, left func(v, node T) bool) Node {
	p, goLeft := Nil, false
	for c := t.Root(); c >= 0; {
		p = c
		goLeft = left(v, t.nodes[c].val)
		if goLeft {
			c = t.nodes[c].left
		} else {
			c = t.nodes[c].right
		}
	}
	return t.link(v, p, goLeft)
}

// FindOrInsert looks v up, going left where cmp(v, node value) is
// negative, right where it is positive, and stopping at a node where it
// is zero, as perf's find-or-add functions (hists__findnew_entry,
// append_chain_children) walk their trees. When no node matches it inserts
// v where the walk ended, or mk() if mk is not nil (a value equal to v, so
// that v can be a temporary). It returns the node found or inserted, and whether it inserted.
// With a comparison that is not a total order a matching node off the
// walk's path is missed and a duplicate inserted, as in perf.
func (t *Tree[T]) FindOrInsert(v T, cmp func(v, node T) int, mk func() T) (Node, bool) {
	p, goLeft := Nil, false
	for c := t.Root(); c >= 0; {
		p = c
		switch d := cmp(v, t.nodes[c].val); {
		case d == 0:
			return c, false
		case d < 0:
			goLeft, c = true, t.nodes[c].left
		default:
			goLeft, c = false, t.nodes[c].right
		}
	}
	if mk != nil {
		v = mk()
	}
	return t.link(v, p, goLeft), true
}

// Find walks the tree as [Tree.FindOrInsert] does without inserting: the
// node where cmp is zero, or [Nil].
func (t *Tree[T]) Find(v T, cmp func(v, node T) int) Node {
	for c := t.Root(); c >= 0; {
		switch d := cmp(v, t.nodes[c].val); {
		case d == 0:
			return c
		case d < 0:
			c = t.nodes[c].left
		default:
			c = t.nodes[c].right
		}
	}
	return Nil
}

// link hangs a new red node with value v below p (on its left if goLeft)
// and rebalances.
func (t *Tree[T]) link(v T, p Node, goLeft bool) Node {
	if len(t.nodes) == 0 {
		t.root = Nil
	}
	n := Node(len(t.nodes))
	t.nodes = append(t.nodes, node[T]{val: v, left: Nil, right: Nil, parent: p, red: true})
	switch {
	case p < 0:
		t.root = n
	case goLeft:
		t.nodes[p].left = n
	default:
		t.nodes[p].right = n
	}
	t.n++
	t.insertColor(n)
	return n
}

// Values returns the values in order.
func (t *Tree[T]) Values() []T {
	out := make([]T, 0, t.n)
	for n := t.First(); n >= 0; n = t.Next(n) {
		out = append(out, t.nodes[n].val)
	}
	return out
}

// Order inserts items, in turn, into a tree with left, and returns them
// in the tree's order: the order perf prints entries in that it sorted by
// inserting them into an rb-tree with a comparison that is not a total
// order (the result then depends on the tree's shape).
func Order[T any](items []T, left func(a, b T) bool) []T {
	var t Tree[T]
	t.nodes = make([]node[T], 0, len(items))
	for _, it := range items {
		t.Insert(it, left)
	}
	return t.Values()
}

func (t *Tree[T]) isRed(n Node) bool { return n >= 0 && t.nodes[n].red }

// replaceChild makes n take old's place under parent (or at the root).
func (t *Tree[T]) replaceChild(old, n, parent Node) {
	switch {
	case parent < 0:
		t.root = n
	case t.nodes[parent].left == old:
		t.nodes[parent].left = n
	default:
		t.nodes[parent].right = n
	}
}

// rotateLeft lifts x's right child into x's place.
func (t *Tree[T]) rotateLeft(x Node) {
	y := t.nodes[x].right
	t.nodes[x].right = t.nodes[y].left
	if c := t.nodes[y].left; c >= 0 {
		t.nodes[c].parent = x
	}
	p := t.nodes[x].parent
	t.nodes[y].parent = p
	t.replaceChild(x, y, p)
	t.nodes[y].left = x
	t.nodes[x].parent = y
}

// rotateRight lifts x's left child into x's place.
func (t *Tree[T]) rotateRight(x Node) {
	y := t.nodes[x].left
	t.nodes[x].left = t.nodes[y].right
	if c := t.nodes[y].right; c >= 0 {
		t.nodes[c].parent = x
	}
	p := t.nodes[x].parent
	t.nodes[y].parent = p
	t.replaceChild(x, y, p)
	t.nodes[y].right = x
	t.nodes[x].parent = y
}

// insertColor restores the red-black rules after inserting the red node
// n, with rb_insert_color's cases: a red uncle flips colors and moves up;
// otherwise one or two rotations end it.
func (t *Tree[T]) insertColor(n Node) {
	for {
		p := t.nodes[n].parent
		if p < 0 {
			t.nodes[n].red = false
			return
		}
		if !t.nodes[p].red {
			return
		}
		g := t.nodes[p].parent // exists: a red node is not the root
		if p == t.nodes[g].left {
			if u := t.nodes[g].right; t.isRed(u) {
				t.nodes[u].red, t.nodes[p].red, t.nodes[g].red = false, false, true
				n = g
				continue
			}
			if n == t.nodes[p].right {
				t.rotateLeft(p)
				p = n
			}
			t.rotateRight(g)
		} else {
			if u := t.nodes[g].left; t.isRed(u) {
				t.nodes[u].red, t.nodes[p].red, t.nodes[g].red = false, false, true
				n = g
				continue
			}
			if n == t.nodes[p].left {
				t.rotateRight(p)
				p = n
			}
			t.rotateLeft(g)
		}
		t.nodes[p].red, t.nodes[g].red = false, true
		return
	}
}

// Grow makes room for n more nodes without reallocating.
func (t *Tree[T]) Grow(n int) {
	if free := cap(t.nodes) - len(t.nodes); free < n {
		t.nodes = append(make([]node[T], 0, len(t.nodes)+n), t.nodes...)
	}
}
