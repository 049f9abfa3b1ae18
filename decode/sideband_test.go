package decode_test

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
)

// hexp formats like C's %#lx (0 without a prefix).
func hexp(v uint64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%#x", v)
}

// sideband renders the body of a task or mmap record the way perf script
// --show-task-events --show-mmap-events prints it (perf_event__fprintf_*),
// or "" for other records.
func sideband(r decode.Record) string {
	switch r := r.(type) {
	case *decode.Mmap:
		if !r.V2 {
			c := 'x'
			if !r.Executable() {
				c = 'r'
			}
			return fmt.Sprintf("PERF_RECORD_MMAP %d/%d: [%#x(%#x) @ %s]: %c %s", r.PID, r.TID, r.Addr, r.Len, hexp(r.Pgoff), c, r.Filename)
		}
		prot := []byte("---p")
		if r.Prot&1 != 0 {
			prot[0] = 'r'
		}
		if r.Prot&2 != 0 {
			prot[1] = 'w'
		}
		if r.Prot&4 != 0 {
			prot[2] = 'x'
		}
		if r.Flags&1 != 0 {
			prot[3] = 's'
		}
		dev := fmt.Sprintf("%02x:%02x %d %d", r.Maj, r.Min, r.Ino, r.InoGeneration)
		if r.Misc&decode.MiscMmapBuildID != 0 {
			dev = hex.EncodeToString(r.BuildID)
		}
		return fmt.Sprintf("PERF_RECORD_MMAP2 %d/%d: [%#x(%#x) @ %s %s]: %s %s", r.PID, r.TID, r.Addr, r.Len, hexp(r.Pgoff), dev, prot, r.Filename)
	case *decode.Comm:
		exec := ""
		if r.Exec() {
			exec = " exec"
		}
		return fmt.Sprintf("PERF_RECORD_COMM%s: %s:%d/%d", exec, r.Comm, r.PID, r.TID)
	case *decode.Fork:
		return fmt.Sprintf("PERF_RECORD_FORK(%d:%d):(%d:%d)", r.PID, r.TID, r.PPID, r.PTID)
	case *decode.Exit:
		return fmt.Sprintf("PERF_RECORD_EXIT(%d:%d):(%d:%d)", r.PID, r.TID, r.PPID, r.PTID)
	}
	return ""
}

// TestSideBandRecords checks the body fields of MMAP, MMAP2, COMM, FORK and
// EXIT, in time order, against perf script --show-task-events
// --show-mmap-events.
func TestSideBandRecords(t *testing.T) {
	for _, c := range recordings(t) {
		t.Run(c.Name, func(t *testing.T) {
			fh, err := os.Open(c.Golden("script-events.txt"))
			if err != nil {
				t.Skip(err)
			}
			defer fh.Close()
			var want []string
			sc := bufio.NewScanner(fh)
			for sc.Scan() {
				if _, rest, ok := strings.Cut(sc.Text(), ": PERF_RECORD_"); ok {
					want = append(want, "PERF_RECORD_"+rest)
				}
			}
			f, err := decode.Open(c.Data())
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rs := f.Records(decode.TimeOrder)
			var got []string
			for rs.Next() {
				if s := sideband(rs.Record()); s != "" {
					got = append(got, s)
				}
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%d side-band records, perf printed %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("record %d:\n got %s\nwant %s", i, got[i], want[i])
				}
			}
		})
	}
}
