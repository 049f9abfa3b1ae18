package rbtree

import (
	"slices"
	"testing"
)

// TestOrder checks the red-black insertion order against a plain stable
// sort for a consistent comparison.
func TestOrder(t *testing.T) {
	in := []int{5, 3, 9, 1, 3, 7, 2, 8, 5, 0, 6, 4}
	got := Order(in, func(a, b int) bool { return a > b })
	want := []int{9, 8, 7, 6, 5, 5, 4, 3, 3, 2, 1, 0}
	if !slices.Equal(got, want) {
		t.Errorf("Order = %v, want %v", got, want)
	}
}

// TestShape checks the shape rb_insert_color gives ascending insertions
// and that erasing keeps the order and the red-black rules.
func TestShape(t *testing.T) {
	var tr Tree[int]
	less := func(v, n int) bool { return v < n }
	nodes := make([]Node, 0, 10)
	for i := range 10 {
		nodes = append(nodes, tr.Insert(i, less))
	}
	// lib/rbtree.c on 0..9: 3 at the root, 1 and 5 below it.
	if r := tr.Root(); tr.Value(r) != 3 || tr.Value(tr.Left(r)) != 1 || tr.Value(tr.Right(r)) != 5 {
		t.Fatalf("root %d, children %d %d", tr.Value(r), tr.Value(tr.Left(r)), tr.Value(tr.Right(r)))
	}
	for _, i := range []int{3, 0, 9, 5} {
		tr.Erase(nodes[i])
	}
	if got, want := tr.Values(), []int{1, 2, 4, 6, 7, 8}; !slices.Equal(got, want) || tr.Len() != len(want) {
		t.Fatalf("after erase: %v (len %d), want %v", got, tr.Len(), want)
	}
	checkRB(t, &tr, tr.Root(), Nil)
	if n := tr.Find(7, func(v, n int) int { return v - n }); n == Nil || tr.Value(n) != 7 {
		t.Errorf("Find(7) = %d", n)
	}
	if n := tr.Find(5, func(v, n int) int { return v - n }); n != Nil {
		t.Errorf("Find(5) after erase = %d", n)
	}
}

// checkRB fails unless below n no red node has a red child and every path
// has the same number of black nodes; it returns that number.
func checkRB(t *testing.T, tr *Tree[int], n, parent Node) int {
	t.Helper()
	if n == Nil {
		return 1
	}
	if tr.nodes[n].parent != parent {
		t.Fatalf("node %d: parent %d, want %d", tr.Value(n), tr.nodes[n].parent, parent)
	}
	if tr.isRed(n) && (tr.isRed(tr.Left(n)) || tr.isRed(tr.Right(n))) {
		t.Fatalf("red node %d has a red child", tr.Value(n))
	}
	l, r := checkRB(t, tr, tr.Left(n), n), checkRB(t, tr, tr.Right(n), n)
	if l != r {
		t.Fatalf("node %d: black heights %d and %d", tr.Value(n), l, r)
	}
	if tr.isRed(n) {
		return l
	}
	return l + 1
}
