package report

import (
	"bufio"
	"cmp"
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
	secs := r.groupSections(g)
	rows := r.matchGroup(secs)
	var nrSamples, period uint64
	for _, s := range secs {
		nrSamples += s.nrSamples
		period += s.totalPeriod
	}
	n, unit := convertUnit(nrSamples)
	bw.WriteString("# Samples: " + strconv.FormatUint(n, 10) + string(unit))
	bw.WriteString(" of events '" + g.desc() + "'\n")
	bw.WriteString("# Event count (approx.): " + strconv.FormatUint(period, 10) + "\n#\n")

	leader := secs[0]
	sorted := r.outputOrder(leader.entries.Values(), leader.chains, func(a, b *histEntry) int {
		ga, gb := rows[a], rows[b]
		for i := range ga.self {
			if c := cmp.Compare(ga.self[i], gb.self[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	r.writeRows(bw, leader, sorted, r.groupColumns(secs, sorted, rows))
}

// groupSections returns the collapsed histograms of g's members, the
// leader first (an empty one for a member without samples).
func (r *Report) groupSections(g *EventGroup) []*reportSection {
	secs := make([]*reportSection, len(g.Members))
	for i, m := range g.Members {
		s := r.byAttr[m]
		if s == nil {
			s = &reportSection{attr: m, name: m.Name}
		}
		s.collapse(r.opts.Sort, r.opts.Compat)
		secs[i] = s
	}
	return secs
}

// matchGroup pairs the leader's rows with the members' equal rows (perf's
// hists__match) and gives member rows without a leader row an empty one
// in the leader's histogram (hists__link). It returns the values of every
// leader row by member.
func (r *Report) matchGroup(secs []*reportSection) map[*histEntry]*groupRow {
	keys := r.opts.Sort
	symDSO := symComparesDSO(keys, r.opts.Compat)
	byKeys := func(a, b *histEntry) int { return compareHist(a, b, keys, symDSO) }
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
	for _, he := range leader.entries.Values() {
		gr := row(he)
		for i := 1; i < len(secs); i++ {
			if n := secs[i].entries.Find(he, byKeys); n != rbtree.Nil {
				m := secs[i].entries.Value(n)
				gr.self[i], gr.acc[i] = m.self, m.acc
			}
		}
	}
	for i := 1; i < len(secs); i++ {
		for _, m := range secs[i].entries.Values() {
			if leader.entries.Find(m, byKeys) != rbtree.Nil {
				continue
			}
			dummy := &histEntry{comm: m.comm, tid: m.tid, dso: m.dso, sym: m.sym, start: m.start, ip: m.ip,
				resolved: m.resolved, inlined: m.inlined, level: m.level}
			n, added := leader.entries.FindOrInsert(dummy, byKeys, nil)
			if added {
				leader.version++
			}
			gr := row(leader.entries.Value(n))
			gr.self[i], gr.acc[i] = m.self, m.acc
		}
	}
	return rows
}

// groupColumns are the leader's columns with one percentage per member in
// each overhead column.
func (r *Report) groupColumns(secs []*reportSection, sorted []*histEntry, rows map[*histEntry]*groupRow) []column {
	cols := r.columns(secs[0], sorted)
	group := func(get func(*groupRow) []uint64) func(*histEntry) string {
		return func(he *histEntry) string {
			var b strings.Builder
			for i, v := range get(rows[he]) {
				b.WriteString(padLeft(strconv.FormatFloat(table.Percent(v, secs[i].totalPeriod), 'f', 2, 64), 7) + "%")
			}
			return b.String()
		}
	}
	pctCols := 1
	if r.children() {
		pctCols = 2
		cols[0].text = group(func(gr *groupRow) []uint64 { return gr.acc })
		cols[1].text = group(func(gr *groupRow) []uint64 { return gr.self })
	} else {
		cols[0].text = group(func(gr *groupRow) []uint64 { return gr.self })
	}
	for i := 0; i < pctCols; i++ {
		cols[i].width = 8 * len(secs)
	}
	return cols
}
