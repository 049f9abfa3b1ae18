package symbolize

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"strings"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// loadELFSymbols reads the symbols of a DSO the way perf 6.1's
// dso__load_sym does: from syms' .symtab, then its .dynsym; functions,
// objects, and labels (not hidden) of text and data sections, all in allocated
// sections; each address adjusted from the virtual address to the file
// offset through its section (so symbols live in map_ip space); zero sizes
// and aliases fixed up; then the PLT entries of runt synthesized as
// "name@plt" (dso__synthesize_plt_symbols). syms and runt may be the same
// file; runt supplies the section headers for a separate debug file whose
// sections are NOBITS.
//
// With modernPLT (compat.Dialect.PLTSlotNames) the PLT symbols are those of
// perf 6.2+ instead ([modernPLTSymbols]).
func loadELFSymbols(syms, runt *elfsafe.File, dem demangler, modernPLT bool) (symtab, error) {
	// perf 6.1 (dso__load_sym) reads .symtab, fixes ends and aliases,
	// then reads .dynsym into the same table and fixes it up again.
	var tab symtab
	var steps []loadStep // the history, for perf's tree shape
	for _, dynamic := range []bool{false, true} {
		list, err := readELFSymbols(syms, runt, dem, dynamic)
		if err != nil {
			return symtab{}, err
		}
		if len(list) == 0 {
			continue
		}
		tab.syms = append(tab.syms, list...)
		tab.fixup(false)
		steps = append(steps, loadStep{insert: list, fixup: true})
	}
	if len(tab.syms) == 0 {
		return tab, nil
	}
	var plt []symbol
	if modernPLT {
		plt = modernPLTSymbols(runt, &tab, dem)
	} else {
		plt = pltSymbols(runt, dem)
	}
	tab.add(plt)
	tab.shape(func() []loadStep { return append(steps, loadStep{insert: plt}) })
	return tab, nil
}

// readELFSymbols returns the symbols perf keeps from syms' .symtab (or
// .dynsym when dynamic), in table order, before any fixup.
func readELFSymbols(syms, runt *elfsafe.File, dem demangler, dynamic bool) ([]symbol, error) {
	var list []elf.Symbol
	var err error
	if dynamic {
		if s := syms.Section(".dynsym"); s == nil || s.Type != elf.SHT_DYNSYM {
			return nil, nil
		}
		list, err = syms.DynamicSymbols()
	} else {
		if s := syms.Section(".symtab"); s == nil || s.Type != elf.SHT_SYMTAB {
			return nil, nil
		}
		list, err = syms.Symbols()
	}
	if err != nil {
		if err == elf.ErrNoSymbols {
			return nil, nil
		}
		return nil, err
	}
	var out []symbol
	lazy := &dem
	for i := range list {
		s := &list[i]
		if !perfKeeps(s) {
			continue
		}
		idx := int(s.Section)
		if idx <= 0 || idx >= len(syms.Sections) {
			continue
		}
		sec := syms.Sections[idx]
		if sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if sec.Type == elf.SHT_NOBITS && runt != syms && idx < len(runt.Sections) {
			sec = runt.Sections[idx]
		}
		if elf.ST_TYPE(s.Info) == elf.STT_NOTYPE && !strings.Contains(sec.Name, "text") && !strings.Contains(sec.Name, "data") {
			continue
		}
		addr := fileOffset(s.Value, sec.Addr, sec.Offset)
		out = append(out, symbol{
			start: addr,
			end:   addr + s.Size,
			name:  s.Name,
			dem:   lazyDemangler(lazy, s.Name),
			bind:  elf.ST_BIND(s.Info),
			ifunc: elf.ST_TYPE(s.Info) == elf.STT_GNU_IFUNC,
		})
	}
	return out, nil
}

// fileOffset converts a symbol's virtual address to the file-offset space
// of map_ip the way perf 6.1 adjusts symbols of user DSOs
// (dso__load_sym_internal): through the section holding the symbol,
// vaddr - (sh_addr - sh_offset). For a separate debug file, whose sections
// are NOBITS, the caller passes the runtime file's section. Symbols past
// their section's end (end markers such as Go's runtime.end) are adjusted
// the same way.
func fileOffset(vaddr, secAddr, secOffset uint64) uint64 {
	return vaddr - (secAddr - secOffset)
}

// pltSymbols synthesizes one "name@plt" symbol per .rela.plt (or .rel.plt)
// entry, laid out after the .plt header at the .plt section's file offset,
// as perf 6.1 does (one entry of sh_entsize bytes per relocation, in
// relocation order; entries without a symbol are named "@plt").
func pltSymbols(f *elfsafe.File, dem demangler) []symbol {
	dynsymIdx := -1
	for i, s := range f.Sections {
		if s.Type == elf.SHT_DYNSYM {
			dynsymIdx = i
			break
		}
	}
	if dynsymIdx < 0 {
		return nil
	}
	rel := pltRelSection(f)
	plt := f.Section(".plt")
	if rel == nil || plt == nil || int(rel.Link) != dynsymIdx || rel.Entsize == 0 {
		return nil
	}
	dyn, err := f.DynamicSymbols()
	if err != nil {
		return nil
	}
	data, err := f.Data(rel)
	if err != nil {
		return nil
	}
	hdr, ent, known := fixedPLTSizes(f.Machine)
	if !known {
		hdr, ent = plt.Entsize, plt.Entsize
	}
	is64 := f.Class == elf.ELFCLASS64
	if rel.Type != elf.SHT_RELA && rel.Type != elf.SHT_REL {
		return nil
	}
	n := rel.Size / rel.Entsize
	off := plt.Offset + hdr
	var out []symbol
	for i := uint64(0); i < n; i++ {
		if i*rel.Entsize >= uint64(len(data)) {
			break
		}
		b := data[i*rel.Entsize:]
		var symIdx uint64
		if is64 {
			if len(b) < 16 {
				break
			}
			symIdx = f.ByteOrder.Uint64(b[8:]) >> 32
		} else {
			if len(b) < 8 {
				break
			}
			symIdx = uint64(f.ByteOrder.Uint32(b[4:]) >> 8)
		}
		name := ""
		if symIdx > 0 && symIdx <= uint64(len(dyn)) {
			name = dem.demangle(dyn[symIdx-1].Name)
		}
		out = append(out, symbol{start: off, end: off + ent, name: name + "@plt", bind: elf.STB_GLOBAL})
		off += ent
	}
	return out
}

// readBuildID returns the GNU build id of f from its .note.gnu.build-id,
// .notes or .note section, else from its PT_NOTE segments.
func readBuildID(f *elfsafe.File) []byte {
	for _, name := range []string{".note.gnu.build-id", ".notes", ".note"} {
		if d, err := f.SectionData(name); err == nil && d != nil {
			if id := findBuildIDNote(d, f.ByteOrder); id != nil {
				return id
			}
		}
	}
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE || p.Filesz > 1<<20 {
			continue
		}
		d := make([]byte, p.Filesz)
		if _, err := p.ReadAt(d, 0); err != nil {
			continue
		}
		if id := findBuildIDNote(d, f.ByteOrder); id != nil {
			return id
		}
	}
	return nil
}

// findBuildIDNote scans ELF notes for NT_GNU_BUILD_ID owned by "GNU".
func findBuildIDNote(d []byte, bo binary.ByteOrder) []byte {
	for len(d) >= 12 {
		namesz := uint64(bo.Uint32(d[0:]))
		descsz := uint64(bo.Uint32(d[4:]))
		typ := bo.Uint32(d[8:])
		d = d[12:]
		nameEnd := (namesz + 3) &^ 3
		descEnd := (descsz + 3) &^ 3
		if nameEnd > uint64(len(d)) || nameEnd+descsz > uint64(len(d)) {
			return nil
		}
		name := d[:namesz]
		desc := d[nameEnd : nameEnd+descsz]
		if typ == ntGNUBuildID && bytes.Equal(bytes.TrimRight(name, "\x00"), []byte("GNU")) {
			return append([]byte(nil), desc...)
		}
		if nameEnd+descEnd > uint64(len(d)) {
			return nil
		}
		d = d[nameEnd+descEnd:]
	}
	return nil
}

// readDebuglink returns the file name of f's .gnu_debuglink section.
func readDebuglink(f *elfsafe.File) string {
	d, err := f.SectionData(".gnu_debuglink")
	if err != nil || d == nil {
		return ""
	}
	if i := bytes.IndexByte(d, 0); i > 0 {
		return string(d[:i])
	}
	return ""
}

// buildIDEqual compares a build id read from a file with a recorded one;
// recorded ids may carry zero padding (20 bytes in a 24-byte field).
func buildIDEqual(file, recorded []byte) bool {
	if len(file) == 0 {
		return false
	}
	if len(recorded) < len(file) {
		return false
	}
	if !bytes.Equal(file, recorded[:len(file)]) {
		return false
	}
	for _, b := range recorded[len(file):] {
		if b != 0 {
			return false
		}
	}
	return true
}

// ntGNUBuildID is NT_GNU_BUILD_ID.
const ntGNUBuildID = 3

// perfKeeps reports whether perf's dso__load_sym keeps an ELF symbol: a
// named, defined function (elf_sym__is_function), object or label
// (elf_sym__is_label: not absolute, and not hidden or internal, such as
// annobin's notes).
func perfKeeps(s *elf.Symbol) bool {
	if s.Name == "" || s.Section == elf.SHN_UNDEF {
		return false
	}
	switch elf.ST_TYPE(s.Info) {
	case elf.STT_FUNC, elf.STT_GNU_IFUNC, elf.STT_OBJECT:
		return true
	case elf.STT_NOTYPE:
		vis := elf.ST_VISIBILITY(s.Other)
		return s.Section != elf.SHN_ABS && vis != elf.STV_HIDDEN && vis != elf.STV_INTERNAL
	}
	return false
}
