package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// capturedRE finds the "# captured on" line of a perf header golden.
var capturedRE = regexp.MustCompile(`(?m)^# captured on    : (.*)$`)

// capturedCopyOf copies the recording src (a file, or a perf record
// --threads directory) into a temporary folder with the modification time
// the golden's "# captured on" line shows (printed with TZ=UTC), so that
// the goldens hold wherever the repository was checked out.
func capturedCopyOf(t *testing.T, src, golden string) string {
	t.Helper()
	g, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	m := capturedRE.FindSubmatch(g)
	if m == nil {
		t.Fatalf("%s: no captured-on line", golden)
	}
	mt, err := time.ParseInLocation("Mon Jan _2 15:04:05 2006", string(m[1]), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(src); err == nil && st.IsDir() {
		dst := filepath.Join(t.TempDir(), "perf.data")
		if err := os.Mkdir(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(filepath.Join(dst, "data"), mt, mt); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	return capturedCopy(t, src, mt.Unix())
}

// TestScriptShowInfo: --header-only -I (perf_session__fprintf_info with
// full info: CPU and NUMA topology, caches, memory topology, and in perf
// 7.3.4 the scheduler domains) against perf report --header-only -I of
// perf 6.1 and perf 7.3.4 (cmd/testdata/show-info/goldens.sh), for the
// testdata cases, the corpus (perf 6.1's header-I.txt there, perf 7.3.4's
// here) and the real deferred recordings (../shared/kernel/*/header-I.txt,
// perf 7.3.4; perf 6.1 cannot read them), these also without -I.
func TestScriptShowInfo(t *testing.T) {
	gd := filepath.Join("testdata", "show-info")
	for _, c := range []string{"fp", "pipe", "zstd", "two-events", "switch", "namespaces", "threads"} {
		src := filepath.Join(testfixture.Testdata(t, c), "perf.data")
		for _, d := range []struct{ compat, golden string }{
			{"6.1", c + ".header-I.txt"},
			{"7.3", c + ".perf7.header-I.txt"},
		} {
			t.Run(c+"/"+d.compat, func(t *testing.T) {
				golden := filepath.Join(gd, d.golden)
				data := capturedCopyOf(t, src, golden)
				testfixture.MatchFile(t, golden, runScriptArgs(t, "--compat", d.compat, "--header-only", "-I", "-i", data))
			})
		}
	}
	for _, c := range testfixture.Corpus(t) {
		for _, d := range []struct{ compat, golden string }{
			{"6.1", c.Golden("header-I.txt")},
			{"7.3", filepath.Join(gd, "corpus-"+c.Name+".perf7.header-I.txt")},
		} {
			t.Run("corpus/"+c.Name+"/"+d.compat, func(t *testing.T) {
				data := capturedCopyOf(t, c.Data, d.golden)
				testfixture.MatchFile(t, d.golden, runScriptArgs(t, "--compat", d.compat, "--show-info", "--header-only", "-i", data))
			})
		}
	}
	kernel := filepath.Join(testfixture.SharedDir(t), "kernel")
	goldens, _ := filepath.Glob(filepath.Join(kernel, "*", "header-I.txt"))
	if len(goldens) == 0 {
		t.Skip("no ../shared/kernel/*/header-I.txt")
	}
	for _, golden := range goldens {
		name := filepath.Base(filepath.Dir(golden))
		src := filepath.Join(filepath.Dir(golden), "perf.data")
		t.Run("kernel/"+name, func(t *testing.T) {
			data := capturedCopyOf(t, src, golden)
			testfixture.MatchFile(t, golden, runScriptArgs(t, "--header-only", "-I", "-i", data))
		})
		// Without -I: perf 7.3.4's sections of perf 6.19 and later (cpu
		// pmu capabilities, CPU_DOMAIN_INFO info available, e_machine,
		// cacheline size).
		t.Run("kernel/"+name+"/no-I", func(t *testing.T) {
			g := filepath.Join(gd, "kernel-"+name+".perf7.header.txt")
			data := capturedCopyOf(t, src, g)
			testfixture.MatchFile(t, g, runScriptArgs(t, "--header-only", "-i", data))
		})
	}
}

// TestScriptShowInfoPipe: on a pipe-mode stream, -I without --header
// prints the header features (in full) as perf does when their records
// arrive, and no file header lines; with --header the file header lines
// come first (testdata/pipe, -G, perf 6.1 and 7.3.4).
func TestScriptShowInfoPipe(t *testing.T) {
	dir := testfixture.Testdata(t, "pipe")
	gd := filepath.Join("testdata", "show-info")
	for _, r := range []struct{ compat, golden, args string }{
		{"6.1", "pipe.script-I.txt", "-I -G"},
		{"7.3", "pipe.perf7.script-I.txt", "-I -G"},
		{"6.1", "pipe.header-I-G.txt", "--header -I -G"},
		{"7.3", "pipe.perf7.header-I-G.txt", "--header -I -G"},
	} {
		t.Run(r.golden, func(t *testing.T) {
			golden := filepath.Join(gd, r.golden)
			data := capturedCopyOf(t, filepath.Join(dir, "perf.data"), filepath.Join(gd, "pipe.header-I.txt"))
			args := []string{"--compat", r.compat, "--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms")}
			args = append(append(args, splitArgs(r.args)...), "-i", data)
			testfixture.MatchFile(t, golden, runScriptArgs(t, args...))
		})
	}
}
