package symbolize

import (
	"debug/elf"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// User-stack unwinding of --call-graph dwarf samples (PERF_SAMPLE_REGS_USER
// + PERF_SAMPLE_STACK_USER) with the .eh_frame/.debug_frame CFI of each
// DSO, following perf 6.1's unwind-libunwind-local.c over libunwind 1.6:
// the first entry is the sampled user IP, each caller is its return
// address minus one, at most max-stack entries; stack reads outside the
// copied stack yield 0 (perf's access_mem), so an unwind that runs off the
// copy ends in a frame whose address prints as ffffffffffffffff.

// x86-64 perf register numbers (arch/x86/include/uapi/asm/perf_regs.h)
// of the DWARF registers 0-16: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp,
// r8-r15, and the return address column, rip.
var dwarfToPerfReg = [cfiRegs]uint8{0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8}

// DWARF register numbers the unwinder names.
const (
	dwarfRBP = 6
	dwarfRSP = 7
	dwarfRIP = 16
)

// maxUnwindBytes bounds the copied-stack bytes an unwind looks at.
const maxUnwindBytes = 1 << 20

// unwindState is the Symbolizer's unwinding state: CFI tables by DSO and
// scratch space reused across samples.
type unwindState struct {
	cfi map[*dso]*cfiTable   // nil value: the DSO has no usable CFI
	inl map[*dso]*inlineInfo // nil value: no DWARF for inline frames
	// noInline leaves the inline frames out (perf --no-inline).
	noInline bool
	ips      []uint64
}

// SetMaxStack sets Options.MaxStack (perf --max-stack) before the first
// [Symbolizer.Resolve]: the kernel part of a callchain and the addresses
// unwound from a user stack copy are limited to it separately.
func (s *Symbolizer) SetMaxStack(n int) { s.opts.MaxStack = n }

// unwindFrame is the register state of one frame during an unwind.
type unwindFrame struct {
	regs  [cfiRegs]uint64
	cfa   uint64 // the stack pointer of this frame
	ip    uint64
	stack []byte
	sp0   uint64 // address of stack[0]
}

// reg returns DWARF register n of the frame (rsp is the CFA, rip the IP).
func (f *unwindFrame) reg(n uint64) uint64 {
	switch {
	case n == dwarfRSP:
		return f.cfa
	case n == dwarfRIP:
		return f.ip
	case n < cfiRegs:
		return f.regs[n]
	}
	return 0
}

// read returns the word at addr from the stack copy, 0 outside it. Like
// perf's access_mem, the last word of the copy is treated as outside.
func (f *unwindFrame) read(addr uint64) uint64 {
	if addr < f.sp0 || addr+8 < addr {
		return 0
	}
	off := addr - f.sp0
	if off+8 >= uint64(len(f.stack)) {
		return 0
	}
	return uint64(f.stack[off]) | uint64(f.stack[off+1])<<8 | uint64(f.stack[off+2])<<16 |
		uint64(f.stack[off+3])<<24 | uint64(f.stack[off+4])<<32 | uint64(f.stack[off+5])<<40 |
		uint64(f.stack[off+6])<<48 | uint64(f.stack[off+7])<<56
}

// userRegs returns the DWARF register values of a sample's user registers
// (by the attr's sample_regs_user mask) and whether IP and SP are present.
func userRegs(ds *decode.Sample) (f unwindFrame, ok bool) {
	if ds.Attr == nil || ds.RegsUserABI == 0 || len(ds.RegsUser) == 0 {
		return f, false
	}
	mask := ds.Attr.SampleRegsUser
	var perf [64]uint64
	var have uint64
	i := 0
	for bit := uint(0); bit < 64 && i < len(ds.RegsUser); bit++ {
		if mask&(1<<bit) == 0 {
			continue
		}
		perf[bit] = ds.RegsUser[i]
		have |= 1 << bit
		i++
	}
	const ipBit, spBit = 8, 7
	if have&(1<<ipBit) == 0 || have&(1<<spBit) == 0 {
		return f, false
	}
	for d, p := range dwarfToPerfReg {
		f.regs[d] = perf[p]
	}
	f.ip = perf[ipBit]
	f.cfa = perf[spBit]
	f.sp0 = f.cfa
	return f, true
}

// unwindUser appends the DWARF-unwound user frames of ds to ev.Frames,
// as perf's thread__resolve_callchain_unwind does after the kernel part of
// the callchain. It does nothing for samples without user registers or
// stack copy.
func (s *Symbolizer) unwindUser(ds *decode.Sample, ev *Event, maxStack int) {
	ev.Unwound = 0
	before := len(ev.Frames)
	defer func() { ev.Unwound = len(ev.Frames) - before }()
	if ds.Format&decode.SampleRegsUser == 0 || ds.Format&decode.SampleStackUser == 0 ||
		ds.StackUserDyn == 0 || len(ds.StackUser) == 0 {
		return
	}
	f, ok := userRegs(ds)
	if !ok {
		return
	}
	n := min(ds.StackUserDyn, uint64(len(ds.StackUser)), maxUnwindBytes)
	f.stack = ds.StackUser[:n]
	if maxStack <= 0 {
		maxStack = 1 << 16
	}
	ips := append(s.unw.ips[:0], f.ip)
	usePrev := false
	for len(ips) < maxStack {
		next, ok := s.unwindStep(ds.PID, &f, usePrev)
		if !ok {
			break
		}
		usePrev = next
		ips = append(ips, f.ip-1)
	}
	s.unw.ips = ips
	for _, ip := range ips {
		if ip == 0 {
			continue
		}
		var fr Frame
		s.resolveAddr(&fr, ip, decode.CPUModeUser, ds.PID, ds.Period)
		var d *dso
		if m := s.userMap(ds.PID, ip); m != nil {
			d = m.dso
		}
		var ok bool
		if ev.Frames, ok = s.appendInlines(ev.Frames, &fr, d); !ok {
			ev.Frames = append(ev.Frames, fr)
		}
	}
}

// unwindStep moves f to its caller (libunwind's unw_step); ok is false
// when the unwind ends. usePrev says whether f.ip is a return address
// (the rules of ip-1 apply); next is the same for the caller.
func (s *Symbolizer) unwindStep(pid int32, f *unwindFrame, usePrev bool) (next, ok bool) {
	pc := f.ip
	if usePrev {
		pc--
	}
	m := s.userMap(pid, pc)
	if m == nil || m.identity {
		return false, false
	}
	t := s.cfiFor(m.dso)
	if t == nil {
		return false, false
	}
	vpc := m.mapIP(pc)
	fd := t.find(vpc)
	if fd == nil {
		return true, fpStep(f)
	}
	row, err := fd.row(vpc)
	if err != nil {
		return false, false
	}
	var cfa uint64
	if row.cfaExpr != nil {
		v, ok := evalExpr(row.cfaExpr, f)
		if !ok {
			return false, false
		}
		cfa = v
	} else {
		cfa = f.reg(uint64(row.cfaReg)) + uint64(row.cfaOff)
	}
	var regs [cfiRegs]uint64
	undefinedRA := false
	for i := range regs {
		rule := row.regs[i]
		switch rule.kind {
		case ruleSame:
			regs[i] = f.reg(uint64(i))
		case ruleUndefined:
			if uint64(i) == fd.cie.raReg {
				undefinedRA = true
			}
		case ruleOffset:
			regs[i] = f.read(cfa + uint64(rule.off))
		case ruleValOffset:
			regs[i] = cfa + uint64(rule.off)
		case ruleRegister:
			regs[i] = f.reg(uint64(rule.reg))
		case ruleExpr:
			a, ok := evalExpr(rule.expr, f, cfa)
			if !ok {
				return false, false
			}
			regs[i] = f.read(a)
		case ruleValExpr:
			v, ok := evalExpr(rule.expr, f, cfa)
			if !ok {
				return false, false
			}
			regs[i] = v
		}
	}
	if undefinedRA || fd.cie.raReg >= cfiRegs {
		// An undefined return address marks the outermost frame.
		return false, false
	}
	prevIP, prevCFA := f.ip, f.cfa
	f.ip = regs[fd.cie.raReg]
	f.regs = regs
	f.cfa = cfa
	if f.ip == prevIP && f.cfa == prevCFA {
		return false, false
	}
	return !fd.cie.signal, true
}

// fpStep is libunwind's x86-64 fallback for code without CFI: assume a
// frame-pointer frame at rbp, unless rbp does not look like one.
func fpStep(f *unwindFrame) bool {
	rbp := f.regs[dwarfRBP]
	if rbp == 0 || rbp <= f.cfa || rbp-f.cfa > 0x4000 {
		return false
	}
	prevIP, prevCFA := f.ip, f.cfa
	f.regs[dwarfRBP] = f.read(rbp)
	f.ip = f.read(rbp + 8)
	f.cfa = rbp + 16
	return !(f.ip == prevIP && f.cfa == prevCFA)
}

// cfiFor returns the CFI of d: .eh_frame of the DSO's binary, else
// .debug_frame of it or of its debug file; nil when there is none.
func (s *Symbolizer) cfiFor(d *dso) *cfiTable {
	if t, ok := s.unw.cfi[d]; ok {
		return t
	}
	if s.unw.cfi == nil {
		s.unw.cfi = map[*dso]*cfiTable{}
	}
	t := s.loadCFI(d)
	s.unw.cfi[d] = t
	return t
}

func (s *Symbolizer) loadCFI(d *dso) *cfiTable {
	var files openFiles
	defer files.close()
	open := files.open
	var debugFrame *cfiTable
	for _, p := range s.candidates(d, open) {
		f := open(p)
		if f == nil {
			continue
		}
		if d.buildID != nil && !buildIDEqual(readBuildID(f), d.buildID) {
			continue
		}
		if t := ehFrame(f); t != nil {
			return t
		}
		if debugFrame == nil {
			if sec := f.Section(".debug_frame"); sec != nil && sec.Type == elf.SHT_PROGBITS {
				if data, err := f.Data(sec); err == nil {
					if t, _ := parseCFI(data, 0, false); len(t.fdes) > 0 {
						debugFrame = t
					}
				}
			}
		}
	}
	return debugFrame
}

// ehFrame parses f's .eh_frame, placing it the way perf hands it to
// libunwind: addresses are relative to the .eh_frame_hdr's file offset.
func ehFrame(f *elfsafe.File) *cfiTable {
	sec := f.Section(".eh_frame")
	if sec == nil || sec.Type != elf.SHT_PROGBITS || sec.Size == 0 {
		return nil
	}
	data, err := f.Data(sec)
	if err != nil {
		return nil
	}
	base := sec.Addr
	if hdr := f.Section(".eh_frame_hdr"); hdr != nil && hdr.Type == elf.SHT_PROGBITS {
		base = sec.Addr - hdr.Addr + hdr.Offset
	}
	t, _ := parseCFI(data, base, true)
	if len(t.fdes) == 0 {
		return nil
	}
	return t
}
