package decode

import (
	"errors"
	"fmt"
	"io"
)

// frameBufSize is the read buffer of a record stream. Every record
// (perf_event_header.size is a u16) fits in it many times over.
const frameBufSize = 1 << 20

// pipeBufSize is the read buffer of a pipe-mode stream (a pipe delivers at
// most 64 KiB per read anyway).
const pipeBufSize = 256 << 10

// maxRecordSize is the largest size perf_event_header.size can express.
const maxRecordSize = 1<<16 - 1

// frameReader cuts a byte stream into records. Record slices point into its
// buffer and stay valid until the next call that reads.
type frameReader struct {
	r     io.Reader
	e     endian
	buf   []byte
	start int   // first unconsumed byte
	end   int   // end of valid data
	base  int64 // stream offset of buf[0]
	eof   bool
	rerr  error // read error other than EOF
	// want is the stream offset where the input should end (the end of
	// the data section), or -1 when only EOF tells (pipes).
	want int64
}

func newFrameReader(r io.Reader, e endian, base int64, size int) *frameReader {
	return &frameReader{r: r, e: e, buf: make([]byte, size), base: base, want: -1}
}

// offset returns the stream offset of the next unconsumed byte.
func (fr *frameReader) offset() int64 { return fr.base + int64(fr.start) }

// fill makes at least n bytes available from start, reading as needed. It
// returns false when the input ends first (or fails).
func (fr *frameReader) fill(n int) bool {
	if fr.end-fr.start >= n {
		return true
	}
	if n > len(fr.buf) {
		nb := make([]byte, n)
		m := copy(nb, fr.buf[fr.start:fr.end])
		fr.base += int64(fr.start)
		fr.buf, fr.start, fr.end = nb, 0, m
	} else if fr.start > 0 && len(fr.buf)-fr.start < n {
		m := copy(fr.buf, fr.buf[fr.start:fr.end])
		fr.base += int64(fr.start)
		fr.start, fr.end = 0, m
	}
	for fr.end-fr.start < n {
		if fr.eof || fr.rerr != nil {
			return false
		}
		m, err := fr.r.Read(fr.buf[fr.end:])
		fr.end += m
		if err == io.EOF {
			fr.eof = true
		} else if err != nil {
			fr.rerr = err
		} else if m == 0 {
			// A reader that returns 0, nil forever would spin; treat a
			// run of them as the end after the io.Reader contract's hint.
			m2, err2 := fr.r.Read(fr.buf[fr.end:])
			fr.end += m2
			if m2 == 0 && err2 == nil {
				fr.rerr = io.ErrNoProgress
			} else if err2 == io.EOF {
				fr.eof = true
			} else if err2 != nil {
				fr.rerr = err2
			}
		}
	}
	return true
}

// atEOF reports whether the stream has no more bytes.
func (fr *frameReader) atEOF() bool { return !fr.fill(1) && fr.rerr == nil }

// peekType returns the type of the next record without consuming it.
func (fr *frameReader) peekType() (RecordType, bool) {
	if !fr.fill(8) {
		return 0, false
	}
	return RecordType(fr.e.u32(fr.buf[fr.start:])), true
}

// next returns the next record (header included) and its stream offset.
// At a clean end of input it returns io.EOF.
func (fr *frameReader) next() ([]byte, int64, error) {
	off := fr.offset()
	if !fr.fill(8) {
		if fr.rerr != nil {
			return nil, off, fr.rerr
		}
		if fr.end == fr.start {
			if fr.want >= 0 && off < fr.want {
				return nil, off, &FormatError{Offset: off, Field: "data",
					Err: fmt.Errorf("data section ends at %#x, file at %#x: %w", fr.want, off, io.ErrUnexpectedEOF)}
			}
			return nil, off, io.EOF
		}
		return nil, off, &FormatError{Offset: off, Field: "header", Err: io.ErrUnexpectedEOF}
	}
	h := fr.buf[fr.start:]
	typ := RecordType(fr.e.u32(h))
	size := int(fr.e.u16(h[6:]))
	if size < 8 {
		return nil, off, &FormatError{Offset: off, Record: typ, Field: "size",
			Err: fmt.Errorf("record size %d is smaller than its header: %w", size, errBadRecord)}
	}
	if !fr.fill(size) {
		if fr.rerr != nil {
			return nil, off, fr.rerr
		}
		return nil, off, &FormatError{Offset: off, Record: typ, Field: "size", Err: io.ErrUnexpectedEOF}
	}
	rec := fr.buf[fr.start : fr.start+size : fr.start+size]
	fr.start += size
	return rec, off, nil
}

// extra reads (keep) or skips the n payload bytes that follow some records
// outside their size (TRACING_DATA, AUXTRACE). A kept payload is appended
// to dst, growing it only as bytes actually arrive, so a lying size cannot
// make it allocate more than the input holds.
func (fr *frameReader) extra(n uint64, keep bool, dst []byte) ([]byte, error) {
	for n > 0 {
		if fr.end == fr.start && !fr.fill(1) {
			if fr.rerr != nil {
				return dst, fr.rerr
			}
			return dst, io.ErrUnexpectedEOF
		}
		m := uint64(fr.end - fr.start)
		if m > n {
			m = n
		}
		if keep {
			dst = append(dst, fr.buf[fr.start:fr.start+int(m)]...)
		}
		fr.start += int(m)
		n -= m
	}
	return dst, nil
}

// errBadRecord marks records whose framing is impossible.
var errBadRecord = errors.New("malformed record")
