package cmd

import (
	"context"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/perfstitch/perfstitch/session"
)

// progressThreshold is the input size above which a progress bar is shown
// (when stderr is a terminal).
const progressThreshold = 64 << 20

// runSession is a command's session: a [session.Session] with the
// command's progress bar, which Next clears at the end of the input.
type runSession struct {
	*session.Session
	bar *progressbar.ProgressBar
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
	so.Symbolize.MapsDir = o.Maps
	so.Symbolize.BuildIDDir = buildIDDir(o)
	so.Symbolize.NoDemangle = o.NoDemangle
	so.Symbolize.NoInline = o.NoInline
	so.Symbolize.Compat = o.dialect()
	so.Stitch.NoMerge = o.NoMergeCallchains
	so.Stitch.MaxPending = o.MaxPending
	if so.Stitch.MaxPending == 0 {
		so.Stitch.MaxPending = defaultMaxPending
	}
	so.Decode = o.decodeLimits()
	so.Filter = o.Filter.session()
	so.Progress = r.progress
	s, err := session.Open(ctx, so)
	if err != nil {
		return nil, err
	}
	r.Session = s
	o.State = &RunState{run: r}
	threshold := int64(progressThreshold)
	if o.ProgressThreshold > 0 {
		threshold = o.ProgressThreshold
	}
	if size := s.Size(); size > threshold && o.IO.ErrIsTerminal {
		r.bar = progressbar.NewOptions64(size,
			progressbar.OptionSetWriter(o.IO.ErrOut),
			progressbar.OptionSetDescription("reading"),
			progressbar.OptionShowBytes(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(true),
		)
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

// Close clears the progress bar and closes the session.
func (r *runSession) Close() error {
	r.finishProgress()
	return r.Session.Close()
}

func (r *runSession) progress(off int64) {
	if r.bar != nil {
		_ = r.bar.Set64(off)
	}
}

func (r *runSession) finishProgress() {
	if r.bar != nil {
		_ = r.bar.Finish()
		_ = r.bar.Clear()
		r.bar = nil
	}
}
