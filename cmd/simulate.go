package cmd

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/deferralsim"
	"github.com/perfstitch/perfstitch/internal/iostreams"
)

// SimulateOptions are the options of the hidden perfstitch simulate
// command.
type SimulateOptions struct {
	IO     *iostreams.IOStreams
	Input  string // -i
	Output string // -o
	Sim    deferralsim.Options
}

// abiValue is the --abi flag: seed or cookie.
type abiValue struct{ abi *decode.DeferredABI }

func (v abiValue) String() string {
	if v.abi != nil && *v.abi == decode.DeferredSeed {
		return "seed"
	}
	return "cookie"
}

func (v abiValue) Set(s string) error {
	switch s {
	case "seed":
		*v.abi = decode.DeferredSeed
	case "cookie":
		*v.abi = decode.DeferredCookie
	default:
		return fmt.Errorf("%q is not seed or cookie", s)
	}
	return nil
}

func (abiValue) Type() string { return "abi" }

// viaEventValue is the --via-event flag: a sample id or "tracking".
type viaEventValue struct{ id *uint64 }

func (v viaEventValue) String() string {
	if v.id == nil || *v.id == 0 {
		return "tracking"
	}
	return strconv.FormatUint(*v.id, 10)
}

func (v viaEventValue) Set(s string) error {
	if s == "tracking" {
		*v.id = 0
		return nil
	}
	id, err := strconv.ParseUint(s, 0, 64)
	if err != nil || id == 0 {
		return fmt.Errorf("%q is not a sample id or \"tracking\"", s)
	}
	*v.id = id
	return nil
}

func (viaEventValue) Type() string { return "id|tracking" }

// NewCmdSimulate builds the hidden simulate command, which rewrites a real
// recording with deferred user callchains (the ground truth the stitcher is
// tested against; see internal/deferralsim).
func NewCmdSimulate(f *Factory) *cobra.Command {
	opts := &SimulateOptions{IO: f.IO, Sim: deferralsim.Options{ABI: decode.DeferredCookie}}
	cmd := &cobra.Command{
		Use:   "simulate -i in.data -o out.data [flags]",
		Short: "Rewrite a recording as if the kernel had deferred its user callchains (development tool)",
		Long: `Rewrite a recording made with ordinary frame-pointer callchains (perf record -g)
as the kernel would have written it with deferred user callchains: per thread,
consecutive kernel-mode samples with the same user callchain share one kernel
entry and one PERF_RECORD_CALLCHAIN_DEFERRED, written 1 ns after the entry's
last sample; user-mode samples get a record each. --abi cookie writes the
Linux 6.19 layout (cookies, defer_output on the tracking event), --abi seed the
original patch series' (no cookie, records through the sampling event).`,
		Example: `  perfstitch simulate -i perf.data -o deferred.data
  perfstitch simulate -i perf.data -o lossy.data --drop-every 10`,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Input == "" || opts.Output == "" {
				return FlagErrorf("simulate needs -i and -o")
			}
			if opts.Sim.DropEvery < 0 {
				return FlagErrorf("--drop-every must not be negative, not %d", opts.Sim.DropEvery)
			}
			if opts.Sim.ABI == decode.DeferredSeed && (opts.Sim.ViaEvent != 0 || opts.Sim.Duplicate) {
				return FlagErrorf("--via-event and --duplicate need --abi cookie (seed records come through the sampling event)")
			}
			return simulateRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Input, "input", "i", "", "recording to rewrite")
	fl.StringVarP(&opts.Output, "output", "o", "", "file to write")
	fl.Var(abiValue{&opts.Sim.ABI}, "abi", "deferred-callchain ABI: cookie (Linux 6.19) or seed")
	enumFlag(cmd, "abi", []string{"cookie", "seed"})
	fl.IntVar(&opts.Sim.DropEvery, "drop-every", 0, "drop every Nth deferred record (0: none)")
	fl.BoolVar(&opts.Sim.Duplicate, "duplicate", false, "write every record twice (defer_output on two events)")
	fl.Var(viaEventValue{&opts.Sim.ViaEvent}, "via-event", "event (by sample id) that emits the records, or tracking")
	fl.BoolVar(&opts.Sim.NoSampleIDAll, "no-sample-id-all", false, "clear sample_id_all: records carry no tid, time or id")
	return cmd
}

func simulateRun(opts *SimulateOptions) (err error) {
	out, err := os.Create(opts.Output)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			err = errors.Join(err, os.Remove(opts.Output))
		}
	}()
	truth, err := deferralsim.Simulate(opts.Input, out, opts.Sim)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "%s: %d samples, %d deferred, %d records written, %d dropped\n",
		opts.Output, len(truth.Samples), truth.Deferred(), truth.Records, truth.Dropped)
	return nil
}
