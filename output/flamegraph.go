package output

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/symbolize"
)

// FlameGraphOptions are the options of flamegraph.pl that perfstitch
// supports, under the same names.
type FlameGraphOptions struct {
	// Title is the graph's title (--title); "" means "Flame Graph".
	Title string
	// Width is the image width in pixels (--width); 0 means 1200.
	Width int
	// MinWidth leaves out frames narrower than this (--minwidth): pixels,
	// or a percentage of the width when MinWidthPercent is set. Negative
	// means flamegraph.pl's default, 0.1 pixels.
	MinWidth        float64
	MinWidthPercent bool
	// Reverse draws the stacks reversed, leaf first (--reverse).
	Reverse bool
	// Colors is the palette (--colors): see [FlameGraphPalettes]; ""
	// means "java", which colours frames by kind (kernel, user, JIT,
	// inlined).
	Colors string
	// HTML writes an HTML page with the same graph, an icicle view toggle
	// and comm/pid filters, instead of a bare SVG. Its process frames are
	// per process ("comm-PID"), as with --collapse-pid.
	HTML bool
}

// FlameGraphPalettes lists the accepted --colors values.
func FlameGraphPalettes() []string {
	return []string{"java", "js", "hot", "mem", "io", "red", "green", "blue", "aqua", "yellow", "purple", "orange"}
}

// CheckFlameGraphOptions reports an error for option values flamegraph.pl
// would not accept.
func CheckFlameGraphOptions(o FlameGraphOptions) error {
	if o.Colors != "" && !slices.Contains(FlameGraphPalettes(), o.Colors) {
		return fmt.Errorf("unknown palette %q (want one of %s)", o.Colors, strings.Join(FlameGraphPalettes(), ", "))
	}
	if o.Width < 0 {
		return fmt.Errorf("width %d is negative", o.Width)
	}
	if o.MinWidthPercent && o.MinWidth > 100 {
		return fmt.Errorf("minimum width %g%% is over 100%%", o.MinWidth)
	}
	return nil
}

// FlameGraph draws an interactive flame graph of the samples: the folded
// stacks of [Collapsed] (with every annotation, for the colours) laid
// out as flamegraph.pl lays them out, with click to zoom, search and
// reset zoom. It writes in Flush.
type FlameGraph struct {
	w    io.Writer
	opts FlameGraphOptions
	c    *Collapsed // folds the samples; its stacks are read, not printed
}

// NewFlameGraph returns a flame graph writer on w. warn receives the
// notes [Collapsed] prints (may be nil).
func NewFlameGraph(w io.Writer, warn io.Writer, attrs func() []*decode.EventAttr, opts FlameGraphOptions) *FlameGraph {
	fg := &FlameGraph{w: w, opts: opts}
	fg.c = NewCollapsed(io.Discard, warn, attrs, CollapsedOptions{All: true, PID: opts.HTML})
	return fg
}

// Add folds one sample.
func (fg *FlameGraph) Add(ev *symbolize.Event) error { return fg.c.Add(ev) }

// Flush draws the graph.
func (fg *FlameGraph) Flush() error {
	keys := fg.c.sortedStacks()
	stacks := make([]foldedStack, len(keys))
	for i, k := range keys {
		stacks[i] = foldedStack{frames: strings.Split(k, ";"), count: *fg.c.counts[k]}
	}
	root := buildFlameTree(stacks, fg.opts.Reverse)
	bw := bufio.NewWriterSize(fg.w, 1<<16)
	l := newFlameLayout(root, fg.opts)
	if fg.opts.HTML {
		l.writeHTML(bw)
	} else {
		l.writeSVG(bw)
	}
	return bw.Flush()
}

// foldedStack is one line of collapsed output.
type foldedStack struct {
	frames []string
	count  uint64
}

// frameKind is what a frame is, from the collapsed annotations.
type frameKind uint8

const (
	kindUser frameKind = iota
	kindKernel
	kindJIT
	kindInlined
	kindRoot
)

var kindNames = [...]string{kindUser: "user", kindKernel: "kernel", kindJIT: "jit", kindInlined: "inlined", kindRoot: "root"}

// splitKind strips a collapsed annotation (_[k], _[j], _[i]) off name.
func splitKind(name string) (string, frameKind) {
	for _, a := range [...]struct {
		suffix string
		kind   frameKind
	}{{"_[k]", kindKernel}, {"_[j]", kindJIT}, {"_[i]", kindInlined}} {
		if s, ok := strings.CutSuffix(name, a.suffix); ok {
			return s, a.kind
		}
	}
	return name, kindUser
}

// flameNode is one frame of the graph: a stack prefix.
type flameNode struct {
	name     string
	kind     frameKind
	count    uint64 // samples of every stack with this prefix
	children []*flameNode
	index    map[string]int // child name (with annotation) → children index
}

func (n *flameNode) child(raw string) *flameNode {
	if i, ok := n.index[raw]; ok {
		return n.children[i]
	}
	if n.index == nil {
		n.index = map[string]int{}
	}
	name, kind := splitKind(raw)
	c := &flameNode{name: name, kind: kind}
	n.index[raw] = len(n.children)
	n.children = append(n.children, c)
	return c
}

// buildFlameTree merges the stacks into a tree whose root counts every
// sample. Children keep the order in which the sorted stacks meet them,
// as flamegraph.pl merges its sorted input.
func buildFlameTree(stacks []foldedStack, reverse bool) *flameNode {
	if reverse {
		rs := make([]foldedStack, len(stacks))
		for i, s := range stacks {
			f := slices.Clone(s.frames)
			slices.Reverse(f)
			rs[i] = foldedStack{frames: f, count: s.count}
		}
		slices.SortStableFunc(rs, func(a, b foldedStack) int {
			return strings.Compare(strings.Join(a.frames, ";"), strings.Join(b.frames, ";"))
		})
		stacks = rs
	}
	root := &flameNode{name: "all", kind: kindRoot}
	for _, s := range stacks {
		root.count += s.count
		n := root
		for _, f := range s.frames {
			n = n.child(f)
			n.count += s.count
		}
	}
	return root
}
