package cfi

// maxExprSteps bounds the operations one DWARF expression may execute
// (branches can loop).
const maxExprSteps = 1024

// maxExprStack bounds the expression stack.
const maxExprStack = 64

// evalExpr evaluates a DWARF location expression of a CFI rule with the
// registers of frame f and memory read through f.read; initial values are
// pushed first (the CFA for DW_CFA_expression rules). ok is false when
// the expression is malformed, uses an unsupported operation, or reads a
// register or memory word that cannot be read.
func evalExpr(expr []byte, f *Frame, initial ...uint64) (v uint64, ok bool) {
	stack := make([]uint64, 0, 8)
	stack = append(stack, initial...)
	r := &cfiReader{b: expr}
	pop := func() uint64 {
		if len(stack) == 0 {
			r.fail()
			return 0
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v
	}
	push := func(v uint64) {
		if len(stack) >= maxExprStack {
			r.fail()
			return
		}
		stack = append(stack, v)
	}
	for steps := 0; r.off < len(r.b) && r.err == nil; steps++ {
		if steps >= maxExprSteps {
			return 0, false
		}
		op := r.u8()
		switch {
		case op >= 0x30 && op <= 0x4f: // lit0..lit31
			push(uint64(op - 0x30))
			continue
		case op >= 0x50 && op <= 0x6f: // reg0..reg31
			v, ok := f.reg(uint64(op - 0x50))
			if !ok {
				return 0, false
			}
			push(v)
			continue
		case op >= 0x70 && op <= 0x8f: // breg0..breg31
			v, ok := f.reg(uint64(op - 0x70))
			if !ok {
				return 0, false
			}
			push(v + uint64(r.sleb()))
			continue
		}
		switch op {
		case 0x03: // addr
			push(r.u64())
		case 0x06: // deref
			v, st := f.read(pop())
			if st < MemOK {
				return 0, false
			}
			push(v)
		case 0x08: // const1u
			push(uint64(r.u8()))
		case 0x09: // const1s
			push(uint64(int64(int8(r.u8()))))
		case 0x0a: // const2u
			push(uint64(r.u16()))
		case 0x0b: // const2s
			push(uint64(int64(int16(r.u16()))))
		case 0x0c: // const4u
			push(uint64(r.u32()))
		case 0x0d: // const4s
			push(uint64(int64(int32(r.u32()))))
		case 0x0e, 0x0f: // const8u, const8s
			push(r.u64())
		case 0x10: // constu
			push(r.uleb())
		case 0x11: // consts
			push(uint64(r.sleb()))
		case 0x12: // dup
			v := pop()
			push(v)
			push(v)
		case 0x13: // drop
			pop()
		case 0x14: // over
			if len(stack) < 2 {
				return 0, false
			}
			push(stack[len(stack)-2])
		case 0x15: // pick
			i := int(r.u8())
			if i >= len(stack) {
				return 0, false
			}
			push(stack[len(stack)-1-i])
		case 0x16: // swap
			a, b := pop(), pop()
			push(a)
			push(b)
		case 0x17: // rot
			a, b, c := pop(), pop(), pop()
			push(a)
			push(c)
			push(b)
		case 0x19: // abs
			v := int64(pop())
			if v < 0 {
				v = -v
			}
			push(uint64(v))
		case 0x1f: // neg
			push(-pop())
		case 0x20: // not
			push(^pop())
		case 0x23: // plus_uconst
			push(pop() + r.uleb())
		case 0x2f: // skip
			d := int(int16(r.u16()))
			if !r.jump(d) {
				return 0, false
			}
		case 0x28: // bra
			d := int(int16(r.u16()))
			if pop() != 0 && !r.jump(d) {
				return 0, false
			}
		case 0x90: // regx
			v, ok := f.reg(r.uleb())
			if !ok {
				return 0, false
			}
			push(v)
		case 0x92: // bregx
			v, ok := f.reg(r.uleb())
			if !ok {
				return 0, false
			}
			push(v + uint64(r.sleb()))
		case 0x96: // nop
		default:
			// Every other operation from and (0x1a) to ne (0x2e) is
			// binary.
			if op < 0x1a || op > 0x2e {
				return 0, false
			}
			b, a := pop(), pop()
			v, ok := binaryOp(op, a, b)
			if !ok {
				return 0, false
			}
			push(v)
		}
	}
	if r.err != nil || len(stack) == 0 {
		return 0, false
	}
	return stack[len(stack)-1], true
}

// binaryOp applies the binary operation op (and, div, minus, mod, mul,
// or, plus, shl, shr, shra, xor and the comparisons eq, ge, gt, le, lt,
// ne) to a, the deeper operand, and b, the top of the stack; ok is false
// for a division by zero or an overflowing one.
func binaryOp(op byte, a, b uint64) (v uint64, ok bool) {
	switch op {
	case 0x1a: // and
		return a & b, true
	case 0x1b: // div
		sa, sb := int64(a), int64(b)
		if sb == 0 || (sb == -1 && sa == -1<<63) {
			return 0, false
		}
		return uint64(sa / sb), true
	case 0x1c: // minus
		return a - b, true
	case 0x1d: // mod
		if b == 0 {
			return 0, false
		}
		return a % b, true
	case 0x1e: // mul
		return a * b, true
	case 0x21: // or
		return a | b, true
	case 0x22: // plus
		return a + b, true
	case 0x24: // shl
		if b >= 64 {
			return 0, true
		}
		return a << b, true
	case 0x25: // shr
		if b >= 64 {
			return 0, true
		}
		return a >> b, true
	case 0x26: // shra
		return uint64(int64(a) >> min(b, 63)), true
	case 0x27: // xor
		return a ^ b, true
	}
	sa, sb := int64(a), int64(b)
	var t bool
	switch op {
	case 0x29: // eq
		t = sa == sb
	case 0x2a: // ge
		t = sa >= sb
	case 0x2b: // gt
		t = sa > sb
	case 0x2c: // le
		t = sa <= sb
	case 0x2d: // lt
		t = sa < sb
	default: // ne
		t = sa != sb
	}
	if t {
		return 1, true
	}
	return 0, true
}

// jump moves the read position by d bytes; it reports whether the target
// lies within the expression.
func (r *cfiReader) jump(d int) bool {
	n := r.off + d
	if r.err != nil || n < 0 || n > len(r.b) {
		r.fail()
		return false
	}
	r.off = n
	return true
}
