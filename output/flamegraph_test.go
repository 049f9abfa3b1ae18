package output

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/diag"
)

// foldedPrefixes sums collapsed counts by stack prefix, each frame keyed
// by its kind and name without the annotation.
func foldedPrefixes(t *testing.T, folded []byte, reverse bool) map[string]uint64 {
	t.Helper()
	stacks, err := parseFolded(bytes.NewReader(folded))
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]uint64{}
	for _, s := range stacks {
		fr := s.frames
		if reverse {
			fr = append([]string(nil), fr...)
			for i, j := 0, len(fr)-1; i < j; i, j = i+1, j-1 {
				fr[i], fr[j] = fr[j], fr[i]
			}
		}
		key := ""
		sums[key] += s.count
		for _, f := range fr {
			name, kind := splitKind(f)
			key += ";" + kindNames[kind] + ":" + name
			sums[key] += s.count
		}
	}
	return sums
}

// checkFlameFrames checks every frame of a drawn graph against the
// folded stacks it was drawn from: each frame's samples (data-n and the
// title's count) are the collapsed counts of the stacks through it, and
// its width is its share of the image.
func checkFlameFrames(t *testing.T, svg, folded []byte, reverse bool) int {
	t.Helper()
	frames, total, width, err := ReadFlameGraph(svg)
	if err != nil {
		t.Fatalf("parsing the SVG: %v", err)
	}
	sums := foldedPrefixes(t, folded, reverse)
	if len(frames) == 0 || frames[0].Kind != "root" || frames[0].Count != sums[""] || total != sums[""] {
		t.Fatalf("root frame %+v (total %d), want one counting all %d samples", frames[0], total, sums[""])
	}
	scale := (width - 2*fgXPad) / float64(total)
	path := []string{""}
	for _, f := range frames {
		if f.Depth == 0 {
			continue
		}
		path = append(path[:f.Depth], path[f.Depth-1]+";"+f.Kind+":"+f.Name)
		want, ok := sums[path[f.Depth]]
		if !ok {
			t.Errorf("frame %q: no such stack in the collapsed output", path[f.Depth])
			continue
		}
		if f.Count != want {
			t.Errorf("frame %q: %d samples, collapsed says %d", path[f.Depth], f.Count, want)
		}
		if !strings.Contains(f.Title, " ("+diag.Group(want)+" samples, ") {
			t.Errorf("frame %q: title %q, want %d samples", path[f.Depth], f.Title, want)
		}
		if math.Abs(f.W-float64(want)*scale) > 0.005+1e-9 || math.Abs(f.X-(fgXPad+float64(f.Start)*scale)) > 0.005+1e-9 {
			t.Errorf("frame %q: x %.2f width %.2f, want %.2f and %.2f", path[f.Depth], f.X, f.W, fgXPad+float64(f.Start)*scale, float64(want)*scale)
		}
	}
	return len(frames)
}

func flameEvents(t *testing.T, fg *FlameGraph, col *Collapsed) {
	t.Helper()
	for _, ev := range events(fixture()) {
		if err := fg.Add(ev); err != nil {
			t.Fatal(err)
		}
		if err := col.Add(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := fg.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := col.Flush(); err != nil {
		t.Fatal(err)
	}
}

func TestFlameGraph(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts FlameGraphOptions
	}{
		{"svg", FlameGraphOptions{MinWidth: -1}},
		{"svg-reverse-hot", FlameGraphOptions{MinWidth: 0, Reverse: true, Colors: "hot", Title: "a <b> & c", Width: 800}},
		{"html", FlameGraphOptions{MinWidth: 0, HTML: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attrs := fixture()
			var svg, folded bytes.Buffer
			fg := NewFlameGraph(&svg, io.Discard, func() []*decode.EventAttr { return attrs }, tc.opts)
			col := NewCollapsed(&folded, io.Discard, func() []*decode.EventAttr { return attrs }, CollapsedOptions{All: true, PID: tc.opts.HTML})
			flameEvents(t, fg, col)
			n := checkFlameFrames(t, svg.Bytes(), folded.Bytes(), tc.opts.Reverse)
			if n < 5 {
				t.Errorf("%d frames drawn", n)
			}
			frames, _, _, _ := ReadFlameGraph(svg.Bytes())
			kinds := map[string]bool{}
			for _, f := range frames {
				kinds[f.Kind] = true
			}
			for _, k := range []string{"root", "user", "kernel"} {
				if !kinds[k] {
					t.Errorf("no %s frame in %v", k, kinds)
				}
			}
			if tc.opts.HTML {
				for _, want := range []string{`<!DOCTYPE html>`, `id="fg-icicle"`, `<option value="prog_a">`, `<option value="12107">`} {
					if !bytes.Contains(svg.Bytes(), []byte(want)) {
						t.Errorf("page without %s", want)
					}
				}
				if frames[1].Comm == "" || frames[1].PID == "" {
					t.Errorf("process frame %+v without comm and pid", frames[1])
				}
			}
			if tc.opts.Title != "" && !bytes.Contains(svg.Bytes(), []byte("a &lt;b&gt; &amp; c")) {
				t.Error("title not escaped")
			}
			for _, ext := range []string{"http://", "https://"} {
				for _, l := range strings.Split(svg.String(), "\n") {
					if strings.Contains(l, ext) && !strings.Contains(l, "www.w3.org") {
						t.Errorf("external reference: %s", l)
					}
				}
			}
		})
	}
}

func TestFlameGraphMinWidth(t *testing.T) {
	attrs := fixture()
	count := func(opts FlameGraphOptions) int {
		var svg bytes.Buffer
		fg := NewFlameGraph(&svg, io.Discard, func() []*decode.EventAttr { return attrs }, opts)
		flameEvents(t, fg, NewCollapsed(io.Discard, nil, func() []*decode.EventAttr { return attrs }, CollapsedOptions{}))
		frames, _, _, err := ReadFlameGraph(svg.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return len(frames)
	}
	all, wide, pct := count(FlameGraphOptions{}), count(FlameGraphOptions{MinWidth: 400}), count(FlameGraphOptions{MinWidth: 50, MinWidthPercent: true})
	if wide >= all || pct >= all || wide < 1 {
		t.Errorf("frames: %d, %d with --minwidth 400, %d with 50%%", all, wide, pct)
	}
}

func TestFlameHelpers(t *testing.T) {
	for in, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", 100000: "100,000"} {
		if got := diag.Group(in); got != want {
			t.Errorf("diag.Group(%d) = %q, want %q", in, got, want)
		}
	}
	if got := frameTitle("main", 1234, 21763, false); got != "main (1,234 samples, 5.67%)" {
		t.Errorf("frameTitle = %q", got)
	}
	if got := frameTitle("all", 5, 5, true); got != "all (5 samples, 100%)" {
		t.Errorf("root frameTitle = %q", got)
	}
	for _, tc := range []struct {
		name string
		w    float64
		want string
	}{
		{"walk_gamma", 200, "walk_gamma"},
		{"walk_gamma", 50, "walk_.."},
		{"walk_gamma", 60, "walk_g.."},
		{"walk_gamma", 20, ""},
	} {
		if got := fitLabel(tc.name, tc.w); got != tc.want {
			t.Errorf("fitLabel(%q, %g) = %q, want %q", tc.name, tc.w, got, tc.want)
		}
	}
	for in, want := range map[string][2]string{
		"f_[k]": {"f", "kernel"}, "g_[j]": {"g", "jit"}, "h_[i]": {"h", "inlined"}, "main": {"main", "user"},
	} {
		n, k := splitKind(in)
		if got := [2]string{n, kindNames[k]}; got != want {
			t.Errorf("splitKind(%q) = %v, want %v", in, got, want)
		}
	}
	if c, p := splitProcess("wk-rec-b-2616"); c != "wk-rec-b" || p != "2616" {
		t.Errorf("splitProcess = %q %q", c, p)
	}
	if err := CheckFlameGraphOptions(FlameGraphOptions{Colors: "plaid"}); err == nil {
		t.Error("palette plaid accepted")
	}
	root := buildFlameTree([]foldedStack{{[]string{"a", "b"}, 2}, {[]string{"a", "c"}, 3}, {[]string{"a"}, 1}, {[]string{"d", "b"}, 4}}, false)
	var got []string
	var walk func(n *flameNode, pre string)
	walk = func(n *flameNode, pre string) {
		got = append(got, pre+n.name+"="+strconv.FormatUint(n.count, 10))
		for _, c := range n.children {
			walk(c, pre+n.name+";")
		}
	}
	walk(root, "")
	if want := []string{"all=10", "all;a=6", "all;a;b=2", "all;a;c=3", "all;d=4", "all;d;b=4"}; !cmp.Equal(got, want) {
		t.Errorf("tree %q, want %q", got, want)
	}
}

// TestParseFolded reads what flamegraph.pl reads: the count after the
// last space, so frame names may hold spaces.
func TestParseFolded(t *testing.T) {
	got, err := parseFolded(strings.NewReader("a;std::map<int, int>::at 7\nb 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].frames[1] != "std::map<int, int>::at" || got[0].count != 7 {
		t.Errorf("parseFolded = %+v", got)
	}
	for _, bad := range []string{"nocount\n", "a x\n"} {
		if _, err := parseFolded(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("parseFolded(%q) accepted", bad)
		}
	}
}

// parseFolded reads collapsed lines "a;b;c 12" as flamegraph.pl reads
// them: the count is what follows the last space.
func parseFolded(r io.Reader) ([]foldedStack, error) {
	var out []foldedStack
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("folded stack without count: %q", line)
		}
		n, err := strconv.ParseUint(line[i+1:], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("folded stack %q: %w", line, err)
		}
		out = append(out, foldedStack{frames: strings.Split(line[:i], ";"), count: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading folded stacks: %w", err)
	}
	return out, nil
}
