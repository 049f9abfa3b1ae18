package symbolize

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// rX86_64IRelative is R_X86_64_IRELATIVE.
const rX86_64IRelative = 37

// modernPLTSymbols returns the PLT symbols perf 6.2 and later synthesize
// for f (tools/perf/util/symbol-elf.c dso__synthesize_plt_symbols), in
// insertion order, given the table tab of the symbols read so far (whose
// symbol running into .plt is cut at its start, as perf does):
//   - ".plt" for the .plt header (the whole .plt when there is a .plt.sec),
//     dropped when .plt holds exactly one entry per relocation (no header);
//   - on x86, one symbol per .plt.got entry, named after the .rela.dyn
//     relocation of the GOT slot its jmp reads (get_plt_got_name);
//   - one "name@plt" per .rela.plt/.rel.plt relocation, laid out in
//     .plt.sec when there is one, else after the header, the relocations
//     taken in r_offset order on x86 (sort_rel);
//   - a nameless slot is named after the IFUNC its R_X86_64_IRELATIVE
//     addend points at (get_ifunc_name), else "offset_0xOFF@plt".
func modernPLTSymbols(f *elfsafe.File, tab *symtab, dem demangler) []symbol {
	plt := f.Section(".plt")
	if plt == nil {
		return nil
	}
	if i := tab.find(plt.Offset); i >= 0 {
		if s := &tab.syms[i]; s.start < plt.Offset && s.end > plt.Offset {
			s.end = plt.Offset
		}
	}
	x86 := f.Machine == elf.EM_386 || f.Machine == elf.EM_X86_64
	hdr, ent, ok := pltSizes(f, plt)
	if !ok {
		return nil
	}
	out := []symbol{{start: plt.Offset, end: plt.Offset + hdr, name: ".plt", bind: elf.STB_GLOBAL}}
	if x86 {
		out = append(out, pltGotSymbols(f, dem)...)
	}
	off, lazy := plt.Offset, true
	if sec := f.Section(".plt.sec"); x86 && sec != nil {
		if _, ent, ok = pltSizes(f, sec); !ok {
			return out
		}
		out[0].end = plt.Offset + plt.Size
		off, lazy = sec.Offset, false
	}
	rel := pltRelSection(f)
	if rel == nil || (rel.Type != elf.SHT_RELA && rel.Type != elf.SHT_REL) || rel.Link == 0 ||
		rel.Entsize == 0 || int(rel.Link) >= len(f.Sections) {
		return out
	}
	syms, ok := pltRelSymbols(f, rel)
	if !ok {
		return out
	}
	data, err := f.Data(rel)
	if err != nil {
		return out
	}
	rela := rel.Type == elf.SHT_RELA
	n := rel.Size / rel.Entsize
	rels := readPLTRelocs(f, rel, data)
	if lazy {
		if n*ent == plt.Size {
			out = out[1:]
		} else {
			off += hdr
		}
	}
	if x86 {
		slices.SortFunc(rels, func(a, b pltReloc) int {
			switch {
			case a.offset < b.offset:
				return -1
			case a.offset > b.offset:
				return 1
			}
			return 0
		})
	}
	for _, r := range rels {
		name := pltSlotName(f, tab, dem, syms, r, rela, off)
		out = append(out, symbol{start: off, end: off + ent, name: name, bind: elf.STB_GLOBAL})
		off += ent
	}
	return out
}

// pltSlotName names the PLT slot at file offset off that relocation r
// (from a .rela section when rela) binds: "name@plt" after its symbol in
// syms, else after the IFUNC its R_X86_64_IRELATIVE addend points at, else
// "offset_0xOFF@plt".
func pltSlotName(f *elfsafe.File, tab *symtab, dem demangler, syms []elf.Symbol, r pltReloc, rela bool, off uint64) string {
	var symIdx, typ uint64
	if f.Class == elf.ELFCLASS64 {
		symIdx, typ = r.info>>32, r.info&0xffffffff
	} else {
		symIdx, typ = r.info>>8, r.info&0xff
	}
	name := ""
	if symIdx > 0 && symIdx <= uint64(len(syms)) {
		name = dem.demangle(syms[symIdx-1].Name)
	}
	if name != "" {
		return name + "@plt"
	}
	if n, ok := ifuncName(f, tab, rela && f.Machine == elf.EM_X86_64 && typ == rX86_64IRelative, r.addend); ok {
		return n + "@plt"
	}
	return "offset_0x" + strconv.FormatUint(off, 16) + "@plt"
}

// pltRelSection returns f's PLT relocation section, .rela.plt or else
// .rel.plt, or nil.
func pltRelSection(f *elfsafe.File) *elf.Section {
	if rel := f.Section(".rela.plt"); rel != nil {
		return rel
	}
	return f.Section(".rel.plt")
}

// pltRelSymbols returns the symbol table the PLT relocation section rel
// links to: .dynsym, or .symtab for a static executable's IFUNC PLT; ok is
// false for any other link or an unreadable table.
func pltRelSymbols(f *elfsafe.File, rel *elf.Section) (syms []elf.Symbol, ok bool) {
	var err error
	switch f.Sections[rel.Link].Type {
	case elf.SHT_DYNSYM:
		syms, err = f.DynamicSymbols()
	case elf.SHT_SYMTAB:
		syms, err = f.Symbols()
	default:
		return nil, false
	}
	return syms, err == nil
}

// pltReloc is one entry of a PLT relocation section.
type pltReloc struct {
	offset, info, addend uint64
}

// readPLTRelocs decodes the entries of the PLT relocation section rel
// from its contents data, skipping an entry too short for f's class.
func readPLTRelocs(f *elfsafe.File, rel *elf.Section, data []byte) []pltReloc {
	rela := rel.Type == elf.SHT_RELA
	is64 := f.Class == elf.ELFCLASS64
	n := rel.Size / rel.Entsize
	rels := make([]pltReloc, 0, min(n, uint64(len(data))/max(rel.Entsize, 1)))
	for i := uint64(0); i < n && (i+1)*rel.Entsize <= uint64(len(data)); i++ {
		b := data[i*rel.Entsize:]
		var r pltReloc
		switch {
		case is64 && len(b) >= 16:
			r.offset, r.info = f.ByteOrder.Uint64(b), f.ByteOrder.Uint64(b[8:])
			if rela && len(b) >= 24 {
				r.addend = f.ByteOrder.Uint64(b[16:])
			}
		case !is64 && len(b) >= 8:
			r.offset, r.info = uint64(f.ByteOrder.Uint32(b)), uint64(f.ByteOrder.Uint32(b[4:]))
			if rela && len(b) >= 12 {
				r.addend = uint64(int64(int32(f.ByteOrder.Uint32(b[8:]))))
			}
		default:
			continue
		}
		rels = append(rels, r)
	}
	return rels
}

// fixedPLTSizes returns the header and entry sizes of the PLT on the
// machines whose PLT layout is fixed; known is false on the others.
func fixedPLTSizes(m elf.Machine) (hdr, ent uint64, known bool) {
	switch m {
	case elf.EM_ARM:
		return 20, 12, true
	case elf.EM_AARCH64:
		return 32, 16, true
	case elf.EM_SPARC:
		return 48, 12, true
	case elf.EM_SPARCV9:
		return 128, 32, true
	}
	return 0, 0, false
}

// pltSizes returns the header and entry sizes of a PLT section sec
// (get_plt_sizes); ok is false without an entry size.
func pltSizes(f *elfsafe.File, sec *elf.Section) (hdr, ent uint64, ok bool) {
	if hdr, ent, known := fixedPLTSizes(f.Machine); known {
		return hdr, ent, true
	}
	switch f.Machine {
	case elf.EM_386, elf.EM_X86_64:
		ent = sec.Entsize
		if ent != 8 && ent != 16 {
			ent = 16
			if sec.Addralign == 8 {
				ent = 8
			}
		}
		hdr = ent
	default:
		hdr, ent = sec.Entsize, sec.Entsize
	}
	return hdr, ent, ent != 0
}

// ifuncName is get_ifunc_name: the name of the symbol of tab starting at
// the file offset of addend, an IFUNC resolver, when it is one (ok).
func ifuncName(f *elfsafe.File, tab *symtab, irelative bool, addend uint64) (string, bool) {
	if !irelative {
		return "", false
	}
	addr, found := addend, false
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr < p.Vaddr+p.Memsz {
			addr -= p.Vaddr - p.Off
			found = true
			break
		}
	}
	if !found {
		return "", false
	}
	i := tab.find(addr)
	if i < 0 || tab.syms[i].start != addr || !tab.syms[i].ifunc {
		return "", false
	}
	return tab.syms[i].fullName(), true
}

// pltGotSymbols returns one symbol per .plt.got entry of an x86 f
// (dso__synthesize_plt_got_symbols): on x86-64, an entry whose
// "jmp *disp(%rip)" reads a GOT slot with a named .rela.dyn relocation is
// "name@plt" (perf compares the slot's section-offset-based address with
// r_offset), any other "offset_0xOFF@plt".
func pltGotSymbols(f *elfsafe.File, dem demangler) []symbol {
	sec := f.Section(".plt.got")
	if sec == nil || sec.Entsize == 0 {
		return nil
	}
	code, _ := f.Data(sec)
	slots := map[uint64]string{}
	if f.Machine == elf.EM_X86_64 && code != nil {
		slots = relaDynNames(f)
	}
	var out []symbol
	for i := uint64(0); i < sec.Size; i += sec.Entsize {
		name := ""
		if i < uint64(len(code)) {
			if disp := x86PLTDisp(code[i:]); disp != 0 {
				if raw := slots[sec.Offset+i+disp]; raw != "" {
					name = dem.demangle(raw)
				}
			}
		}
		if name != "" {
			name += "@plt"
		} else {
			name = "offset_0x" + strconv.FormatUint(sec.Offset+i, 16) + "@plt"
		}
		out = append(out, symbol{start: sec.Offset + i, end: sec.Offset + i + sec.Entsize, name: name, bind: elf.STB_GLOBAL})
	}
	return out
}

// relaDynNames maps the r_offset of each .rela.dyn relocation with a symbol
// to the symbol's name, as it is in the file: the caller demangles the
// few that .plt.got entries use (demangling all of a C++ library's
// relocations was most of the PLT synthesis).
func relaDynNames(f *elfsafe.File) map[uint64]string {
	out := map[uint64]string{}
	rd := f.Section(".rela.dyn")
	if rd == nil || rd.Link == 0 || rd.Entsize < 24 || f.Class != elf.ELFCLASS64 {
		return out
	}
	data, err := f.Data(rd)
	if err != nil {
		return out
	}
	dyn, err := f.DynamicSymbols()
	if err != nil {
		return out
	}
	for b := data; uint64(len(b)) >= rd.Entsize; b = b[rd.Entsize:] {
		symIdx := f.ByteOrder.Uint64(b[8:]) >> 32
		if symIdx == 0 {
			continue
		}
		off := f.ByteOrder.Uint64(b)
		if _, dup := out[off]; dup || symIdx > uint64(len(dyn)) {
			continue
		}
		out[off] = dyn[symIdx-1].Name
	}
	return out
}

// x86PLTDisp returns the offset, from the start of a PLT entry p, of the
// GOT slot its "jmp *disp(%rip)" reads (after an optional endbr64 and bnd
// prefix), or 0 when the entry starts otherwise (get_x86_64_plt_disp).
func x86PLTDisp(p []byte) uint64 {
	n := 0
	if bytes.HasPrefix(p, []byte{0xf3, 0x0f, 0x1e, 0xfa}) {
		n += 4
	}
	if n < len(p) && p[n] == 0xf2 {
		n++
	}
	if n+6 > len(p) || p[n] != 0xff || p[n+1] != 0x25 {
		return 0
	}
	disp := binary.LittleEndian.Uint32(p[n+2:])
	return uint64(uint32(n + 6 + int(disp)))
}
