package cmd

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// capturedCopy copies a recording into a temporary folder with the
// modification time perf's "# captured on" line was made from, and skips
// when the local zone is not UTC there (perf printed it with TZ=UTC).
func capturedCopy(t *testing.T, src string, epoch int64) string {
	t.Helper()
	mt := time.Unix(epoch, 0)
	if _, off := mt.In(time.Local).Zone(); off != 0 {
		t.Skipf("local time zone is not UTC at %v; the goldens print UTC", mt)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "perf.data")
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(dst, mt, mt); err != nil {
		t.Fatal(err)
	}
	return dst
}

// runScriptArgs runs perfstitch script with args and returns its output.
func runScriptArgs(t *testing.T, args ...string) []byte {
	t.Helper()
	f, out, errOut := testFactory()
	if code := Run(context.Background(), f, append([]string{"script"}, args...)); code != ExitOK {
		t.Fatalf("%q: exit %d: %s", args, code, errOut)
	}
	return out.Bytes()
}

// testdataEpoch is the mtime testdata/goldens.sh gives perf.data before
// perf prints header.txt.
const testdataEpoch = 1796083200

// TestScriptHeaderOnly: --header-only against perf report --header-only
// (header.txt; perf script --header-only prints the same bytes, checked
// with perf 6.1 and perf 7.3.4 on fp and pipe) for every testdata case in
// both dialects and every corpus case in perf 6.1's.
func TestScriptHeaderOnly(t *testing.T) {
	for _, c := range []string{"fp", "pipe", "zstd", "two-events"} {
		dir := testfixture.Testdata(t, c)
		data := capturedCopy(t, filepath.Join(dir, "perf.data"), testdataEpoch)
		t.Run(c+"/6.1", func(t *testing.T) {
			testfixture.MatchFile(t, filepath.Join(dir, "header.txt"), runScriptArgs(t, "--compat", "6.1", "--header-only", "-i", data))
		})
		t.Run(c+"/7.3", func(t *testing.T) {
			testfixture.MatchFile(t, filepath.Join(dir, "perf7", "header.txt"), runScriptArgs(t, "--header-only", "-i", data))
		})
	}
	epochRE := regexp.MustCompile(`touch -d @(\d+) perf\.data`)
	for _, c := range testfixture.Corpus(t) {
		t.Run("corpus/"+c.Name, func(t *testing.T) {
			readme, err := os.ReadFile(filepath.Join(c.Dir, "README.md"))
			m := epochRE.FindSubmatch(readme)
			if err != nil || m == nil {
				t.Skip("no capture time in the case README")
			}
			epoch, _ := strconv.ParseInt(string(m[1]), 10, 64)
			data := capturedCopy(t, c.Data, epoch)
			testfixture.MatchFile(t, c.Golden("header.txt"), runScriptArgs(t, "--compat", "6.1", "--header-only", "-i", data))
		})
	}
}

// TestScriptHeader: --header prints the header, then the samples (perf's
// output for fp is header.txt followed by script.txt, in both releases).
func TestScriptHeader(t *testing.T) {
	dir := testfixture.Testdata(t, "fp")
	data := capturedCopy(t, filepath.Join(dir, "perf.data"), testdataEpoch)
	g := []string{"--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms"), "-i", data, "--header"}
	for _, d := range []struct{ compat, dir string }{{"6.1", dir}, {"7.3", filepath.Join(dir, "perf7")}} {
		t.Run(d.compat, func(t *testing.T) {
			h, err1 := os.ReadFile(filepath.Join(d.dir, "header.txt"))
			s, err2 := os.ReadFile(filepath.Join(d.dir, "script.txt"))
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			got := runScriptArgs(t, append([]string{"--compat", d.compat}, g...)...)
			if diff := testfixture.FirstDiff(got, append(h, s...)); diff != "" {
				t.Errorf("--header: first difference at %s", diff)
			}
		})
	}
}

// TestScriptDeltatime: --deltatime against perf 6.1 and perf 7.3.4 (fp:
// default fields; two-events: -G --show-task-events, two events and
// side-band records in one sequence).
func TestScriptDeltatime(t *testing.T) {
	for _, r := range []struct{ c, args string }{{"fp", ""}, {"two-events", "-G --show-task-events"}} {
		dir := testfixture.Testdata(t, r.c)
		for _, d := range []struct{ compat, golden string }{
			{"6.1", filepath.Join(dir, "script-deltatime.txt")},
			{"7.3", filepath.Join(dir, "perf7", "script-deltatime.txt")},
		} {
			t.Run(r.c+"/"+d.compat, func(t *testing.T) {
				args := []string{"--compat", d.compat, "--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms"), "--deltatime"}
				args = append(args, splitArgs(r.args)...)
				testfixture.MatchFile(t, d.golden, runScriptArgs(t, append(args, filepath.Join(dir, "perf.data"))...))
			})
		}
	}
}

// splitArgs splits a space-separated argument list ("" is none).
func splitArgs(s string) []string {
	return regexp.MustCompile(`\S+`).FindAllString(s, -1)
}

// TestScriptTypedFields: -F with an event-type prefix applies to events
// of that type only (fp: sw: on its cpu-clock events; two-events: hw:
// leaves both software events at perf's defaults), against perf 6.1 and
// perf 7.3.4.
func TestScriptTypedFields(t *testing.T) {
	for _, r := range []struct{ c, golden, args string }{
		{"fp", "script-F-sw.txt", "-F sw:comm,tid,time,ip,sym --max-stack 3"},
		{"two-events", "script-F-hw.txt", "-F hw:comm,tid -G"},
	} {
		dir := testfixture.Testdata(t, r.c)
		for _, d := range []struct{ compat, dir string }{{"6.1", dir}, {"7.3", filepath.Join(dir, "perf7")}} {
			t.Run(r.c+"/"+d.compat, func(t *testing.T) {
				args := []string{"--compat", d.compat, "--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms")}
				args = append(append(args, splitArgs(r.args)...), filepath.Join(dir, "perf.data"))
				testfixture.MatchFile(t, filepath.Join(d.dir, r.golden), runScriptArgs(t, args...))
			})
		}
	}
}

// TestScriptSrcline: -F srcline against perf 6.1 and perf 7.3.4 on
// testdata/fp (a binary without DWARF: perf 6.1's libbfd names the
// STT_FILE symbol, perf 7.3.4 falls back to dso[addr]; the kernel
// without vmlinux is [kernel.kallsyms][addr] in both), with and without
// callchains.
func TestScriptSrcline(t *testing.T) {
	dir := testfixture.Testdata(t, "fp")
	for _, r := range []struct{ golden, args string }{
		{"script-srcline.txt", "-F +srcline --max-stack 4"},
		{"script-srcline-G.txt", "-F comm,tid,ip,sym,srcline -G"},
	} {
		for _, d := range []struct{ compat, dir string }{{"6.1", dir}, {"7.3", filepath.Join(dir, "perf7")}} {
			t.Run(d.compat+"/"+r.golden, func(t *testing.T) {
				args := []string{"--compat", d.compat, "--symfs", filepath.Join(dir, "symfs"), "--kallsyms", testfixture.Testdata(t, "kallsyms")}
				args = append(append(args, splitArgs(r.args)...), filepath.Join(dir, "perf.data"))
				testfixture.MatchFile(t, filepath.Join(d.dir, r.golden), runScriptArgs(t, args...))
			})
		}
	}
}

// TestScriptSrclineCorpusPerf7: perf 7.3.4's script -F +srcline of the
// corpus cases with DWARF line tables (C, a shared library, C++),
// compared through the SHA-256 of perf's text (testdata/srcline-perf7.sha256;
// the texts are 1-2 MB).
func TestScriptSrclineCorpusPerf7(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "srcline-perf7.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range regexp.MustCompile(`(?m)^(\S+) ([0-9a-f]{64})$`).FindAllStringSubmatch(string(b), -1) {
		c := testfixture.CorpusCaseNamed(t, line[1])
		t.Run(c.Name, func(t *testing.T) {
			out := runScriptArgs(t, "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, "-F", "+srcline", c.Data)
			if got := fmt.Sprintf("%x", sha256.Sum256(out)); got != line[2] {
				t.Errorf("sha256 %s, want perf 7.3.4's %s", got, line[2])
			}
		})
	}
}
