package cmd

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/testfixture"
	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/session"
)

// corpusSkip lists corpus cases perfstitch does not reproduce, and why.
var corpusSkip = map[string]string{}

// TestScriptCorpus compares perfstitch script with perf 6.1's goldens for
// every case of ../shared/corpus: script.txt through the whole command,
// and script-F, -G, the task/mmap events and the collapsed outputs from
// one pass of the pipeline feeding every writer (to keep the test fast).
func TestScriptCorpus(t *testing.T) {
	for _, c := range testfixture.Corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			if why, ok := corpusSkip[c.Name]; ok {
				t.Skip(why)
			}
			f, out, errOut := testFactory()
			code := Run(context.Background(), f, []string{"script", "--compat", "6.1", "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, c.Data})
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			testfixture.MatchFile(t, c.Golden("script.txt"), out.Bytes())
			if noInline := c.Golden("script-noinline.txt"); fileExists(noInline) {
				f, out, errOut := testFactory()
				code := Run(context.Background(), f, []string{"script", "--compat", "6.1", "--no-inline", "--symfs", c.Symfs, "--kallsyms", c.Kallsyms, c.Data})
				if code != ExitOK {
					t.Fatalf("--no-inline: exit %d: %s", code, errOut)
				}
				testfixture.MatchFile(t, noInline, out.Bytes())
			}

			fields := "comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period"
			if c.Name == "c-pie-so" {
				fields = "comm,pid,tid,time,event,ip,sym,symoff,dso,period" // no PERF_SAMPLE_CPU
			}
			fs, err := output.ParseFields(fields)
			if err != nil {
				t.Fatal(err)
			}
			p, err := openSession(context.Background(), &CommonOptions{IO: f.IO, Getenv: f.Getenv,
				Input: c.Data, Symfs: c.Symfs, Kallsyms: c.Kallsyms, Compat: compat.Perf61}, session.Options{
				Show: []decode.RecordType{decode.RecordTypeComm, decode.RecordTypeFork, decode.RecordTypeExit,
					decode.RecordTypeMmap, decode.RecordTypeMmap2},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			var bF, bG, bEv, bCol, bAll, eCol, eAll bytes.Buffer
			textF := output.NewText(&bF, p.Attrs, output.TextOptions{Fields: fs, Compat: compat.Perf61})
			textG := output.NewText(&bG, p.Attrs, output.TextOptions{HideCallchain: true, Compat: compat.Perf61})
			textEv := output.NewText(&bEv, p.Attrs, output.TextOptions{HideCallchain: true, Compat: compat.Perf61})
			col := output.NewCollapsed(&bCol, &eCol, p.Attrs, output.CollapsedOptions{})
			colAll := output.NewCollapsed(&bAll, &eAll, p.Attrs, output.CollapsedOptions{All: true})
			sinks := []output.Sink{textF, textG, textEv, col, colAll}
			for p.Next() {
				if ev := p.Event(); ev != nil {
					for _, s := range sinks {
						if err := s.Add(ev); err != nil {
							t.Fatal(err)
						}
					}
				} else if err := textEv.AddRecord(p.Record()); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			for _, s := range sinks {
				if err := s.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			testfixture.MatchFile(t, c.Golden("script-F.txt"), bF.Bytes())
			testfixture.MatchFile(t, c.Golden("script-nocallchain.txt"), bG.Bytes())
			testfixture.MatchFile(t, c.Golden("script-events.txt"), bEv.Bytes())
			testfixture.MatchFile(t, c.Golden("collapsed.txt"), bCol.Bytes())
			testfixture.MatchFile(t, c.Golden("collapsed-all.txt"), bAll.Bytes())
			checkStderr(t, c.Golden("collapsed.txt.stderr"), eCol.Bytes())
			checkStderr(t, c.Golden("collapsed-all.txt.stderr"), eAll.Bytes())
		})
	}
}

// fileExists reports whether a golden file is there (script-noinline.txt
// exists only in the dwarf case).
func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// checkStderr compares diagnostics with a *.stderr golden, which exists
// only when perf (or stackcollapse-perf.pl) printed something.
func checkStderr(t *testing.T, golden string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(golden)
	if err != nil && !os.IsNotExist(err) {
		t.Errorf("golden: %v", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: stderr %q, want %q", golden, got, want)
	}
}
