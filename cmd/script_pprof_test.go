package cmd

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// writeProfile runs perfstitch script --format pprof -o into a temporary
// file and checks that pprof's own parser accepts it.
func writeProfile(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "perf.pb.gz")
	f, stdout, errOut := testFactory()
	args = append([]string{"script", "--format", "pprof", "-o", out}, args...)
	if code := Run(context.Background(), f, args); code != ExitOK {
		t.Fatalf("%q: exit %d: %s", args, code, errOut)
	}
	if stdout.Len() != 0 {
		t.Errorf("-o: %d bytes on standard output", stdout.Len())
	}
	if err := readProfile(t, out).CheckValid(); err != nil {
		t.Fatalf("CheckValid: %v", err)
	}
	return out
}

// readProfile parses the pprof profile at path.
func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := profile.Parse(r)
	if err != nil {
		t.Fatalf("profile.Parse: %v", err)
	}
	return p
}

var (
	// reportRowRE is a row of report --no-children -g none: overhead,
	// [k] or [.], symbol.
	reportRowRE = regexp.MustCompile(`^\s+([0-9.]+)%\s+\[.\] (.*?)\s*$`)
	reportEvRE  = regexp.MustCompile(`^# Samples: .* of event '(.*)'$`)
	// topRowRE is a row of pprof -top: flat, flat%, sum%, cum, cum%, name.
	topRowRE = regexp.MustCompile(`^\s*\S+\s+([0-9.]+)%\s+[0-9.]+%\s+\S+\s+[0-9.]+%\s+(.*?)\s*$`)
	// An unresolved address: report's "0x%016x", pprof's "dso+0x…" or
	// "0x…".
	reportAddrRE = regexp.MustCompile(`^0x([0-9a-f]{16})$`)
	pprofAddrRE  = regexp.MustCompile(`^(?:.*\+)?0x([0-9a-f]+)$`)
)

// symKey makes report's and pprof's names of one row comparable.
func symKey(name string, re *regexp.Regexp) string {
	if m := re.FindStringSubmatch(name); m != nil {
		v, err := strconv.ParseUint(m[1], 16, 64)
		if err == nil {
			return "addr " + strconv.FormatUint(v, 16)
		}
	}
	return name
}

// reportSelf returns report --sort sym's self overheads per event (in
// file order) and symbol, summed over rows of equal names (pprof merges
// functions by name).
func reportSelf(t *testing.T, out []byte) (events []string, self map[string]map[string]float64) {
	self = map[string]map[string]float64{}
	ev := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := reportEvRE.FindStringSubmatch(sc.Text()); m != nil {
			ev = m[1]
			events = append(events, ev)
			self[ev] = map[string]float64{}
			continue
		}
		if m := reportRowRE.FindStringSubmatch(sc.Text()); m != nil {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			self[ev][symKey(m[2], reportAddrRE)] += v
		}
	}
	return events, self
}

// TestScriptPprofCorpus checks the profile of every corpus case against
// perf report's numbers: `go tool pprof -top -nodecount=20` must give every
// function the self overhead `perfstitch report --no-children --sort sym`
// gives its symbol, within 0.01 points. pprof is asked for full names
// (-symbolize=demangle=full; by default it shortens C++ names, merging
// template instances that report keeps apart). With inline frames
// (--call-graph dwarf) pprof gives the self time to the innermost inlined
// function, which report --sort sym does not know, so each case is
// compared with --no-inline, and also without it when it has no inline
// frames.
func TestScriptPprofCorpus(t *testing.T) {
	gocmd := testfixture.Tool(t, "go")
	for _, c := range testfixture.Corpus(t) {
		for _, noInline := range []bool{true, false} {
			name := c.Name
			if noInline {
				name += "/no-inline"
			}
			t.Run(name, func(t *testing.T) {
				comparePprofReport(t, gocmd, c, noInline)
			})
		}
	}
}

func comparePprofReport(t *testing.T, gocmd string, c testfixture.CorpusCase, noInline bool) {
	common := []string{"--symfs", c.Symfs, "--kallsyms", c.Kallsyms, c.Data}
	if noInline {
		common = append([]string{"--no-inline"}, common...)
	}
	prof := writeProfile(t, common...)
	if !noInline && hasInlineFrames(t, prof) {
		t.Skip("the profile has inline frames; compared with --no-inline")
	}

	f, out, errOut := testFactory()
	if code := Run(context.Background(), f, append([]string{"report", "--no-children", "--sort", "sym", "-g", "none", "--stdio"}, common...)); code != ExitOK {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	events, self := reportSelf(t, out.Bytes())
	if len(events) == 0 {
		t.Fatalf("no event in report output:\n%s", out)
	}
	for _, ev := range events {
		args := []string{"tool", "pprof", "-top", "-nodecount=20", "-symbolize=demangle=full"}
		if len(events) > 1 {
			args = append(args, "-sample_index="+ev)
		}
		top, err := exec.Command(gocmd, append(args, prof)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, top)
		}
		rows, worst := 0, 0.0
		sc := bufio.NewScanner(bytes.NewReader(top))
		header := false
		for sc.Scan() {
			if strings.Contains(sc.Text(), "flat%") {
				header = true
				continue
			}
			m := topRowRE.FindStringSubmatch(sc.Text())
			if !header || m == nil {
				continue
			}
			got, _ := strconv.ParseFloat(m[1], 64)
			key := symKey(m[2], pprofAddrRE)
			// A function without self time is no row of report (it is
			// only a caller); pprof lists it with 0.00%.
			want := self[ev][key]
			rows++
			// Both sides round to 0.01; summed report rows may add
			// up their rounding.
			d := math.Abs(got - want)
			worst = max(worst, d)
			if d > 0.01+1e-9 {
				t.Errorf("%s: %q flat %.2f%%, report self %.2f%%", ev, m[2], got, want)
			}
		}
		if rows == 0 {
			t.Errorf("%s: no rows in pprof -top output:\n%s", ev, top)
		}
		t.Logf("%s %s: %d top rows compared, largest difference %.2f points", c.Name, ev, rows, worst)
	}
}

// hasInlineFrames reports whether a mapping of the profile has them.
func hasInlineFrames(t *testing.T, path string) bool {
	for _, m := range readProfile(t, path).Mapping {
		if m.HasInlineFrames {
			return true
		}
	}
	return false
}

// TestScriptPprofTraces pins what `go tool pprof -traces` shows of the
// profile of testdata/fp, and the profile's labels and mappings with it.
func TestScriptPprofTraces(t *testing.T) {
	gocmd := testfixture.Tool(t, "go")
	fp := testfixture.Testdata(t, "fp")
	prof := writeProfile(t, "--symfs", filepath.Join(fp, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms"), filepath.Join(fp, "perf.data"))
	out, err := exec.Command(gocmd, "tool", "pprof", "-traces", prof).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -traces: %v\n%s", err, out)
	}
	golden := filepath.Join("testdata", "fp.pprof-traces.txt")
	testfixture.Golden(t, golden, out)
}

// TestScriptPprofFilters checks that the filters reach the profile.
func TestScriptPprofFilters(t *testing.T) {
	fp := testfixture.Testdata(t, "fp")
	common := []string{"--symfs", filepath.Join(fp, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms"), filepath.Join(fp, "perf.data")}
	count := func(extra ...string) (samples int64, maxDepth int) {
		for _, s := range readProfile(t, writeProfile(t, append(extra, common...)...)).Sample {
			samples += s.Value[0]
			maxDepth = max(maxDepth, len(s.Location))
		}
		return samples, maxDepth
	}
	all, depth := count()
	// Every sample of testdata/fp was taken on CPU 1.
	cpu0, _ := count("--cpu", "0")
	cpu1, _ := count("--cpu", "1")
	half, _ := count("--time", "0%-50%")
	if all == 0 || cpu0 != 0 || cpu1 != all || half == 0 || half >= all {
		t.Errorf("samples: %d in all, %d on cpu 0, %d on cpu 1, %d in the first half", all, cpu0, cpu1, half)
	}
	if _, d := count("--max-stack", "3"); d != 3 || depth <= 3 {
		t.Errorf("--max-stack 3: stacks %d deep (%d without)", d, depth)
	}
}

// TestScriptPprofSourceLines checks file names and line numbers from the
// DWARF of the dwarf corpus case's libc and libm debug files against
// binutils' addr2line (2.40) for the same addresses: line 58 for the call
// of main in __libc_start_call_main (addr2line names the file
// libc-start.c, which includes libc_start_call_main.h; it misreads the
// DWARF 5 file index there), and the inlined libc_feholdsetround_sse_ctx
// at fenv_private.h:416 inside __sin_fma.
func TestScriptPprofSourceLines(t *testing.T) {
	var c testfixture.CorpusCase
	for _, cc := range testfixture.Corpus(t) {
		if cc.Name == "dwarf" {
			c = cc
		}
	}
	if c.Name == "" {
		t.Skip("corpus case dwarf absent")
	}
	p := readProfile(t, writeProfile(t, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, c.Data))
	got := map[string]string{}
	for _, l := range p.Location {
		for i, ln := range l.Line {
			got[ln.Function.Name] += fmt.Sprintf("%d:%s:%d ", i, filepath.Base(ln.Function.Filename), ln.Line)
		}
	}
	for fn, want := range map[string]string{
		"__libc_start_call_main":      "0:libc_start_call_main.h:58 ",
		"libc_feholdsetround_sse_ctx": "0:fenv_private.h:416 ",
		"__sin_fma":                   "1:.:0 ",
	} {
		if !strings.Contains(got[fn], want) {
			t.Errorf("%s: lines %q, want %q among them", fn, got[fn], want)
		}
	}
}
