package cmd

import (
	"bufio"
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/output/report"
	"github.com/perfstitch/perfstitch/output/stats"
	"github.com/perfstitch/perfstitch/session"
)

// addDumpFlag declares -D/--dump-raw-trace on script and report.
func addDumpFlag(cmd *cobra.Command, o *CommonOptions, usage string) {
	cmd.Flags().BoolVarP(&o.DumpRawTrace, "dump-raw-trace", "D", false, usage)
}

// dumpPath is the input as perf's dump names it: the -i argument.
func dumpPath(o *CommonOptions) string {
	if o.Input == "" {
		return "perf.data"
	}
	return o.Input
}

// scriptDumpRun is perf script -D: the dump of every record, each
// sample's thread and DSO lines and its perf script text after its
// record (a merged deferred sample after its CALLCHAIN_DEFERRED record,
// where perf 7.3.4 prints it).
func scriptDumpRun(ctx context.Context, opts *ScriptOptions) error {
	if opts.Format != output.FormatText {
		return FlagErrorf("--dump-raw-trace prints perf's text: it does not combine with --format %s", opts.Format)
	}
	var d *output.Dump
	so := scriptSessionOptions(opts)
	// perf prints the thread and DSO lines of the samples its thread
	// and symbol filters hide (machine__resolve comes first).
	so.CountHidden = true
	so.Raw = func(r decode.Record, raw []byte) { d.Record(r, raw) }
	p, err := openSession(ctx, &opts.CommonOptions, so)
	if err != nil {
		return err
	}
	defer p.Close()
	out, closeOut, err := dumpOutput(opts.IO.Out, opts.Output)
	if err != nil {
		return err
	}
	defer closeOut()
	sink, err := newScriptSink(opts, p, out, nil)
	if err != nil {
		return err
	}
	t := sink.(*output.Text)
	d = output.NewDump(t, p.Attrs, output.DumpOptions{
		Path: dumpPath(&opts.CommonOptions), Pipe: p.File().Header.Pipe, Compat: opts.dialect(),
		Meta: func() *decode.Meta { return &p.File().Meta },
	})
	for p.Next() {
		if ev := p.Event(); ev != nil {
			d.Sample(ev)
			if !p.Hidden() {
				err = t.Add(ev)
			}
		} else {
			err = t.AddRecord(p.Record())
		}
		if err == nil {
			err = d.Err()
		}
		if err != nil {
			t.Flush()
			return err
		}
	}
	ferr := t.Flush()
	if err := p.Err(); err != nil {
		return err
	}
	if ferr != nil {
		return ferr
	}
	return closeOut()
}

// reportDumpRun is perf report -D: perf report's header line, the dump
// of every record with each sample's thread and DSO lines (perf report
// processes a deferred sample where it is, not merged), and the record
// counts of perf report --stats.
func reportDumpRun(ctx context.Context, opts *ReportOptions) error {
	w := bufio.NewWriterSize(opts.Common.IO.Out, 256<<10)
	var d *output.Dump
	o := opts.Common
	o.NoMergeCallchains = true
	// perf report -D counts no LOST_SAMPLES per event (--stats does).
	p, err := openSession(ctx, &o, session.Options{
		Show:        []decode.RecordType{decode.RecordTypeLost, decode.RecordTypeThrottle, decode.RecordTypeUnthrottle},
		CountHidden: true,
		Raw:         func(r decode.Record, raw []byte) { d.Record(r, raw) },
	})
	if err != nil {
		return err
	}
	defer p.Close()
	d = output.NewDump(w, p.Attrs, output.DumpOptions{
		Path: dumpPath(&opts.Common), Pipe: p.File().Header.Pipe, Report: true, Compat: opts.Common.dialect(),
		Meta: func() *decode.Meta { return &p.File().Meta },
	})
	w.WriteString("# To display the perf.data header info, please use --header/--header-only options.\n#\n")
	// perf's sort__setup_elide: a filter of one comm, DSO or symbol on a
	// sort key names it.
	only := opts.Common.Filter.only()
	for _, k := range opts.Sort {
		if v, ok := only[k]; ok {
			w.WriteString("# " + elideNames[k] + ": " + v + "\n")
		}
	}
	col := stats.NewCollector()
	for p.Next() {
		if ev := p.Event(); ev != nil {
			d.Sample(ev)
			err = col.Add(ev)
		} else {
			err = col.AddRecord(p.Record())
		}
		if err == nil {
			err = d.Err()
		}
		if err != nil {
			return err
		}
	}
	readErr := p.Err()
	if readErr != nil && ctx.Err() != nil {
		return readErr
	}
	st := runStats(col, p, &opts.Common)
	if err := st.WritePerf(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return readErr
}

// elideNames are the names perf report prints for a sort key that a
// one-value filter elides.
var elideNames = map[report.SortKey]string{report.SortComm: "comm", report.SortDSO: "dso", report.SortSym: "symbol"}

// dumpOutput opens -o FILE, or returns stdout; closeOut closes the file
// once (later calls return nil).
func dumpOutput(stdout io.Writer, name string) (out io.Writer, closeOut func() error, err error) {
	if name == "" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, nil, err
	}
	closed := false
	return f, func() error {
		if closed {
			return nil
		}
		closed = true
		return f.Close()
	}, nil
}
