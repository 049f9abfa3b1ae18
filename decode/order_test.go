package decode_test

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// scriptHeaderRE matches a sample line of perf script -F
// comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period.
var scriptHeaderRE = regexp.MustCompile(`^\s*\S.*?\s+(\d+)/(\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d{6}):\s+(\d+)\s+(\S+):`)

// TestCorpusSampleOrder checks that TimeOrder delivers the samples in the
// order perf script prints them, with the same pid/tid, cpu, time, period
// and event name.
func TestCorpusSampleOrder(t *testing.T) {
	for _, c := range recordings(t) {
		t.Run(c.Name, func(t *testing.T) {
			fh, err := os.Open(c.Golden("script-F.txt"))
			if err != nil {
				t.Skip(err)
			}
			defer fh.Close()
			var want []string
			sc := bufio.NewScanner(fh)
			for sc.Scan() {
				m := scriptHeaderRE.FindStringSubmatch(sc.Text())
				if m == nil {
					continue
				}
				cpu := m[3]
				if cpu == "" {
					cpu = "-"
				}
				want = append(want, fmt.Sprintf("%s/%s [%s] %s %s %s", m[1], m[2], cpu, m[4], m[5], m[6]))
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
				cpu := "-"
				if s.Format&decode.SampleCPU != 0 {
					cpu = fmt.Sprintf("%03d", s.CPU)
				}
				got = append(got, fmt.Sprintf("%d/%d [%s] %d.%06d %d %s", s.PID, s.TID, cpu,
					s.Time/1e9, s.Time%1e9/1000, s.Period, s.Attr.Name))
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%d samples, perf script printed %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("sample %d:\n got %s\nwant %s", i, got[i], want[i])
				}
			}
		})
	}
}
