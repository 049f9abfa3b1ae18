package decode

import (
	"encoding/binary"
	"unsafe"
)

// hostLittle reports whether this machine is little-endian.
var hostLittle = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// castU64s returns b (a multiple of 8 bytes) as a []uint64 without copying
// when the file's byte order is the host's and b is 8-byte aligned. The
// result aliases b and has no spare capacity, so appending to it copies.
func castU64s(b []byte, e endian) ([]uint64, bool) {
	if e.big == hostLittle || len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%8 != 0 {
		return nil, false
	}
	n := len(b) / 8
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)[:n:n], true
}
