package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/session"
	"github.com/perfstitch/perfstitch/symbolize"
)

// ScriptOptions are the options of perfstitch script.
type ScriptOptions struct {
	CommonOptions

	Format output.Format // --format

	// Text options (perf script's).
	Fields         output.Fields // -F/--fields
	HideCallchain  bool          // -G/--hide-call-graph
	NS             bool          // --ns
	RelTime        bool          // --reltime
	DeltaTime      bool          // --deltatime
	Header         bool          // --header
	HeaderOnly     bool          // --header-only
	ShowInfo       bool          // -I/--show-info
	MaxStack       int           // --max-stack
	ShowTaskEvents bool          // --show-task-events
	ShowMmapEvents bool          // --show-mmap-events
	ShowLostEvents bool          // --show-lost-events
	ShowSwitch     bool          // --show-switch-events
	ShowNamespaces bool          // --show-namespace-events
	ShowCgroups    bool          // --show-cgroup-events
	ShowRounds     bool          // --show-round-events
	ShowBPF        bool          // --show-bpf-events
	ShowTextPoke   bool          // --show-text-poke-events
	ShowKernelPath bool          // --show-kernel-path

	// Ordering is where merged deferred samples are printed (--ordering):
	// in sample time order, or where perf 7.3.4 prints them. OrderingSet
	// says --ordering was given: the folded formats otherwise take perf's
	// (see scriptSessionOptions).
	Ordering    session.Ordering
	OrderingSet bool

	// Collapsed options (stackcollapse-perf.pl's).
	Collapsed output.CollapsedOptions

	// FlameGraph options (flamegraph.pl's); MinWidth is --minwidth as given.
	FlameGraph output.FlameGraphOptions
	MinWidth   string

	// Output is the file to write instead of standard output (-o).
	Output string
}

// NewCmdScript builds the script command; runF replaces the run function in tests.
func NewCmdScript(f *Factory, runF func(*ScriptOptions) error) *cobra.Command {
	opts := &ScriptOptions{CommonOptions: CommonOptions{IO: f.IO, Getenv: f.Getenv, OnInput: f.OnInput}}
	cmd := &cobra.Command{
		Use:   "script [flags] [perf.data]",
		Short: "Print samples as perf script text, JSON Lines, collapsed stacks, pprof or flame graphs",
		Long: `Print every sample of a recording, with deferred user callchains stitched
back on, byte for byte as perf script prints it (perf 7.3.4; perf 6.1 with
--compat 6.1); or as JSON Lines (--format json, see docs/json.md); or as
folded stacks for flamegraph.pl (--format collapsed, the output of
perf script | stackcollapse-perf.pl); or as a gzipped pprof profile for go
tool pprof, Pyroscope and Parca (--format pprof); or as an interactive flame
graph, an SVG (--format flamegraph) or an HTML page with an icicle view and
comm/pid filters (--format flamegraph-html).`,
		Example: `  perfstitch script perf.data
  perfstitch script -F comm,tid,time,ip,sym,dso -i perf.data
  perfstitch script --format collapsed perf.data | flamegraph.pl > flame.svg
  perfstitch script --format flamegraph -o flame.svg perf.data
  perfstitch script --format pprof -o perf.pb.gz perf.data && go tool pprof -http=: perf.pb.gz
  perf record -o - -g -- ./prog | perfstitch script -i - --format json | jq .`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.complete(args); err != nil {
				return err
			}
			if err := opts.validate(cmd); err != nil {
				return err
			}
			opts.OrderingSet = cmd.Flags().Changed("ordering")
			if runF != nil {
				return runF(opts)
			}
			return opts.finishRun(scriptRun(cmd.Context(), opts))
		},
	}
	addCommonFlags(cmd, &opts.CommonOptions)
	fl := cmd.Flags()
	fl.Var(&opts.Filter.DSOs, "dsos", "only show samples in these DSOs (short or full names, comma-separated)")
	fl.Var(&opts.Format, "format", "output format: text, json, collapsed, pprof (gzipped profile.proto), flamegraph (SVG) or flamegraph-html")
	fl.StringVarP(&opts.Output, "output", "o", "", "write to `file` instead of standard output")
	enumFlag(cmd, "format", output.FormatNames())
	fl.VarP(&opts.Fields, "fields", "F", "text fields to print, as perf's -F: comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period,addr, or +field/-field to change the defaults")
	_ = cmd.RegisterFlagCompletionFunc("fields", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return output.FieldNames(), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
	fl.BoolVarP(&opts.HideCallchain, "hide-call-graph", "G", false, "do not print callchains")
	fl.BoolVar(&opts.NS, "ns", false, "print times with nanoseconds")
	fl.BoolVar(&opts.RelTime, "reltime", false, "print times relative to the first record")
	fl.BoolVar(&opts.DeltaTime, "deltatime", false, "print times relative to the previous record")
	fl.BoolVar(&opts.Header, "header", false, "print the recording's header (as perf report --header-only) before the samples")
	fl.BoolVar(&opts.HeaderOnly, "header-only", false, "print only the recording's header")
	fl.BoolVarP(&opts.ShowInfo, "show-info", "I", false, "with --header, print the topology, cache and memory sections in full (pipe mode: print the header features also without --header)")
	// With kallsyms the kernel's path is "[kernel.kallsyms]", which is
	// what perf prints with the flag too; with a vmlinux, its path.
	fl.BoolVar(&opts.ShowKernelPath, "show-kernel-path", false, "print the kernel's path for kernel frames (the -k vmlinux; [kernel.kallsyms] with kallsyms)")
	addUnsupportedScriptFlags(cmd)
	addShowEventFlags(cmd, opts)
	addDumpFlag(cmd, &opts.CommonOptions, "print every record as perf script -D does (offset, size, hex dump, decoded fields), each sample's text after its record")
	fl.IntVar(&opts.MaxStack, "max-stack", symbolize.DefaultMaxStack, "print at most this many callchain entries")
	fl.BoolVar(&opts.ShowTaskEvents, "show-task-events", false, "also print COMM, FORK and EXIT records")
	fl.BoolVar(&opts.ShowMmapEvents, "show-mmap-events", false, "also print MMAP and MMAP2 records")
	fl.BoolVar(&opts.ShowLostEvents, "show-lost-events", false, "also print LOST records")
	fl.Var(&orderingValue{&opts.Ordering}, "ordering", "where merged deferred samples go: time (sample time order) or perf (where perf 7.3.4 prints them, at their deferred record)")
	enumFlag(cmd, "ordering", orderingNames[:])
	fl.BoolVar(&opts.ShowNamespaces, "show-namespace-events", false, "also print NAMESPACES records (perf record --namespaces)")
	fl.BoolVar(&opts.ShowCgroups, "show-cgroup-events", false, "also print CGROUP records (perf record --all-cgroups)")
	fl.BoolVar(&opts.ShowSwitch, "show-switch-events", false, "also print context switch records (SWITCH, SWITCH_CPU_WIDE; perf record --switch-events)")
	fl.BoolVar(&opts.Collapsed.PID, "collapse-pid", false, "collapsed: append -PID to process names (stackcollapse-perf.pl --pid)")
	fl.BoolVar(&opts.Collapsed.TID, "collapse-tid", false, "collapsed: append -PID/TID to process names (stackcollapse-perf.pl --tid)")
	fl.BoolVar(&opts.Collapsed.Kernel, "kernel", false, "collapsed: mark kernel frames with _[k]")
	fl.BoolVar(&opts.Collapsed.JIT, "jit", false, "collapsed: mark JIT frames (/tmp/perf-PID.map) with _[j]")
	fl.BoolVar(&opts.Collapsed.All, "all", false, "collapsed: all annotations (--kernel --jit)")
	fl.BoolVar(&opts.Collapsed.Addrs, "addrs", false, "collapsed: show addresses of unresolved frames")
	fl.StringVar(&opts.Collapsed.EventFilter, "event-filter", "", "collapsed: keep only this event (default: the first event seen)")
	fl.StringVar(&opts.FlameGraph.Title, "title", "", "flamegraph: title text (default \"Flame Graph\")")
	// Zero defaults (the help names the real ones) keep ScriptOptions
	// comparable with its zero value for the other formats.
	fl.IntVar(&opts.FlameGraph.Width, "width", 0, "flamegraph: width of the image in pixels (default 1200)")
	fl.StringVar(&opts.MinWidth, "minwidth", "", "flamegraph: leave out frames narrower than this many pixels, or this percentage of the width (\"1%\") (default 0.1)")
	fl.BoolVar(&opts.FlameGraph.Reverse, "reverse", false, "flamegraph: draw reversed stacks, leaf first")
	fl.StringVar(&opts.FlameGraph.Colors, "colors", "", "flamegraph: palette: java (by frame kind: kernel orange, user red, C++ yellow, JIT green, inlined aqua), js, hot, mem, io, red, green, blue, aqua, yellow, purple, orange (default java)")
	enumFlag(cmd, "colors", output.FlameGraphPalettes())
	return cmd
}

// validate rejects flags that do not apply to the chosen format.
func (o *ScriptOptions) validate(cmd *cobra.Command) error {
	changed := func(names ...string) string {
		for _, n := range names {
			if cmd.Flags().Changed(n) {
				return n
			}
		}
		return ""
	}
	if err := checkUnsupported(cmd); err != nil {
		return err
	}
	if err := o.checkShowEvents(cmd); err != nil {
		return err
	}
	if o.RelTime && o.DeltaTime {
		return FlagErrorf("--reltime and --deltatime are mutually exclusive")
	}
	if !o.dialect().DataSrcLevelNum {
		if names := o.Fields.Named(output.FieldsSince61).Names(); len(names) > 0 {
			return FlagErrorf("invalid field requested: %q (perf %s has no such field)", names[0], o.dialect().Version)
		}
	}
	if o.MaxStack < 1 {
		return FlagErrorf("--max-stack must be at least 1, not %d", o.MaxStack)
	}
	if o.Format != output.FormatCollapsed {
		if n := changed("collapse-pid", "collapse-tid", "kernel", "jit", "all", "addrs", "event-filter"); n != "" {
			return FlagErrorf("--%s applies only to --format collapsed", n)
		}
	}
	if o.Format != output.FormatText {
		if n := changed("fields", "ns", "reltime", "deltatime", "header", "header-only", "show-info"); n != "" {
			return FlagErrorf("--%s applies only to --format text", n)
		}
	}
	if o.Format == output.FormatCollapsed {
		if n := changed("hide-call-graph", "show-task-events", "show-mmap-events", "show-lost-events", "show-switch-events", "show-namespace-events", "show-cgroup-events", "max-stack"); n != "" {
			return FlagErrorf("--%s does not apply to --format collapsed", n)
		}
	}
	flame := o.Format == output.FormatFlameGraph || o.Format == output.FormatFlameGraphHTML
	if !flame {
		if n := changed("title", "width", "minwidth", "reverse", "colors"); n != "" {
			return FlagErrorf("--%s applies only to --format flamegraph and flamegraph-html", n)
		}
	}
	if flame || o.Format == output.FormatPprof {
		if n := changed("hide-call-graph", "show-task-events", "show-mmap-events", "show-lost-events", "show-switch-events", "show-namespace-events", "show-cgroup-events"); n != "" {
			return FlagErrorf("--%s does not apply to --format %s", n, o.Format)
		}
	}
	if flame && changed("max-stack") != "" {
		return FlagErrorf("--max-stack does not apply to --format %s (the graph has the stacks of --format collapsed)", o.Format)
	}
	if flame {
		o.FlameGraph.MinWidth = -1 // flamegraph.pl's default
		if o.MinWidth != "" {
			mw, pct := strings.CutSuffix(o.MinWidth, "%")
			v, err := strconv.ParseFloat(mw, 64)
			if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return FlagErrorf("--minwidth %q is not a width in pixels or a percentage", o.MinWidth)
			}
			o.FlameGraph.MinWidth, o.FlameGraph.MinWidthPercent = v, pct
		}
		o.FlameGraph.HTML = o.Format == output.FormatFlameGraphHTML
		if changed("width") != "" && o.FlameGraph.Width < 1 {
			return FlagErrorf("--width must be at least 1, not %d", o.FlameGraph.Width)
		}
		if err := output.CheckFlameGraphOptions(o.FlameGraph); err != nil {
			return FlagErrorf("--colors: %v", err)
		}
	}
	return nil
}

// scriptRun prints the recording in the chosen format.
func scriptRun(ctx context.Context, opts *ScriptOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.DumpRawTrace {
		return scriptDumpRun(ctx, opts)
	}
	p, err := openSession(ctx, &opts.CommonOptions, scriptSessionOptions(opts))
	if err != nil {
		return err
	}
	defer p.Close()
	opts.State.lostShown = opts.ShowLostEvents

	out := opts.IO.Out
	if opts.Output != "" {
		f, err := os.Create(opts.Output)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	// perf script -I without --header prints a pipe's header features as
	// their records arrive (the file header lines are --header's).
	pipeInfo := opts.ShowInfo && p.File().Header.Pipe
	if opts.Header || opts.HeaderOnly || pipeInfo {
		if err := output.WriteHeader(out, p.File(), output.HeaderOptions{
			Captured: inputMtime(&opts.CommonOptions), Compat: opts.dialect(),
			ShowInfo: opts.ShowInfo, FeaturesOnly: !opts.Header && !opts.HeaderOnly,
		}); err != nil {
			return err
		}
		if opts.HeaderOnly {
			return nil
		}
	}

	if opts.Fields.Wants(output.FieldTod) && p.File().Meta.ClockData == nil {
		//lint:ignore ST1005 perf's message, word for word
		return errors.New("Can't provide 'tod' time, missing clock data. Please record with -k/--clockid option.")
	}
	var cgroups *output.CgroupNames
	if opts.Format == output.FormatText && opts.Fields.Wants(output.FieldCgroup) {
		cgroups = new(output.CgroupNames)
	}
	sink, err := newScriptSink(opts, p, out, cgroups)
	if err != nil {
		return err
	}
	if par := newParallel(opts, p, sink); par != nil {
		err := runParallel(p, par)
		ferr := sink.Flush()
		if err != nil {
			return err
		}
		if err := p.Err(); err != nil {
			return err
		}
		return closeOutput(out, opts, ferr)
	}
	rs, _ := sink.(output.RecordSink)
	for p.Next() {
		if ev := p.Event(); ev != nil {
			err = sink.Add(ev)
		} else if rec := p.Record(); countOnly(rec) {
			opts.State.noteRecord(rec) // asked for only to be counted
		} else if cgroups != nil && noteCgroup(cgroups, rec) && !opts.ShowCgroups {
			// asked for only to name the cgroups of -F cgroup
		} else if rs != nil {
			err = rs.AddRecord(rec)
		}
		if err != nil {
			sink.Flush() // joins the writer; the first error is err
			return err
		}
	}
	ferr := sink.Flush()
	if err := p.Err(); err != nil {
		return err
	}
	return closeOutput(out, opts, ferr)
}

// closeOutput returns the sink's Flush error ferr, else the error of
// closing the -o file.
func closeOutput(out io.Writer, opts *ScriptOptions, ferr error) error {
	if ferr != nil {
		return ferr
	}
	if f, ok := out.(*os.File); ok && opts.Output != "" {
		return f.Close()
	}
	return nil
}

// newParallel returns the parallel formatter of sink (output.Parallel)
// when the run has cores for more than one formatting worker: --jobs
// counts the producer and the symbolizer, and the workers are the rest.
// It returns nil when one goroutine formats (the caller's, through
// Next), as with -j 1, -j 2 and -j 3, or when the session or the sink
// cannot run concurrently (a pipe-mode stream; --reltime).
func newParallel(opts *ScriptOptions, p *runSession, sink output.Sink) *output.Parallel {
	workers := opts.jobs() - 2
	if workers < 2 || !p.Concurrent() {
		return nil
	}
	return output.NewParallel(sink, workers)
}

// runParallel hands the session's batches to par and waits for their
// output; the error is the first formatting or write error.
func runParallel(p *runSession, par *output.Parallel) error {
	var err error
	for b := p.NextBatch(); b != nil; b = p.NextBatch() {
		if err = par.Add(b); err != nil {
			break
		}
	}
	if ferr := par.Flush(); err == nil {
		err = ferr
	}
	return err
}

// scriptSessionOptions returns the session options of a script run:
// the symbolization its format wants and the records it shows.
func scriptSessionOptions(opts *ScriptOptions) session.Options {
	so := session.Options{Symbolize: symbolize.Options{MaxStack: opts.MaxStack, ShowKernelPath: opts.ShowKernelPath}, Ordering: opts.Ordering}
	if opts.Format == output.FormatJSON {
		// JSON is the same in every dialect: the newest dialect's
		// symbolization, full names with parameters and inline frames
		// (docs/json.md).
		so.Symbolize.Compat = compat.Known()[0]
	}
	// perf 7 script forgets a thread at its EXIT: a sample printed after
	// it shows the comm ":TID". The formats that print perf script's text
	// (or fold it) follow; JSON and pprof keep the thread's name.
	switch opts.Format {
	case output.FormatText, output.FormatCollapsed, output.FormatFlameGraph, output.FormatFlameGraphHTML:
		so.Symbolize.DropExitedThreads = opts.dialect().ScriptForgetsExitedThreads
	}
	so.Symbolize.SrcLine = opts.Format == output.FormatText && opts.Fields.Wants(output.FieldSrcline)
	switch opts.Format {
	case output.FormatCollapsed, output.FormatFlameGraph, output.FormatFlameGraphHTML:
		// Folded stacks do not depend on the order of the samples but
		// for the event of the first one (the default --event-filter),
		// which is that of the first sample perf script prints: fold
		// them in perf's order, which holds nothing back (by time, every
		// item after a sample still waiting for its deferred record is
		// held and copied: 2.7 times the CPU on a deferred recording).
		if !opts.OrderingSet {
			so.Ordering = session.AsPerf
		}
	}
	if opts.Format == output.FormatPprof {
		// pprof asks the symbolizer for mappings and source lines as it
		// adds a sample: on the symbolizer's goroutine.
		so.Jobs = 1
	}
	if opts.ShowTaskEvents {
		so.Show = append(so.Show, decode.RecordTypeComm, decode.RecordTypeFork, decode.RecordTypeExit)
	}
	if opts.ShowMmapEvents {
		so.Show = append(so.Show, decode.RecordTypeMmap, decode.RecordTypeMmap2)
	}
	if opts.ShowLostEvents {
		so.Show = append(so.Show, decode.RecordTypeLost)
	}
	if opts.ShowNamespaces {
		so.Show = append(so.Show, decode.RecordTypeNamespaces)
	}
	// LOST_SAMPLES records are counted for perf's drop-rate warning.
	so.Show = append(so.Show, decode.RecordTypeLostSamples)
	if opts.ShowCgroups || opts.Format == output.FormatText && opts.Fields.Wants(output.FieldCgroup) {
		so.Show = append(so.Show, decode.RecordTypeCgroup)
	}
	if opts.ShowSwitch {
		so.Show = append(so.Show, decode.RecordTypeSwitch, decode.RecordTypeSwitchCPUWide)
	}
	if opts.NoMergeCallchains && opts.Format != output.FormatCollapsed {
		so.Show = append(so.Show, decode.RecordTypeCallchainDeferred)
	}
	opts.showEvents(&so)
	return so
}

// newScriptSink returns the sink of opts.Format writing to out for the
// session p.
// cgroups names the cgroups of -F cgroup (nil without it).
func newScriptSink(opts *ScriptOptions, p *runSession, out io.Writer, cgroups *output.CgroupNames) (output.Sink, error) {
	var sink output.Sink
	switch opts.Format {
	case output.FormatText:
		t := output.NewText(out, p.Attrs, output.TextOptions{
			Fields:        opts.Fields,
			HideCallchain: opts.HideCallchain,
			NS:            opts.NS,
			RelTime:       opts.RelTime,
			DeltaTime:     opts.DeltaTime,
			MaxStack:      opts.MaxStack,
			Compat:        opts.dialect(),
			ClockData:     p.File().Meta.ClockData,
			Cgroups:       cgroups,
		})
		if err := t.CheckFields(); err != nil {
			return nil, err
		}
		sink = t
	case output.FormatJSON:
		sink = output.NewJSON(out, p.Attrs, output.JSONOptions{
			HideCallchain: opts.HideCallchain,
			MaxStack:      opts.MaxStack,
		})
	case output.FormatCollapsed:
		co := opts.Collapsed
		co.Compat = opts.dialect()
		sink = output.NewCollapsed(out, opts.IO.ErrOut, p.Attrs, co)
	case output.FormatPprof:
		sink = output.NewPprof(out, p.Attrs, output.PprofOptions{
			MaxStack:   opts.MaxStack,
			Mappings:   p.Symbolizer().MappingAt,
			SourceLine: p.Symbolizer().SourceLine,
			Meta:       func() *decode.Meta { return &p.File().Meta },
		})
	case output.FormatFlameGraph, output.FormatFlameGraphHTML:
		sink = output.NewFlameGraph(out, opts.IO.ErrOut, p.Attrs, opts.FlameGraph)
	default:
		return nil, errors.New("unknown format")
	}
	return sink, nil
}

// orderingNames are the values of --ordering, by session.Ordering.
var orderingNames = [...]string{session.ByTime: "time", session.AsPerf: "perf"}

// orderingValue is the pflag.Value of --ordering.
type orderingValue struct{ o *session.Ordering }

// String returns the ordering's name.
func (v *orderingValue) String() string {
	if v.o == nil || int(*v.o) >= len(orderingNames) {
		return orderingNames[0]
	}
	return orderingNames[*v.o]
}

// Set parses an ordering name.
func (v *orderingValue) Set(name string) error {
	for i, n := range orderingNames {
		if n == name {
			*v.o = session.Ordering(i)
			return nil
		}
	}
	return fmt.Errorf("unknown ordering %q (known: time, perf)", name)
}

// Type is the value's name in --help.
func (v *orderingValue) Type() string { return "order" }

// noteCgroup adds rec to names if it is a CGROUP record, and reports
// whether it was one.
func noteCgroup(names *output.CgroupNames, rec *output.Record) bool {
	cg, ok := rec.Record.(*decode.Cgroup)
	if ok {
		names.Add(cg)
	}
	return ok
}

// countOnly reports whether rec is a LOST_SAMPLES record, which script
// asks the session for only to count it (perf script prints none).
func countOnly(rec *output.Record) bool {
	_, ok := rec.Record.(*decode.LostSamples)
	return ok
}
