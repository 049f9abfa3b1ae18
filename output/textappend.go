package output

import (
	"math/bits"
	"slices"
	"strconv"
)

// The append helpers below replace fmt in the hot path; each mirrors one
// printf conversion of perf.

// padSpaces is padding for the helpers below.
const padSpaces = "                                                                "

// appendSpaces appends n spaces.
func appendSpaces(b []byte, n int) []byte {
	for n > len(padSpaces) {
		b = append(b, padSpaces...)
		n -= len(padSpaces)
	}
	if n > 0 {
		b = append(b, padSpaces[:n]...)
	}
	return b
}

// appendPadLeft appends s right-aligned in width bytes (%*s).
func appendPadLeft(b []byte, s string, width int) []byte {
	return append(appendSpaces(b, width-len(s)), s...)
}

// appendPadLeftBytes is appendPadLeft for a byte slice.
func appendPadLeftBytes(b, s []byte, width int) []byte {
	return append(appendSpaces(b, width-len(s)), s...)
}

// appendUintPad appends v in decimal, right-aligned in width (%*lu).
func appendUintPad(b []byte, v uint64, width int) []byte {
	var tmp [20]byte
	return appendPadLeftBytes(b, strconv.AppendUint(tmp[:0], v, 10), width)
}

// appendIntPad appends v in decimal, right-aligned in width (%*d).
func appendIntPad(b []byte, v int64, width int) []byte {
	var tmp [21]byte
	return appendPadLeftBytes(b, strconv.AppendInt(tmp[:0], v, 10), width)
}

// appendIntPadRight appends v in decimal, left-aligned in width (%-*d).
func appendIntPadRight(b []byte, v int64, width int) []byte {
	n := len(b)
	b = strconv.AppendInt(b, v, 10)
	return appendSpaces(b, width-(len(b)-n))
}

// appendZeroPad appends v in decimal with leading zeros to width (%0*lu).
func appendZeroPad(b []byte, v uint64, width int) []byte {
	var tmp [20]byte
	d := strconv.AppendUint(tmp[:0], v, 10)
	for n := width - len(d); n > 0; n-- {
		b = append(b, '0')
	}
	return append(b, d...)
}

// hexPairs holds the two lowercase hex digits of every byte value.
const hexPairs = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

// appendHexPad appends v in lowercase hex, right-aligned in width (%*lx).
// It writes two digits per step straight into b.
func appendHexPad(b []byte, v uint64, width int) []byte {
	n := 1
	if v != 0 {
		n = (bits.Len64(v) + 3) >> 2
	}
	if width > n {
		b = appendSpaces(b, width-n)
	}
	l := len(b)
	b = slices.Grow(b, n)[:l+n]
	i := l + n
	for v >= 0x100 {
		i -= 2
		p := (v & 0xff) * 2
		b[i], b[i+1] = hexPairs[p], hexPairs[p+1]
		v >>= 8
	}
	if v >= 0x10 {
		b[i-2], b[i-1] = hexPairs[2*v], hexPairs[2*v+1]
	} else {
		b[i-1] = hexDigits[v]
	}
	return b
}

// appendHex appends v in lowercase hex (%lx).
func appendHex(b []byte, v uint64) []byte { return appendHexPad(b, v, 0) }

// appendAltHex appends v as C's %#lx does: "0x" and hex digits, but a bare
// "0" for zero.
func appendAltHex(b []byte, v uint64) []byte {
	if v == 0 {
		return append(b, '0')
	}
	b = append(b, '0', 'x')
	return strconv.AppendUint(b, v, 16)
}

// appendHex02 appends v as %02x.
func appendHex02(b []byte, v uint32) []byte {
	if v < 0x10 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, uint64(v), 16)
}
