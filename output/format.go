package output

import (
	"fmt"
	"strings"

	"github.com/perfstitch/perfstitch/symbolize"
)

// Format is the output format of perfstitch script. It implements
// pflag.Value, so it can be bound to a flag directly.
type Format int

// Output formats.
const (
	FormatText           Format = iota // perf script text
	FormatJSON                         // JSON Lines, see docs/json.md
	FormatCollapsed                    // stackcollapse-perf.pl folded stacks
	FormatPprof                        // gzipped profile.proto, see docs/compat.md
	FormatFlameGraph                   // interactive SVG flame graph
	FormatFlameGraphHTML               // HTML page with the flame graph and filters
)

var formatNames = [...]string{"text", "json", "collapsed", "pprof", "flamegraph", "flamegraph-html"}

// FormatNames lists the accepted values of a Format flag, for help and
// shell completion.
func FormatNames() []string { return formatNames[:] }

// String returns the format's name.
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("format(%d)", int(f))
}

// Set parses a format name.
func (f *Format) Set(s string) error {
	for i, n := range formatNames {
		if s == n {
			*f = Format(i)
			return nil
		}
	}
	return fmt.Errorf("unknown format %q (want %s)", s, strings.Join(formatNames[:], ", "))
}

// Type names the flag value type in help output.
func (f *Format) Type() string { return "format" }

// Sink consumes resolved samples. Text and JSON sinks write in Add;
// aggregating sinks (collapsed, report) write in Flush. Flush must be
// called once at the end; it flushes the sink's buffer too.
type Sink interface {
	Add(ev *symbolize.Event) error
	Flush() error
}

// RecordSink is a Sink that also prints side-band records (perf script
// --show-task-events, --show-mmap-events, --show-lost-events, and the
// CALLCHAIN_DEFERRED records of --no-merge-callchains).
type RecordSink interface {
	Sink
	AddRecord(r *Record) error
}

// Record is a non-sample record handed to a [RecordSink], with what the
// pipeline knows about its thread (the type is symbolize's).
type Record = symbolize.Record
