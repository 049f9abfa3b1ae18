package encode

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// perfVariants are the re-encodings perf 6.1 can read (it cannot read
// COMPRESSED2).
var perfVariants = []struct {
	name string
	opts Options
}{
	{"file-le", Options{}},
	{"file-be", Options{ByteOrder: binary.BigEndian}},
	{"pipe-le", Options{Pipe: true}},
	// perf reads build ids from a pipe only as HEADER_BUILD_ID records
	// (without them it cannot find symfs/[vdso] for vDSO samples).
	{"pipe-bid", Options{Pipe: true, BuildIDRecords: true}},
	{"file-z81", Options{Compress: decode.RecordTypeCompressed}},
	{"file-z81-init", Options{Compress: decode.RecordTypeCompressed, CompressAfterInit: true}},
}

// perfCase is a recording with perf 6.1 goldens.
type perfCase struct {
	name, data, symfs, kallsyms string
	golden                      func(string) string
}

// checkPerfScript re-encodes a recording and checks that perf script prints
// the goldens of the original for the re-encoded file.
//
// script-events.txt (side-band records, trailer pids and times) is checked
// for the variants in events, script.txt for all but those in noScript.
func checkPerfScript(t *testing.T, perf string, c perfCase, variants, events []string, noScript bool) {
	d := decodeFile(t, c.data)
	for _, v := range perfVariants {
		if !contains(variants, v.name) {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			opts := v.opts
			opts.Attrs = d.f.Attrs
			opts.Meta = &d.f.Meta
			path := writeTemp(t, encodeFile(t, opts, d.recs))
			for _, g := range []struct {
				golden string
				args   []string
			}{
				{"script.txt", nil},
				{"script-events.txt", []string{"-G", "--show-task-events", "--show-mmap-events"}},
			} {
				if g.golden == "script-events.txt" && !contains(events, v.name) {
					continue
				}
				if g.golden == "script.txt" && noScript {
					continue
				}
				want, err := os.ReadFile(c.golden(g.golden))
				if err != nil {
					t.Fatal(err)
				}
				args := append([]string{"script", "-i", path, "--symfs", c.symfs, "--kallsyms", c.kallsyms}, g.args...)
				got := testfixture.RunPerf(t, perf, "", args...)
				if !bytes.Equal(got, want) {
					t.Errorf("perf %s differs from %s (-golden +re-encoded):\n%s", strings.Join(g.args, " "), g.golden,
						cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")))
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestPerfScriptTestdata: perf script reads every re-encoded testdata
// recording with output identical to the goldens of the original.
func TestPerfScriptTestdata(t *testing.T) {
	perf := testfixture.Tool(t, "perf")
	for _, name := range testdataCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := testfixture.Testdata(t, name)
			checkPerfScript(t, perf, perfCase{
				name: name, data: filepath.Join(dir, "perf.data"), symfs: filepath.Join(dir, "symfs"),
				kallsyms: testfixture.Testdata(t, "kallsyms"),
				golden:   func(g string) string { return filepath.Join(dir, g) },
			}, []string{"file-le", "file-be", "pipe-bid", "file-z81-init"},
				// Not file-be: perf 6.1 does not byte-swap MMAP2 prot/flags
				// (perf_event__mmap2_swap), so it prints ---p for them.
				[]string{"file-le", "pipe-bid", "file-z81-init"}, false)
		})
	}
}

// TestPerfScriptCorpus: the same for the corpus recordings, re-encoded as
// little-endian files (the decode → encode path of the deferral simulator).
func TestPerfScriptCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs perf script on every corpus case")
	}
	perf := testfixture.Tool(t, "perf")
	for _, c := range testfixture.Corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			checkPerfScript(t, perf, perfCase{
				name: c.Name, data: c.Data, symfs: c.Symfs, kallsyms: c.Kallsyms, golden: c.Golden,
			}, []string{"file-le"}, []string{"file-le"},
				// perf's DWARF unwinding of 4 KiB stack copies plus addr2line
				// takes seconds; the records it reads are checked by the
				// round trip and by script-events.txt.
				c.Name == "dwarf")
		})
	}
}
