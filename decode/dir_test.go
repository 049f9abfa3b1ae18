package decode_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// dirSequence lists the records of a directory recording as OpenDir
// delivers them in time order: type, time, pid/tid.
func dirSequence(t *testing.T, dir string) []string {
	t.Helper()
	f, err := decode.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var seq []string
	var last uint64
	rs := f.Records(decode.TimeOrder)
	for rs.Next() {
		c := rs.Record().Common()
		if rs.Record().Type() == decode.RecordTypeFinishedRound {
			continue
		}
		if c.HasTime() {
			if c.Time < last {
				t.Errorf("%v at %d after %d: not in time order", rs.Record().Type(), c.Time, last)
			}
			last = c.Time
		}
		seq = append(seq, fmt.Sprintf("%v %d %d/%d", rs.Record().Type(), c.Time, c.PID, c.TID))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return seq
}

// TestOpenDirMerge: the records of testdata/threads' data.0 split into
// three files in reverse order come out as the original directory's.
func TestOpenDirMerge(t *testing.T) {
	src := testfixture.Testdata(t, "threads", "perf.data")
	want := dirSequence(t, src)
	if len(want) < 70 {
		t.Fatalf("only %d records in the fixture", len(want))
	}
	hdr, err := os.ReadFile(filepath.Join(src, "data"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(src, "data.0"))
	if err != nil {
		t.Fatal(err)
	}
	// The last third goes to data.0, which is read first, the first third
	// to data.2, each closed by a FINISHED_ROUND as perf's reader threads
	// write them: a round of one file must not release its records before
	// the earlier ones of the next file.
	var recs [][]byte
	for len(raw) >= 8 {
		size := int(binary.LittleEndian.Uint16(raw[6:]))
		if size < 8 || size > len(raw) {
			t.Fatalf("bad record size %d", size)
		}
		recs = append(recs, raw[:size])
		raw = raw[size:]
	}
	round := []byte{68, 0, 0, 0, 0, 0, 8, 0}
	var parts [3][]byte
	for i, r := range recs {
		k := 2 - 3*i/len(recs)
		parts[k] = append(parts[k], r...)
	}
	for k := range parts {
		parts[k] = append(parts[k], round...)
	}
	dst := filepath.Join(t.TempDir(), "split.data")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"data": hdr, "data.0": parts[0], "data.1": parts[1], "data.2": parts[2], "data.notanumber": []byte("x")} {
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := dirSequence(t, dst)
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// TestOpenDirErrors: a directory without a data file is an error.
func TestOpenDirErrors(t *testing.T) {
	if _, err := decode.OpenDir(t.TempDir()); err == nil {
		t.Error("OpenDir of an empty directory: no error")
	}
}
