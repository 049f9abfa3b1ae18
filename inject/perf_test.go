package inject

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// tipLine is perf report's last line, a random tip unless tips.txt is
// hidden (as it was for the goldens, by a mount this test cannot make).
var tipLine = regexp.MustCompile(`(?m)^# \((Tip: .*|Cannot load tips\.txt file, please install perf!)\)$`)

// injectFile rewrites the recording at path into a file-mode file in a
// temporary folder and returns its path and the result.
func injectFile(t *testing.T, path string, opts Options) (string, *Result) {
	t.Helper()
	in, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out := filepath.Join(t.TempDir(), "stitched.data")
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, err := Rewrite(context.Background(), in.File, w, opts)
	if err != nil {
		t.Fatalf("inject %s: %v", path, err)
	}
	return out, res
}

// perfCheck is one recording whose injected version perf must read as
// it read the original.
type perfCheck struct {
	data, dir, symfs, kallsyms string
	script, report             string // goldens; report "" skips it
	// lost are the indexes (in perf script order) of the samples whose
	// user part was lost with their record.
	lost map[int]bool
}

// problems injects c.data and compares perf script (and report) of the
// output with the goldens of the original recording; it returns the
// differences.
func (c perfCheck) problems(t *testing.T, perf string) []string {
	var probs []string
	out, res := injectFile(t, c.data, Options{})
	if got, want := res.Unstitched(), uint64(len(c.lost)); got != want {
		probs = append(probs, fmt.Sprintf("%d samples unstitched, want %d", got, want))
	}
	g := []string{"--symfs", c.symfs, "--kallsyms", c.kallsyms}
	got := testfixture.RunPerf(t, perf, c.dir, append([]string{"script", "-i", out}, g...)...)
	want, err := os.ReadFile(c.script)
	if err != nil {
		t.Fatal(err)
	}
	if d := scriptDiff(got, want, c.lost); d != "" {
		probs = append(probs, fmt.Sprintf("perf script of the injected file differs from %s: %s", c.script, d))
	}
	if c.report == "" {
		return probs
	}
	got = testfixture.RunPerf(t, perf, c.dir, append([]string{"report", "-i", out, "--stdio", "--no-children", "--sort", "comm,dso,sym"}, g...)...)
	if want, err = os.ReadFile(c.report); err != nil {
		t.Fatal(err)
	}
	if d := testfixture.FirstDiff(tipLine.ReplaceAll(got, nil), tipLine.ReplaceAll(want, nil)); d != "" {
		probs = append(probs, fmt.Sprintf("perf report of the injected file differs from %s: first difference at %s", c.report, d))
	}
	return probs
}

// scriptDiff compares perf script outputs sample by sample (blocks
// separated by an empty line): equal, except that the samples in lost
// may lack the user part of the callchain (their last lines, after the
// kernel frames). It describes the first difference, "" if none.
func scriptDiff(got, want []byte, lost map[int]bool) string {
	if len(lost) == 0 {
		return testfixture.FirstDiff(got, want)
	}
	gb := strings.Split(string(got), "\n\n")
	wb := strings.Split(string(want), "\n\n")
	if len(gb) != len(wb) {
		return "have " + itoa(len(gb)) + " samples, want " + itoa(len(wb))
	}
	for i := range gb {
		if gb[i] == wb[i] {
			continue
		}
		if lost[i] && strings.HasPrefix(wb[i], gb[i]) && userOnly(wb[i][len(gb[i]):]) {
			continue
		}
		return "sample " + itoa(i) + ":\n" + testfixture.FirstDiff([]byte(gb[i]), []byte(wb[i]))
	}
	return ""
}

// userOnly reports whether rest, the tail of a golden sample, is whole
// callchain lines none of which is a kernel frame.
func userOnly(rest string) bool {
	if !strings.HasPrefix(rest, "\n") {
		return false
	}
	for _, l := range strings.Split(rest[1:], "\n") {
		if l == "" || strings.HasSuffix(l, "([kernel.kallsyms])") || !strings.HasPrefix(l, "\t") {
			return false
		}
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }

// timeOrderIndexes maps indexes of samples in file order (as .drops.json
// names them) to their indexes in time order, the order of perf script.
func timeOrderIndexes(t *testing.T, path string, fileOrder []int) map[int]bool {
	t.Helper()
	offsets := func(order decode.Order) []key {
		f, err := decode.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var ks []key
		rs := f.Records(order)
		for rs.Next() {
			if s, ok := rs.Record().(*decode.Sample); ok {
				ks = append(ks, keyOf(&s.RecordCommon))
			}
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		return ks
	}
	byFile := offsets(decode.FileOrder)
	pos := make(map[key]int)
	for i, k := range offsets(decode.TimeOrder) {
		pos[k] = i
	}
	lost := make(map[int]bool)
	for _, i := range fileOrder {
		if i < 0 || i >= len(byFile) {
			t.Fatalf("drops: sample %d of %d", i, len(byFile))
		}
		lost[pos[byFile[i]]] = true
	}
	return lost
}

// corpusPending lists the deferred corpus files whose injected version
// perf does not read as the original yet, with the reason; the test fails
// when one starts to match, so that the list shrinks.
var corpusPending = map[string]string{}

// TestPerfReadsInjectedCorpus: perf 6.1 prints for the injected version of
// every deferred corpus recording what it printed for the original
// (perf script; perf report for those without dropped records).
func TestPerfReadsInjectedCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs perf on every deferred corpus recording")
	}
	perf := testfixture.Tool(t, "perf")
	for _, c := range testfixture.Corpus(t) {
		files, _ := filepath.Glob(filepath.Join(c.Dir, "perf7", "deferred-*.data"))
		for _, data := range files {
			name := c.Name + "/" + filepath.Base(data)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				pc := perfCheck{data: data, dir: c.Dir, symfs: "symfs", kallsyms: c.Kallsyms,
					script: c.Golden("script.txt"), report: c.Golden("report.txt")}
				if b, err := os.ReadFile(data + ".drops.json"); err == nil {
					var drops struct {
						Lost []int `json:"lost_user_part"`
					}
					if err := json.Unmarshal(b, &drops); err != nil {
						t.Fatal(err)
					}
					pc.lost = timeOrderIndexes(t, data, drops.Lost)
					pc.report = "" // the lost user parts change the report
				}
				probs := pc.problems(t, perf)
				if why, ok := corpusPending[name]; ok {
					if len(probs) == 0 {
						t.Errorf("%s now matches (pending: %s): remove it from corpusPending", name, why)
					}
					return
				}
				for _, p := range probs {
					t.Error(p)
				}
			})
		}
	}
}

// testdataCases are the recordings under testdata/ with perf 6.1 goldens.
var testdataCases = []string{"fp", "pipe", "zstd", "two-events"}

// simVariants are the deferred versions the simulator writes of each.
var simVariants = []struct {
	name string
	opts deferralsim.Options
}{
	{"cookie", deferralsim.Options{ABI: decode.DeferredCookie}},
	{"seed", deferralsim.Options{ABI: decode.DeferredSeed}},
	{"cookie-drop3", deferralsim.Options{ABI: decode.DeferredCookie, DropEvery: 3}},
	{"cookie-duplicate", deferralsim.Options{ABI: decode.DeferredCookie, Duplicate: true}},
}

// simulate writes the deferred version of the recording at path.
func simulate(t *testing.T, path string, opts deferralsim.Options) (string, *deferralsim.Truth) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "deferred.data")
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	truth, err := deferralsim.Simulate(path, w, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out, truth
}

// TestPerfReadsInjectedSimulation: perf 6.1 prints for the injected
// version of every simulator output of the testdata recordings what it
// printed for the recording (samples whose record was dropped: without
// their user part), and for each recording itself, injected without
// anything to stitch, the same as well.
func TestPerfReadsInjectedSimulation(t *testing.T) {
	perf := testfixture.Tool(t, "perf")
	for _, name := range testdataCases {
		dir := testfixture.Testdata(t, name)
		pc := perfCheck{data: filepath.Join(dir, "perf.data"), dir: dir, symfs: "symfs",
			kallsyms: testfixture.Testdata(t, "kallsyms"),
			script:   filepath.Join(dir, "script.txt"), report: filepath.Join(dir, "report.txt")}
		t.Run(name+"/not-deferred", func(t *testing.T) {
			t.Parallel()
			for _, p := range pc.problems(t, perf) {
				t.Error(p)
			}
		})
		for _, v := range simVariants {
			t.Run(name+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				c := pc
				var truth *deferralsim.Truth
				c.data, truth = simulate(t, pc.data, v.opts)
				if truth.Dropped > 0 {
					c.lost = make(map[int]bool)
					for i, s := range truth.Samples {
						if s.Dropped {
							c.lost[i] = true
						}
					}
					c.report = ""
				}
				for _, p := range c.problems(t, perf) {
					t.Error(p)
				}
			})
		}
	}
}
