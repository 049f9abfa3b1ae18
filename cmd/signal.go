package cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// Exit codes of a run ended by a signal: 128 plus the signal's number,
// as a shell reports it.
const (
	ExitInterrupted ExitCode = 130 // SIGINT
	ExitTerminated  ExitCode = 143 // SIGTERM
)

// hardExitDelay is how long an interrupted run may take to stop by itself
// (flushing what it formatted) before the process exits regardless.
const hardExitDelay = 5 * time.Second

// deadliner is a reader whose blocked reads a deadline cancels (an
// *os.File on a pipe or a pollable descriptor).
type deadliner interface {
	SetReadDeadline(time.Time) error
}

// pollableStdin returns standard input as a file whose reads a deadline
// can cancel: a pipe or FIFO is switched to non-blocking mode so that Go's
// poller owns it (a blocking descriptor cannot be interrupted). Other
// kinds are returned as they are.
func pollableStdin(in *os.File) *os.File {
	st, err := in.Stat()
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return in
	}
	fd := int(in.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return in
	}
	return os.NewFile(uintptr(fd), in.Name())
}

// cancelReads makes blocked reads of in return as soon as ctx is done;
// call the returned function to stop watching.
func cancelReads(ctx context.Context, in any) func() bool {
	d, ok := in.(deadliner)
	if !ok {
		return func() bool { return true }
	}
	return context.AfterFunc(ctx, func() { _ = d.SetReadDeadline(time.Now()) })
}

// mainSignals runs run under a context that SIGINT and SIGTERM cancel,
// and returns run's exit code, or 130 / 143 for a run the signal ended.
// If the run does not stop within hardExitDelay of the signal, exit is
// called with that code.
func mainSignals(errOut *os.File, run func(context.Context) ExitCode, exit func(int)) ExitCode {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var got atomic.Int32
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			code := ExitInterrupted
			if s == syscall.SIGTERM {
				code = ExitTerminated
			}
			got.Store(int32(code))
			cancel()
			select {
			case <-done:
			case <-time.After(hardExitDelay):
				fmt.Fprintln(errOut, "perfstitch: interrupted")
				exit(int(code))
			}
		case <-done:
		}
	}()
	code := run(ctx)
	close(done)
	if c := ExitCode(got.Load()); c != 0 && code == ExitInterrupted {
		return c
	}
	return code
}
