// Package cmd is the perfstitch command line: each command binds its
// flags to the options of a session and of a sink, drives the session's
// events into the sink and maps errors to exit codes. The work is done by
// session (decode, stitch, symbolize, filter) and output.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/internal/iostreams"
	"github.com/perfstitch/perfstitch/internal/memlimit"
)

// ExitCode is the process exit status.
type ExitCode int

// Exit codes.
const (
	ExitOK    ExitCode = 0 // success, or output closed by the reader
	ExitError ExitCode = 1 // runtime error
	ExitUsage ExitCode = 2 // bad flags or arguments
)

// Factory holds what commands get from their environment, so tests can
// replace it.
type Factory struct {
	IO *iostreams.IOStreams
	// Getenv reads environment variables (HOME for the build-id cache).
	Getenv func(string) string
	// OnInput, if set, is told the size of a command's input once it is
	// open (-1 for a pipe); Main applies the process's memory policy
	// there.
	OnInput func(size int64)
}

// Main runs perfstitch with the process's arguments and returns the exit
// code.
func Main() ExitCode {
	// A closed stdout (perfstitch script | head) must surface as EPIPE
	// from Write, which ends the run quietly with status 0, instead of
	// killing the process with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	f := &Factory{IO: iostreams.System(), Getenv: os.Getenv}
	f.IO.In = pollableStdin(os.Stdin)
	// The process's memory policy (not Run's: tests run many at once):
	// a small recording's from the start, so that start-up runs under
	// it, then the one the input's size calls for.
	stop := memlimit.Start(memlimit.Small(), os.Getenv)
	f.OnInput = func(size int64) {
		if p := memlimit.For(size); p != memlimit.Small() {
			stop()
			stop = memlimit.Start(p, os.Getenv)
		}
	}
	defer func() { stop() }()
	return mainSignals(os.Stderr, func(ctx context.Context) ExitCode {
		return Run(ctx, f, os.Args[1:])
	}, os.Exit)
}

// Run runs the command line args against f and returns the exit code.
func Run(ctx context.Context, f *Factory, args []string) ExitCode {
	root := NewCmdRoot(f)
	args, err := expandPrefixes(root, args)
	if err != nil {
		return exitCode(f, root, err)
	}
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	defer cancelReads(ctx, f.IO.In)()
	c, err := root.ExecuteContextC(ctx)
	if err != nil && ctx.Err() != nil {
		// Interrupted: what was formatted has been flushed.
		fmt.Fprintln(f.IO.ErrOut, "perfstitch: interrupted")
		return ExitInterrupted
	}
	return exitCode(f, c, err)
}

// FlagError is a usage mistake: bad flag values or arguments.
type FlagError struct{ Err error }

// Error returns the message of the underlying error.
func (e *FlagError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf returns a *FlagError with a formatted message.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// exitCode reports err, if any, and returns the exit code it calls for. A
// usage error points at the help of c, the command that rejected it.
func exitCode(f *Factory, c *cobra.Command, err error) ExitCode {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, syscall.EPIPE) {
		return ExitOK
	}
	var fe *FlagError
	if errors.As(err, &fe) || isCobraUsageError(err) {
		help := "perfstitch"
		if c != nil {
			help = c.CommandPath()
		}
		fmt.Fprintf(f.IO.ErrOut, "perfstitch: %v\nRun '%s --help' for usage.\n", err, help)
		return ExitUsage
	}
	fmt.Fprintf(f.IO.ErrOut, "perfstitch: %v\n", err)
	return ExitError
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "perfstitch <command> [flags] [perf.data]",
		Short: "Stitch deferred user callchains in perf.data and print them like perf",
		Long: `perfstitch reads a perf.data file (or a pipe-mode stream on stdin), joins
deferred user callchains (perf record --call-graph fp,defer, Linux 6.19+) back
onto the kernel samples they belong to, symbolizes every frame and prints the
result as perf script text, JSON Lines, collapsed stacks or report tables.
Text output is what perf 7.3.4 prints (the layout of perf 6.19 to 7.3, the
releases that read deferred callchains); --compat 6.1 prints what perf 6.1
prints.

The input, symbol and filter flags that script, report and stats share
(-i, --symfs, --kallsyms, --maps, --pid, --time, ...) may stand before or
after the command name; see 'perfstitch script --help'.`,
		Example: `  perf record -e cpu-clock --call-graph fp,defer -o perf.data -- ./myprog
  perfstitch script perf.data
  perfstitch script --format collapsed perf.data | flamegraph.pl > flame.svg
  perfstitch report --symfs ./sysroot --kallsyms ./kallsyms perf.data
  perfstitch stats perf.data`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &FlagError{Err: err} })
	root.AddCommand(NewCmdScript(f, nil))
	root.AddCommand(NewCmdReport(f, nil))
	root.AddCommand(NewCmdStats(f, nil))
	root.AddCommand(NewCmdInject(f, nil))
	root.AddCommand(NewCmdSimulate(f))
	root.AddCommand(NewCmdVersion(f))
	root.AddCommand(newCmdGenMan(f))
	addVersionFlag(root)
	// The completion command takes its output stream when it is made.
	root.SetOut(f.IO.Out)
	addCompletionCmd(root)
	return root
}
