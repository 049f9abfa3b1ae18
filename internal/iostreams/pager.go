package iostreams

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// DefaultPager is the pager used when $PAGER is unset, with the options
// perf gives less: quit if one screen (-F), pass colours (-R), chop long
// lines instead of wrapping them (-S), keep the screen (-X).
const DefaultPager = "less -FRSX"

// Pager is a running pager process that a command's output goes to.
type Pager struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.Writer // what s.Out was before
	s   *IOStreams
}

// StartPager runs command (a shell command line, "" for [DefaultPager];
// "cat" for none) with s.Out as its output and points s.Out at its input,
// when s.Out is a terminal. It returns nil, and changes nothing, when
// there is nothing to page or the pager cannot start: output then goes to
// the terminal directly. The caller must call [Pager.Stop] on a non-nil
// result.
func (s *IOStreams) StartPager(command string) *Pager {
	if !s.OutIsTerminal || command == "cat" {
		return nil
	}
	if command == "" {
		command = DefaultPager
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdout, cmd.Stderr = s.Out, s.ErrOut
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil
	}
	if err := cmd.Start(); err != nil {
		return nil
	}
	p := &Pager{cmd: cmd, in: in, out: s.Out, s: s}
	s.Out = in
	return p
}

// Stop ends the pager's input, waits for the reader to quit it and
// restores s.Out. A pager that exits with a failure is reported; one that
// the reader quits early is not.
func (p *Pager) Stop() error {
	p.s.Out = p.out
	if err := p.in.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("pager: %w", err)
	}
	if err := p.cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && !ee.Exited() {
			return nil // killed by a signal, as less is by ^C
		}
		return fmt.Errorf("pager %q: %w", p.cmd.Args[len(p.cmd.Args)-1], err)
	}
	return nil
}
