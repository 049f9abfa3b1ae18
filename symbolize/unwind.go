package symbolize

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// User-stack unwinding of --call-graph dwarf samples (PERF_SAMPLE_REGS_USER
// + PERF_SAMPLE_STACK_USER) with the .eh_frame/.debug_frame CFI of each
// DSO, following perf 6.1's unwind-libunwind-local.c over libunwind 1.6:
// the first entry is the sampled user IP, each caller is its return
// address minus one (the address itself above a signal frame), at most
// max-stack entries. Registers are tracked as
// libunwind's locations and read only when used. Memory outside the copied
// stack is read as perf's access_dso_mem does: an address in no mapping
// fails and ends the walk, one in a mapping whose file cannot be read gives
// 0, so a walk that reads a return address from the rest of the stack
// ends in a frame whose address prints as ffffffffffffffff.

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

// maxFrameGuess is how far above the CFA libunwind's frame-pointer guess
// accepts rbp.
const maxFrameGuess = 0x4000

// unwindState is the Symbolizer's unwinding state: CFI tables by DSO and
// scratch space reused across samples.
type unwindState struct {
	cfi map[*dso]*cfiTable   // nil value: the DSO has no usable CFI
	inl map[*dso]*inlineInfo // nil value: no DWARF for inline frames
	// data is the file perf reads a DSO's memory from ("": none).
	data map[*dso]string
	// snap holds every mapping of a process's maps snapshot, data
	// included, for memory reads (nil value: no snapshot).
	snap map[int32]*addrSpace
	ips  []uint64
}

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

// memStatus is the result of a memory read as libunwind sees perf's
// access_mem return value: negative fails, anything else succeeds.
type memStatus int8

const (
	memFail memStatus = -1 // no mapping at the address
	memOK   memStatus = 0  // read from the stack copy or the mapping's file
	memZero memStatus = 1  // mapped, but the file cannot be read there: 0
)

// unwindFrame is the register state of one frame during an unwind.
type unwindFrame struct {
	locs    [cfiRegs]regLoc
	cfa     uint64 // the stack pointer of this frame
	ip      uint64
	usePrev bool // ip is a return address: look up the CFI of ip-1
	stack   []byte
	sp0     uint64 // address of stack[0]
	// mem reads the word at an address outside the stack copy; nil: no
	// address is mapped.
	mem func(addr uint64) (uint64, memStatus)
}

// reg returns DWARF register n of the frame as libunwind's unw_get_reg
// does (rsp is the CFA, rip the IP); ok is false when it cannot be read.
func (f *unwindFrame) reg(n uint64) (uint64, bool) {
	switch {
	case n == dwarfRSP:
		return f.cfa, true
	case n == dwarfRIP:
		return f.ip, true
	case n < cfiRegs:
		return f.load(f.locs[n])
	}
	return 0, false
}

// load returns the value at location l (libunwind's dwarf_get).
func (f *unwindFrame) load(l regLoc) (uint64, bool) {
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
func (f *unwindFrame) read(addr uint64) (uint64, memStatus) {
	if addr+8 < addr {
		return 0, memFail
	}
	if addr >= f.sp0 && addr-f.sp0+8 < uint64(len(f.stack)) {
		return binary.LittleEndian.Uint64(f.stack[addr-f.sp0:]), memOK
	}
	if f.mem == nil {
		return 0, memFail
	}
	return f.mem(addr)
}

// userRegs returns the first frame of a sample's user registers (by the
// attr's sample_regs_user mask); ok is false without IP and SP.
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
		if have&(1<<p) != 0 {
			f.locs[d] = regLoc{kind: locVal, v: perf[p]}
		} else {
			f.locs[d] = regLoc{kind: locNull} // perf's access_reg fails
		}
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
	pid := ds.PID
	f.mem = func(addr uint64) (uint64, memStatus) { return s.readMapped(pid, addr) }
	if maxStack <= 0 {
		maxStack = 1 << 16
	}
	ips := append(s.unw.ips[:0], f.ip)
	for len(ips) < maxStack {
		ok, signal := s.unwindStep(pid, &f)
		if !ok {
			break
		}
		// perf takes the return address minus one unless the frame
		// just left was a signal frame (unw_is_signal_frame).
		ip := f.ip
		if !signal {
			ip--
		}
		ips = append(ips, ip)
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

// unwindStep moves f to its caller as libunwind's x86-64 unw_step does; ok
// reports whether that gave a frame (false: the walk ends), signal whether
// the frame left was a signal frame (its CIE has the S augmentation). Code
// without CFI in a DSO that has some is stepped by the frame-chain
// fallback.
func (s *Symbolizer) unwindStep(pid int32, f *unwindFrame) (ok, signal bool) {
	pc := f.ip
	if f.usePrev {
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
	vpc := s.cfiKey(pid, m, t, pc)
	fd := t.find(vpc)
	if fd == nil {
		return fallbackStep(f), false
	}
	row, err := fd.row(vpc)
	if err != nil {
		return false, false
	}
	f.usePrev = !fd.cie.signal
	return cfiStep(f, &row, fd.cie.raReg), fd.cie.signal
}

// cfiStep applies the CFI row of f's code to f (libunwind's
// apply_reg_state and the checks unw_step makes after it).
func cfiStep(f *unwindFrame, row *cfiRow, raReg uint64) bool {
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
			if rule.reg < cfiRegs {
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
	if raReg >= cfiRegs {
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
	return locs[dwarfRBP].kind != locNull
}

// fallbackStep is libunwind 1.6's x86-64 step for code without CFI (not
// a signal frame): a PLT entry pops the return address; else a frame
// pointer frame at rbp is assumed, checked only for rbp lying at most
// 16 KiB above the CFA, and the CFA moves up by 16 whatever rbp is.
func fallbackStep(f *unwindFrame) bool {
	prevIP, prevCFA := f.ip, f.cfa
	result := true // libunwind's ret > 0
	invalidPrev := false
	switch {
	case isPLTEntry(f):
		f.locs[dwarfRIP] = regLoc{kind: locMem, v: f.cfa}
		f.cfa += 8
	case f.locs[dwarfRBP].kind == locNull:
		f.locs = nullLocs()
	default:
		rbp, ok := f.load(f.locs[dwarfRBP])
		if !ok {
			return false
		}
		_, st := f.read(prevIP)
		invalidPrev = st != memOK
		null := regLoc{kind: locNull}
		rbpLoc, rspLoc, ripLoc := null, null, null
		if rbp != 0 || invalidPrev {
			fixed := false
			if invalidPrev {
				// A call through a bad pointer: the return address may
				// still be at the sampled rsp.
				result = false
				if rsp, ok := f.load(f.locs[dwarfRSP]); ok {
					if ip, st := f.read(rsp); st == memOK {
						if _, st := f.read(ip); st == memOK {
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
				result = st > memOK
				if st < memOK || rbp < f.cfa || rbp-f.cfa > maxFrameGuess {
					rbpLoc, ripLoc = null, null
				}
				f.cfa += 16
			}
		}
		f.locs = nullLocs()
		f.locs[dwarfRBP], f.locs[dwarfRSP], f.locs[dwarfRIP] = rbpLoc, rspLoc, ripLoc
		f.usePrev = true
	}
	if f.locs[dwarfRBP].kind == locNull && !invalidPrev {
		return false
	}
	if f.locs[dwarfRIP].kind != locNull {
		ip, ok := f.load(f.locs[dwarfRIP])
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
func nullLocs() (l [cfiRegs]regLoc) {
	for i := range l {
		l[i].kind = locNull
	}
	return l
}

// isPLTEntry reports whether f.ip is at a lazy-binding PLT entry:
// jmp *disp(%rip); push $n; jmp (libunwind's is_plt_entry).
func isPLTEntry(f *unwindFrame) bool {
	w0, st0 := f.read(f.ip)
	if st0 < memOK {
		return false
	}
	w1, st1 := f.read(f.ip + 8)
	if st1 < memOK {
		return false
	}
	return w0&0xffff == 0x25ff && (w0>>48)&0xff == 0x68 && (w1>>24)&0xff == 0xe9
}

// readMapped reads the word at addr of pid outside its stack copy as
// perf's access_dso_mem does: from the file of the mapping at addr.
func (s *Symbolizer) readMapped(pid int32, addr uint64) (uint64, memStatus) {
	m := s.userMap(pid, addr)
	if m == nil {
		m = s.dataSnapshot(pid).find(addr)
	}
	if m == nil {
		return 0, memFail
	}
	if m.identity || m.dso == nil || m.dso.kind != dsoUser {
		return 0, memZero
	}
	p := s.dataFile(m.dso)
	if p == "" {
		return 0, memZero
	}
	fh, err := os.Open(p)
	if err != nil {
		return 0, memZero
	}
	defer fh.Close()
	var b [8]byte
	off := m.mapIP(addr)
	if off > 1<<62 {
		return 0, memZero
	}
	if n, _ := fh.ReadAt(b[:], int64(off)); n != len(b) {
		return 0, memZero
	}
	return binary.LittleEndian.Uint64(b[:]), memOK
}

// dataSnapshot returns all mappings of pid's maps snapshot, or nil. The
// symbolizer takes only the executable ones from a snapshot; memory reads
// also need the data mappings (the stack above the copy) that perf's
// --call-graph dwarf recordings carry as MMAP2 records.
func (s *Symbolizer) dataSnapshot(pid int32) *addrSpace {
	if s.opts.MapsDir == "" {
		return nil
	}
	if as, ok := s.unw.snap[pid]; ok {
		return as
	}
	if s.unw.snap == nil {
		s.unw.snap = map[int32]*addrSpace{}
	}
	var as *addrSpace
	if p := mapsSnapshotPath(s.opts.MapsDir, pid); p != "" {
		// A snapshot that does not parse is reported by snapshot().
		if entries, err := ReadMapsFile(p); err == nil {
			as = &addrSpace{}
			for _, e := range entries {
				name := e.Path
				if name == "" {
					name = "//anon"
				}
				as.insert(s.userMapping(name, e.Start, e.End, e.Offset, pid, false, e.Executable()))
			}
		}
	}
	s.unw.snap[pid] = as
	return as
}

// dataFile returns the file perf reads d's memory from (dso__data_open):
// the build-id cache, else the DSO's path under the symfs; "" if neither
// is a regular file.
func (s *Symbolizer) dataFile(d *dso) string {
	if p, ok := s.unw.data[d]; ok {
		return p
	}
	if s.unw.data == nil {
		s.unw.data = map[*dso]string{}
	}
	var p string
	if d.buildIDHex != "" && len(d.buildIDHex) > 2 && s.opts.BuildIDDir != "" {
		link := filepath.Join(s.opts.BuildIDDir, ".build-id", d.buildIDHex[:2], d.buildIDHex[2:])
		for _, c := range []string{link, filepath.Join(link, "elf")} {
			if isRegular(c) {
				p = c
				break
			}
		}
	}
	if p == "" {
		c := d.name
		if s.opts.Symfs != "" {
			c = filepath.Join(s.opts.Symfs, c)
		}
		if isRegular(c) {
			p = c
		}
	}
	s.unw.data[d] = p
	return p
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

// ehFrame parses f's .eh_frame, which perf uses only through an
// .eh_frame_hdr, placing it the way perf hands it to libunwind: addresses
// are relative to the .eh_frame_hdr's file offset.
func ehFrame(f *elfsafe.File) *cfiTable {
	sec := f.Section(".eh_frame")
	if sec == nil || sec.Type != elf.SHT_PROGBITS || sec.Size == 0 {
		return nil
	}
	hdr := f.Section(".eh_frame_hdr")
	if hdr == nil || hdr.Type != elf.SHT_PROGBITS || hdr.Offset == 0 {
		return nil
	}
	data, err := f.Data(sec)
	if err != nil {
		return nil
	}
	t, _ := parseCFI(data, sec.Addr-hdr.Addr+hdr.Offset, true)
	if len(t.fdes) == 0 {
		return nil
	}
	t.eh = true
	t.ehDelta = elfBase(f) + hdr.Offset - hdr.Addr
	return t
}

// elfBase is perf's elf_base_address: the first PT_LOAD's vaddr, page
// aligned.
func elfBase(f *elfsafe.File) uint64 {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			return p.Vaddr &^ 0xfff
		}
	}
	return 0
}

// cfiKey returns the address to look pc up by in t, pc lying in m. perf
// places an .eh_frame_hdr at the lowest start of all the process's
// mappings of the DSO, data mappings included (read_unwind_spec_eh_frame),
// which after an exec may be a mapping left from the previous program:
// the lookup then misses (libunwind falls back to the frame chain) as it
// does in perf.
func (s *Symbolizer) cfiKey(pid int32, m *mapping, t *cfiTable, pc uint64) uint64 {
	if !t.eh {
		return m.mapIP(pc)
	}
	base := m.start
	for _, as := range []*addrSpace{s.spaces[pid], s.dataSnapshot(pid)} {
		if as == nil {
			continue
		}
		for i := range as.maps {
			if as.maps[i].start >= base {
				break
			}
			if as.maps[i].dso == m.dso {
				base = as.maps[i].start
				break
			}
		}
	}
	return pc - base + t.ehDelta
}
