package cmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/decode"
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
	MaxStack       int           // --max-stack
	ShowTaskEvents bool          // --show-task-events
	ShowMmapEvents bool          // --show-mmap-events
	ShowLostEvents bool          // --show-lost-events

	// Collapsed options (stackcollapse-perf.pl's).
	Collapsed output.CollapsedOptions
}

// NewCmdScript builds the script command; runF replaces the run function in tests.
func NewCmdScript(f *Factory, runF func(*ScriptOptions) error) *cobra.Command {
	opts := &ScriptOptions{CommonOptions: CommonOptions{IO: f.IO, Getenv: f.Getenv}}
	cmd := &cobra.Command{
		Use:   "script [flags] [perf.data]",
		Short: "Print samples as perf script text, JSON Lines or collapsed stacks",
		Long: `Print every sample of a recording, with deferred user callchains stitched
back on, byte for byte as perf script prints it (perf 7.3.4; perf 6.1 with
--compat 6.1); or as JSON Lines (--format json, see docs/json.md); or as
folded stacks for flamegraph.pl (--format collapsed, the output of
perf script | stackcollapse-perf.pl).`,
		Example: `  perfstitch script perf.data
  perfstitch script -F comm,tid,time,ip,sym,dso -i perf.data
  perfstitch script --format collapsed perf.data | flamegraph.pl > flame.svg
  perf record -o - -g -- ./prog | perfstitch script -i - --format json | jq .`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.complete(args); err != nil {
				return err
			}
			if err := opts.validate(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return scriptRun(cmd.Context(), opts)
		},
	}
	addCommonFlags(cmd, &opts.CommonOptions)
	fl := cmd.Flags()
	fl.Var(&opts.Filter.DSOs, "dsos", "only show samples in these DSOs (short or full names, comma-separated)")
	fl.Var(&opts.Format, "format", "output format: text, json or collapsed")
	enumFlag(cmd, "format", output.FormatNames())
	fl.VarP(&opts.Fields, "fields", "F", "text fields to print, as perf's -F: comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period,addr, or +field/-field to change the defaults")
	_ = cmd.RegisterFlagCompletionFunc("fields", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return output.FieldNames(), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
	fl.BoolVarP(&opts.HideCallchain, "hide-call-graph", "G", false, "do not print callchains")
	fl.BoolVar(&opts.NS, "ns", false, "print times with nanoseconds")
	fl.BoolVar(&opts.RelTime, "reltime", false, "print times relative to the first record")
	fl.IntVar(&opts.MaxStack, "max-stack", symbolize.DefaultMaxStack, "print at most this many callchain entries")
	fl.BoolVar(&opts.ShowTaskEvents, "show-task-events", false, "also print COMM, FORK and EXIT records")
	fl.BoolVar(&opts.ShowMmapEvents, "show-mmap-events", false, "also print MMAP and MMAP2 records")
	fl.BoolVar(&opts.ShowLostEvents, "show-lost-events", false, "also print LOST records")
	fl.BoolVar(&opts.Collapsed.PID, "collapse-pid", false, "collapsed: append -PID to process names (stackcollapse-perf.pl --pid)")
	fl.BoolVar(&opts.Collapsed.TID, "collapse-tid", false, "collapsed: append -PID/TID to process names (stackcollapse-perf.pl --tid)")
	fl.BoolVar(&opts.Collapsed.Kernel, "kernel", false, "collapsed: mark kernel frames with _[k]")
	fl.BoolVar(&opts.Collapsed.JIT, "jit", false, "collapsed: mark JIT frames (/tmp/perf-PID.map) with _[j]")
	fl.BoolVar(&opts.Collapsed.All, "all", false, "collapsed: all annotations (--kernel --jit)")
	fl.BoolVar(&opts.Collapsed.Addrs, "addrs", false, "collapsed: show addresses of unresolved frames")
	fl.StringVar(&opts.Collapsed.EventFilter, "event-filter", "", "collapsed: keep only this event (default: the first event seen)")
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
	if o.MaxStack < 1 {
		return FlagErrorf("--max-stack must be at least 1, not %d", o.MaxStack)
	}
	if o.Format != output.FormatCollapsed {
		if n := changed("collapse-pid", "collapse-tid", "kernel", "jit", "all", "addrs", "event-filter"); n != "" {
			return FlagErrorf("--%s applies only to --format collapsed", n)
		}
	}
	if o.Format != output.FormatText {
		if n := changed("fields", "ns", "reltime"); n != "" {
			return FlagErrorf("--%s applies only to --format text", n)
		}
	}
	if o.Format == output.FormatCollapsed {
		if n := changed("hide-call-graph", "show-task-events", "show-mmap-events", "show-lost-events", "max-stack"); n != "" {
			return FlagErrorf("--%s does not apply to --format collapsed", n)
		}
	}
	return nil
}

// scriptRun prints the recording in the chosen format.
func scriptRun(ctx context.Context, opts *ScriptOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	so := session.Options{Symbolize: symbolize.Options{MaxStack: opts.MaxStack}}
	if opts.ShowTaskEvents {
		so.Show = append(so.Show, decode.RecordTypeComm, decode.RecordTypeFork, decode.RecordTypeExit)
	}
	if opts.ShowMmapEvents {
		so.Show = append(so.Show, decode.RecordTypeMmap, decode.RecordTypeMmap2)
	}
	if opts.ShowLostEvents {
		so.Show = append(so.Show, decode.RecordTypeLost)
	}
	if opts.NoMergeCallchains && opts.Format != output.FormatCollapsed {
		so.Show = append(so.Show, decode.RecordTypeCallchainDeferred)
	}
	p, err := openSession(ctx, &opts.CommonOptions, so)
	if err != nil {
		return err
	}
	defer p.Close()

	var sink output.Sink
	switch opts.Format {
	case output.FormatText:
		t := output.NewText(opts.IO.Out, p.Attrs, output.TextOptions{
			Fields:        opts.Fields,
			HideCallchain: opts.HideCallchain,
			NS:            opts.NS,
			RelTime:       opts.RelTime,
			MaxStack:      opts.MaxStack,
			Compat:        opts.dialect(),
		})
		if err := t.CheckFields(); err != nil {
			return err
		}
		sink = t
	case output.FormatJSON:
		sink = output.NewJSON(opts.IO.Out, p.Attrs, output.JSONOptions{
			HideCallchain: opts.HideCallchain,
			MaxStack:      opts.MaxStack,
		})
	case output.FormatCollapsed:
		co := opts.Collapsed
		co.Compat = opts.dialect()
		sink = output.NewCollapsed(opts.IO.Out, opts.IO.ErrOut, p.Attrs, co)
	default:
		return errors.New("unknown format")
	}
	rs, _ := sink.(output.RecordSink)
	for p.Next() {
		if ev := p.Event(); ev != nil {
			err = sink.Add(ev)
		} else if rs != nil {
			err = rs.AddRecord(p.Record())
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
	return ferr
}
