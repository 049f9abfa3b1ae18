package decode

import (
	"encoding/binary"
	"errors"
	"io"
)

// Order selects the order in which [File.Records] delivers records.
type Order int

const (
	// TimeOrder delivers timestamped kernel records sorted by time the way
	// perf's ordered-events queue does: records are buffered until the
	// FINISHED_ROUND after next, so memory is bounded by about two rounds
	// of data (a file without FINISHED_ROUND is buffered whole). Records
	// without a timestamp and perf-tool records are delivered as they are
	// read.
	TimeOrder Order = iota
	// FileOrder delivers records in file order. It buffers nothing.
	FileOrder
)

// Header is the file header (struct perf_file_header), or what of it a
// pipe-mode stream has.
type Header struct {
	Pipe       bool             // pipe-mode stream (16-byte header)
	ByteOrder  binary.ByteOrder // byte order of the writer
	Size       uint64           // header size: 104, 72 or 16
	AttrSize   uint64           // stride of the attrs section (file mode)
	Attrs      Section
	Data       Section
	EventTypes Section
	Features   [4]uint64 // feature bitmap (file mode)
}

// Section is struct perf_file_section.
type Section struct{ Offset, Size uint64 }

// File is an open perf.data file or pipe-mode stream.
type File struct {
	Header Header
	// Attrs are the events of the recording. In pipe mode the list grows
	// as HEADER_ATTR records are read.
	Attrs []*EventAttr
	// Meta holds the parsed feature sections. In pipe mode it is filled
	// as HEADER_FEATURE records are read.
	Meta Meta

	closer io.Closer
}

var errTODO = errors.New("decode: not implemented yet")

// Open opens the named file, in file or pipe format.
func Open(name string) (*File, error) { return nil, errTODO }

// NewFile reads a perf.data file (file or pipe format) from r.
func NewFile(r io.ReaderAt) (*File, error) { return nil, errTODO }

// NewPipe reads a pipe-mode stream from r (e.g. standard input).
func NewPipe(r io.Reader) (*File, error) { return nil, errTODO }

// Close closes the file if it was opened with [Open].
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Records returns an iterator over the data records in the given order.
// A File has one stream of records; call Records once.
func (f *File) Records(order Order) *Records { return &Records{err: errTODO} }

// Records iterates over the records of a [File]. The record returned by
// Record is owned by the iterator and is valid until the next call to Next.
type Records struct {
	rec Record
	err error
}

// Next advances to the next record and reports whether there is one.
func (rs *Records) Next() bool { return false }

// Record returns the current record.
func (rs *Records) Record() Record { return rs.rec }

// Err returns the error that ended the iteration, if any. Records before
// the damage have been delivered.
func (rs *Records) Err() error { return rs.err }

// Stats returns the counts of what was read so far.
func (rs *Records) Stats() *Stats { return &Stats{} }

// Stats counts what the decoder read.
type Stats struct {
	// Counts holds the number of records read per type, including
	// COMPRESSED containers and the records inside them, as perf report
	// --stats counts them.
	Counts map[RecordType]uint64
	// Skipped counts records that could not be parsed and were skipped,
	// per type.
	Skipped map[RecordType]uint64
	// UnknownID counts records whose sample id matched no event.
	UnknownID uint64
	// OutOfOrder counts records older than the last flush point.
	OutOfOrder uint64
	// Warnings are non-fatal problems (skipped records, bad features),
	// each naming an offset.
	Warnings []error
}
