package output

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FlameFrame is one frame of a drawn flame graph, as [ReadFlameGraph]
// reads it back.
type FlameFrame struct {
	Name  string // from the title
	Title string
	Kind  string  // data-k
	Depth int     // data-d
	Start uint64  // data-s
	Count uint64  // data-n
	X, W  float64 // the rectangle
	Comm  string  // data-comm (HTML)
	PID   string  // data-pid (HTML)
}

// ReadFlameGraph reads the frames of a flame graph written by [FlameGraph]
// back from its SVG (or from the <svg> element of its HTML page), in
// drawing order (depth first), with the graph's total sample count and its
// width in pixels. Tests use it to check a graph against the folded stacks
// it was drawn from.
func ReadFlameGraph(data []byte) (frames []FlameFrame, total uint64, width float64, err error) {
	if i := bytes.Index(data, []byte("<svg ")); i > 0 && !bytes.HasPrefix(data, []byte("<?xml")) {
		j := bytes.Index(data, []byte("</svg>"))
		if j < 0 {
			return nil, 0, 0, errors.New("flame graph without </svg>")
		}
		data = data[i : j+len("</svg>")]
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var cur *FlameFrame
	inTitle := false
	attr := func(e xml.StartElement, name string) string {
		for _, a := range e.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("reading the flame graph: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "svg":
				total, _ = strconv.ParseUint(attr(t, "data-total"), 10, 64)
				width, _ = strconv.ParseFloat(attr(t, "width"), 64)
			case "g":
				if attr(t, "class") == "fg-f" {
					f := FlameFrame{Kind: attr(t, "data-k"), Comm: attr(t, "data-comm"), PID: attr(t, "data-pid")}
					f.Depth, _ = strconv.Atoi(attr(t, "data-d"))
					f.Start, _ = strconv.ParseUint(attr(t, "data-s"), 10, 64)
					f.Count, _ = strconv.ParseUint(attr(t, "data-n"), 10, 64)
					frames = append(frames, f)
					cur = &frames[len(frames)-1]
				}
			case "title":
				inTitle = cur != nil
			case "rect":
				if cur != nil {
					cur.X, _ = strconv.ParseFloat(attr(t, "x"), 64)
					cur.W, _ = strconv.ParseFloat(attr(t, "width"), 64)
				}
			}
		case xml.CharData:
			if inTitle {
				cur.Title += string(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "title":
				inTitle = false
				if cur != nil {
					if i := strings.LastIndex(cur.Title, " ("); i >= 0 {
						cur.Name = cur.Title[:i]
					}
				}
			case "g":
				cur = nil
			}
		}
	}
	return frames, total, width, nil
}
