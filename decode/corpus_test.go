package decode_test

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// perfStats parses the "Aggregated stats:" block of perf report --stats
// into counts per record type name (TOTAL included). ok is false when the
// file holds no such block (perf failed).
func perfStats(t *testing.T, path string) (map[string]uint64, bool) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	out := map[string]uint64{}
	in := false
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Aggregated stats:") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(line, " ") {
			break // "cpu-clock stats:" and later per-event blocks
		}
		fields := strings.Fields(line)
		// NAME events: N [(pct)]
		if len(fields) < 3 || fields[1] != "events:" {
			continue
		}
		n, err := strconv.ParseUint(fields[2], 10, 64)
		if err != nil {
			t.Fatalf("%s: bad count line %q", path, line)
		}
		out[fields[0]] = n
	}
	return out, in && len(out) > 0
}

// decodeCounts decodes path in the given order and returns the counts per
// perf record name, the number of records delivered and the error.
func decodeCounts(t *testing.T, path string, order decode.Order) (map[string]uint64, uint64, *decode.Stats, error) {
	t.Helper()
	f, err := decode.Open(path)
	if err != nil {
		return nil, 0, nil, err
	}
	defer f.Close()
	rs := f.Records(order)
	var delivered uint64
	for rs.Next() {
		delivered++
	}
	st := rs.Stats()
	got := map[string]uint64{}
	var total uint64
	for typ, n := range st.Counts {
		got[typ.String()] += n
		total += n
	}
	got["TOTAL"] = total
	return got, delivered, st, rs.Err()
}

func diffCounts(want, got map[string]uint64) []string {
	var d []string
	for k, w := range want {
		if got[k] != w {
			d = append(d, k+": want "+strconv.FormatUint(w, 10)+" got "+strconv.FormatUint(got[k], 10))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok && g != 0 {
			d = append(d, k+": want 0 got "+strconv.FormatUint(g, 10))
		}
	}
	sort.Strings(d)
	return d
}

// recording is one real perf.data with perf's goldens next to it.
type recording struct{ Name, Dir string }

func (r recording) Data() string              { return filepath.Join(r.Dir, "perf.data") }
func (r recording) Golden(name string) string { return filepath.Join(r.Dir, name) }

// recordings returns the small recordings of testdata/ (always there) and
// the corpus cases of ../shared (when present).
func recordings(t *testing.T) []recording {
	t.Helper()
	var out []recording
	ents, _ := os.ReadDir(testfixture.Testdata(t))
	for _, e := range ents {
		dir := testfixture.Testdata(t, e.Name())
		// A perf.data directory (testdata/threads) is read by OpenDir,
		// which dir_test.go checks.
		if st, err := os.Stat(filepath.Join(dir, "perf.data")); err == nil && !st.IsDir() {
			out = append(out, recording{"testdata/" + e.Name(), dir})
		}
	}
	if _, err := os.Stat(filepath.Join(testfixture.ModuleRoot(t), "..", "shared", "corpus")); err == nil {
		for _, c := range testfixture.Corpus(t) {
			out = append(out, recording{"corpus/" + c.Name, c.Dir})
		}
	}
	return out
}

// TestCorpusStats checks that the record counts per type equal perf report
// --stats for every recording of testdata/ and the corpus, in both orders,
// and that every record read is delivered.
func TestCorpusStats(t *testing.T) {
	for _, c := range recordings(t) {
		t.Run(c.Name, func(t *testing.T) {
			want, ok := perfStats(t, c.Golden("stats.txt"))
			if !ok {
				t.Skip("no stats.txt")
			}
			for _, order := range []decode.Order{decode.FileOrder, decode.TimeOrder} {
				got, delivered, st, err := decodeCounts(t, c.Data(), order)
				if err != nil {
					t.Fatalf("order %d: %v", order, err)
				}
				if d := diffCounts(want, got); len(d) > 0 {
					t.Errorf("order %d: counts differ from perf report --stats:\n%s", order, strings.Join(d, "\n"))
				}
				if delivered != got["TOTAL"] {
					t.Errorf("order %d: delivered %d records, read %d", order, delivered, got["TOTAL"])
				}
				if len(st.Warnings) > 0 {
					t.Errorf("order %d: warnings: %v", order, st.Warnings)
				}
			}
		})
	}
}

// externalCases returns the perf.data files of ../shared/external.
func externalCases(t *testing.T) []string {
	var out []string
	for _, p := range testfixture.External(t) {
		if filepath.Base(p) == "perf.data" {
			out = append(out, p)
		}
	}
	return out
}

// TestExternalStats decodes every foreign recording: where perf printed
// stats the counts must match; elsewhere decoding must end cleanly or with
// a *FormatError, never a panic.
func TestExternalStats(t *testing.T) {
	for _, p := range externalCases(t) {
		dir := filepath.Dir(p)
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			got, delivered, st, err := decodeCounts(t, p, decode.TimeOrder)
			want, ok := perfStats(t, filepath.Join(dir, "stats.txt"))
			if err != nil {
				var fe *decode.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error is not a *FormatError: %v", err)
				}
				if ok {
					t.Fatalf("perf read it, decode failed: %v", err)
				}
				t.Logf("decode error (perf failed too): %v", err)
				return
			}
			if delivered != got["TOTAL"] {
				t.Errorf("delivered %d records, read %d", delivered, got["TOTAL"])
			}
			if !ok {
				t.Logf("no perf stats; decoded %d records, %d warnings", got["TOTAL"], st.WarningCount)
				return
			}
			if d := diffCounts(want, got); len(d) > 0 {
				t.Errorf("counts differ from perf report --stats:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

// readmeCounts parses the "records (independent walk, not perf)" and
// "records inside the compressed payloads" rows of an external case's
// README (counts from a record walk independent of perf and of this
// package) into counts per perf record name.
func readmeCounts(t *testing.T, path string) (map[string]uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	out := map[string]uint64{}
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| records (independent walk") && !strings.HasPrefix(line, "| records inside the compressed") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, item := range strings.Split(cells[2], ",") {
			f := strings.Fields(item)
			if len(f) != 2 {
				continue
			}
			n, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				continue
			}
			name := f[0]
			if name == "HEADER_FEATURE" {
				name = "FEATURE"
			}
			out[name] += n
			found = true
		}
	}
	return out, found
}

// TestExternalIndependentCounts compares the record counts with the
// independent walk recorded in each external case's README, which covers
// the files perf 6.1 cannot read (COMPRESSED2, attr size 136, AUX traces).
func TestExternalIndependentCounts(t *testing.T) {
	for _, p := range externalCases(t) {
		dir := filepath.Dir(p)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, ok := readmeCounts(t, filepath.Join(dir, "README.md"))
			if !ok {
				t.Skip("no independent counts")
			}
			got, _, _, err := decodeCounts(t, p, decode.FileOrder)
			delete(got, "TOTAL")
			if err != nil {
				// Damage at the tail (e.g. text appended to a pipe
				// capture): what was read before must match.
				t.Logf("decode error: %v", err)
			}
			if d := diffCounts(want, got); len(d) > 0 {
				t.Errorf("counts differ from the independent walk:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}
