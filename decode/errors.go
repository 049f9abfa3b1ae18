package decode

import (
	"errors"
	"fmt"
)

// Sentinel errors.
var (
	// ErrBadMagic: the input does not start with PERFILE2 in either byte
	// order.
	ErrBadMagic = errors.New("not a perf.data file (bad magic)")
	// ErrUnsupported: the input uses a layout this package cannot read
	// (version 1 files, unknown header sizes, unknown sample_type bits).
	ErrUnsupported = errors.New("unsupported perf.data layout")
)

// FormatError reports malformed input. Offset is the file offset of the
// record (or header structure) in which the problem was found.
type FormatError struct {
	Offset int64      // file offset of the record or structure
	Record RecordType // record type, 0 for file-header structures
	Field  string     // the field or structure that is bad
	Err    error      // what is wrong; io.ErrUnexpectedEOF for truncation
}

// Error describes the problem as "RECORD record at 0xOFF: field: what".
func (e *FormatError) Error() string {
	what := "header"
	if e.Record != 0 {
		what = e.Record.String() + " record"
	}
	if e.Field == "" {
		return fmt.Sprintf("%s at 0x%x: %v", what, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s at 0x%x: %s: %v", what, e.Offset, e.Field, e.Err)
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }
