package cmd

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/output"
)

// runScript runs perfstitch script with args and returns its output.
func runScript(t *testing.T, args ...string) []byte {
	t.Helper()
	f, out, errOut := testFactory()
	if code := Run(context.Background(), f, append([]string{"script"}, args...)); code != ExitOK {
		t.Fatalf("script %q: exit %d: %s", args, code, errOut)
	}
	return out.Bytes()
}

// foldedSums sums the counts of collapsed --all output by stack prefix,
// a frame named "kind:name" with its annotation turned into the kind.
func foldedSums(t *testing.T, folded []byte) map[string]uint64 {
	t.Helper()
	sums := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSuffix(string(folded), "\n"), "\n") {
		if line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		n, err := strconv.ParseUint(line[i+1:], 10, 64)
		if i < 0 || err != nil {
			t.Fatalf("bad collapsed line %q", line)
		}
		key := ""
		sums[key] += n
		for _, f := range strings.Split(line[:i], ";") {
			kind := "user"
			for suffix, k := range map[string]string{"_[k]": "kernel", "_[j]": "jit", "_[i]": "inlined"} {
				if s, ok := strings.CutSuffix(f, suffix); ok {
					f, kind = s, k
				}
			}
			key += ";" + kind + ":" + f
			sums[key] += n
		}
	}
	return sums
}

// checkGraph checks every frame of a drawn graph against the collapsed
// stacks: its sample count (data-n and the title) is the sum of the
// counts of the stacks through it, and its width is that share of the
// image. It returns the number of frames.
func checkGraph(t *testing.T, graph, folded []byte) int {
	t.Helper()
	frames, total, width, err := output.ReadFlameGraph(graph)
	if err != nil {
		t.Fatal(err)
	}
	sums := foldedSums(t, folded)
	if len(frames) == 0 || frames[0].Kind != "root" || frames[0].Count != sums[""] || total != sums[""] {
		t.Fatalf("root frame %+v, want one of all %d samples", frames, sums[""])
	}
	scale := (width - 20) / float64(total) // 10 pixels of padding each side
	path := []string{""}
	for _, f := range frames[1:] {
		path = append(path[:f.Depth], path[f.Depth-1]+";"+f.Kind+":"+f.Name)
		key := path[f.Depth]
		want, ok := sums[key]
		switch {
		case !ok:
			t.Errorf("frame %q is no stack of the collapsed output", key)
		case f.Count != want:
			t.Errorf("frame %q: %d samples, collapsed has %d", key, f.Count, want)
		case !strings.Contains(f.Title, " samples, "):
			t.Errorf("frame %q: title %q", key, f.Title)
		case math.Abs(f.W-float64(want)*scale) > 0.005+1e-9:
			t.Errorf("frame %q: width %.2f, want %.2f", key, f.W, float64(want)*scale)
		}
	}
	return len(frames)
}

// TestScriptFlameGraphCorpus checks, for every corpus case, that the
// flame graph's frames have exactly the samples of collapsed output: the
// SVG against --format collapsed --all, the HTML page (process frames per
// pid) against --all --collapse-pid.
func TestScriptFlameGraphCorpus(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			common := []string{"--symfs", c.Symfs, "--kallsyms", c.Kallsyms, c.Data}
			folded := runScript(t, append([]string{"--format", "collapsed", "--all"}, common...)...)
			svg := runScript(t, append([]string{"--format", "flamegraph", "--minwidth", "0"}, common...)...)
			n := checkGraph(t, svg, folded)
			foldedPID := runScript(t, append([]string{"--format", "collapsed", "--all", "--collapse-pid"}, common...)...)
			page := runScript(t, append([]string{"--format", "flamegraph-html", "--minwidth", "0"}, common...)...)
			m := checkGraph(t, page, foldedPID)
			t.Logf("%s: %d frames in the SVG, %d in the HTML page, %d folded stacks", c.Name, n, m, strings.Count(string(folded), "\n"))
		})
	}
}

// TestFlameGraphExample keeps the README's example graph of testdata/demo
// current; -update rewrites it.
func TestFlameGraphExample(t *testing.T) {
	demo := testfixture.Testdata(t, "demo")
	got := runScript(t, "--format", "flamegraph", "--title", "perfstitch demo: testdata/demo", "--width", "960", "--minwidth", "3",
		"--symfs", filepath.Join(demo, "symfs"), "--kallsyms", filepath.Join(demo, "kallsyms"), filepath.Join(demo, "perf.data"))
	path := filepath.Join(testfixture.ModuleRoot(t), "docs", "demo-flamegraph.svg")
	testfixture.Golden(t, path, got)
}

func TestScriptFlameGraphFlags(t *testing.T) {
	demo := testfixture.Testdata(t, "demo")
	common := []string{"--symfs", filepath.Join(demo, "symfs"), "--kallsyms", filepath.Join(demo, "kallsyms"), filepath.Join(demo, "perf.data")}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--format", "text", "--title", "x"}, "--title applies only to --format flamegraph"},
		{[]string{"--format", "flamegraph", "--colors", "plaid"}, "unknown palette"},
		{[]string{"--format", "flamegraph", "--minwidth", "x"}, "--minwidth"},
		{[]string{"--format", "flamegraph", "--width", "0"}, "--width must be at least 1"},
		{[]string{"--format", "flamegraph", "--max-stack", "3"}, "--max-stack does not apply"},
		{[]string{"--format", "pprof", "-G"}, "--hide-call-graph does not apply"},
	} {
		f, _, errOut := testFactory()
		code := Run(context.Background(), f, append(append([]string{"script"}, tc.args...), common...))
		if code != ExitUsage || !strings.Contains(errOut.String(), tc.err) {
			t.Errorf("%q: exit %d, stderr %q, want usage error %q", tc.args, code, errOut, tc.err)
		}
	}
	// --reverse and a percent --minwidth draw a graph whose root still
	// counts every sample.
	svg := runScript(t, append([]string{"--format", "flamegraph", "--reverse", "--minwidth", "1%", "--colors", "hot"}, common...)...)
	frames, total, _, err := output.ReadFlameGraph(svg)
	if err != nil || len(frames) < 2 || frames[0].Count != total || frames[1].Kind != "kernel" && frames[1].Kind != "user" {
		t.Errorf("reversed graph: %d frames, root %+v, err %v", len(frames), frames, err)
	}
}
