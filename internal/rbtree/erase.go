package rbtree

// Erase removes n as rb_erase does. A node with at most one child is
// replaced by that child; otherwise its in-order successor is unlinked
// and takes n's place and color. When a black node left its place empty,
// the tree is rebalanced from that place's parent.
func (t *Tree[T]) Erase(n Node) {
	rebalance := Nil
	left, right, parent := t.nodes[n].left, t.nodes[n].right, t.nodes[n].parent
	switch {
	case left < 0:
		t.replaceChild(n, right, parent)
		if right >= 0 {
			t.nodes[right].parent, t.nodes[right].red = parent, t.nodes[n].red
		} else if !t.nodes[n].red {
			rebalance = parent
		}
	case right < 0:
		t.replaceChild(n, left, parent)
		t.nodes[left].parent, t.nodes[left].red = parent, t.nodes[n].red
	default:
		// The successor: n's right child, or the leftmost node below it,
		// which then leaves its right subtree to its parent sp.
		succ, sp := right, right
		child := t.nodes[right].right
		if t.nodes[right].left >= 0 {
			for c := t.nodes[right].left; c >= 0; c = t.nodes[c].left {
				sp, succ = succ, c
			}
			child = t.nodes[succ].right
			t.nodes[sp].left = child
			t.nodes[succ].right = right
			t.nodes[right].parent = succ
		}
		t.nodes[succ].left = left
		t.nodes[left].parent = succ
		t.replaceChild(n, succ, parent)
		if child >= 0 {
			t.nodes[child].parent, t.nodes[child].red = sp, false
		} else if !t.nodes[succ].red {
			rebalance = sp
		}
		t.nodes[succ].parent, t.nodes[succ].red = parent, t.nodes[n].red
	}
	t.nodes[n].left, t.nodes[n].right, t.nodes[n].parent = -1, -1, -1
	t.n--
	if rebalance >= 0 {
		t.eraseColor(rebalance)
	}
}

// eraseColor rebalances after a black node left an empty place below
// parent, with ____rb_erase_color's cases: a red sibling is rotated up
// first; a sibling with black children turns red and the shortage moves
// up (or ends at a red parent); otherwise one or two rotations end it.
func (t *Tree[T]) eraseColor(parent Node) {
	n := Nil
	for {
		if s := t.nodes[parent].right; n != s { // n is parent's left child
			if t.isRed(s) {
				t.rotateLeft(parent)
				t.nodes[s].red, t.nodes[parent].red = false, true
				s = t.nodes[parent].right
			}
			if !t.isRed(t.nodes[s].right) {
				if !t.isRed(t.nodes[s].left) {
					t.nodes[s].red = true
					if t.nodes[parent].red {
						t.nodes[parent].red = false
						return
					}
					n, parent = parent, t.nodes[parent].parent
					if parent < 0 {
						return
					}
					continue
				}
				t.rotateRight(s)
				s = t.nodes[s].parent
			}
			t.rotateLeft(parent)
			t.nodes[s].red, t.nodes[parent].red, t.nodes[t.nodes[s].right].red = t.nodes[parent].red, false, false
			return
		}
		s := t.nodes[parent].left
		if t.isRed(s) {
			t.rotateRight(parent)
			t.nodes[s].red, t.nodes[parent].red = false, true
			s = t.nodes[parent].left
		}
		if !t.isRed(t.nodes[s].left) {
			if !t.isRed(t.nodes[s].right) {
				t.nodes[s].red = true
				if t.nodes[parent].red {
					t.nodes[parent].red = false
					return
				}
				n, parent = parent, t.nodes[parent].parent
				if parent < 0 {
					return
				}
				continue
			}
			t.rotateLeft(s)
			s = t.nodes[s].parent
		}
		t.rotateRight(parent)
		t.nodes[s].red, t.nodes[parent].red, t.nodes[t.nodes[s].left].red = t.nodes[parent].red, false, false
		return
	}
}

// First returns the leftmost node, or -1.
func (t *Tree[T]) First() Node {
	n := t.Root()
	if n < 0 {
		return -1
	}
	for t.nodes[n].left >= 0 {
		n = t.nodes[n].left
	}
	return n
}

// Next returns n's in-order successor, or -1.
func (t *Tree[T]) Next(n Node) Node {
	if c := t.nodes[n].right; c >= 0 {
		for t.nodes[c].left >= 0 {
			c = t.nodes[c].left
		}
		return c
	}
	for {
		p := t.nodes[n].parent
		if p < 0 || t.nodes[p].left == n {
			return p
		}
		n = p
	}
}
