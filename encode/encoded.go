package encode

import (
	"errors"
	"fmt"

	"github.com/perfstitch/perfstitch/decode"
)

// WriteEncoded writes rec, one complete record (with the payload that follows a TRACING_DATA record) already laid out in the
// Writer's byte order (as [AppendRecord] makes it for the record's event),
// the way [Writer.WriteRecord] writes the record it was made from: into a
// compressed container when compressing and rec is a kernel record, and
// counting a FINISHED_INIT for Options.CompressAfterInit. HeaderAttr,
// HeaderFeature and Compressed records are skipped, as WriteRecord skips
// them.
//
// It lets a caller that must hold records back (package inject keeps whole
// rounds to sort them) keep them as their compact encoding rather than as
// decoded records.
func (w *Writer) WriteEncoded(rec []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("write to closed encode.Writer")
	}
	// header.size may be smaller than rec: a TRACING_DATA record is
	// followed by its payload.
	if len(rec) < 8 || w.order.Uint16(rec[6:]) < 8 || int(w.order.Uint16(rec[6:])) > len(rec) {
		return fmt.Errorf("encoded record of %d bytes: header.size does not match: %w", len(rec), ErrUnencodable)
	}
	t := decode.RecordType(w.order.Uint32(rec))
	switch t {
	case decode.RecordTypeHeaderAttr, decode.RecordTypeHeaderFeature,
		decode.RecordTypeCompressed, decode.RecordTypeCompressed2:
		return nil
	case decode.RecordTypeFinishedInit:
		w.init = true
	}
	if w.comp != nil && t < 64 && (w.init || !w.opts.CompressAfterInit) {
		w.comp.pending = append(w.comp.pending, rec...)
		if len(w.comp.pending) >= compressChunk {
			return w.flushCompressed()
		}
		return nil
	}
	return w.write(rec)
}
