package symbolize

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/stitch"
)

// skippedCases are corpus cases the golden test does not check.
var skippedCases = map[string]string{}

// frameLine formats a frame the way perf script prints a callchain line.
func frameLine(f *Frame) string {
	sym := "[unknown]"
	if f.Symbol != "" {
		sym = fmt.Sprintf("%s+0x%x", f.Symbol, f.Offset)
	}
	if f.Inlined {
		return fmt.Sprintf("%16x %s (inlined)", f.MapAddr, sym)
	}
	return fmt.Sprintf("%16x %s (%s)", f.MapAddr, sym, f.DSO)
}

// goldenFrames reads the frame lines of a perf script golden, one slice per
// sample (samples without callchain lines give empty slices).
func goldenFrames(t testing.TB, path string) [][]string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out [][]string
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\t"):
			out[len(out)-1] = append(out[len(out)-1], line[1:])
		case line == "":
		default:
			out = append(out, nil)
		}
	}
	return out
}

type caseResult struct {
	samples, frames, match int
	ipMatch, commMatch     int
	firstDiff              string
}

// readLines returns the lines of a golden file.
func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// ipLine formats the sample IP the way perf script -G ends a sample line.
func ipLine(f *Frame) string {
	sym := "[unknown]"
	if f.Symbol != "" {
		sym = fmt.Sprintf("%s+0x%x", f.Symbol, f.Offset)
	}
	return fmt.Sprintf("%16x %s (%s)", f.Addr, sym, f.DSO)
}

// resolveCase decodes c, resolves every sample and compares its frames with
// the golden callchain lines. drop, when set, filters side-band records.
func resolveCase(t testing.TB, c testfixture.CorpusCase, mapsDir string, drop func(decode.Record) bool) caseResult {
	return resolveGolden(t, goldenSpec{
		Name: c.Name, Data: c.Data, Symfs: c.Symfs, Kallsyms: c.Kallsyms, Maps: mapsDir,
		Script: c.Golden("script.txt"), ScriptG: c.Golden("script-nocallchain.txt"),
	}, drop)
}

// goldenSpec names a recording, what to symbolize it with, and perf's
// outputs for it.
type goldenSpec struct {
	Name, Data, Symfs, Kallsyms, Maps string
	Script, ScriptG                   string // perf script and perf script -G outputs
}

func resolveGolden(t testing.TB, c goldenSpec, drop func(decode.Record) bool) caseResult {
	t.Helper()
	f, err := decode.Open(c.Data)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	defer f.Close()
	sym, err := New(Options{Symfs: c.Symfs, Kallsyms: c.Kallsyms, MapsDir: c.Maps, Meta: &f.Meta, Compat: compat.Perf61})
	if err != nil {
		t.Fatal(err)
	}
	want := goldenFrames(t, c.Script)
	wantIP := readLines(t, c.ScriptG)
	var res caseResult
	var ev Event
	rs := f.Records(decode.TimeOrder)
	for rs.Next() {
		r := rs.Record()
		s, ok := r.(*decode.Sample)
		if !ok {
			if drop == nil || !drop(r) {
				sym.Observe(r)
			}
			continue
		}
		sym.Resolve(&stitch.Sample{Sample: s}, &ev)
		if res.samples >= len(want) {
			res.samples++
			continue
		}
		w := want[res.samples]
		if res.samples < len(wantIP) {
			line := wantIP[res.samples]
			if strings.HasSuffix(line, " "+ipLine(&ev.IP)) {
				res.ipMatch++
			} else if res.firstDiff == "" {
				res.firstDiff = fmt.Sprintf("sample %d IP:\n\thave %s\n\twant %s", res.samples+1, ipLine(&ev.IP), line)
			}
			if strings.HasPrefix(strings.TrimLeft(line, " "), ev.Comm+" ") {
				res.commMatch++
			} else if res.firstDiff == "" {
				res.firstDiff = fmt.Sprintf("sample %d comm %q: %s", res.samples+1, ev.Comm, line)
			}
		}
		res.samples++
		res.frames += len(w)
		for i, line := range w {
			if i < len(ev.Frames) && frameLine(&ev.Frames[i]) == line {
				res.match++
			} else if res.firstDiff == "" {
				have := "<none>"
				if i < len(ev.Frames) {
					have = frameLine(&ev.Frames[i])
				}
				res.firstDiff = fmt.Sprintf("sample %d frame %d:\n\thave %s\n\twant %s", res.samples, i, have, line)
			}
		}
		if len(ev.Frames) > len(w) && res.firstDiff == "" {
			res.firstDiff = fmt.Sprintf("sample %d: %d frames, want %d", res.samples, len(ev.Frames), len(w))
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	if res.samples != len(want) && res.firstDiff == "" {
		res.firstDiff = fmt.Sprintf("%d samples, golden has %d", res.samples, len(want))
	}
	return res
}

// TestCorpusGolden resolves every sample of every corpus case with the
// case's symfs and the corpus kallsyms and checks each frame against
// perf 6.1's script.txt: address, sym+off and dso.
func TestCorpusGolden(t *testing.T) {
	total, match := 0, 0
	for _, c := range testfixture.Corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			if why, ok := skippedCases[c.Name]; ok {
				t.Skip(why)
			}
			res := resolveCase(t, c, "", nil)
			total += res.frames
			match += res.match
			t.Logf("%d samples (IP identical %d, comm %d), %d/%d frames identical",
				res.samples, res.ipMatch, res.commMatch, res.match, res.frames)
			if res.firstDiff != "" {
				t.Errorf("first difference: %s", res.firstDiff)
			}
		})
	}
	t.Logf("corpus: %d/%d frames identical", match, total)
}

// TestMapsSnapshot drops every MMAP/MMAP2 record of the processes that
// have a snapshot in the case's maps/ folder and resolves through the
// snapshots instead: the frames must stay identical to perf's.
func TestMapsSnapshot(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			if why, ok := skippedCases[c.Name]; ok {
				t.Skip(why)
			}
			dropped := 0
			res := resolveCase(t, c, c.Maps, func(r decode.Record) bool {
				m, ok := r.(*decode.Mmap)
				if ok && m.CPUMode() == decode.CPUModeUser && mapsSnapshotPath(c.Maps, m.PID) != "" {
					dropped++
					return true
				}
				return false
			})
			if dropped == 0 {
				t.Fatalf("no MMAP record dropped")
			}
			t.Logf("%d MMAP records dropped; %d samples (IP identical %d), %d/%d frames identical",
				dropped, res.samples, res.ipMatch, res.match, res.frames)
			if res.firstDiff != "" {
				t.Errorf("first difference: %s", res.firstDiff)
			}
		})
	}
}

// TestTestdataGolden checks the module's own small recordings
// (testdata/CASE, see testdata/README.md) like TestCorpusGolden.
func TestTestdataGolden(t *testing.T) {
	root := testfixture.Testdata(t)
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Skip(err)
	}
	n := 0
	for _, e := range ents {
		dir := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(dir, "perf.data")); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "script-G.txt")); err != nil {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			res := resolveGolden(t, goldenSpec{
				Name: e.Name(), Data: filepath.Join(dir, "perf.data"), Symfs: filepath.Join(dir, "symfs"),
				Kallsyms: filepath.Join(root, "kallsyms"),
				Script:   filepath.Join(dir, "script.txt"), ScriptG: filepath.Join(dir, "script-G.txt"),
			}, nil)
			t.Logf("%d samples (IP identical %d, comm %d), %d/%d frames identical",
				res.samples, res.ipMatch, res.commMatch, res.match, res.frames)
			if res.firstDiff != "" {
				t.Errorf("first difference: %s", res.firstDiff)
			}
		})
	}
	if n == 0 {
		t.Skip("no recordings in testdata")
	}
}

// externalSkip lists external recordings whose perf script output holds
// events perf synthesizes from AUX data (Intel PT), which perfstitch does
// not decode.
var externalSkip = map[string]string{
	"intel_pt-4.14":       "Intel PT samples are synthesized by perf from AUX data",
	"piped.intel_pt-4.14": "Intel PT samples are synthesized by perf from AUX data",
}

// TestExternalGolden resolves the foreign recordings of ../shared/external
// (perf 3.x to 6.16, x86_64, i686, armv7, aarch64) with an empty symfs and
// an empty kallsyms, as their goldens were made, and checks the [unknown]
// rules: which DSO each IP and callchain entry falls in, the module names,
// map-relative addresses and the 127-entry callchain limit.
func TestExternalGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	root := filepath.Join(testfixture.SharedDir(t), "external")
	datas, _ := filepath.Glob(filepath.Join(root, "*", "*", "perf.data"))
	if len(datas) == 0 {
		t.Skip("no external recordings")
	}
	empty := t.TempDir()
	for _, d := range datas {
		dir := filepath.Dir(d)
		name := filepath.Base(dir)
		if _, err := os.Stat(filepath.Join(dir, "script-G.txt")); err != nil {
			continue // perf 6.1 could not read it either
		}
		t.Run(name, func(t *testing.T) {
			if why, ok := externalSkip[name]; ok {
				t.Skip(why)
			}
			res := resolveGolden(t, goldenSpec{
				Name: name, Data: d, Symfs: empty, Kallsyms: os.DevNull,
				Script: filepath.Join(dir, "script.txt"), ScriptG: filepath.Join(dir, "script-G.txt"),
			}, nil)
			t.Logf("%d samples (IP identical %d, comm %d), %d/%d frames identical",
				res.samples, res.ipMatch, res.commMatch, res.match, res.frames)
			if res.firstDiff != "" {
				t.Errorf("first difference: %s", res.firstDiff)
			}
		})
	}
}

// TestFixtureRecording resolves real perf 6.1 recordings of the fixtures
// (testdata/rec*, made by testdata/gen.sh with cpu-clock:u) against perf
// script's output. rec: symbols from the .gnu_debuglink debug file, the
// zero-size assembly function, a shared library mapped with a pgoff, and
// libc/ld.so frames with no file in symfs. rec-jit: JIT code in anonymous
// memory named by /tmp/perf-PID.map (absolute addresses, names as written).
func TestFixtureRecording(t *testing.T) {
	for _, name := range []string{"rec", "rec-jit"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", name)
			res := resolveGolden(t, goldenSpec{
				Name: name, Data: filepath.Join(dir, "perf.data"), Symfs: "testdata/symfs", Kallsyms: os.DevNull,
				Script: filepath.Join(dir, "script.txt"), ScriptG: filepath.Join(dir, "script-G.txt"),
			}, nil)
			t.Logf("%d samples (IP identical %d, comm %d), %d/%d frames identical",
				res.samples, res.ipMatch, res.commMatch, res.match, res.frames)
			if res.firstDiff != "" {
				t.Errorf("first difference: %s", res.firstDiff)
			}
			if res.samples < 100 {
				t.Errorf("only %d samples", res.samples)
			}
		})
	}
}
