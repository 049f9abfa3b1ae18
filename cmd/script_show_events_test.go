package cmd

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// TestScriptShowEvents: --show-bpf-events (KSYMBOL and BPF_EVENT of a BPF
// program loaded and unloaded during the recording), --show-round-events
// (FINISHED_ROUND, with every record processed in file order, as perf
// does: a child's samples on one CPU come before its FORK on the other,
// so perf prints them as ":TID" and [unknown]) and both with the task and
// mmap events, on testdata/bpf, and --show-text-poke-events (TEXT_POKE
// records, with the KSYMBOL ones perf shows with them: the poked address's
// symbol in a BPF program, in kallsyms and none) on testdata/textpoke,
// against perf 6.1 and perf 7.3.4 (testdata/goldens-events.sh).
func TestScriptShowEvents(t *testing.T) {
	for _, r := range []struct{ c, golden, args string }{
		{"bpf", "script-bpf-G.txt", "-G --show-bpf-events"},
		{"bpf", "script-round.txt", "--max-stack 2 --show-round-events"},
		{"bpf", "script-round-events.txt", "-G --show-round-events --show-bpf-events --show-task-events --show-mmap-events"},
		{"textpoke", "script-text-poke.txt", "-G --show-text-poke-events"},
		{"textpoke", "script-text-poke-G.txt", "-G --show-text-poke-events --show-bpf-events --show-round-events"},
	} {
		dir := testfixture.Testdata(t, r.c)
		symfs := filepath.Join(dir, "symfs")
		if r.c == "textpoke" {
			symfs = testfixture.Testdata(t, "fp", "symfs")
		}
		for _, d := range []struct{ compat, dir string }{{"6.1", dir}, {"7.3", filepath.Join(dir, "perf7")}} {
			t.Run(r.c+"/"+d.compat+"/"+r.golden, func(t *testing.T) {
				args := []string{"--compat", d.compat, "--symfs", symfs, "--kallsyms", testfixture.Testdata(t, "kallsyms")}
				args = append(append(args, splitArgs(r.args)...), filepath.Join(dir, "perf.data"))
				testfixture.MatchFile(t, filepath.Join(d.dir, r.golden), runScriptArgs(t, args...))
			})
		}
	}
}

// TestScriptShowRoundEventsShared: --show-round-events, with and without
// -G, on every corpus case (perf 6.1 and 7.3.4) and every real deferred
// recording (perf 7.3.4: merged deferred samples where their record is in
// the file), compared through the SHA-256 of perf's text
// (testdata/show-events.sha256; the texts are 1-3 MB).
func TestScriptShowRoundEventsShared(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "show-events.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	shared := testfixture.SharedDir(t)
	lines := regexp.MustCompile(`(?m)^(\S+) (\S+)/(\S+) (\S+) ([0-9a-f]{64})$`).FindAllStringSubmatch(string(b), -1)
	if len(lines) == 0 {
		t.Fatal("no lines in show-events.sha256")
	}
	for _, l := range lines {
		compat, set, name, extra, want := l[1], l[2], l[3], l[4], l[5]
		t.Run(compat+"/"+set+"/"+name+"/"+extra, func(t *testing.T) {
			dir := filepath.Join(shared, set, name)
			args := []string{"--compat", compat, "--symfs", filepath.Join(dir, "symfs"), "--kallsyms", filepath.Join(shared, set, "kallsyms"), "--show-round-events"}
			if extra != "." {
				args = append(args, extra)
			}
			out := runScriptArgs(t, append(args, filepath.Join(dir, "perf.data"))...)
			if got := fmt.Sprintf("%x", sha256.Sum256(out)); got != want {
				t.Errorf("sha256 %s, want perf's %s", got, want)
			}
		})
	}
}
