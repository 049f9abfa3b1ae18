package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/progress"
	"github.com/perfstitch/perfstitch/session"
)

// progressThreshold is the input size above which a progress bar is shown
// (when stderr is a terminal).
const progressThreshold = 64 << 20

// runSession is a command's session: a [session.Session] with the
// command's progress bar, which Next clears at the end of the input.
type runSession struct {
	*session.Session
	bar  *progress.Bar
	name string // the input as errors name it
}

// openSession opens the session of a command from the shared options o
// and the command's own session options so (where to read, how to
// symbolize, stitch and filter come from o). The caller must Close it.
func openSession(ctx context.Context, o *CommonOptions, so session.Options) (*runSession, error) {
	if err := o.checkSources(); err != nil {
		return nil, err
	}
	r := &runSession{}
	so.Input, so.Stdin = o.Input, o.IO.In
	so.Symbolize.Symfs = o.Symfs
	so.Symbolize.Kallsyms = o.Kallsyms
	so.Symbolize.Vmlinux = o.Vmlinux
	so.Symbolize.DemangleKernel = o.DemangleKernel
	so.Symbolize.MapsDir = o.Maps
	so.Symbolize.BuildIDDir = buildIDDir(o)
	so.Symbolize.NoDemangle = o.NoDemangle
	so.Symbolize.NoInline = so.Symbolize.NoInline || o.NoInline // a command may ask for it
	if so.Symbolize.Compat.Version == "" {
		so.Symbolize.Compat = o.dialect()
	}
	so.Stitch.NoMerge = o.NoMergeCallchains
	so.Stitch.MaxPending = o.MaxPending
	if so.Stitch.MaxPending == 0 {
		so.Stitch.MaxPending = defaultMaxPending
	}
	so.Stitch.MaxPendingBytes = int64(o.MaxPendingBytes)
	if so.Stitch.MaxPendingBytes == 0 {
		so.Stitch.MaxPendingBytes = defaultMaxPendingBytes
	}
	so.Decode = o.decodeLimits()
	so.Filter = o.Filter.session()
	so.Progress = r.progress
	if so.Jobs == 0 {
		so.Jobs = o.jobs()
	}
	s, err := session.Open(ctx, so)
	if err != nil {
		name, size := inputName(o.Input, -1), int64(-1)
		if st, serr := os.Stat(name); serr == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		return nil, truncation(name, size, err)
	}
	r.Session = s
	r.name = inputName(o.Input, s.Size())
	if o.OnInput != nil {
		o.OnInput(s.Size())
	}
	o.State = &RunState{run: r}
	threshold := int64(progressThreshold)
	if o.ProgressThreshold > 0 {
		threshold = o.ProgressThreshold
	}
	if size := s.Size(); size > threshold && o.IO.ErrIsTerminal {
		r.bar = progress.New(o.IO.ErrOut, size, "reading", progress.Options{})
	}
	return r, nil
}

// buildIDDir is the build-id cache to use: --buildid-dir, else the
// symfs's own .debug (perf skips the local cache when given a symfs:
// symbol__config_symfs), else $HOME/.debug.
func buildIDDir(o *CommonOptions) string {
	switch {
	case o.BuildIDDir != "":
		return o.BuildIDDir
	case o.Symfs != "":
		return filepath.Join(o.Symfs, ".debug")
	case o.Getenv != nil && o.Getenv("HOME") != "":
		return o.Getenv("HOME") + "/.debug"
	}
	return ""
}

// Next advances the session; at the end it clears the progress bar.
func (r *runSession) Next() bool {
	if r.Session.Next() {
		return true
	}
	r.finishProgress()
	return false
}

// NextBatch returns the session's next batch; at the end it clears the
// progress bar.
func (r *runSession) NextBatch() *session.Batch {
	if b := r.Session.NextBatch(); b != nil {
		return b
	}
	r.finishProgress()
	return nil
}

// Close clears the progress bar and closes the session.
func (r *runSession) Close() error {
	r.finishProgress()
	return r.Session.Close()
}

// Err returns the error that ended the session; a truncated input is
// named, with where it ends and how big it is.
func (r *runSession) Err() error {
	return truncation(r.name, r.Size(), r.Session.Err())
}

// inputName is how errors name the input given as -i (size is the file
// size, -1 for a stream): "stdin" for a pipe-mode stream.
func inputName(input string, size int64) string {
	switch {
	case input == "-":
		return "stdin"
	case input == "" && size < 0:
		return "stdin"
	case input == "":
		return "perf.data"
	}
	return input
}

// truncatedError is a [decode.FormatError] for input that ends inside a
// record or header structure, with the input's name and size.
type truncatedError struct {
	name string
	size int64 // -1 for a stream
	fe   *decode.FormatError
}

// Error reads "NAME: truncated at byte N (file is M bytes): WHERE", with N
// the offset of the structure that the input ends inside.
func (e *truncatedError) Error() string {
	where := strings.TrimSuffix(e.fe.Error(), ": "+io.ErrUnexpectedEOF.Error())
	if e.size < 0 {
		return fmt.Sprintf("%s: truncated at byte %d: %s", e.name, e.fe.Offset, where)
	}
	return fmt.Sprintf("%s: truncated at byte %d (file is %d bytes): %s", e.name, e.fe.Offset, e.size, where)
}

// Unwrap returns the format error.
func (e *truncatedError) Unwrap() error { return e.fe }

// truncation rewrites err as a [truncatedError] when it says that the
// input named name ended early; other errors pass unchanged.
func truncation(name string, size int64, err error) error {
	var fe *decode.FormatError
	if err == nil || !errors.As(err, &fe) || !errors.Is(fe, io.ErrUnexpectedEOF) {
		return err
	}
	return &truncatedError{name: name, size: size, fe: fe}
}

func (r *runSession) progress(off int64) {
	if r.bar != nil {
		_ = r.bar.Set(off)
	}
}

func (r *runSession) finishProgress() {
	if r.bar != nil {
		_ = r.bar.Finish()
		r.bar = nil
	}
}
