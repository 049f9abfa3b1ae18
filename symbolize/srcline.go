package symbolize

import (
	"debug/dwarf"
	"debug/elf"
	"path"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// SourceLine returns the source file and line of a resolved user frame,
// from the DWARF line table of the file its DSO's symbols came from (the
// binary, or its debug file): "" and 0 when there is none. caller says
// that the address is a return address (every frame but the leaf), so the
// call instruction before it is looked up, as addr2line users do. Inlined
// frames share their address with the frame they are inlined into; the
// line table gives the innermost function's line.
func (s *Symbolizer) SourceLine(f *Frame, caller bool) (file string, line int) {
	// A DSO's line table may cover addresses its symbol table does not
	// (perf asks addr2line about those too).
	if f == nil || f.Kernel || (f.Reason != Resolved && f.Reason != NoSymbols) {
		return "", 0
	}
	d := s.dsos[f.DSO]
	if d == nil || d.kind != dsoUser {
		return "", 0
	}
	in := s.inlineFor(d)
	if in == nil {
		return s.symtabFile(d, f), 0
	}
	// MapAddr is a file offset; the line table speaks virtual addresses.
	pc := in.vaddr(f.MapAddr)
	if caller && pc > 0 {
		pc--
	}
	if file, line := in.sourceLine(pc); file != "" {
		return file, line
	}
	return s.symtabFile(d, f), 0
}

// symtabFile is addr2line's answer for an address its line tables do not
// cover: the name of the STT_FILE symbol before the frame's symbol in the
// symbol table (line 0, "?" in addr2line), "" if none.
func (s *Symbolizer) symtabFile(d *dso, f *Frame) string {
	if f.Reason != Resolved || f.Symbol == "" || f.Inlined {
		return ""
	}
	if !d.stFilesRead {
		d.stFilesRead = true
		d.stFiles = readSTFiles(d.path)
	}
	return d.stFiles[f.MapAddr-f.Offset]
}

// readSTFiles maps the file offset of every function symbol of an ELF
// file's .symtab to the STT_FILE name last seen before it.
func readSTFiles(p string) map[uint64]string {
	if p == "" {
		return nil
	}
	ef, err := elfsafe.Open(p)
	if err != nil {
		return nil
	}
	defer ef.Close()
	syms, err := ef.Symbols()
	if err != nil {
		return nil
	}
	out := map[uint64]string{}
	file := ""
	for _, sym := range syms {
		switch elf.ST_TYPE(sym.Info) {
		case elf.STT_FILE:
			file = sym.Name
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
			if file == "" {
				continue
			}
			for _, pr := range ef.Progs {
				if pr.Type == elf.PT_LOAD && sym.Value >= pr.Vaddr && sym.Value < pr.Vaddr+pr.Filesz {
					if _, dup := out[sym.Value-pr.Vaddr+pr.Off]; !dup {
						out[sym.Value-pr.Vaddr+pr.Off] = file
					}
					break
				}
			}
		}
	}
	return out
}

// sourceLine looks pc up in the line table of its compilation unit.
func (in *inlineInfo) sourceLine(pc uint64) (file string, line int) {
	defer func() {
		if recover() != nil { // debug/dwarf is not hardened against bad input
			file, line = "", 0
		}
	}()
	u, err := in.seekPC(pc)
	if err != nil || u.cu == nil {
		return "", 0
	}
	cu := u.cu
	lr, err := u.d.LineReader(cu)
	if err != nil || lr == nil {
		return "", 0
	}
	var le dwarf.LineEntry
	if err := lr.SeekPC(pc, &le); err != nil || le.File == nil {
		return "", 0
	}
	name := le.File.Name
	if !path.IsAbs(name) {
		// A name relative to the compilation directory, as addr2line
		// prints it: joined with DW_AT_comp_dir.
		if dir, ok := cu.Val(dwarf.AttrCompDir).(string); ok && dir != "" {
			name = path.Join(dir, name)
		}
	}
	return name, le.Line
}

// SymbolSize returns the size of the symbol a resolved frame lies in, as
// perf's symbol_size sort key prints it (end - start after perf's fixups
// of zero-size symbols); false for an unresolved or inlined frame.
func (s *Symbolizer) SymbolSize(f *Frame) (uint64, bool) {
	if f == nil || f.Reason != Resolved || f.Symbol == "" || f.Inlined {
		return 0, false
	}
	d := s.dsos[f.DSO]
	if d == nil || !d.loaded {
		return 0, false
	}
	sym := d.lookup(f.MapAddr)
	if sym == nil {
		return 0, false
	}
	return sym.end - sym.start, true
}
