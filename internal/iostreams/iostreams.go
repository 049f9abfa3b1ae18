// Package iostreams carries the standard streams of a command and whether
// they are terminals, so commands can be tested without a real terminal.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// InIsTerminal, OutIsTerminal and ErrIsTerminal say whether the
	// corresponding stream is a terminal.
	InIsTerminal  bool
	OutIsTerminal bool
	ErrIsTerminal bool
	// TerminalWidth is the width of the output terminal, 0 if unknown.
	TerminalWidth int
}

// System returns the process's standard streams.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	s.InIsTerminal = term.IsTerminal(int(os.Stdin.Fd()))
	s.OutIsTerminal = term.IsTerminal(int(os.Stdout.Fd()))
	s.ErrIsTerminal = term.IsTerminal(int(os.Stderr.Fd()))
	if s.OutIsTerminal {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			s.TerminalWidth = w
		}
	}
	return s
}

// Test returns streams backed by buffers, none of them a terminal.
func Test() (s *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
