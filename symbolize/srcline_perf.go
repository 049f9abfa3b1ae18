package symbolize

import (
	"debug/elf"
	"path"
	"strconv"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// srclineKey identifies one srcline lookup: a DSO and an address in it.
type srclineKey struct {
	d    *dso
	addr uint64
}

// fillSrcLines sets SrcLine on the IP and callchain frames of ev
// (Options.SrcLine).
func (s *Symbolizer) fillSrcLines(ev *Event) {
	ev.IP.SrcLine = s.perfSrcLine(&ev.IP)
	for i := range ev.Frames {
		ev.Frames[i].SrcLine = s.perfSrcLine(&ev.Frames[i])
	}
}

// perfSrcLine returns what perf script -F srcline prints under a frame
// (map__fprintf_srcline → get_srcline, no subprocess here): the DWARF
// line of the address as "file:line" (file's base name), else, as perf
// 6.1's libbfd does for a symbol table without line numbers, the STT_FILE
// symbol before the enclosing function with line 0 (Compat.SrclineSymtabFile),
// else "dso[addr]" with the file address. "" when the address has no DSO,
// for which perf prints nothing. Lookups are cached per DSO and address.
func (s *Symbolizer) perfSrcLine(f *Frame) string {
	if f.Cookie || f.DSO == "" || f.DSO == "[unknown]" {
		return ""
	}
	d := s.dsos[f.DSO]
	if f.Kernel {
		d = s.kdso
	}
	if d == nil {
		return ""
	}
	k := srclineKey{d, f.MapAddr}
	if v, ok := s.srclines[k]; ok {
		return v
	}
	// The address addr2line is given (map__rip_2objdump): the kernel's
	// as recorded, a user DSO's map_ip, moved to the ELF virtual address
	// in an ET_EXEC file (whose symbols perf adjusts).
	addr := f.MapAddr
	var fs *fileSyms
	if !f.Kernel {
		fs = s.fileSymsOf(d)
		if fs != nil {
			addr += fs.textOffset
		}
	}
	v := ""
	file, line := "", 0
	if !f.Kernel && d.kind == dsoUser && f.Reason == Resolved {
		if in := s.inlineFor(d); in != nil {
			file, line = in.sourceLine(addr)
		}
	}
	switch {
	case file != "":
		v = path.Base(file) + ":" + strconv.Itoa(line)
	case s.opts.Compat.SrclineSymtabFile && fs.fileOf(addr) != "":
		v = path.Base(fs.fileOf(addr)) + ":0"
	default:
		short := f.DSOShort
		if short == "" {
			short = path.Base(f.DSO)
		}
		v = short + "[" + strconv.FormatUint(addr, 16) + "]"
	}
	if s.srclines == nil {
		s.srclines = map[srclineKey]string{}
	}
	s.srclines[k] = v
	return v
}

// fileSyms is the .symtab of a user DSO reduced to what libbfd's
// _bfd_elf_find_function consults: function symbols with the STT_FILE
// symbol before each.
type fileSyms struct {
	funcs []fileSym
	// textOffset is .text's address minus its file offset in an ET_EXEC
	// file (perf's dso->text_offset), 0 otherwise.
	textOffset uint64
}

type fileSym struct {
	value, size uint64
	file        string
}

// fileSymsOf returns the STT_FILE table of a user DSO, loaded once.
func (s *Symbolizer) fileSymsOf(d *dso) *fileSyms {
	if d.kind != dsoUser || d.path == "" {
		return nil
	}
	if s.fileSyms == nil {
		s.fileSyms = map[*dso]*fileSyms{}
	}
	fs, ok := s.fileSyms[d]
	if !ok {
		fs = loadFileSyms(d.path)
		s.fileSyms[d] = fs
	}
	return fs
}

// fileOf returns the STT_FILE name that libbfd gives an address without
// line information: the file symbol before the function symbol (of the
// highest start not above addr, containing addr when it has a size) in
// .symtab order; "" without one.
func (fs *fileSyms) fileOf(addr uint64) string {
	if fs == nil {
		return ""
	}
	var best *fileSym
	for i := range fs.funcs {
		f := &fs.funcs[i]
		if f.value > addr || (f.size > 0 && addr >= f.value+f.size) {
			continue
		}
		if best == nil || f.value > best.value {
			best = f
		}
	}
	if best == nil {
		return ""
	}
	return best.file
}

// loadFileSyms reads the function symbols of p's .symtab and its text
// offset; nil when p is not a readable ELF file.
func loadFileSyms(p string) *fileSyms {
	f, err := elfsafe.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	fs := &fileSyms{}
	if t := f.Section(".text"); t != nil && f.Type == elf.ET_EXEC && t.Addr >= t.Offset {
		fs.textOffset = t.Addr - t.Offset
	}
	syms, _ := f.Symbols() // none: only textOffset
	file := ""
	for _, sym := range syms {
		switch elf.ST_TYPE(sym.Info) {
		case elf.STT_FILE:
			file = sym.Name
		case elf.STT_FUNC, elf.STT_NOTYPE:
			// Code symbols (libbfd takes untyped ones too: _start).
			i := int(sym.Section)
			if file != "" && sym.Section < elf.SHN_LORESERVE && i > 0 && i < len(f.Sections) &&
				f.Sections[i].Flags&elf.SHF_EXECINSTR != 0 {
				fs.funcs = append(fs.funcs, fileSym{sym.Value, sym.Size, file})
			}
		}
	}
	return fs
}
