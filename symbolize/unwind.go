package symbolize

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/elfsafe"
	"github.com/perfstitch/perfstitch/symbolize/cfi"
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
var dwarfToPerfReg = [cfi.NumRegs]uint8{0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8}

// errCFI reports malformed call frame or debugging information
// (package cfi has its own; inline.go reports an ELF file's DWARF that
// cannot be read with this one).
var errCFI = errors.New("malformed call frame information")

// maxUnwindBytes bounds the copied-stack bytes an unwind looks at.
const maxUnwindBytes = 1 << 20

// unwindState is the Symbolizer's unwinding state: CFI tables by DSO and
// scratch space reused across samples.
type unwindState struct {
	cfi map[*dso]*dsoCFI // nil value: the DSO has no usable CFI
	// data is the file perf reads a DSO's memory from ("": none).
	data map[*dso]string
	// snap holds every mapping of a process's maps snapshot, data
	// included, for memory reads (nil value: no snapshot).
	snap map[int32]*addrSpace
	ips  []uint64
	// mem is the memory of the process being unwound.
	mem procMem
}

// dsoCFI is the CFI of one DSO and how perf places it.
type dsoCFI struct {
	tab *cfi.Table
	// eh: an .eh_frame found through .eh_frame_hdr, looked up the way
	// perf places it (see [Symbolizer.cfiKey]); ehDelta is the first
	// PT_LOAD's page-aligned vaddr plus the header's file offset minus
	// its address.
	eh      bool
	ehDelta uint64
}

// procMem is the memory of process pid outside its stack copy, read as
// [Symbolizer.readMapped] does.
type procMem struct {
	s   *Symbolizer
	pid int32
}

// ReadWord implements [cfi.Memory].
func (m *procMem) ReadWord(addr uint64) (uint64, cfi.MemStatus) { return m.s.readMapped(m.pid, addr) }

// userRegs returns the first frame of a sample's user registers (by the
// attr's sample_regs_user mask) and its stack copy, memory outside that
// read through mem; ok is false without IP and SP.
func userRegs(ds *decode.Sample, stack []byte, mem cfi.Memory) (f cfi.Frame, ok bool) {
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
	f = cfi.NewFrame(perf[ipBit], perf[spBit], stack, mem)
	for d, p := range dwarfToPerfReg {
		if have&(1<<p) != 0 {
			f.SetReg(d, perf[p])
		} else {
			f.SetUnknown(d) // perf's access_reg fails
		}
	}
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
	n := min(ds.StackUserDyn, uint64(len(ds.StackUser)), maxUnwindBytes)
	pid := ds.PID
	if t := s.threads[ds.TID]; t != nil {
		pid = spaceOf(t, pid)
	}
	if as := s.spaces[pid]; (as == nil || len(as.maps) == 0) && (pid < -1 || s.snapshot(pid) == nil) {
		// perf's libunwind address space is made with the first map
		// (unwind__prepare_access): a process without maps unwinds
		// nothing, not even the sample's IP (a thread made after its
		// process's leader exited, retireSpace).
		return
	}
	s.unw.mem = procMem{s: s, pid: pid}
	f, ok := userRegs(ds, ds.StackUser[:n], &s.unw.mem)
	if !ok {
		return
	}
	if maxStack <= 0 {
		maxStack = 1 << 16
	}
	ips := append(s.unw.ips[:0], f.IP())
	for len(ips) < maxStack {
		ok, signal := s.unwindStep(pid, &f)
		if !ok {
			break
		}
		// perf takes the return address minus one unless the frame
		// just left was a signal frame (unw_is_signal_frame).
		ip := f.IP()
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
		s.resolveAddr(&fr, ip, decode.CPUModeUser, pid, ds.Period)
		var d *dso
		if m := s.userMap(pid, ip); m != nil {
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
func (s *Symbolizer) unwindStep(pid int32, f *cfi.Frame) (ok, signal bool) {
	pc := f.PC()
	m := s.userMap(pid, pc)
	if m == nil || m.identity {
		return false, false
	}
	t := s.cfiFor(m.dso)
	if t == nil {
		return false, false
	}
	vpc := s.cfiKey(pid, m, t, pc)
	return f.Step(t.tab.Find(vpc), vpc)
}

// readMapped reads the word at addr of pid outside its stack copy as
// perf's access_dso_mem does: from the file of the mapping at addr.
func (s *Symbolizer) readMapped(pid int32, addr uint64) (uint64, cfi.MemStatus) {
	m := s.userMap(pid, addr)
	if m == nil {
		m = s.dataSnapshot(pid).find(addr)
	}
	if m == nil {
		return 0, cfi.MemFail
	}
	if m.identity || m.dso == nil || m.dso.kind != dsoUser {
		return 0, cfi.MemZero
	}
	p := s.dataFile(m.dso)
	if p == "" {
		return 0, cfi.MemZero
	}
	fh, err := os.Open(p)
	if err != nil {
		return 0, cfi.MemZero
	}
	defer fh.Close()
	var b [8]byte
	off := m.mapIP(addr)
	if off > 1<<62 {
		return 0, cfi.MemZero
	}
	if n, _ := fh.ReadAt(b[:], int64(off)); n != len(b) {
		return 0, cfi.MemZero
	}
	return binary.LittleEndian.Uint64(b[:]), cfi.MemOK
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
		if entries, err := ReadMapsFile(p); err == nil || linesSkipped(err) {
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
func (s *Symbolizer) cfiFor(d *dso) *dsoCFI {
	if t, ok := s.unw.cfi[d]; ok {
		return t
	}
	if s.unw.cfi == nil {
		s.unw.cfi = map[*dso]*dsoCFI{}
	}
	t := s.loadCFI(d)
	s.unw.cfi[d] = t
	return t
}

func (s *Symbolizer) loadCFI(d *dso) *dsoCFI {
	var files openFiles
	defer files.close()
	open := files.open
	var debugFrame *dsoCFI
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
					if t, _ := cfi.Parse(data, 0, false); t.Len() > 0 {
						debugFrame = &dsoCFI{tab: t}
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
func ehFrame(f *elfsafe.File) *dsoCFI {
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
	t, _ := cfi.Parse(data, sec.Addr-hdr.Addr+hdr.Offset, true)
	if t.Len() == 0 {
		return nil
	}
	return &dsoCFI{tab: t, eh: true, ehDelta: elfBase(f) + hdr.Offset - hdr.Addr}
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
func (s *Symbolizer) cfiKey(pid int32, m *mapping, t *dsoCFI, pc uint64) uint64 {
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
