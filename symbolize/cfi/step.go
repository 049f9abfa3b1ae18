package cfi

import "encoding/binary"

// The register state of a frame and the step to its caller: libunwind's
// x86-64 unw_step with its dwarf_loc_t locations, registers read only
// when used.

// maxFrameGuess is how far above the CFA libunwind's frame-pointer guess
// accepts rbp.
const maxFrameGuess = 0x4000

// Location kinds of a register (libunwind's dwarf_loc_t).
const (
	locVal  uint8 = iota // the value itself: a sample register, a val rule's result
	locMem               // saved in memory at the address
	locNull              // not recoverable: reading it fails
)

// regLoc is where a register of a frame is found.
type regLoc struct {
	kind uint8
	v    uint64 // the value (locVal) or its address (locMem)
}

// MemStatus is the result of a memory read as libunwind sees perf's
// access_mem return value: negative fails, anything else succeeds.
type MemStatus int8

// Results of a memory read.
const (
	MemFail MemStatus = -1 // no mapping at the address
	MemOK   MemStatus = 0  // read from the stack copy or the mapping's file
	MemZero MemStatus = 1  // mapped, but the file cannot be read there: 0
)

// Memory reads the process's memory outside the stack copy.
type Memory interface {
	// ReadWord returns the little-endian word at addr and how the read
	// went; the word is 0 unless the status is MemOK.
	ReadWord(addr uint64) (uint64, MemStatus)
}

// MemoryFunc adapts a function to [Memory].
type MemoryFunc func(addr uint64) (uint64, MemStatus)

// ReadWord calls m(addr).
func (m MemoryFunc) ReadWord(addr uint64) (uint64, MemStatus) { return m(addr) }

// Frame is the register state of one frame during an unwind. The zero
// Frame has every register 0 and no memory.
type Frame struct {
	locs    [NumRegs]regLoc
	cfa     uint64 // the stack pointer of this frame
	ip      uint64
	usePrev bool // ip is a return address: look up the CFI of ip-1
	stack   []byte
	sp0     uint64 // address of stack[0]
	// mem reads the word at an address outside the stack copy; nil: no
	// address is mapped.
	mem Memory
}

// NewFrame returns the innermost frame of a sample: its instruction
// pointer ip, its stack pointer sp, the copy of the stack from sp up, and
// the memory outside that copy (nil: nothing is mapped). Every register
// is 0 until set with [Frame.SetReg] or [Frame.SetUnknown].
func NewFrame(ip, sp uint64, stack []byte, mem Memory) Frame {
	return Frame{cfa: sp, ip: ip, stack: stack, sp0: sp, mem: mem}
}

// SetReg sets DWARF register n (below [NumRegs]) to v.
func (f *Frame) SetReg(n int, v uint64) {
	if n >= 0 && n < NumRegs {
		f.locs[n] = regLoc{kind: locVal, v: v}
	}
}

// SetUnknown marks DWARF register n (below [NumRegs]) as not recoverable:
// reading it fails.
func (f *Frame) SetUnknown(n int) {
	if n >= 0 && n < NumRegs {
		f.locs[n] = regLoc{kind: locNull}
	}
}

// IP returns the frame's instruction pointer: the sampled address, then
// each caller's return address.
func (f *Frame) IP() uint64 { return f.ip }

// PC returns the address whose CFI describes the frame: the IP, less one
// when it is a return address.
func (f *Frame) PC() uint64 {
	if f.usePrev {
		return f.ip - 1
	}
	return f.ip
}

// Step moves f to its caller as libunwind's x86-64 unw_step does, by fd,
// the FDE covering pc (the frame's PC as placed in fd's table); with fd
// nil, the code has no CFI and the frame-chain fallback steps. ok reports
// whether that gave a frame (false: the walk ends), signal whether the
// frame left was a signal frame (its CIE has the S augmentation).
func (f *Frame) Step(fd *FDE, pc uint64) (ok, signal bool) {
	if fd == nil {
		return fallbackStep(f), false
	}
	row, err := fd.row(pc)
	if err != nil {
		return false, false
	}
	f.usePrev = !fd.cie.signal
	return cfiStep(f, &row, fd.cie.raReg), fd.cie.signal
}

// reg returns DWARF register n of the frame as libunwind's unw_get_reg
// does (rsp is the CFA, rip the IP); ok is false when it cannot be read.
func (f *Frame) reg(n uint64) (uint64, bool) {
	switch {
	case n == RegRSP:
		return f.cfa, true
	case n == RegRIP:
		return f.ip, true
	case n < NumRegs:
		return f.load(f.locs[n])
	}
	return 0, false
}

// load returns the value at location l (libunwind's dwarf_get).
func (f *Frame) load(l regLoc) (uint64, bool) {
	switch l.kind {
	case locVal:
		return l.v, true
	case locMem:
		v, st := f.read(l.v)
		return v, st >= 0
	}
	return 0, false
}

// read returns the word at addr (perf's access_mem): from the stack copy,
// whose last word counts as outside, else through f.mem.
func (f *Frame) read(addr uint64) (uint64, MemStatus) {
	if addr+8 < addr {
		return 0, MemFail
	}
	if addr >= f.sp0 && addr-f.sp0+8 < uint64(len(f.stack)) {
		return binary.LittleEndian.Uint64(f.stack[addr-f.sp0:]), MemOK
	}
	if f.mem == nil {
		return 0, MemFail
	}
	return f.mem.ReadWord(addr)
}

// cfiStep applies the CFI row of f's code to f (libunwind's
// apply_reg_state and the checks unw_step makes after it).
func cfiStep(f *Frame, row *cfiRow, raReg uint64) bool {
	var cfa uint64
	switch {
	case row.cfaExpr != nil:
		// libunwind pushes a dummy 0 before a CFA expression.
		v, ok := evalExpr(row.cfaExpr, f, 0)
		if !ok {
			return false
		}
		cfa = v
	default:
		v, ok := f.reg(uint64(row.cfaReg))
		if !ok {
			return false
		}
		cfa = v + uint64(row.cfaOff)
	}
	locs := f.locs
	for i := range locs {
		rule := row.regs[i]
		switch rule.kind {
		case ruleUndefined:
			locs[i] = regLoc{kind: locNull}
		case ruleOffset:
			locs[i] = regLoc{kind: locMem, v: cfa + uint64(rule.off)}
		case ruleValOffset:
			locs[i] = regLoc{kind: locVal, v: cfa + uint64(rule.off)}
		case ruleRegister:
			// The location of the other register, as already updated
			// for lower numbers (libunwind copies in place).
			if rule.reg < NumRegs {
				locs[i] = locs[rule.reg]
			} else {
				locs[i] = regLoc{kind: locNull}
			}
		case ruleExpr, ruleValExpr:
			v, ok := evalExpr(rule.expr, f, cfa)
			if !ok {
				return false
			}
			locs[i] = regLoc{kind: locMem, v: v}
			if rule.kind == ruleValExpr {
				locs[i].kind = locVal
			}
		}
	}
	if raReg >= NumRegs {
		return false
	}
	prevIP, prevCFA := f.ip, f.cfa
	f.locs = locs
	f.cfa = cfa
	if locs[raReg].kind == locNull {
		// An undefined return address marks the outermost frame.
		return false
	}
	ip, ok := f.load(locs[raReg])
	if !ok {
		return false
	}
	f.ip = ip
	if f.ip == prevIP && f.cfa == prevCFA {
		return false
	}
	// The x86-64 ABI ends the chain at an undefined rbp too.
	return locs[RegRBP].kind != locNull
}

// fallbackStep is libunwind 1.6's x86-64 step for code without CFI (not
// a signal frame): a PLT entry pops the return address; else a frame
// pointer frame at rbp is assumed, checked only for rbp lying at most
// 16 KiB above the CFA, and the CFA moves up by 16 whatever rbp is.
func fallbackStep(f *Frame) bool {
	prevIP, prevCFA := f.ip, f.cfa
	result := true // libunwind's ret > 0
	invalidPrev := false
	switch {
	case isPLTEntry(f):
		f.locs[RegRIP] = regLoc{kind: locMem, v: f.cfa}
		f.cfa += 8
	case f.locs[RegRBP].kind == locNull:
		f.locs = nullLocs()
	default:
		rbp, ok := f.load(f.locs[RegRBP])
		if !ok {
			return false
		}
		_, st := f.read(prevIP)
		invalidPrev = st != MemOK
		null := regLoc{kind: locNull}
		rbpLoc, rspLoc, ripLoc := null, null, null
		if rbp != 0 || invalidPrev {
			fixed := false
			if invalidPrev {
				// A call through a bad pointer: the return address may
				// still be at the sampled rsp.
				result = false
				if rsp, ok := f.load(f.locs[RegRSP]); ok {
					if ip, st := f.read(rsp); st == MemOK {
						if _, st := f.read(ip); st == MemOK {
							fixed = true
							f.cfa += 8
							rbpLoc = regLoc{kind: locMem, v: rbp}
							rspLoc = regLoc{kind: locMem, v: rsp}
							ripLoc = regLoc{kind: locMem, v: rsp}
						}
					}
				}
			}
			if !fixed {
				rbpLoc = regLoc{kind: locMem, v: rbp}
				ripLoc = regLoc{kind: locMem, v: rbp + 8}
				_, st := f.read(rbp)
				result = st > MemOK
				if st < MemOK || rbp < f.cfa || rbp-f.cfa > maxFrameGuess {
					rbpLoc, ripLoc = null, null
				}
				f.cfa += 16
			}
		}
		f.locs = nullLocs()
		f.locs[RegRBP], f.locs[RegRSP], f.locs[RegRIP] = rbpLoc, rspLoc, ripLoc
		f.usePrev = true
	}
	if f.locs[RegRBP].kind == locNull && !invalidPrev {
		return false
	}
	if f.locs[RegRIP].kind != locNull {
		ip, ok := f.load(f.locs[RegRIP])
		if !ok {
			return false
		}
		f.ip = ip
		result = true
	} else {
		f.ip = 0
	}
	if f.ip == prevIP && f.cfa == prevCFA {
		return false
	}
	return result
}

// nullLocs returns a register set with every location unknown.
func nullLocs() (l [NumRegs]regLoc) {
	for i := range l {
		l[i].kind = locNull
	}
	return l
}

// isPLTEntry reports whether f.ip is at a lazy-binding PLT entry:
// jmp *disp(%rip); push $n; jmp (libunwind's is_plt_entry).
func isPLTEntry(f *Frame) bool {
	w0, st0 := f.read(f.ip)
	if st0 < MemOK {
		return false
	}
	w1, st1 := f.read(f.ip + 8)
	if st1 < MemOK {
		return false
	}
	return w0&0xffff == 0x25ff && (w0>>48)&0xff == 0x68 && (w1>>24)&0xff == 0xe9
}
