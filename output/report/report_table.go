package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/perfstitch/perfstitch/internal/table"
)

func pct2(v, total uint64) string {
	return strconv.FormatFloat(table.Percent(v, total), 'f', 2, 64) + "%"
}

// WriteTable prints the report as one tablewriter table per event:
// overhead (children and self with Children), samples, period and the
// sort keys. Call graphs are not drawn in tables; use the perf or JSON
// format for them.
func (r *Report) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(clipLines(w, r.opts.Width))
	first := true
	for _, s := range r.sections {
		if s.nrSamples == 0 {
			continue
		}
		r.settle(s) // after: a section whose samples are all hidden is printed
		if !first {
			bw.WriteByte('\n')
		}
		first = false
		fmt.Fprintf(bw, "Event %s: %d samples, event count %d, %d lost samples\n", s.name, s.nrSamples, s.totalPeriod, r.LostSamples)
		var headers []string
		var right, shrink []int
		if r.children() {
			headers = append(headers, "Children", "Self")
			right = append(right, 0, 1)
		} else {
			headers = append(headers, "Overhead")
			right = append(right, 0)
		}
		headers = append(headers, "Samples", "Period")
		right = append(right, len(headers)-2, len(headers)-1)
		for _, k := range r.opts.Sort {
			switch k {
			case SortComm:
				headers = append(headers, "Command")
			case SortPID:
				headers = append(headers, "Pid")
				right = append(right, len(headers)-1)
			case SortDSO:
				headers = append(headers, "Shared Object")
			case SortSym:
				headers = append(headers, "Symbol")
			}
		}
		shrink = fitOrder(headers)
		var rows [][]string
		for _, he := range r.sortedEntries(s) {
			if r.rowPercent(he, s.totalPeriod) < r.opts.PercentLimit {
				continue
			}
			var row []string
			samples, period := he.nrSelf, he.self
			if r.children() {
				row = append(row, pct2(he.acc, s.totalPeriod), pct2(he.self, s.totalPeriod))
				samples, period = he.nrAcc, he.acc
			} else {
				row = append(row, pct2(he.self, s.totalPeriod))
			}
			row = append(row, strconv.FormatUint(samples, 10), strconv.FormatUint(period, 10))
			for _, k := range r.opts.Sort {
				switch k {
				case SortComm:
					row = append(row, he.comm)
				case SortPID:
					row = append(row, strconv.Itoa(int(he.tid)))
				case SortDSO:
					row = append(row, he.dsoText())
				case SortSym:
					row = append(row, he.symText())
				}
			}
			rows = append(rows, row)
		}
		fitTable(headers, rows, r.opts.Width, shrink)
		t := table.New(bw, headers, right...)
		for _, row := range rows {
			if err := t.Append(row); err != nil {
				return fmt.Errorf("report table: %w", err)
			}
		}
		if err := t.Render(); err != nil {
			return fmt.Errorf("report table: %w", err)
		}
	}
	return bw.Flush()
}

// JSON is the JSON form of a report.
type JSON struct {
	Children    bool        `json:"children"`
	Sort        []string    `json:"sort"`
	LostSamples uint64      `json:"lost_samples"`
	Events      []EventJSON `json:"events"`
}

// EventJSON is one event's histogram.
type EventJSON struct {
	Event          string    `json:"event"`
	Samples        uint64    `json:"samples"`
	EventCount     uint64    `json:"event_count"`
	Rows           []RowJSON `json:"rows"`
	CallGraph      string    `json:"call_graph,omitempty"`
	CallGraphLimit float64   `json:"call_graph_limit_percent,omitempty"`
}

// RowJSON is one row. Percentages are of the event's total period.
type RowJSON struct {
	Children      float64 `json:"children_percent,omitempty"`
	Self          float64 `json:"self_percent"`
	ChildrenPer   uint64  `json:"children_period,omitempty"`
	SelfPeriod    uint64  `json:"self_period"`
	ChildrenCount uint64  `json:"children_samples,omitempty"`
	SelfSamples   uint64  `json:"self_samples"`
	Comm          string  `json:"comm"`
	TID           int32   `json:"tid"`
	DSO           string  `json:"dso"`
	Symbol        string  `json:"symbol,omitempty"`
	Address       string  `json:"address,omitempty"`
	Level         string  `json:"level"`
	// Graph is the call graph under the row (graph and fractal modes):
	// the branches perf would print, heaviest first.
	Graph []GraphNodeJSON `json:"graph,omitempty"`
}

// GraphNodeJSON is a call-graph node: a run of frames shared by every
// chain through it, its cumulated weight and its branches.
type GraphNodeJSON struct {
	Frames   []string        `json:"frames"`
	Period   uint64          `json:"period"`
	Percent  float64         `json:"percent"`
	Samples  uint64          `json:"samples"`
	Children []GraphNodeJSON `json:"children,omitempty"`
}

// JSON returns the report as data.
func (r *Report) JSON() *JSON {
	out := &JSON{Children: r.children(), LostSamples: r.LostSamples, Events: []EventJSON{}}
	for _, k := range r.opts.Sort {
		out.Sort = append(out.Sort, k.String())
	}
	for _, s := range r.sections {
		if s.nrSamples == 0 {
			continue
		}
		r.settle(s) // after: a section whose samples are all hidden is printed
		ev := EventJSON{Event: s.name, Samples: s.nrSamples, EventCount: s.totalPeriod, Rows: []RowJSON{}}
		graph := r.opts.CallGraph != CallGraphNone && s.chains
		if graph {
			ev.CallGraph = r.opts.CallGraph.String()
			ev.CallGraphLimit = r.opts.CallGraphLimit
		}
		gp := &graphPrinter{
			total:   s.totalPeriod,
			minHit:  uint64(float64(s.totalPeriod) * (r.opts.CallGraphLimit / 100)),
			minFrac: r.opts.CallGraphLimit / 100,
		}
		for _, he := range r.sortedEntries(s) {
			if r.rowPercent(he, s.totalPeriod) < r.opts.PercentLimit {
				continue
			}
			row := RowJSON{
				Self:        table.Percent(he.self, s.totalPeriod),
				SelfPeriod:  he.self,
				SelfSamples: he.nrSelf,
				Comm:        he.comm,
				TID:         he.tid,
				DSO:         he.dsoText(),
				Level:       string(he.level),
			}
			if r.children() {
				row.Children = table.Percent(he.acc, s.totalPeriod)
				row.ChildrenPer = he.acc
				row.ChildrenCount = he.nrAcc
			}
			if he.resolved {
				row.Symbol = he.sym
			} else {
				row.Address = hexAlt(he.ip)
			}
			if graph {
				he.chain.sortGraph(gp.minHit, r.opts.CallGraph == CallGraphFractal, gp.minFrac)
				row.Graph = graphJSON(he.chain.sorted, s.totalPeriod)
			}
			ev.Rows = append(ev.Rows, row)
		}
		out.Events = append(out.Events, ev)
	}
	return out
}

func graphJSON(nodes []*chainNode, total uint64) []GraphNodeJSON {
	var out []GraphNodeJSON
	for _, n := range nodes {
		g := GraphNodeJSON{Period: n.cumulHits(), Percent: table.Percent(n.cumulHits(), total), Samples: n.cumulCounts()}
		for i := range n.val {
			g.Frames = append(g.Frames, n.val[i].label())
		}
		g.Children = graphJSON(n.sorted, total)
		out = append(out, g)
	}
	return out
}

// WriteJSON prints the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	return table.WriteJSON(w, r.JSON(), "report")
}

// Write prints the report in format f.
func (r *Report) Write(w io.Writer, f table.Format) error {
	return table.Write(w, f, r)
}
