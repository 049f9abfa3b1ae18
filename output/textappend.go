package output

import "strconv"

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

// appendHexPad appends v in lowercase hex, right-aligned in width (%*lx).
func appendHexPad(b []byte, v uint64, width int) []byte {
	var tmp [16]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = hexDigits[v&0xf]
		v >>= 4
		if v == 0 {
			break
		}
	}
	return append(appendSpaces(b, width-(len(tmp)-i)), tmp[i:]...)
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
