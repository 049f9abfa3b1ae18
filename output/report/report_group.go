package report

import (
	"bufio"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/rbtree"
	"github.com/perfstitch/perfstitch/internal/table"
)

// This file prints event groups (perf record -e '{a,b}') the way perf
// report does when the file has a GROUP_DESC feature: one section per
// group, rows matched across the members (perf's hists__match and
// hists__link), one overhead value per member.

// EventGroup is a group of events recorded together; the first member is
// the leader.
type EventGroup struct {
	// Name is the group's name, "" for an anonymous group.
	Name    string
	Members []*decode.EventAttr
}

// GroupsFromMeta returns the groups of a file's GROUP_DESC feature.
func GroupsFromMeta(attrs []*decode.EventAttr, descs []decode.GroupDesc) []EventGroup {
	var out []EventGroup
	for _, d := range descs {
		lo, n := int(d.LeaderIdx), int(d.NrMembers)
		if n < 2 || lo < 0 || lo+n > len(attrs) {
			continue
		}
		g := EventGroup{Members: attrs[lo : lo+n]}
		if d.Name != "{anon_group}" {
			g.Name = d.Name
		}
		out = append(out, g)
	}
	return out
}

// SetGroups makes the perf format print each group as one section.
func (r *Report) SetGroups(groups []EventGroup) { r.groups = groups }

// groupOf returns the group whose leader is attr, and whether attr is a
// member (not the leader) of some group.
func (r *Report) groupOf(attr *decode.EventAttr) (g *EventGroup, member bool) {
	for i := range r.groups {
		for j, m := range r.groups[i].Members {
			if m != attr {
				continue
			}
			if j == 0 {
				return &r.groups[i], false
			}
			return nil, true
		}
	}
	return nil, false
}

func (g *EventGroup) desc() string {
	names := make([]string, len(g.Members))
	for i, m := range g.Members {
		names[i] = m.Name
	}
	name := "anon group"
	if g.Name != "" {
		name = g.Name
	}
	return name + " { " + strings.Join(names, ", ") + " }"
}

// groupRow is a leader row with the values of its matched member rows.
type groupRow struct {
	he        *histEntry
	self, acc []uint64 // per member, the leader first
}

// writePerfGroup prints the section of group g (perf's group view).
func (r *Report) writePerfGroup(bw *bufio.Writer, g *EventGroup) {
	keys := r.opts.Sort
	cmp := func(a, b *histEntry) int { return compareHist(a, b, keys) }
	secs := make([]*reportSection, len(g.Members))
	var nrSamples, period uint64
	for i, m := range g.Members {
		s := r.byAttr[m]
		if s == nil {
			s = &reportSection{attr: m, name: m.Name}
		}
		s.collapse(keys)
		secs[i] = s
		nrSamples += s.nrSamples
		period += s.totalPeriod
	}
	leader := secs[0]
	rows := map[*histEntry]*groupRow{}
	row := func(he *histEntry) *groupRow {
		gr := rows[he]
		if gr == nil {
			gr = &groupRow{he: he, self: make([]uint64, len(secs)), acc: make([]uint64, len(secs))}
			gr.self[0], gr.acc[0] = he.self, he.acc
			rows[he] = gr
		}
		return gr
	}
	// hists__match: pair leader rows with equal member rows.
	for _, he := range leader.entries.Values() {
		gr := row(he)
		for i := 1; i < len(secs); i++ {
			if n := secs[i].entries.Find(he, cmp); n != rbtree.Nil {
				m := secs[i].entries.Value(n)
				gr.self[i], gr.acc[i] = m.self, m.acc
			}
		}
	}
	// hists__link: member rows without a leader row get an empty one.
	for i := 1; i < len(secs); i++ {
		for _, m := range secs[i].entries.Values() {
			if leader.entries.Find(m, cmp) != rbtree.Nil {
				continue
			}
			dummy := &histEntry{comm: m.comm, tid: m.tid, dso: m.dso, sym: m.sym, start: m.start, ip: m.ip,
				resolved: m.resolved, inlined: m.inlined, level: m.level}
			n, _ := leader.entries.FindOrInsert(dummy, cmp, nil)
			gr := row(leader.entries.Value(n))
			gr.self[i], gr.acc[i] = m.self, m.acc
		}
	}

	n, unit := convertUnit(nrSamples)
	bw.WriteString("# Samples: " + strconv.FormatUint(n, 10) + string(unit))
	bw.WriteString(" of events '" + g.desc() + "'\n")
	bw.WriteString("# Event count (approx.): " + strconv.FormatUint(period, 10) + "\n#\n")

	children := r.children()
	caller := r.callerOrder()
	graphs := r.opts.CallGraph != CallGraphNone
	okeys := r.outputKeys()
	sorted := shown(rbtree.Order(leader.entries.Values(), func(a, b *histEntry) bool {
		ga, gb := rows[a], rows[b]
		if children {
			if a.acc != b.acc {
				return a.acc > b.acc
			}
			if a.tid == b.tid && leader.chains && graphs && a.maxDepth != b.maxDepth {
				return (a.maxDepth > b.maxDepth) == caller
			}
		}
		for i := range ga.self {
			if ga.self[i] != gb.self[i] {
				return ga.self[i] > gb.self[i]
			}
		}
		return compareOutput(a, b, okeys) < 0
	}))

	cols := r.columns(leader, sorted)
	pctCols := 1
	if children {
		pctCols = 2
	}
	group := func(get func(*groupRow) []uint64) func(*histEntry) string {
		return func(he *histEntry) string {
			var b strings.Builder
			for i, v := range get(rows[he]) {
				b.WriteString(padLeft(strconv.FormatFloat(table.Percent(v, secs[i].totalPeriod), 'f', 2, 64), 7) + "%")
			}
			return b.String()
		}
	}
	if children {
		cols[0].text = group(func(gr *groupRow) []uint64 { return gr.acc })
		cols[1].text = group(func(gr *groupRow) []uint64 { return gr.self })
	} else {
		cols[0].text = group(func(gr *groupRow) []uint64 { return gr.self })
	}
	for i := 0; i < pctCols; i++ {
		cols[i].width = 8 * len(secs)
	}
	r.writeRows(bw, leader, sorted, cols)
}
