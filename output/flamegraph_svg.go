package output

import (
	"bufio"
	_ "embed"
	"hash/fnv"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfstitch/perfstitch/internal/diag"
)

// The script and style of the graph, shared by the SVG and the HTML page.
var (
	//go:embed flamegraph.js
	flameJS string
	//go:embed flamegraph.css
	flameCSS string
)

// Geometry of the graph, in pixels, as flamegraph.pl draws it.
const (
	fgDefaultWidth = 1200
	fgXPad         = 10
	fgFrameHeight  = 16
	fgFontSize     = 12
	fgFontWidth    = 0.59 // average glyph width per font size unit
	fgYPad1        = fgFontSize * 3
	fgYPad2        = fgFontSize*2 + 10
)

// flameLayout is a tree placed on the canvas.
type flameLayout struct {
	opts     FlameGraphOptions
	root     *flameNode
	width    int
	height   int
	scale    float64 // pixels per sample
	minCount float64 // frames with fewer samples are left out
	depth    int     // deepest drawn frame
	title    string
	palette  string
}

func newFlameLayout(root *flameNode, opts FlameGraphOptions) *flameLayout {
	l := &flameLayout{opts: opts, root: root, width: opts.Width, title: opts.Title, palette: opts.Colors}
	if l.width <= 0 {
		l.width = fgDefaultWidth
	}
	if l.title == "" {
		l.title = "Flame Graph"
	}
	if l.palette == "" {
		l.palette = "java"
	}
	if root.count > 0 {
		l.scale = float64(l.width-2*fgXPad) / float64(root.count)
	}
	minPx := opts.MinWidth
	if minPx < 0 {
		minPx = 0.1
	}
	if opts.MinWidthPercent {
		minPx = minPx / 100 * float64(l.width-2*fgXPad)
	}
	if l.scale > 0 {
		l.minCount = minPx / l.scale
	}
	l.depth = l.maxDepth(root, 0)
	l.height = (l.depth+1)*fgFrameHeight + fgYPad1 + fgYPad2
	return l
}

// drawn reports whether n is wide enough to draw.
func (l *flameLayout) drawn(n *flameNode) bool {
	return n.kind == kindRoot || float64(n.count) >= l.minCount && n.count > 0
}

func (l *flameLayout) maxDepth(n *flameNode, d int) int {
	m := d
	for _, c := range n.children {
		if l.drawn(c) {
			m = max(m, l.maxDepth(c, d+1))
		}
	}
	return m
}

// svgOpen is the <svg> element with the geometry the script reads.
func (l *flameLayout) svgOpen(w *bufio.Writer, standalone bool) {
	if standalone {
		w.WriteString(`<?xml version="1.0" standalone="no"?>` + "\n")
		w.WriteString(`<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">` + "\n")
	}
	wd, ht := strconv.Itoa(l.width), strconv.Itoa(l.height)
	w.WriteString(`<svg version="1.1" class="flamegraph" width="` + wd + `" height="` + ht + `" viewBox="0 0 ` + wd + ` ` + ht + `"`)
	w.WriteString(` xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"`)
	w.WriteString(` data-xpad="` + strconv.Itoa(fgXPad) + `" data-frameheight="` + strconv.Itoa(fgFrameHeight) + `"`)
	w.WriteString(` data-fontsize="` + strconv.Itoa(fgFontSize) + `" data-fontwidth="` + strconv.FormatFloat(fgFontWidth, 'f', -1, 64) + `"`)
	w.WriteString(` data-ypad1="` + strconv.Itoa(fgYPad1) + `" data-ypad2="` + strconv.Itoa(fgYPad2) + `"`)
	w.WriteString(` data-total="` + strconv.FormatUint(l.root.count, 10) + `" data-depth="` + strconv.Itoa(l.depth) + `">` + "\n")
}

// writeSVG writes the standalone SVG.
func (l *flameLayout) writeSVG(w *bufio.Writer) {
	l.svgOpen(w, true)
	w.WriteString("<style type=\"text/css\"><![CDATA[\n" + flameCSS + "]]></style>\n")
	l.body(w)
	w.WriteString("<script type=\"text/ecmascript\"><![CDATA[\n" + flameJS + "]]></script>\n")
	w.WriteString("</svg>\n")
}

// writeHTML writes the HTML page: controls, the graph inline, the script.
func (l *flameLayout) writeHTML(w *bufio.Writer) {
	w.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
	w.WriteString(html.EscapeString(l.title))
	w.WriteString("</title>\n<style>\n" + flameCSS + "</style>\n</head>\n<body class=\"fg-page\">\n")
	w.WriteString(`<div id="fg-controls">` + "\n")
	w.WriteString(`<button type="button" id="fg-icicle">Icicle view</button>` + "\n")
	w.WriteString(`<label>comm <select id="fg-comm"><option value="">all</option>`)
	comms, pids := l.processes()
	for _, c := range comms {
		e := html.EscapeString(c)
		w.WriteString(`<option value="` + e + `">` + e + `</option>`)
	}
	w.WriteString("</select></label>\n")
	w.WriteString(`<label>pid <select id="fg-pid"><option value="">all</option>`)
	for _, p := range pids {
		w.WriteString(`<option value="` + p + `">` + p + `</option>`)
	}
	w.WriteString("</select></label>\n</div>\n")
	l.svgOpen(w, false)
	l.body(w)
	w.WriteString("</svg>\n")
	w.WriteString("<script>\n" + flameJS + "</script>\n</body>\n</html>\n")
}

// splitProcess splits a process frame "comm-PID" (collapsed --pid).
func splitProcess(name string) (comm, pid string) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name, ""
	}
	if _, err := strconv.ParseUint(name[i+1:], 10, 32); err != nil {
		return name, ""
	}
	return name[:i], name[i+1:]
}

// processes lists the distinct comms and pids of the process frames, in
// the order the graph shows them.
func (l *flameLayout) processes() (comms, pids []string) {
	if l.opts.Reverse {
		return nil, nil // the process frames are the leaves
	}
	seenC, seenP := map[string]bool{}, map[string]bool{}
	for _, c := range l.root.children {
		comm, pid := splitProcess(c.name)
		if !seenC[comm] {
			seenC[comm] = true
			comms = append(comms, comm)
		}
		if pid != "" && !seenP[pid] {
			seenP[pid] = true
			pids = append(pids, pid)
		}
	}
	return comms, pids
}

// body writes the background, the controls drawn in the SVG and the
// frames.
func (l *flameLayout) body(w *bufio.Writer) {
	wd := strconv.Itoa(l.width)
	w.WriteString(`<defs><linearGradient id="fg-background" y1="0" y2="1" x1="0" x2="0">`)
	w.WriteString(`<stop stop-color="#eeeeee" offset="5%"/><stop stop-color="#eeeeb0" offset="95%"/></linearGradient></defs>` + "\n")
	w.WriteString(`<rect x="0" y="0" width="` + wd + `" height="` + strconv.Itoa(l.height) + `" fill="url(#fg-background)"/>` + "\n")
	w.WriteString(`<text id="fg-title" x="` + strconv.Itoa(l.width/2) + `" y="` + strconv.Itoa(fgFontSize*2) + `">` + html.EscapeString(l.title) + "</text>\n")
	by := strconv.Itoa(l.height - fgYPad2/2)
	w.WriteString(`<text id="fg-details" x="` + strconv.Itoa(fgXPad) + `" y="` + by + `"> </text>` + "\n")
	w.WriteString(`<text id="fg-unzoom" class="fg-hide" x="` + strconv.Itoa(fgXPad) + `" y="` + strconv.Itoa(fgFontSize*2) + `">Reset Zoom</text>` + "\n")
	w.WriteString(`<text id="fg-search" x="` + strconv.Itoa(l.width-fgXPad-100) + `" y="` + strconv.Itoa(fgFontSize*2) + `">Search</text>` + "\n")
	w.WriteString(`<text id="fg-matched" x="` + strconv.Itoa(l.width-fgXPad-100) + `" y="` + by + `"> </text>` + "\n")
	w.WriteString(`<g id="fg-frames">` + "\n")
	b := make([]byte, 0, 512)
	var walk func(n *flameNode, start uint64, d int)
	walk = func(n *flameNode, start uint64, d int) {
		if !l.drawn(n) {
			return
		}
		b = l.appendFrame(b[:0], n, start, d)
		w.Write(b)
		s := start
		for _, c := range n.children {
			walk(c, s, d+1)
			s += c.count
		}
	}
	walk(l.root, 0, 0)
	w.WriteString("</g>\n")
}

// appendFrame appends one frame: a group with its title, rectangle and
// label, and the sample range the script lays it out from.
func (l *flameLayout) appendFrame(b []byte, n *flameNode, start uint64, d int) []byte {
	x := fgXPad + float64(start)*l.scale
	wd := float64(n.count) * l.scale
	y := l.height - fgYPad2 - (d+1)*fgFrameHeight
	b = append(b, `<g class="fg-f" data-s="`...)
	b = strconv.AppendUint(b, start, 10)
	b = append(b, `" data-n="`...)
	b = strconv.AppendUint(b, n.count, 10)
	b = append(b, `" data-d="`...)
	b = strconv.AppendInt(b, int64(d), 10)
	b = append(b, `" data-k="`...)
	b = append(b, kindNames[n.kind]...)
	if d == 1 && l.opts.HTML && !l.opts.Reverse {
		comm, pid := splitProcess(n.name)
		b = append(b, `" data-comm="`...)
		b = append(b, html.EscapeString(comm)...)
		b = append(b, `" data-pid="`...)
		b = append(b, pid...)
	}
	b = append(b, `"><title>`...)
	b = append(b, html.EscapeString(frameTitle(n.name, n.count, l.root.count, n.kind == kindRoot))...)
	b = append(b, `</title><rect x="`...)
	b = appendFixed2(b, x)
	b = append(b, `" y="`...)
	b = strconv.AppendInt(b, int64(y), 10)
	b = append(b, `" width="`...)
	b = appendFixed2(b, wd)
	b = append(b, `" height="`...)
	b = strconv.AppendInt(b, fgFrameHeight-1, 10)
	b = append(b, `" fill="`...)
	b = append(b, l.color(n)...)
	b = append(b, `" rx="2" ry="2"/><text x="`...)
	b = appendFixed2(b, x+3)
	b = append(b, `" y="`...)
	b = appendFixed2(b, float64(y)+10.5)
	b = append(b, `">`...)
	b = append(b, html.EscapeString(fitLabel(n.name, wd))...)
	b = append(b, "</text></g>\n"...)
	return b
}

// appendFixed2 appends v with two decimals.
func appendFixed2(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', 2, 64) }

// frameTitle is flamegraph.pl's tooltip: "name (1,234 samples, 5.67%)";
// the root says 100%.
func frameTitle(name string, count, total uint64, root bool) string {
	pct := "100"
	if !root {
		p := 0.0
		if total > 0 {
			p = 100 * float64(count) / float64(total)
		}
		pct = strconv.FormatFloat(p, 'f', 2, 64)
	}
	return name + " (" + diag.Group(count) + " samples, " + pct + "%)"
}

// fitLabel shortens name to what fits in wd pixels, ending in "..", or
// nothing when fewer than three characters fit.
func fitLabel(name string, wd float64) string {
	chars := int(wd / (fgFontSize * fgFontWidth))
	if chars < 3 {
		return ""
	}
	if utf8.RuneCountInString(name) <= chars {
		return name
	}
	r := []rune(name)
	return string(r[:chars-2]) + ".."
}

// paletteRange is a base colour and how far a frame's name moves it.
type paletteRange struct{ r, g, b, dr, dg, db float64 }

// palettes are the plain colour ranges. flamegraph.pl's hot palette ties
// green and blue to independent hashes; the others move all channels with
// one value.
var palettes = map[string]paletteRange{
	"red":    {200, 50, 50, 55, 80, 80},
	"green":  {50, 190, 50, 60, 60, 60},
	"blue":   {80, 80, 200, 60, 60, 55},
	"aqua":   {50, 165, 165, 60, 55, 55},
	"yellow": {175, 175, 50, 55, 55, 20},
	"purple": {190, 80, 190, 65, 60, 65},
	"orange": {190, 90, 0, 65, 65, 0},
}

// color returns the fill of a frame, derived from its name so the same
// function has the same colour in every graph.
func (l *flameLayout) color(n *flameNode) string {
	h := fnv.New64a()
	h.Write([]byte(n.name))
	sum := h.Sum64()
	v1 := float64(sum&0xffff) / 0x10000
	v2 := float64(sum>>16&0xffff) / 0x10000
	v3 := float64(sum>>32&0xffff) / 0x10000
	rgb := func(r, g, b float64) string {
		c := func(v float64) string { return strconv.Itoa(int(math.Min(255, math.Max(0, v)))) }
		return "rgb(" + c(r) + "," + c(g) + "," + c(b) + ")"
	}
	pal := l.palette
	switch pal {
	case "hot":
		return rgb(205+50*v3, 230*v1, 55*v2)
	case "mem":
		return rgb(0, 190+50*v2, 210*v1)
	case "io":
		return rgb(80+60*v1, 80+60*v1, 190+55*v2)
	case "java", "js":
		switch {
		case n.kind == kindJIT:
			pal = "green"
		case n.kind == kindInlined:
			pal = "aqua"
		case n.kind == kindKernel:
			pal = "orange"
		case strings.Contains(n.name, "::"):
			pal = "yellow"
		default:
			pal = "red"
		}
	}
	p, ok := palettes[pal]
	if !ok {
		p = palettes["red"]
	}
	return rgb(p.r+p.dr*v1, p.g+p.dg*v1, p.b+p.db*v1)
}
