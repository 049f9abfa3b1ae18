package report

// rbOrder sorts items the way perf sorts histogram entries for output:
// each item is inserted, in turn, into a red-black tree, going left while
// left(item, node) holds. perf's output comparison is not a total order
// (with --children, equally heavy entries of one thread are compared by
// callchain depth, entries of different threads are not), so the result
// depends on the shape of the tree; rbOrder builds the same shape as the
// kernel's lib/rbtree.c that perf uses.
func rbOrder[T any](items []T, left func(a, b T) bool) []T {
	t := &rbTree[T]{}
	for _, it := range items {
		t.insert(it, left)
	}
	out := make([]T, 0, len(items))
	var walk func(n *rbNode[T])
	walk = func(n *rbNode[T]) {
		for n != nil {
			walk(n.left)
			out = append(out, n.val)
			n = n.right
		}
	}
	walk(t.root)
	return out
}

type rbNode[T any] struct {
	val                 T
	left, right, parent *rbNode[T]
	red                 bool
}

type rbTree[T any] struct{ root *rbNode[T] }

func (t *rbTree[T]) insert(v T, left func(a, b T) bool) {
	n := &rbNode[T]{val: v, red: true}
	var parent *rbNode[T]
	p := &t.root
	for *p != nil {
		parent = *p
		if left(v, parent.val) {
			p = &parent.left
		} else {
			p = &parent.right
		}
	}
	n.parent = parent
	*p = n
	t.fixup(n)
}

func (t *rbTree[T]) rotateLeft(x *rbNode[T]) {
	y := x.right
	x.right = y.left
	if y.left != nil {
		y.left.parent = x
	}
	y.parent = x.parent
	t.replace(x, y)
	y.left = x
	x.parent = y
}

func (t *rbTree[T]) rotateRight(x *rbNode[T]) {
	y := x.left
	x.left = y.right
	if y.right != nil {
		y.right.parent = x
	}
	y.parent = x.parent
	t.replace(x, y)
	y.right = x
	x.parent = y
}

// replace puts y where x hangs in its parent (or at the root).
func (t *rbTree[T]) replace(x, y *rbNode[T]) {
	switch {
	case x.parent == nil:
		t.root = y
	case x == x.parent.left:
		x.parent.left = y
	default:
		x.parent.right = y
	}
}

// fixup restores the red-black properties after inserting z (the classic
// insertion fix-up, which lib/rbtree.c's rb_insert_color implements).
func (t *rbTree[T]) fixup(z *rbNode[T]) {
	for z.parent != nil && z.parent.red {
		p := z.parent
		g := p.parent
		if g == nil {
			break
		}
		if p == g.left {
			u := g.right
			if u != nil && u.red {
				p.red, u.red, g.red = false, false, true
				z = g
				continue
			}
			if z == p.right {
				t.rotateLeft(p)
				z, p = p, z
			}
			p.red, g.red = false, true
			t.rotateRight(g)
		} else {
			u := g.left
			if u != nil && u.red {
				p.red, u.red, g.red = false, false, true
				z = g
				continue
			}
			if z == p.left {
				t.rotateRight(p)
				z, p = p, z
			}
			p.red, g.red = false, true
			t.rotateLeft(g)
		}
	}
	t.root.red = false
}

// findOrInsert looks v up with cmp (negative: v goes left of the node;
// zero: the node is v's entry) and inserts it when absent, as perf's
// hists__findnew_entry does. With perf's comparison, which is not a total
// order, an entry can be missed and a duplicate inserted, exactly as in
// perf. It returns the entry found or v, and whether v was inserted.
func (t *rbTree[T]) findOrInsert(v T, cmp func(a, b T) int) (T, bool) {
	return t.findOrMake(v, cmp, func() T { return v })
}

// findOrMake is findOrInsert that inserts mk() (equal to v) instead of v,
// so that v can be a temporary.
func (t *rbTree[T]) findOrMake(v T, cmp func(a, b T) int, mk func() T) (T, bool) {
	var parent *rbNode[T]
	p := &t.root
	for *p != nil {
		parent = *p
		c := cmp(v, parent.val)
		switch {
		case c == 0:
			return parent.val, false
		case c < 0:
			p = &parent.left
		default:
			p = &parent.right
		}
	}
	n := &rbNode[T]{val: mk(), red: true, parent: parent}
	*p = n
	t.fixup(n)
	return n.val, true
}

// items returns the values in order.
func (t *rbTree[T]) items() []T {
	var out []T
	var walk func(n *rbNode[T])
	walk = func(n *rbNode[T]) {
		for n != nil {
			walk(n.left)
			out = append(out, n.val)
			n = n.right
		}
	}
	walk(t.root)
	return out
}

// find looks v up with cmp as findOrInsert does, without inserting.
func (t *rbTree[T]) find(v T, cmp func(a, b T) int) (T, bool) {
	for n := t.root; n != nil; {
		c := cmp(v, n.val)
		switch {
		case c == 0:
			return n.val, true
		case c < 0:
			n = n.left
		default:
			n = n.right
		}
	}
	var zero T
	return zero, false
}
