package report

import (
	"testing"
)

// TestChainChildrenTreeShape checks that a chain joins the child perf's
// rb_root_in search reaches, not the one a total order would find: entries
// of one symbol from two processes (same symbol start, other addresses)
// stay apart when an unresolved entry between them sends the search the
// other way, as perf report shows them (a function listed twice).
func TestChainChildrenTreeShape(t *testing.T) {
	a := chainEntry{entryKey: entryKey{name: "make_child", resolved: true, dsoRank: 1, start: 0x100, ip: 0x5000}}
	u := chainEntry{entryKey: entryKey{dsoRank: 1, ip: 0x3000}}
	b := chainEntry{entryKey: entryKey{name: "make_child", resolved: true, dsoRank: 1, start: 0x100, ip: 0x1000}}
	tests := []struct {
		name  string
		order []chainEntry
		want  []uint64 // the children's first addresses, in tree order
	}{
		// The root U sends B right, away from A on its left.
		{"unresolved first", []chainEntry{u, a, b}, []uint64{0x5000, 0x3000, 0x1000}},
		// The root A meets B first: one child for both.
		{"resolved first", []chainEntry{a, u, b}, []uint64{0x5000, 0x3000}},
	}
	for _, tt := range tests {
		root := &chainNode{}
		for _, e := range tt.order {
			root.appendChain([]chainEntry{e}, 1)
		}
		var got []uint64
		for _, c := range root.kids() {
			got = append(got, c.val[0].ip)
		}
		if len(got) != len(tt.want) {
			t.Fatalf("%s: children %#x, want %#x", tt.name, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: children %#x, want %#x", tt.name, got, tt.want)
				break
			}
		}
	}
}
