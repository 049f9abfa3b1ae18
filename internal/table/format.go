package table

import (
	"fmt"
	"io"
	"strconv"
)

// Format is the output format of perfstitch report and stats. It
// implements pflag.Value.
type Format int

// Table formats.
const (
	// Text is a tablewriter table.
	Text Format = iota
	// Perf reproduces perf's own text (perf report --stdio, perf
	// report --stats).
	Perf
	// JSON is one JSON document.
	JSON
)

var formatNames = [...]string{"table", "perf", "json"}

// FormatNames lists the accepted values of a Format flag.
func FormatNames() []string { return formatNames[:] }

// String returns the format's name.
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "tableformat(" + strconv.Itoa(int(f)) + ")"
}

// Set parses a format name.
func (f *Format) Set(s string) error {
	for i, n := range formatNames {
		if s == n {
			*f = Format(i)
			return nil
		}
	}
	return fmt.Errorf("unknown format %q (want table, perf or json)", s)
}

// Type names the flag value type in help output.
func (f *Format) Type() string { return "format" }

// Document is what can be printed in every Format: the report and the
// stats.
type Document interface {
	WriteTable(w io.Writer) error
	WritePerf(w io.Writer) error
	WriteJSON(w io.Writer) error
}

// Write prints d in format f.
func Write(w io.Writer, f Format, d Document) error {
	switch f {
	case Perf:
		return d.WritePerf(w)
	case JSON:
		return d.WriteJSON(w)
	}
	return d.WriteTable(w)
}
