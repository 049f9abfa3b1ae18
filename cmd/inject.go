package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/inject"
	"github.com/perfstitch/perfstitch/internal/iostreams"
	"github.com/perfstitch/perfstitch/output/stats"
	"github.com/perfstitch/perfstitch/stitch"
)

// InjectOptions are the options of perfstitch inject.
type InjectOptions struct {
	IO *iostreams.IOStreams
	// Input is the recording ("" or "-": standard input, file or pipe
	// mode); Output where the stitched one goes ("" or "-": standard
	// output, pipe mode; a file name: file mode).
	Input, Output string
	// MaxPending, DropUnstitched and Compress: see inject.Options.
	MaxPending     int
	DropUnstitched bool
	Compress       bool
	// Stats prints the full stitching audit on stderr.
	Stats bool
}

// NewCmdInject builds the inject command; runF replaces the run function
// in tests.
func NewCmdInject(f *Factory, runF func(*InjectOptions) error) *cobra.Command {
	opts := &InjectOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "inject [-i in.data] [-o out.data] [flags]",
		Short: "Write a stitched perf.data that tools without deferred-callchain support read whole",
		Long: `Copy a recording with every deferred sample written as the kernel would have
written it without deferral: its callchain is the kernel part, PERF_CONTEXT_USER
and the user frames of its PERF_RECORD_CALLCHAIN_DEFERRED. The
CALLCHAIN_DEFERRED records are left out and defer_callchain/defer_output are
cleared in every event; every other record, event, sample id and header
feature (build ids, event descriptions, cmdline, topology, ...) is kept. perf
before 6.19, hotspot, samply, pprof's perf_data_converter and Perfetto then
see whole user stacks.

Samples whose record never came (or came with another cookie) are written as
recorded, or left out with --drop-unstitched; a one-line summary on stderr
counts them. Records keep their rounds (FINISHED_ROUND) and come in time order
within each, so perf delivers them in the order it delivers the input's.

As perf inject: the input is standard input by default (a file or a pipe-mode
stream) and the output standard output in pipe mode; -o FILE writes a
file-mode perf.data, -o - pipe mode. The byte order is the input's; --compress
writes zstd COMPRESSED2 records as perf record -z does.`,
		Example: `  perfstitch inject -i perf.data -o stitched.data
  perf record -o - -g -- ./prog | perfstitch inject | perf report -i -
  perfstitch inject -i perf.data -o stitched.data --drop-unstitched --stats`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.MaxPending < 0 {
				return FlagErrorf("--max-pending must not be negative (0 means no limit)")
			}
			if named(opts.Input) && opts.Input == opts.Output {
				return FlagErrorf("input and output are the same file: %s", opts.Input)
			}
			if runF != nil {
				return runF(opts)
			}
			return injectRun(c.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Input, "input", "i", "", "recording to read (default: standard input; \"-\" as well)")
	fl.StringVarP(&opts.Output, "output", "o", "", "file to write in file mode (default: standard output in pipe mode; \"-\" as well)")
	fl.IntVar(&opts.MaxPending, "max-pending", 0, "release a deferred sample without its user callchain once this many records wait behind it (0: no limit, as perf)")
	fl.BoolVar(&opts.DropUnstitched, "drop-unstitched", false, "leave out deferred samples whose user callchain could not be joined")
	fl.BoolVar(&opts.Compress, "compress", false, "write the records zstd-compressed (COMPRESSED2, as perf record -z)")
	fl.BoolVar(&opts.Stats, "stats", false, "print the stitching audit (the tables of perfstitch stats) on stderr")
	return cmd
}

// injectRun rewrites the input; see NewCmdInject.
func injectRun(ctx context.Context, opts *InjectOptions) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if named(opts.Input) && named(opts.Output) {
		ist, ierr := os.Stat(opts.Input)
		ost, oerr := os.Stat(opts.Output)
		if ierr == nil && oerr == nil && os.SameFile(ist, ost) {
			return FlagErrorf("input and output are the same file: %s", opts.Output)
		}
	}
	in, err := inject.Open(opts.Input, opts.IO.In)
	if err != nil {
		return err
	}
	defer in.Close()
	var w io.Writer = opts.IO.Out
	pipe := true
	complete := false // the output is whole, up to any damage of the input
	if named(opts.Output) {
		out, err := os.Create(opts.Output)
		if err != nil {
			return err
		}
		defer func() {
			cerr := out.Close()
			if err == nil {
				err = cerr
			}
			if !complete || cerr != nil {
				err = errors.Join(err, os.Remove(opts.Output))
			}
		}()
		w, pipe = out, false
	}
	res, rerr := inject.Rewrite(ctx, in.File, w, inject.Options{
		Pipe:           pipe,
		Compress:       opts.Compress,
		DropUnstitched: opts.DropUnstitched,
		Stitch:         stitch.Options{MaxPending: opts.MaxPending},
	})
	if res == nil {
		return rerr
	}
	complete = true
	fmt.Fprintln(opts.IO.ErrOut, injectSummary(res, opts.DropUnstitched))
	if opts.Stats {
		st := stats.NewCollector().Stats(stats.Input{File: in.File, Records: res.Decode, Stitch: &res.Stitch})
		if err := st.WriteStitching(opts.IO.ErrOut); err != nil {
			return err
		}
	}
	return rerr
}

// injectSummary is the line inject prints on stderr.
func injectSummary(res *inject.Result, dropped bool) string {
	s := &res.Stitch
	what := "kept as recorded"
	if dropped {
		what = "left out"
	}
	return fmt.Sprintf("perfstitch inject: %d samples: %d stitched, %d not deferred, %d unstitched %s (%d no record, %d cookie mismatch)",
		s.Total(), s.Count(stitch.Stitched), s.Count(stitch.NotDeferred), res.Unstitched(), what,
		s.Count(stitch.NoRecord), s.Count(stitch.CookieMismatch))
}

// named reports whether an -i/-o value names a file rather than a
// standard stream ("" or "-").
func named(path string) bool { return path != "" && path != "-" }
