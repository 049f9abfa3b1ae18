package decode

import (
	"encoding/binary"
	"io"
)

// endian reads integers in the writer's byte order. It is a bool rather
// than a binary.ByteOrder so that the hot paths inline (no interface call).
type endian struct{ big bool }

func (e endian) u16(b []byte) uint16 {
	if e.big {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (e endian) u32(b []byte) uint32 {
	if e.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func (e endian) u64(b []byte) uint64 {
	if e.big {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

func (e endian) order() binary.ByteOrder {
	if e.big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// cursor walks a byte slice in the writer's byte order. The first read past
// the end sets short and every later read returns zero, so a parser reads a
// run of fields and checks short once (the debug/dwarf buf idea).
type cursor struct {
	b     []byte
	off   int
	e     endian
	short bool
	field string // name of the field that ran past the end
}

func (c *cursor) need(n int, field string) bool {
	if c.short {
		return false
	}
	if n < 0 || len(c.b)-c.off < n {
		c.short = true
		c.field = field
		return false
	}
	return true
}

func (c *cursor) u64(field string) uint64 {
	if !c.need(8, field) {
		return 0
	}
	v := c.e.u64(c.b[c.off:])
	c.off += 8
	return v
}

func (c *cursor) u32(field string) uint32 {
	if !c.need(4, field) {
		return 0
	}
	v := c.e.u32(c.b[c.off:])
	c.off += 4
	return v
}

func (c *cursor) u16(field string) uint16 {
	if !c.need(2, field) {
		return 0
	}
	v := c.e.u16(c.b[c.off:])
	c.off += 2
	return v
}

func (c *cursor) u8(field string) uint8 {
	if !c.need(1, field) {
		return 0
	}
	v := c.b[c.off]
	c.off++
	return v
}

// bytes returns the next n bytes (aliasing the input).
func (c *cursor) bytes(n int, field string) []byte {
	if !c.need(n, field) {
		return nil
	}
	v := c.b[c.off : c.off+n : c.off+n]
	c.off += n
	return v
}

func (c *cursor) skip(n int, field string) {
	if c.need(n, field) {
		c.off += n
	}
}

func (c *cursor) rest() []byte {
	if c.short || c.off > len(c.b) {
		return nil
	}
	return c.b[c.off:]
}

func (c *cursor) remaining() int {
	if c.short {
		return 0
	}
	return len(c.b) - c.off
}

// regs reads a register block of a sample (PERF_SAMPLE_REGS_USER or
// PERF_SAMPLE_REGS_INTR): the ABI word and, unless it is 0, n registers
// appended to dst. ok is false when the n registers run past the record.
func (c *cursor) regs(n int, abiField, field string, dst []uint64) (abi uint64, regs []uint64, ok bool) {
	abi = c.u64(abiField)
	if abi == 0 {
		return 0, dst, true
	}
	if n > c.remaining()/8 {
		return abi, dst, false
	}
	for range n {
		dst = append(dst, c.u64(field))
	}
	return abi, dst, true
}

// fixedString reads an n-byte field and cuts it at the first NUL.
func (c *cursor) fixedString(n int, field string) string {
	return cstring(c.bytes(n, field))
}

// perfString reads a feature-section string: u32 len, then len bytes
// (NUL-terminated and padded).
func (c *cursor) perfString(field string) string {
	n := c.u32(field)
	if c.short {
		return ""
	}
	if uint64(n) > uint64(c.remaining()) {
		c.short = true
		c.field = field
		return ""
	}
	return c.fixedString(int(n), field)
}

// perfStringList reads u32 nr, then nr perf strings. The count is bounded
// by the bytes left (each string takes at least 4 bytes).
func (c *cursor) perfStringList(field string) []string {
	nr := c.u32(field)
	if c.short {
		return nil
	}
	if uint64(nr) > uint64(c.remaining())/4 {
		c.short = true
		c.field = field
		return nil
	}
	out := make([]string, 0, nr)
	for i := uint32(0); i < nr && !c.short; i++ {
		out = append(out, c.perfString(field))
	}
	return out
}

// cstring returns b up to its first NUL byte.
func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// errShort is the error for a field that runs past its record or section.
var errShort = io.ErrUnexpectedEOF
