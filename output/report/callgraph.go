package report

import (
	"bufio"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/internal/rbtree"
)

// This file holds the call-graph tree perf report builds under every
// histogram entry (tools/perf/util/callchain.c: callchain_append,
// append_chain, split_add_child, the sort_chain_* functions) and the way
// perf report --stdio prints it (tools/perf/ui/stdio/hist.c). The tree is
// a radix tree over the callchain: a node holds a run of entries shared by
// every chain through it; hit is the weight of chains ending in the node,
// childrenHit the weight of chains continuing below it.

// CallGraphMode selects how call graphs are printed under report rows
// (perf report -g).
type CallGraphMode int

// Call-graph print modes.
const (
	// CallGraphGraph prints the tree with percentages of the total weight
	// (perf's default "graph").
	CallGraphGraph CallGraphMode = iota
	// CallGraphFractal prints the tree with percentages relative to the
	// parent node.
	CallGraphFractal
	// CallGraphFlat prints every distinct chain with its own weight.
	CallGraphFlat
	// CallGraphFolded prints one line per chain: weight and frames joined
	// by semicolons.
	CallGraphFolded
	// CallGraphNone prints no call graph.
	CallGraphNone
)

var callGraphNames = [...]string{"graph", "fractal", "flat", "folded", "none"}

// String returns the mode's name as perf spells it.
func (m CallGraphMode) String() string {
	if m >= 0 && int(m) < len(callGraphNames) {
		return callGraphNames[m]
	}
	return "callgraph(" + strconv.Itoa(int(m)) + ")"
}

// ParseCallGraphMode parses a -g print type.
func ParseCallGraphMode(s string) (CallGraphMode, error) {
	for i, n := range callGraphNames {
		if s == n {
			return CallGraphMode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown call-graph mode %q (want graph, fractal, flat, folded or none)", s)
}

// CallOrder is the direction call graphs are printed in.
type CallOrder int

// Call orders.
const (
	// OrderDefault is caller order with --children and callee order
	// without, as perf report does.
	OrderDefault CallOrder = iota
	// OrderCallee starts each chain at the sampled function.
	OrderCallee
	// OrderCaller starts each chain at the outermost caller.
	OrderCaller
)

// chainEntry is one frame of a callchain as the tree compares and prints
// it (perf's callchain_list). It holds only what the tree needs, 56 bytes:
// a tree node keeps a copy of every entry of its run.
type chainEntry struct {
	entryKey
	// line labels a resolved entry with -g address: its srcline, "" if
	// none.
	line string
}

// entryKey is what the tree compares of a chainEntry (compareEntries).
type entryKey struct {
	name    string // symbol name; "" if unresolved
	ip      uint64 // absolute address as recorded
	start   uint64 // symbol start within its DSO, if resolved
	dsoRank int32  // stands in for perf's dso pointer order; -1 no map
	// byAddr: call graphs key entries by address (-g address).
	byAddr   bool
	inlined  bool
	resolved bool
}

// label is how perf prints a callchain entry (callchain_list__sym_name),
// at most perfBufLen-1 bytes of it.
func (e *chainEntry) label() string {
	if e.resolved && e.byAddr && e.line != "" {
		if e.inlined {
			return e.name + " " + e.line + " (inlined)"
		}
		return e.name + " " + e.line
	}
	if e.resolved {
		if e.inlined {
			return clip(e.name + " (inlined)")
		}
		return clip(e.name)
	}
	return hexAlt(e.ip)
}

// hexAlt formats v as C's "%#lx" does (no 0x prefix for zero).
func hexAlt(v uint64) string {
	if v == 0 {
		return "0"
	}
	return "0x" + strconv.FormatUint(v, 16)
}

// compareEntries orders two entries the way perf's match_chain does for
// the default "function" key: inlined frames by name, resolved frames by
// DSO and symbol start, the rest by DSO and address. It returns -1 when a
// sorts before b, 0 when they are the same frame.
func compareEntries(a, b *entryKey) int {
	if a.byAddr || b.byAddr { // perf's match_chain_dso_addresses
		return compareDSOAddr(a.dsoRank, a.ip, b.dsoRank, b.ip)
	}
	if a.resolved && b.resolved {
		if a.inlined || b.inlined {
			return strings.Compare(a.name, b.name)
		}
		return compareDSOAddr(a.dsoRank, a.start, b.dsoRank, b.start)
	}
	return compareDSOAddr(a.dsoRank, a.ip, b.dsoRank, b.ip)
}

func compareDSOAddr(ra int32, a uint64, rb int32, b uint64) int {
	switch {
	case ra != rb:
		if ra < rb {
			return -1
		}
		return 1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// chainNode is a node of the call-graph tree (perf's callchain_node).
type chainNode struct {
	parent *chainNode
	val    []chainEntry
	// children is perf's rb_root_in: a red-black tree searched and
	// filled with match_chain on the first entry (larger entries to the
	// left). That comparison is not a total order (resolved entries
	// compare symbol starts, others addresses), so the tree's shape
	// decides which child a chain joins, as in perf.
	children      rbtree.Tree[childRef]
	hit           uint64
	childrenHit   uint64
	count         uint64
	childrenCount uint64

	// sorted are the children to print, heaviest first, after pruning.
	sorted []*chainNode

	// last is the child the last search found for the key lastKey,
	// while the tree held lastLen children: the search for the same key
	// ends there again while the tree is unchanged (a split, which
	// rebuilds it, clears last).
	last    *chainNode
	lastKey entryKey
	lastLen int32
}

// childRef is a child in its parent's tree with a copy of the child's
// first entry, the one the tree compares: a search then reads the tree's
// own slice, not every child it passes.
type childRef struct {
	first entryKey
	node  *chainNode
}

// kids returns n's children in tree order.
func (n *chainNode) kids() []*chainNode {
	out := make([]*chainNode, 0, n.children.Len())
	for c := n.children.First(); c >= 0; c = n.children.Next(c) {
		out = append(out, n.children.Value(c).node)
	}
	return out
}

// addChild links c into n's tree where match_chain on its first entry
// puts it.
func (n *chainNode) addChild(c *chainNode) {
	n.children.FindOrInsert(childRef{first: c.val[0].entryKey, node: c}, childOrder, nil)
}

func (n *chainNode) cumulHits() uint64   { return n.hit + n.childrenHit }
func (n *chainNode) cumulCounts() uint64 { return n.count + n.childrenCount }

// appendChain adds one chain with the given weight below root (perf's
// callchain_append on the root node).
func (root *chainNode) appendChain(chain []chainEntry, period uint64) {
	if len(chain) == 0 {
		return
	}
	root.appendChildren(chain, period)
}

// appendChildren finds the child whose first entry matches chain[0] and
// continues there, or adds a new child (perf's append_chain_children).
func (n *chainNode) appendChildren(chain []chainEntry, period uint64) {
	// The walk finds the same node, or the same place for a new one, as
	// FindOrInsert would, without a closure or a key to allocate.
	if n.last != nil && n.lastLen == int32(n.children.Len()) && n.lastKey == chain[0].entryKey {
		n.last.appendHere(chain, period)
	} else if c := n.children.Find(childRef{first: chain[0].entryKey}, childOrder); c >= 0 {
		n.last, n.lastKey, n.lastLen = n.children.Value(c).node, chain[0].entryKey, int32(n.children.Len())
		n.last.appendHere(chain, period)
	} else {
		n.addChild(&chainNode{parent: n, val: append([]chainEntry(nil), chain...), hit: period, count: 1})
	}
	n.childrenHit += period
	n.childrenCount++
}

// childOrder places chain node a among its siblings as perf's
// append_chain_children does: to the left of b when b's first entry is
// smaller (match_chain gives MATCH_LT), zero when they match.
func childOrder(a, b childRef) int {
	return compareEntries(&b.first, &a.first)
}

// appendHere continues a chain whose first entry matches n.val[0] (the
// search compared them).
func (n *chainNode) appendHere(chain []chainEntry, period uint64) {
	m := 1
	for m < len(n.val) && m < len(chain) && compareEntries(&n.val[m].entryKey, &chain[m].entryKey) == 0 {
		m++
	}
	switch {
	case m < len(n.val):
		n.split(chain[m:], m, period)
	case m == len(chain):
		n.hit += period
		n.count++
	default:
		n.appendChildren(chain[m:], period)
	}
}

// split cuts n after its first keep entries, moving the rest (and n's
// children) to a new child, then adds rest as a second child (perf's
// split_add_child).
func (n *chainNode) split(rest []chainEntry, keep int, period uint64) {
	moved := &chainNode{
		parent:        n,
		val:           append([]chainEntry(nil), n.val[keep:]...),
		children:      n.children,
		hit:           n.hit,
		childrenHit:   n.childrenHit,
		count:         n.count,
		childrenCount: n.childrenCount,
	}
	for c := moved.children.First(); c >= 0; c = moved.children.Next(c) {
		moved.children.Value(c).node.parent = moved
	}
	n.val = n.val[:keep:keep]
	n.children = rbtree.Tree[childRef]{}
	moved.last, moved.lastKey, moved.lastLen = n.last, n.lastKey, n.lastLen
	n.last = nil
	n.addChild(moved)
	n.childrenHit = moved.cumulHits()
	n.childrenCount = moved.cumulCounts()
	if len(rest) == 0 {
		n.hit = period
		n.count = 1
		return
	}
	n.hit = 0
	n.count = 0
	n.childrenHit += period
	n.childrenCount++
	// the second child: rest differs from moved
	n.addChild(&chainNode{parent: n, val: append([]chainEntry(nil), rest...), hit: period, count: 1})
}

// sortGraph orders every node's children by cumulated weight, heaviest
// first, keeping only those of at least minHit (perf's
// sort_chain_graph_abs; with relative, the threshold is a fraction of
// each parent's weight as in sort_chain_graph_rel).
func (n *chainNode) sortGraph(minHit uint64, relative bool, minFrac float64) {
	n.sorted = n.sorted[:0]
	limit := minHit
	if relative {
		limit = uint64(ceil(float64(n.childrenHit) * minFrac))
	}
	for _, c := range n.kids() {
		c.sortGraph(minHit, relative, minFrac)
		if c.cumulHits() >= limit {
			n.sorted = append(n.sorted, c)
		}
	}
	sort.SliceStable(n.sorted, func(i, j int) bool {
		return n.sorted[i].cumulHits() > n.sorted[j].cumulHits()
	})
}

func ceil(f float64) float64 {
	i := float64(uint64(f))
	if i < f {
		return i + 1
	}
	return i
}

// flatNodes returns the nodes with their own hits of at least minHit,
// heaviest first (perf's sort_chain_flat: children before parents, in
// tree order, then a stable sort by hit).
func (n *chainNode) flatNodes(minHit uint64) []*chainNode {
	var out []*chainNode
	var walk func(*chainNode)
	walk = func(x *chainNode) {
		for _, c := range x.kids() {
			walk(c)
		}
		if x.hit > 0 && x.hit >= minHit {
			out = append(out, x)
		}
	}
	walk(n)
	sort.SliceStable(out, func(i, j int) bool { return out[i].hit > out[j].hit })
	return out
}

// graphPrinter prints call graphs the way perf report --stdio does.
type graphPrinter struct {
	w        *bufio.Writer
	mode     CallGraphMode
	total    uint64 // the event's total weight (graph mode percentages)
	minHit   uint64
	minFrac  float64
	skipHead bool // the sort starts with sym: drop the first entry of a lone root
	value    CallGraphValue
	// remInlined: the fractal remainder reads "[...] (inlined)"
	// (compat.Dialect.RemainderInlined).
	remInlined bool
}

// CallGraphValue is what call graphs print for a branch (perf's -g value
// word): its percentage, period or sample count.
type CallGraphValue int

// Call-graph values.
const (
	ValuePercent CallGraphValue = iota // percent of the total (perf's default)
	ValuePeriod                        // the branch's period
	ValueCount                         // the branch's sample count
)

// valueString is a branch's value (callchain_node__scnprintf_value);
// hits and counts are its weight and samples.
func (p *graphPrinter) valueString(hits, counts, total uint64) string {
	switch p.value {
	case ValuePeriod:
		return strconv.FormatUint(hits, 10)
	case ValueCount:
		return strconv.FormatUint(counts, 10)
	}
	return percentString(hits, total)
}

func percentString(v, total uint64) string {
	p := 0.0
	if total != 0 {
		p = float64(v) * 100.0 / float64(total)
	}
	return strconv.FormatFloat(p, 'f', 2, 64) + "%"
}

const graphMargin = "            " // 12 spaces before every call-graph line

// print writes the call graph of one histogram entry whose weight is
// parent (perf's hist_entry_callchain__fprintf).
func (p *graphPrinter) print(root *chainNode, parent uint64) {
	switch p.mode {
	case CallGraphGraph, CallGraphFractal:
		root.sortGraph(p.minHit, p.mode == CallGraphFractal, p.minFrac)
		p.printGraph(root, parent)
	case CallGraphFlat:
		for _, n := range root.flatNodes(p.minHit) {
			p.w.WriteString("           ")
			p.w.WriteString(p.valueString(n.cumulHits(), n.cumulCounts(), p.total))
			p.w.WriteByte('\n')
			p.printFlatPath(n)
			p.w.WriteByte('\n')
		}
	case CallGraphFolded:
		for _, n := range root.flatNodes(p.minHit) {
			p.w.WriteString(p.valueString(n.hit, n.count, p.total))
			p.w.WriteByte(' ')
			var names []string
			for x := n; x != nil; x = x.parent {
				for i := len(x.val) - 1; i >= 0; i-- {
					names = append(names, x.val[i].label())
				}
			}
			for i := len(names) - 1; i >= 0; i-- {
				p.w.WriteString(names[i])
				if i > 0 {
					p.w.WriteByte(';')
				}
			}
			p.w.WriteByte('\n')
		}
	}
}

func (p *graphPrinter) printFlatPath(n *chainNode) {
	if n == nil {
		return
	}
	p.printFlatPath(n.parent)
	for i := range n.val {
		p.w.WriteString("                ")
		p.w.WriteString(n.val[i].label())
		p.w.WriteByte('\n')
	}
}

// printGraph is perf's callchain__fprintf_graph.
func (p *graphPrinter) printGraph(root *chainNode, parent uint64) {
	start := p.w.Buffered()
	margin := 0
	top := root.sorted
	total := p.total
	if len(top) > 0 && !(len(top) > 1 || top[0].cumulHits() != parent) {
		n := top[0]
		printed := false
		for i := range n.val {
			if i == 0 && p.skipHead {
				continue
			}
			p.w.WriteString(graphMargin)
			if !printed {
				p.w.WriteString("|\n")
				p.w.WriteString(graphMargin)
				p.w.WriteString("---")
				margin = 3
				printed = true
			} else {
				p.w.WriteString(graphPad(margin))
			}
			p.w.WriteString(n.val[i].label())
			p.w.WriteByte('\n')
		}
		top = n.sorted
	}
	if p.mode == CallGraphFractal {
		total = parent
	}
	p.printLevel(top, total, 1, 1, margin)
	if p.w.Buffered() != start {
		p.w.WriteByte('\n')
	}
}

func graphPad(n int) string { return strings.Repeat(" ", n) }

// bit returns the depth-mask bit of level i. perf keeps the mask in a C
// int and shifts by the level, which on x86 wraps every 32 levels; deep
// graphs print the same pipes as perf only with the same wrap.
func bit(i int) uint32 { return 1 << (uint(i) & 31) }

// printLevel is perf's __callchain__fprintf_graph: one level of siblings.
func (p *graphPrinter) printLevel(nodes []*chainNode, total uint64, depth int, mask uint32, margin int) {
	remaining := total
	newMask := mask
	for idx, child := range nodes {
		remaining -= child.cumulHits()
		last := idx == len(nodes)-1
		if last && (p.mode != CallGraphFractal || remaining == 0) {
			newMask &^= bit(depth - 1)
		}
		p.graphLine(depth, mask, margin)
		for i := range child.val {
			p.entryLine(child, &child.val[i], depth, newMask, i, total, margin)
		}
		next := total
		if p.mode == CallGraphFractal {
			next = child.childrenHit
		}
		p.printLevel(child.sorted, next, depth+1, newMask|bit(depth), margin)
	}
	if p.mode == CallGraphFractal && remaining != 0 && remaining != total {
		newMask &^= bit(depth - 1)
		rem := &chainNode{hit: remaining}
		if par := nodes[0].parent; par != nil {
			// the samples of the branches not printed, for -g count
			rem.count = par.childrenCount
			for _, c := range nodes {
				rem.count -= c.cumulCounts()
			}
		}
		p.entryLine(rem, &chainEntry{entryKey: entryKey{name: "[...]", resolved: true, inlined: p.remInlined}}, depth, newMask, 0, total, margin)
	}
}

func (p *graphPrinter) graphLine(depth int, mask uint32, margin int) {
	p.w.WriteString(graphMargin)
	p.w.WriteString(graphPad(margin))
	for i := 0; i < depth; i++ {
		if mask&bit(i) != 0 {
			p.w.WriteString("|          ")
		} else {
			p.w.WriteString("           ")
		}
	}
	p.w.WriteByte('\n')
}

func (p *graphPrinter) entryLine(n *chainNode, e *chainEntry, depth int, mask uint32, period int, total uint64, margin int) {
	p.w.WriteString(graphMargin)
	p.w.WriteString(graphPad(margin))
	for i := 0; i < depth; i++ {
		if mask&bit(i) != 0 {
			p.w.WriteByte('|')
		} else {
			p.w.WriteByte(' ')
		}
		if period == 0 && i == depth-1 {
			p.w.WriteString("--")
			p.w.WriteString(p.valueString(n.cumulHits(), n.cumulCounts(), total))
			p.w.WriteString("--")
		} else {
			p.w.WriteString("          ")
		}
	}
	p.w.WriteString(e.label())
	p.w.WriteByte('\n')
}

// merge adds every chain of src to n (perf's callchain_merge): each node
// of src with hits of its own is appended with its full path. unresolved
// drops the symbols of src's entries on the way, as perf 6.5+ does
// (compat.Dialect.MergedChainsUnresolved).
func (n *chainNode) merge(src *chainNode, unresolved bool) {
	var path []chainEntry
	var walk func(x *chainNode)
	walk = func(x *chainNode) {
		keep := len(path)
		path = append(path, x.val...)
		if unresolved {
			for i := keep; i < len(path); i++ {
				path[i].resolved, path[i].inlined, path[i].name, path[i].start = false, false, "", 0
			}
		}
		if x.hit > 0 && len(path) > 0 {
			n.appendChain(path, x.hit)
		}
		for _, c := range x.kids() {
			walk(c)
		}
		path = path[:keep]
	}
	walk(src)
}
