package encode

import (
	"encoding/binary"
	"math"

	"github.com/perfstitch/perfstitch/decode"
)

// Builder appends integers, byte strings and padded C strings in one byte
// order. Its zero value appends little-endian. It never fails; use it to
// build records and sections by hand, including malformed ones.
type Builder struct {
	// Order is the byte order of the integers: binary.BigEndian, or
	// anything else (nil included) for little-endian.
	Order binary.ByteOrder
	// B is the bytes appended so far.
	B []byte
}

func (b *Builder) order() binary.ByteOrder {
	if b.Order == nil {
		return binary.LittleEndian
	}
	return b.Order
}

// U8 appends v.
func (b *Builder) U8(v uint8) *Builder { b.B = append(b.B, v); return b }

// U16 appends v.
func (b *Builder) U16(v uint16) *Builder {
	if b.Order == binary.BigEndian {
		b.B = binary.BigEndian.AppendUint16(b.B, v)
	} else {
		b.B = binary.LittleEndian.AppendUint16(b.B, v)
	}
	return b
}

// U32 appends v.
func (b *Builder) U32(v uint32) *Builder {
	if b.Order == binary.BigEndian {
		b.B = binary.BigEndian.AppendUint32(b.B, v)
	} else {
		b.B = binary.LittleEndian.AppendUint32(b.B, v)
	}
	return b
}

// U64 appends v.
func (b *Builder) U64(v uint64) *Builder {
	if b.Order == binary.BigEndian {
		b.B = binary.BigEndian.AppendUint64(b.B, v)
	} else {
		b.B = binary.LittleEndian.AppendUint64(b.B, v)
	}
	return b
}

// I32 appends v as a u32.
func (b *Builder) I32(v int32) *Builder { return b.U32(uint32(v)) }

// F64 appends the IEEE 754 bits of v as a u64.
func (b *Builder) F64(v float64) *Builder { return b.U64(math.Float64bits(v)) }

// Bytes appends p as is.
func (b *Builder) Bytes(p []byte) *Builder { b.B = append(b.B, p...); return b }

// Zeros appends n zero bytes.
func (b *Builder) Zeros(n int) *Builder {
	for ; n > 0; n-- {
		b.B = append(b.B, 0)
	}
	return b
}

// CString appends s, a terminating NUL, and zero padding up to a multiple of
// align bytes (align <= 1: no padding) counted from the start of the string.
func (b *Builder) CString(s string, align int) *Builder {
	b.B = append(b.B, s...)
	b.B = append(b.B, 0)
	n := len(s) + 1
	if align > 1 {
		b.Zeros(padLen(n, align))
	}
	return b
}

// Fixed appends s cut or zero-padded to exactly n bytes (a char[n] field;
// s is cut to n-1 bytes so that a NUL remains).
func (b *Builder) Fixed(s string, n int) *Builder {
	if n <= 0 {
		return b
	}
	if len(s) > n-1 {
		s = s[:n-1]
	}
	b.B = append(b.B, s...)
	return b.Zeros(n - len(s))
}

// Pad appends zero bytes until len(B) is a multiple of align.
func (b *Builder) Pad(align int) *Builder { return b.Zeros(padLen(len(b.B), align)) }

// Header appends a perf_event_header {type, misc, size}.
func (b *Builder) Header(typ decode.RecordType, misc, size uint16) *Builder {
	return b.U32(uint32(typ)).U16(misc).U16(size)
}

// padLen returns how many bytes take n to the next multiple of align.
func padLen(n, align int) int {
	if align <= 1 {
		return 0
	}
	return (align - n%align) % align
}

// RawRecord returns a record with the given header type and misc and the
// body as is; header.size is 8+len(body), truncated to 16 bits when the body
// is too long (a malformed record, on purpose or not).
func RawRecord(order binary.ByteOrder, typ decode.RecordType, misc uint16, body []byte) []byte {
	b := Builder{Order: order, B: make([]byte, 0, 8+len(body))}
	b.Header(typ, misc, uint16(8+len(body)))
	return b.Bytes(body).B
}
