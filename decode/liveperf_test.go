package decode_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// TestLivePerf records a short system-wide profile with the perf on this
// machine (per-CPU buffers, several rounds: the case where time ordering
// matters) in file and pipe mode, and checks the sample order against
// perf script. It is skipped without perf or the rights to record.
func TestLivePerf(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed")
	}
	dir := t.TempDir()
	for _, mode := range []string{"file", "pipe"} {
		t.Run(mode, func(t *testing.T) {
			data := filepath.Join(dir, mode+".data")
			var cmd *exec.Cmd
			args := []string{"record", "-q", "-a", "-e", "cpu-clock", "-F", "2000", "-g"}
			if mode == "pipe" {
				cmd = exec.Command("sh", "-c", perf+" "+strings.Join(args, " ")+" -o - -- sleep 0.3 > "+data)
			} else {
				cmd = exec.Command(perf, append(args, "-o", data, "--", "sleep", "0.3")...)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Skipf("perf record failed: %v\n%s", err, out)
			}
			out, err := exec.Command(perf, "script", "-i", data, "-F", "pid,tid,cpu,time,period,event").Output()
			if err != nil {
				t.Skipf("perf script failed: %v", err)
			}
			space := regexp.MustCompile(`\s+`)
			var want []string
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				// In pipe mode perf script -F prints the callchain too;
				// keep the sample lines.
				if line := sc.Text(); line != "" && line[0] != '\t' {
					want = append(want, strings.TrimSpace(space.ReplaceAllString(line, " ")))
				}
			}
			f, err := decode.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rs := f.Records(decode.TimeOrder)
			var got []string
			for rs.Next() {
				if s, ok := rs.Record().(*decode.Sample); ok {
					got = append(got, fmt.Sprintf("%d/%d [%03d] %d.%06d: %d %s:", s.PID, s.TID, s.CPU,
						s.Time/1e9, s.Time%1e9/1000, s.Period, s.Attr.Name))
				}
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%d samples, perf script %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("sample %d: %q, perf %q", i, got[i], want[i])
				}
			}
			t.Logf("%d samples, %d FINISHED_ROUND", len(got), rs.Stats().Counts[decode.RecordTypeFinishedRound])
		})
	}
}
