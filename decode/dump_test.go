package decode_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

var (
	// "0x3a8@perf.data [0xc8]: event: 9": a record as perf reads it.
	dumpReadRE = regexp.MustCompile(`^(0x[0-9a-f]+|0)@\S+ \[0x([0-9a-f]+)\]: event: (\d+)$`)
	// "1 603732642297 0x3a8 [0xc8]: PERF_RECORD_SAMPLE(...": a record as
	// perf delivers it (after ordering).
	dumpDeliverRE = regexp.MustCompile(`^-?\d+ -?\d+ (0x[0-9a-f]+|0) \[0x([0-9a-f]+)\]: PERF_RECORD_(\w+)`)
)

// dumpSeqs parses perf script -D output into the read sequence and the
// delivery sequence ("offset size type").
func dumpSeqs(t *testing.T, path string) (read, delivered []string) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Skip(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := dumpReadRE.FindStringSubmatch(line); m != nil {
			off, _ := strconv.ParseUint(strings.TrimPrefix(m[1], "0x"), 16, 64)
			sz, _ := strconv.ParseUint(m[2], 16, 64)
			typ, _ := strconv.Atoi(m[3])
			read = append(read, fmt.Sprintf("%#x %d %s", off, sz, decode.RecordType(typ)))
		} else if m := dumpDeliverRE.FindStringSubmatch(line); m != nil {
			off, _ := strconv.ParseUint(strings.TrimPrefix(m[1], "0x"), 16, 64)
			sz, _ := strconv.ParseUint(m[2], 16, 64)
			delivered = append(delivered, fmt.Sprintf("%#x %d %s", off, sz, m[3]))
		}
	}
	return read, delivered
}

// ourSeq decodes path and returns "offset size type" per record, leaving
// out COMPRESSED containers (perf 6.1 -D does not print them).
func ourSeq(t *testing.T, path string, order decode.Order) ([]string, bool) {
	t.Helper()
	f, err := decode.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	compressed := false
	var out []string
	rs := f.Records(order)
	for rs.Next() {
		r := rs.Record()
		c := r.Common()
		if r.Type() == decode.RecordTypeCompressed || r.Type() == decode.RecordTypeCompressed2 {
			compressed = true
			continue
		}
		name := r.Type().String()
		out = append(out, fmt.Sprintf("%#x %d %s", c.Offset, c.Size, name))
	}
	return out, compressed
}

// stripOffset drops the offset of each "offset size type" entry.
func stripOffset(seq []string) []string {
	out := make([]string, len(seq))
	for i, s := range seq {
		_, rest, _ := strings.Cut(s, " ")
		out[i] = rest
	}
	return out
}

// TestDumpSequences checks the record sequences (offset, size, type)
// against perf script -D. perf prints a record's "event: N" line when it
// processes it: perf-tool records as they are read, kernel records when
// its ordered queue delivers them, so that sequence is the TimeOrder one.
// The FileOrder sequence must hold the same records with ascending offsets.
// Truncated dumps (dump-head.txt) are compared as prefixes. For
// compressed files perf 6.1 prints every inner record with the first
// container's offset and no container, so offsets are not compared there.
func TestDumpSequences(t *testing.T) {
	var cases []recording
	for _, r := range recordings(t) {
		if _, err := os.Stat(r.Golden("dump.txt")); err == nil {
			cases = append(cases, r)
		}
	}
	ext, _ := filepath.Glob(filepath.Join(testfixture.ModuleRoot(t), "..", "shared", "external", "*", "*", "dump-head.txt"))
	for _, p := range ext {
		dir := filepath.Dir(p)
		cases = append(cases, recording{"external/" + filepath.Base(dir), dir})
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			dump := c.Golden("dump.txt")
			prefix := false
			if _, err := os.Stat(dump); err != nil {
				dump, prefix = c.Golden("dump-head.txt"), true
			}
			want, _ := dumpSeqs(t, dump)
			if len(want) == 0 {
				t.Skip("perf dumped nothing")
			}
			if prefix {
				// The last record may be cut mid-way.
				want = want[:len(want)-1]
			}
			got, compressed := ourSeq(t, c.Data(), decode.TimeOrder)
			if compressed {
				got, want = stripOffset(got), stripOffset(want)
			}
			if prefix {
				got = got[:min(len(got), len(want))]
			}
			if len(got) != len(want) {
				t.Errorf("time order: %d records, perf %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("time order: record %d: got %q, perf %q", i, got[i], want[i])
					break
				}
			}
			if compressed || prefix {
				return
			}
			fileSeq, _ := ourSeq(t, c.Data(), decode.FileOrder)
			var last uint64
			for i, s := range fileSeq {
				off, _ := strconv.ParseUint(strings.TrimPrefix(strings.Fields(s)[0], "0x"), 16, 64)
				if i > 0 && off <= last {
					t.Fatalf("file order: record %d at %#x after %#x", i, off, last)
				}
				last = off
			}
			if a, b := sorted(fileSeq), sorted(want); !slices.Equal(a, b) {
				t.Errorf("file order holds other records than perf's dump")
			}
		})
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// dumpSampleRE matches perf script -D's sample line:
// "CPU TIME OFF [SIZE]: PERF_RECORD_SAMPLE(IP, 0xMISC): PID/TID: 0xIP period: P addr: A".
var dumpSampleRE = regexp.MustCompile(`^(?:(-?\d+) )?(\d+) (0x[0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE\(IP, 0x([0-9a-f]+)\): (-?\d+)/(-?\d+): 0x([0-9a-f]+) period: (\d+) addr: (\S+)`)

// TestDumpSamples checks every sample's cpu, time, misc, pid/tid, ip,
// period and callchain against perf script -D.
func TestDumpSamples(t *testing.T) {
	cases := recordings(t)
	ext, _ := filepath.Glob(filepath.Join(testfixture.ModuleRoot(t), "..", "shared", "external", "*", "*", "dump-head.txt"))
	for _, p := range ext {
		cases = append(cases, recording{"external/" + filepath.Base(filepath.Dir(p)), filepath.Dir(p)})
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			dump, prefix := c.Golden("dump.txt"), false
			if _, err := os.Stat(dump); err != nil {
				dump, prefix = c.Golden("dump-head.txt"), true
			}
			fh, err := os.Open(dump)
			if err != nil {
				t.Skip(err)
			}
			defer fh.Close()
			var want []string
			sc := bufio.NewScanner(fh)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			inChain, inBranch := false, false
			for sc.Scan() {
				line := sc.Text()
				if m := dumpSampleRE.FindStringSubmatch(line); m != nil {
					want = append(want, fmt.Sprintf("cpu %s time %s misc %s %s/%s ip %s period %s addr %s |", m[1], m[2], m[4], m[5], m[6], m[7], m[8], m[9]))
					inChain, inBranch = false, false
					continue
				}
				if strings.HasPrefix(line, "... FP chain: nr:") {
					inChain, inBranch = len(want) > 0, false
					continue
				}
				if strings.HasPrefix(line, "... branch stack: nr:") {
					inChain, inBranch = false, len(want) > 0
					want[len(want)-1] += " branches"
					continue
				}
				if inChain && strings.HasPrefix(line, ".....") {
					f := strings.Fields(line)
					want[len(want)-1] += " " + strings.TrimLeft(f[len(f)-1], "0")
					continue
				}
				if inBranch && strings.HasPrefix(line, ".....") {
					_, rest, _ := strings.Cut(line, ": ")
					want[len(want)-1] += " [" + rest + "]"
					continue
				}
				inChain, inBranch = false, false
			}
			if len(want) == 0 {
				t.Skip("no samples in the dump")
			}
			f, err := decode.Open(c.Data())
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rs := f.Records(decode.TimeOrder)
			var got []string
			for rs.Next() {
				s, ok := rs.Record().(*decode.Sample)
				if !ok {
					continue
				}
				cpu := ""
				if s.Format&decode.SampleCPU != 0 {
					cpu = strconv.FormatUint(uint64(s.CPU), 10)
				}
				line := fmt.Sprintf("cpu %s time %d misc %x %d/%d ip %x period %d addr %s |", cpu, s.Time, s.Misc, s.PID, s.TID, s.IP, s.Period, hexp(s.Addr))
				for _, ip := range s.Callchain {
					line += " " + strings.TrimLeft(fmt.Sprintf("%016x", ip), "0")
				}
				if s.Format&decode.SampleBranchStack != 0 {
					line += " branches"
					for _, b := range s.Branches {
						ch := func(bit uint, c string) string {
							if b.Flags>>bit&1 != 0 {
								return c
							}
							return " "
						}
						line += fmt.Sprintf(" [%016x -> %016x %d cycles %s%s%s%s %x ]", b.From, b.To, uint16(b.Flags>>4),
							ch(0, "M"), ch(1, "P"), ch(3, "A"), ch(2, "T"), b.Flags>>33)
					}
				}
				got = append(got, line)
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if prefix {
				// The dump is cut: compare what it holds but its last sample.
				want = want[:len(want)-1]
				got = got[:min(len(got), len(want))]
			}
			if len(got) != len(want) {
				t.Errorf("%d samples, perf dumped %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("sample %d:\n got %s\nwant %s", i, got[i], want[i])
				}
			}
		})
	}
}
