package report

import (
	"bufio"
	"slices"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/internal/table"
)

// This file prints perf report --hierarchy: one level per sort key, each
// row the sum of the rows under it, indented by perf's HIERARCHY_INDENT
// (ui/stdio/hist.c hist_entry__hierarchy_fprintf, hists__fprintf_hierarchy_headers).

// hierarchyIndent is perf's HIERARCHY_INDENT.
const hierarchyIndent = 3

// hierarchyNode is one row of a level: the rows below it and their sum.
type hierarchyNode struct {
	he       *histEntry // the first row below it, for the key's text
	self     uint64
	children []*hierarchyNode
}

// CanHierarchy reports why the report cannot be printed as a hierarchy
// (--hierarchy), "" if it can: perfstitch prints it for self overhead
// without call graphs or extra columns only.
func (r *Report) CanHierarchy() string {
	switch {
	case r.opts.Children && r.hasChains && !r.opts.Pipe:
		return "needs --no-children"
	case r.opts.CallGraph != CallGraphNone && r.hasChains:
		return "needs -g none"
	case r.opts.ShowNrSamples || r.opts.ShowTotalPeriod || r.opts.IPC || r.opts.FieldSep != "" || len(r.opts.Only) > 0 || len(r.groups) > 0:
		return "not with -n, --show-total-period, -t, a --sort value naming symbol, single-value filters or event groups"
	}
	for _, k := range r.opts.Sort {
		if k.hpp() {
			return "not with the sample and period sort keys"
		}
	}
	return ""
}

// writeHierarchy prints a section's rows as perf's hierarchy.
func (r *Report) writeHierarchy(bw *bufio.Writer, s *reportSection, rows []*histEntry) {
	cols := r.columns(s, rows)[1:] // the sort keys' columns
	keys := r.opts.Sort
	ohW := 8 + hierarchyIndent*(len(keys)-1)
	if !r.opts.Quiet {
		names := make([]string, len(cols))
		w := 0
		for i, c := range cols {
			names[i] = strings.TrimSpace(c.header)
			w = max(w, c.width+hierarchyIndent*i)
		}
		header := strings.Join(names, " / ")
		w = max(w, len(header))
		bw.WriteString("# " + padLeft("Overhead", ohW) + "  " + header + "\n")
		bw.WriteString("# " + strings.Repeat(".", ohW) + "  " + strings.Repeat(".", w) + "\n#\n")
	}
	pad := strings.Repeat(" ", hierarchyIndent*(len(keys)-1))
	var print func(nodes []*hierarchyNode, depth int)
	print = func(nodes []*hierarchyNode, depth int) {
		for _, n := range nodes {
			// --percent-limit hides a level's rows, not their weight
			// in the level above.
			if table.Percent(n.self, s.totalPeriod) < r.opts.PercentLimit {
				continue
			}
			bw.WriteString("  " + strings.Repeat(" ", hierarchyIndent*depth))
			bw.WriteString(padLeft(strconv.FormatFloat(table.Percent(n.self, s.totalPeriod), 'f', 2, 64), 7) + "%")
			bw.WriteString(pad + "  ")
			c := cols[depth]
			t := c.text(n.he)
			if depth < len(cols)-1 || c.pad {
				t = padRight(t, c.width)
			}
			t = strings.TrimLeft(t, " ") // perf skips the text's leading spaces
			bw.WriteString(t + "\n")
			print(n.children, depth+1)
		}
	}
	print(r.hierarchyLevel(rows, keys, 0), 0)
}

// hierarchyLevel groups rows by keys[depth] (rows equal in keys[:depth]),
// heaviest first, ties in the key's output order.
func (r *Report) hierarchyLevel(rows []*histEntry, keys []SortKey, depth int) []*hierarchyNode {
	if depth == len(keys) || len(rows) == 0 {
		return nil
	}
	key := keys[depth : depth+1]
	symDSO := symComparesDSO(keys, r.opts.Compat)
	var nodes []*hierarchyNode
	var members [][]*histEntry
	for _, he := range rows {
		i := slices.IndexFunc(nodes, func(n *hierarchyNode) bool { return compareHist(n.he, he, key, symDSO) == 0 })
		if i < 0 {
			nodes = append(nodes, &hierarchyNode{he: he})
			members = append(members, nil)
			i = len(nodes) - 1
		}
		nodes[i].self += he.self
		members[i] = append(members[i], he)
	}
	for i, n := range nodes {
		n.children = r.hierarchyLevel(members[i], keys, depth+1)
	}
	idx := make([]int, len(nodes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmpU64(nodes[b].self, nodes[a].self); c != 0 {
			return c
		}
		return compareOutput(nodes[a].he, nodes[b].he, key)
	})
	out := make([]*hierarchyNode, len(nodes))
	for i, j := range idx {
		out[i] = nodes[j]
	}
	return out
}
