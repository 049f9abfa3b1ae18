package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/table"
	"github.com/perfstitch/perfstitch/output/stats"
	"github.com/perfstitch/perfstitch/session"
)

// StatsOptions are the options of perfstitch stats.
type StatsOptions struct {
	Common CommonOptions
	// Format is the output format: a table (default), perf's
	// `perf report --stats` text, or JSON.
	Format table.Format
}

// NewCmdStats builds the stats command; runF replaces the run function in tests.
func NewCmdStats(f *Factory, runF func(*StatsOptions) error) *cobra.Command {
	opts := &StatsOptions{Common: CommonOptions{IO: f.IO, Getenv: f.Getenv, OnInput: f.OnInput}}
	cmd := &cobra.Command{
		Use:   "stats [flags] [perf.data]",
		Short: "Say whether a profile can be trusted: records, losses, stitching, symbols",
		Long: `Read a recording through the whole pipeline and report what it contains and
how well it was processed: the recording's header and events, the number of
records of each type (the numbers of perf report --stats), lost samples and
throttling, the deferred-callchain stitching counters, and how many frames
and how much sample weight resolved to symbols, with the DSOs that lost the
most weight ranked first (so you know which binary to supply with --symfs).
Frames are the callchains' own, one per address: the inline rows perf script
prints for some of them are not counted (they always resolve).

--format perf prints exactly what perf report --stats prints (perf 7.3.4; perf
6.1 with --compat 6.1).`,
		Example: `  perfstitch stats -i perf.data --symfs ./symfs
  perfstitch stats --format json perf.data`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.Common.complete(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Common.finishRun(statsRun(c.Context(), opts))
		},
	}
	addCommonFlags(cmd, &opts.Common)
	cmd.Flags().Var(&opts.Format, "format", "output format: table, perf or json")
	enumFlag(cmd, "format", table.FormatNames())
	return cmd
}

// statsRun runs the session and prints the stats.
func statsRun(ctx context.Context, opts *StatsOptions) error {
	so := session.Options{
		// The counts do not depend on the order: nothing is held back.
		Ordering: session.AsArrived,
		Jobs:     opts.Common.statsJobs(),
		Show:     []decode.RecordType{decode.RecordTypeLost, decode.RecordTypeLostSamples, decode.RecordTypeThrottle, decode.RecordTypeUnthrottle},
	}
	// Frames are counted as the callchains hold them: inline rows, which
	// always resolve, would only raise the share of resolved frames, and
	// expanding them was 40 % of stats' CPU in the 7.3 dialect.
	so.Symbolize.NoInline = true
	p, err := openSession(ctx, &opts.Common, so)
	if err != nil {
		return err
	}
	defer p.Close()
	col := stats.NewCollector()
	for p.Next() {
		if ev := p.Event(); ev != nil {
			err = col.Add(ev)
		} else {
			opts.Common.State.noteRecord(p.Record())
			err = col.AddRecord(p.Record())
		}
		if err != nil {
			return err
		}
	}
	// A damaged recording still yields the counts up to the damage,
	// followed by the error; an interrupt yields none.
	readErr := p.Err()
	if readErr != nil && ctx.Err() != nil {
		return readErr
	}
	st := runStats(col, p, &opts.Common)
	if err := st.Write(opts.Common.IO.Out, opts.Format); err != nil {
		return err
	}
	return readErr
}

// runStats is the audit of a finished run: col's counts with the
// session's decode, stitch and symbol-source figures and the warnings.
func runStats(col *stats.Collector, p *runSession, o *CommonOptions) *stats.Stats {
	return col.Stats(stats.Input{
		File:        p.File(),
		Records:     p.DecodeStats(),
		Stitch:      p.StitchStats(),
		Diagnostics: p.Symbolizer().Diagnostics(),
		Compat:      o.dialect(),
		Warnings:    o.warnings().Count(),
	})
}
