package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// The CIE/FDE parser and the evaluation of the rules for one address, as
// libunwind's dwarf/Gparser.c does.

// NumRegs is the number of DWARF registers the x86-64 unwinder tracks:
// rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15 and the return address
// column 16 (libunwind's DWARF_NUM_PRESERVED_REGS).
const NumRegs = 17

// DWARF register numbers the unwinder names.
const (
	RegRBP = 6
	RegRSP = 7
	RegRIP = 16
)

// Rule kinds of a register in a CFI row.
const (
	ruleSame      uint8 = iota // unchanged from the callee (also "no rule")
	ruleUndefined              // not recoverable
	ruleOffset                 // saved at CFA+off
	ruleValOffset              // value is CFA+off
	ruleRegister               // value is in register reg
	ruleExpr                   // saved at the address expr computes
	ruleValExpr                // value is what expr computes
)

// regRule is how a register of the caller is recovered.
type regRule struct {
	kind uint8
	reg  uint16
	off  int64
	expr []byte
}

// cfiRow is the unwind rule set at one address.
type cfiRow struct {
	cfaReg  uint16
	cfaOff  int64
	cfaExpr []byte // when not nil, the CFA is this expression's value
	regs    [NumRegs]regRule
}

// cie is a common information entry.
type cie struct {
	codeAlign uint64
	dataAlign int64
	raReg     uint64
	fdeEnc    byte
	hasAug    bool
	signal    bool
	initial   []byte
}

// FDE is a frame description entry: the rules for the code addresses
// [start, end).
type FDE struct {
	start, end uint64
	cie        *cie
	instr      []byte
}

// Table holds the FDEs of one section sorted by start address.
type Table struct {
	fdes []FDE
}

// Len returns the number of FDEs of t.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	return len(t.fdes)
}

// errCFI reports malformed call frame information.
var errCFI = errors.New("malformed call frame information")

// cfiReader reads DWARF encoded values from a byte slice, recording the
// first error instead of panicking.
type cfiReader struct {
	b   []byte
	off int
	err error
}

func (r *cfiReader) fail() {
	if r.err == nil {
		r.err = errCFI
	}
	r.off = len(r.b)
}

func (r *cfiReader) need(n int) bool {
	if r.err != nil || n < 0 || len(r.b)-r.off < n {
		r.fail()
		return false
	}
	return true
}

func (r *cfiReader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *cfiReader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.LittleEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *cfiReader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *cfiReader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

func (r *cfiReader) uleb() uint64 {
	var v uint64
	var shift uint
	for {
		c := r.u8()
		if r.err != nil {
			return 0
		}
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v
		}
	}
}

func (r *cfiReader) sleb() int64 {
	var v int64
	var shift uint
	for {
		c := r.u8()
		if r.err != nil {
			return 0
		}
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (r *cfiReader) cstring() string {
	for i := r.off; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.off:i])
			r.off = i + 1
			return s
		}
	}
	r.fail()
	return ""
}

func (r *cfiReader) block(n uint64) []byte {
	if n > uint64(len(r.b)) || !r.need(int(n)) {
		r.fail()
		return nil
	}
	v := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return v
}

// pointer reads a value in DW_EH_PE encoding enc; base is the section's
// address at offset 0 (for pcrel).
func (r *cfiReader) pointer(enc byte, base uint64) uint64 {
	if enc == 0xff {
		return 0
	}
	pos := base + uint64(r.off)
	var v uint64
	switch enc & 0x0f {
	case 0x00:
		v = r.u64()
	case 0x01:
		v = r.uleb()
	case 0x02:
		v = uint64(r.u16())
	case 0x03:
		v = uint64(r.u32())
	case 0x04:
		v = r.u64()
	case 0x09:
		v = uint64(r.sleb())
	case 0x0a:
		v = uint64(int64(int16(r.u16())))
	case 0x0b:
		v = uint64(int64(int32(r.u32())))
	case 0x0c:
		v = r.u64()
	default:
		r.fail()
		return 0
	}
	switch enc & 0x70 {
	case 0x00:
	case 0x10:
		v += pos
	default:
		// textrel, datarel, funcrel, aligned: not used in .eh_frame
		// FDE addresses of x86-64 objects.
		r.fail()
	}
	return v
}

// Parse parses an .eh_frame (eh true) or .debug_frame section whose
// first byte is at address addr. Entries that cannot be parsed are
// skipped; a section that cannot be walked yields the FDEs read so far
// and an error. The table is never nil.
func Parse(data []byte, addr uint64, eh bool) (*Table, error) {
	t := &Table{}
	cies := map[int]*cie{}
	var err error
	for off := 0; off < len(data); {
		r := &cfiReader{b: data, off: off}
		length := uint64(r.u32())
		is64 := false
		if length == 0xffffffff {
			length = r.u64()
			is64 = true
		}
		if r.err != nil {
			err = fmt.Errorf("cfi entry at %#x: %w", off, r.err)
			break
		}
		if length == 0 {
			if eh {
				break // terminator
			}
			off = r.off
			continue
		}
		body := r.off
		if length > uint64(len(data)-body) {
			err = fmt.Errorf("cfi entry at %#x: length %d past the section: %w", off, length, errCFI)
			break
		}
		next := body + int(length)
		e := &cfiReader{b: data[:next], off: body}
		var id uint64
		if is64 {
			id = e.u64()
		} else {
			id = uint64(e.u32())
		}
		isCIE := id == 0
		if !eh {
			isCIE = id == 0xffffffff || (is64 && id == ^uint64(0))
		}
		if isCIE {
			if c := parseCIE(e, eh); c != nil {
				cies[off] = c
			}
		} else {
			cieOff := int64(id)
			if eh {
				cieOff = int64(body) - int64(id)
			}
			c := cies[int(cieOff)]
			if c == nil && cieOff >= 0 && cieOff < int64(len(data)) {
				c = lookupCIE(data, int(cieOff), eh)
				if c != nil {
					cies[int(cieOff)] = c
				}
			}
			if c != nil {
				if f, ok := parseFDE(e, c, addr, eh); ok {
					t.fdes = append(t.fdes, f)
				}
			}
		}
		off = next
	}
	sort.SliceStable(t.fdes, func(i, j int) bool { return t.fdes[i].start < t.fdes[j].start })
	return t, err
}

// lookupCIE parses the CIE at off (a CIE placed after the FDEs using it).
func lookupCIE(data []byte, off int, eh bool) *cie {
	r := &cfiReader{b: data, off: off}
	length := uint64(r.u32())
	is64 := false
	if length == 0xffffffff {
		length = r.u64()
		is64 = true
	}
	if r.err != nil || length == 0 || length > uint64(len(data)-r.off) {
		return nil
	}
	e := &cfiReader{b: data[:r.off+int(length)], off: r.off}
	var id uint64
	if is64 {
		id = e.u64()
	} else {
		id = uint64(e.u32())
	}
	if eh && id != 0 || !eh && id != 0xffffffff && id != ^uint64(0) {
		return nil
	}
	return parseCIE(e, eh)
}

func parseCIE(r *cfiReader, eh bool) *cie {
	c := &cie{fdeEnc: 0x00}
	version := r.u8()
	aug := r.cstring()
	if version >= 4 {
		r.u8() // address_size
		r.u8() // segment_selector_size
	}
	c.codeAlign = r.uleb()
	c.dataAlign = r.sleb()
	if version == 1 {
		c.raReg = uint64(r.u8())
	} else {
		c.raReg = r.uleb()
	}
	if len(aug) > 0 && aug[0] == 'z' {
		c.hasAug = true
		n := r.uleb()
		augData := r.block(n)
		a := &cfiReader{b: augData}
		for _, ch := range aug[1:] {
			switch ch {
			case 'L':
				a.u8()
			case 'P':
				enc := a.u8()
				a.pointer(enc&0x7f, 0) // the personality routine: skipped
			case 'R':
				c.fdeEnc = a.u8()
			case 'S':
				c.signal = true
			case 'B':
			default:
				// Unknown augmentation: the FDEs cannot be read.
				return nil
			}
		}
		if a.err != nil {
			return nil
		}
	} else if aug != "" {
		return nil
	}
	if !eh {
		c.fdeEnc = 0x00
	}
	if r.err != nil {
		return nil
	}
	c.initial = r.b[r.off:]
	return c
}

func parseFDE(r *cfiReader, c *cie, addr uint64, eh bool) (FDE, bool) {
	var start, size uint64
	if eh {
		start = r.pointer(c.fdeEnc, addr)
		size = r.pointer(c.fdeEnc&0x0f, addr)
	} else {
		start = r.u64()
		size = r.u64()
	}
	if c.hasAug {
		n := r.uleb()
		r.block(n)
	}
	if r.err != nil || start+size < start {
		return FDE{}, false
	}
	return FDE{start: start, end: start + size, cie: c, instr: r.b[r.off:]}, true
}

// Find returns the FDE covering pc, or nil (also for a nil t).
func (t *Table) Find(pc uint64) *FDE {
	if t == nil {
		return nil
	}
	i := sort.Search(len(t.fdes), func(i int) bool { return t.fdes[i].start > pc })
	for i--; i >= 0; i-- {
		f := &t.fdes[i]
		if pc >= f.start && pc < f.end {
			return f
		}
		// FDEs do not nest; an earlier one can only cover pc if this
		// one is empty.
		if f.end > f.start {
			break
		}
	}
	return nil
}

// maxCFIStates bounds DW_CFA_remember_state nesting.
const maxCFIStates = 64

// row computes the rules in effect at pc (which must lie in f).
func (f *FDE) row(pc uint64) (cfiRow, error) {
	var init cfiRow
	if _, err := runCFA(f.cie, f.cie.initial, &init, nil, f.start, ^uint64(0)); err != nil {
		return cfiRow{}, err
	}
	row := init
	_, err := runCFA(f.cie, f.instr, &row, &init, f.start, pc)
	return row, err
}

// runCFA executes CFA instructions on row starting at location loc and
// stops before the first advance past pc. init is the CIE's row for
// DW_CFA_restore (nil while running the CIE itself).
func runCFA(c *cie, instr []byte, row *cfiRow, init *cfiRow, loc, pc uint64) (uint64, error) {
	vm := cfaVM{c: c, r: cfiReader{b: instr}, row: row, init: init, loc: loc, pc: pc}
	for vm.r.off < len(vm.r.b) && vm.r.err == nil {
		stop, err := vm.exec(vm.r.u8())
		if err != nil {
			return vm.loc, err
		}
		if stop {
			break
		}
	}
	return vm.loc, vm.r.err
}

// cfaVM is the state of one run of CFA instructions.
type cfaVM struct {
	c     *cie
	r     cfiReader
	row   *cfiRow
	init  *cfiRow // the CIE's row; nil while running the CIE
	stack []cfiRow
	loc   uint64 // the address the row is for
	pc    uint64 // where to stop
}

// set gives register reg a rule; registers not tracked are ignored.
func (vm *cfaVM) set(reg uint64, rule regRule) {
	if reg < NumRegs {
		vm.row.regs[reg] = rule
	}
}

// restore gives register reg its rule of the CIE (DW_CFA_restore).
func (vm *cfaVM) restore(reg uint64) {
	if reg >= NumRegs {
		return
	}
	if vm.init != nil {
		vm.row.regs[reg] = vm.init.regs[reg]
	} else {
		vm.row.regs[reg] = regRule{}
	}
}

// advance moves the location by delta code units; it reports false,
// leaving the location, when that would pass pc.
func (vm *cfaVM) advance(delta uint64) bool {
	n := vm.loc + delta*vm.c.codeAlign
	if n > vm.pc {
		return false
	}
	vm.loc = n
	return true
}

// exec executes the instruction op; stop reports that the row for pc is
// complete.
func (vm *cfaVM) exec(op byte) (stop bool, err error) {
	r := &vm.r
	switch op & 0xc0 {
	case 0x40: // advance_loc
		return !vm.advance(uint64(op & 0x3f)), nil
	case 0x80: // offset
		vm.set(uint64(op&0x3f), regRule{kind: ruleOffset, off: int64(r.uleb()) * vm.c.dataAlign})
		return false, nil
	case 0xc0: // restore
		vm.restore(uint64(op & 0x3f))
		return false, nil
	}
	switch op {
	case 0x00: // nop
	case 0x01: // set_loc
		n := r.u64()
		if n > vm.pc {
			return true, nil
		}
		vm.loc = n
	case 0x02: // advance_loc1
		return !vm.advance(uint64(r.u8())), nil
	case 0x03: // advance_loc2
		return !vm.advance(uint64(r.u16())), nil
	case 0x04: // advance_loc4
		return !vm.advance(uint64(r.u32())), nil
	case 0x0a: // remember_state
		if len(vm.stack) >= maxCFIStates {
			return false, errCFI
		}
		vm.stack = append(vm.stack, *vm.row)
	case 0x0b: // restore_state
		if len(vm.stack) == 0 {
			return false, errCFI
		}
		*vm.row = vm.stack[len(vm.stack)-1]
		vm.stack = vm.stack[:len(vm.stack)-1]
	case 0x2e: // GNU_args_size
		r.uleb()
	default:
		if !vm.cfaOp(op) && !vm.regOp(op) {
			return false, errCFI
		}
	}
	return false, nil
}

// cfaOp executes op if it defines the CFA, reporting whether it did.
func (vm *cfaVM) cfaOp(op byte) bool {
	r, row := &vm.r, vm.row
	switch op {
	case 0x0c: // def_cfa
		row.cfaReg = uint16(min(r.uleb(), 0xffff))
		row.cfaOff = int64(r.uleb())
		row.cfaExpr = nil
	case 0x0d: // def_cfa_register
		row.cfaReg = uint16(min(r.uleb(), 0xffff))
		row.cfaExpr = nil
	case 0x0e: // def_cfa_offset
		row.cfaOff = int64(r.uleb())
	case 0x0f: // def_cfa_expression
		row.cfaExpr = r.block(r.uleb())
		if row.cfaExpr == nil {
			row.cfaExpr = []byte{}
		}
	case 0x12: // def_cfa_sf
		row.cfaReg = uint16(min(r.uleb(), 0xffff))
		row.cfaOff = r.sleb() * vm.c.dataAlign
		row.cfaExpr = nil
	case 0x13: // def_cfa_offset_sf
		row.cfaOff = r.sleb() * vm.c.dataAlign
	default:
		return false
	}
	return true
}

// regOp executes op if it sets a register's rule, reporting whether it
// did.
func (vm *cfaVM) regOp(op byte) bool {
	r, align := &vm.r, vm.c.dataAlign
	switch op {
	case 0x05: // offset_extended
		reg := r.uleb()
		vm.set(reg, regRule{kind: ruleOffset, off: int64(r.uleb()) * align})
	case 0x06: // restore_extended
		vm.restore(r.uleb())
	case 0x07: // undefined
		vm.set(r.uleb(), regRule{kind: ruleUndefined})
	case 0x08: // same_value
		vm.set(r.uleb(), regRule{kind: ruleSame})
	case 0x09: // register
		reg := r.uleb()
		vm.set(reg, regRule{kind: ruleRegister, reg: uint16(min(r.uleb(), 0xffff))})
	case 0x10: // expression
		reg := r.uleb()
		vm.set(reg, regRule{kind: ruleExpr, expr: r.block(r.uleb())})
	case 0x11: // offset_extended_sf
		reg := r.uleb()
		vm.set(reg, regRule{kind: ruleOffset, off: r.sleb() * align})
	case 0x14: // val_offset
		reg := r.uleb()
		vm.set(reg, regRule{kind: ruleValOffset, off: int64(r.uleb()) * align})
	case 0x15: // val_offset_sf
		reg := r.uleb()
		vm.set(reg, regRule{kind: ruleValOffset, off: r.sleb() * align})
	case 0x16: // val_expression
		reg := r.uleb()
		vm.set(reg, regRule{kind: ruleValExpr, expr: r.block(r.uleb())})
	case 0x2f: // GNU_negative_offset_extended
		reg := r.uleb()
		vm.set(reg, regRule{kind: ruleOffset, off: -int64(r.uleb()) * align})
	default:
		return false
	}
	return true
}
