//go:build ignore

// mkelf writes the FuzzELFSymbols seeds into fuzz/FuzzELFSymbols:
// go run mkelf.go (in symbolize/testdata).
//
// The seeds are ELF files of a few hundred bytes made from scratch: only
// the sections the symbol readers look at, no program headers, one string
// table for symbol and section names. A file a compiler makes is a few KB
// even with -nostdlib, and the fuzzer's minimisation of every new input
// is quadratic in its length: with such seeds a fuzzing minute went on
// minimising a handful of inputs.
package main

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mkelf:", err)
		os.Exit(1)
	}
}

const dir = "fuzz/FuzzELFSymbols"

func run() error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range seeds() {
		if err := write(s.name, s.b); err != nil {
			return err
		}
	}
	return nil
}

type seed struct {
	name string
	b    []byte
}

func seeds() []seed {
	symtab := build(false, false, false)
	return []seed{
		// .symtab: a local, a global and a weak function at one
		// address, a zero-size label, an object.
		{"symtab", symtab},
		// .symtab, .dynsym and a lazy-binding .plt with its .rela.plt.
		{"plt", build(true, false, false)},
		// A stripped file: .dynsym and .plt only, a build id and a
		// .gnu_debuglink.
		{"stripped", build(true, true, false)},
		// Cut inside the section headers, which come last.
		{"symtab-cut", symtab[:len(symtab)-40]},
	}
}

func write(name string, b []byte) error {
	return os.WriteFile(filepath.Join(dir, name), fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b), 0o644)
}

// strtab collects NUL-terminated names.
type strtab []byte

func (t *strtab) add(s string) uint32 {
	if len(*t) == 0 {
		*t = append(*t, 0)
	}
	off := uint32(len(*t))
	*t = append(*t, s...)
	*t = append(*t, 0)
	return off
}

type section struct {
	name    string
	typ     elf.SectionType
	flags   elf.SectionFlag
	addr    uint64
	data    []byte
	link    uint32
	info    uint32
	align   uint64
	entsize uint64
}

type sym struct {
	name  string
	bind  elf.SymBind
	typ   elf.SymType
	shndx uint16
	value uint64
	size  uint64
}

const textAddr, pltAddr = 0x1040, 0x1020

// build returns an x86-64 ET_DYN file with a .text of three functions;
// dynamic adds .dynsym, .rela.plt and .plt (one entry, lib_add); notes
// adds a build id and a debuglink and, unless keepSymtab, leaves out
// .symtab.
func build(dynamic, notes, keepSymtab bool) []byte {
	var strs strtab
	strs.add("")
	secs := []section{{}}
	index := func(name string) uint32 {
		for i, s := range secs {
			if s.name == name {
				return uint32(i)
			}
		}
		return uint32(len(secs)) // the next one
	}
	le := binary.LittleEndian
	if notes {
		note := le.AppendUint32(nil, 4)
		note = le.AppendUint32(note, 20)
		note = le.AppendUint32(note, 3) // NT_GNU_BUILD_ID
		note = append(note, "GNU\x00"...)
		for i := range 20 {
			note = append(note, byte(0xa0+i))
		}
		secs = append(secs, section{name: ".note.gnu.build-id", typ: elf.SHT_NOTE, flags: elf.SHF_ALLOC, addr: 0x200, data: note, align: 4})
	}
	stripped := notes && !keepSymtab
	syms := func(list []sym) []byte {
		b := make([]byte, 24) // the null symbol
		for _, s := range list {
			b = le.AppendUint32(b, strs.add(s.name))
			b = append(b, byte(s.bind)<<4|byte(s.typ), 0)
			b = le.AppendUint16(b, s.shndx)
			b = le.AppendUint64(b, s.value)
			b = le.AppendUint64(b, s.size)
		}
		return b
	}
	textIdx := uint16(1)
	if notes {
		textIdx++
	}
	if dynamic {
		textIdx += 3
	}
	if dynamic {
		dynsym := syms([]sym{
			{"lib_add", elf.STB_GLOBAL, elf.STT_FUNC, 0, 0, 0},
			{"run", elf.STB_GLOBAL, elf.STT_FUNC, textIdx, textAddr + 0x10, 0x10},
		})
		symIdx := index(".dynsym")
		secs = append(secs, section{name: ".dynsym", typ: elf.SHT_DYNSYM, flags: elf.SHF_ALLOC, addr: 0x240, data: dynsym, info: 1, align: 8, entsize: 24})
		rela := le.AppendUint64(nil, 0x3018)                              // the GOT slot
		rela = le.AppendUint64(rela, 1<<32|uint64(elf.R_X86_64_JMP_SLOT)) // lib_add
		rela = le.AppendUint64(rela, 0)
		secs = append(secs, section{name: ".rela.plt", typ: elf.SHT_RELA, flags: elf.SHF_ALLOC | elf.SHF_INFO_LINK, addr: 0x290, data: rela, link: symIdx, info: symIdx + 2, align: 8, entsize: 24})
		plt := []byte{
			0xff, 0x35, 0xe2, 0x1f, 0, 0, // push GOT+8(%rip)
			0xff, 0x25, 0xe4, 0x1f, 0, 0, // jmp *GOT+16(%rip)
			0x0f, 0x1f, 0x40, 0x00, // nop
			0xff, 0x25, 0xe2, 0x1f, 0, 0, // jmp *lib_add@GOT(%rip)
			0x68, 0, 0, 0, 0, // push $0
			0xe9, 0xe0, 0xff, 0xff, 0xff, // jmp PLT0
		}
		secs = append(secs, section{name: ".plt", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, addr: pltAddr, data: plt, align: 16, entsize: 16})
	}
	text := make([]byte, 0x30)
	for i := range text {
		text[i] = 0xc3 // ret
	}
	secs = append(secs, section{name: ".text", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, addr: textAddr, data: text, align: 16})
	if !stripped {
		symtab := syms([]sym{
			{"fix.c", elf.STB_LOCAL, elf.STT_FILE, uint16(elf.SHN_ABS), 0, 0},
			{"helper", elf.STB_LOCAL, elf.STT_FUNC, textIdx, textAddr, 0x10},
			{"_start", elf.STB_GLOBAL, elf.STT_FUNC, textIdx, textAddr + 0x20, 0x10},
			{"weakfn", elf.STB_WEAK, elf.STT_FUNC, textIdx, textAddr + 0x20, 0x8},
			{"label", elf.STB_GLOBAL, elf.STT_NOTYPE, textIdx, textAddr + 0x28, 0},
			{"run", elf.STB_GLOBAL, elf.STT_FUNC, textIdx, textAddr + 0x10, 0x10},
			{"counter", elf.STB_GLOBAL, elf.STT_OBJECT, uint16(elf.SHN_ABS), 0x4000, 4},
		})
		secs = append(secs, section{name: ".symtab", typ: elf.SHT_SYMTAB, data: symtab, info: 3, align: 8, entsize: 24})
	}
	if notes {
		link := append([]byte("fix.debug"), 0, 0, 0)
		link = le.AppendUint32(link, crc32.ChecksumIEEE([]byte("debug file")))
		secs = append(secs, section{name: ".gnu_debuglink", typ: elf.SHT_PROGBITS, data: link, align: 4})
	}
	strIdx := index(".strtab")
	for i := range secs {
		if secs[i].typ == elf.SHT_SYMTAB || secs[i].typ == elf.SHT_DYNSYM {
			secs[i].link = strIdx
		}
	}
	secs = append(secs, section{name: ".strtab", typ: elf.SHT_STRTAB, align: 1})
	names := make([]uint32, len(secs))
	for i := 1; i < len(secs); i++ {
		names[i] = strs.add(secs[i].name)
	}
	secs[strIdx].data = strs

	out := make([]byte, 64)
	offs := make([]uint64, len(secs))
	for i := 1; i < len(secs); i++ {
		for a := secs[i].align; a > 1 && uint64(len(out))%a != 0; {
			out = append(out, 0)
		}
		offs[i] = uint64(len(out))
		out = append(out, secs[i].data...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))
	for i, s := range secs {
		out = le.AppendUint32(out, names[i])
		out = le.AppendUint32(out, uint32(s.typ))
		out = le.AppendUint64(out, uint64(s.flags))
		out = le.AppendUint64(out, s.addr)
		out = le.AppendUint64(out, offs[i])
		out = le.AppendUint64(out, uint64(len(s.data)))
		out = le.AppendUint32(out, s.link)
		out = le.AppendUint32(out, s.info)
		out = le.AppendUint64(out, s.align)
		out = le.AppendUint64(out, s.entsize)
	}
	h := []byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)}
	h = append(h, make([]byte, 9)...)
	h = le.AppendUint16(h, uint16(elf.ET_DYN))
	h = le.AppendUint16(h, uint16(elf.EM_X86_64))
	h = le.AppendUint32(h, uint32(elf.EV_CURRENT))
	h = le.AppendUint64(h, textAddr+0x20) // entry: _start
	h = le.AppendUint64(h, 0)             // no program headers
	h = le.AppendUint64(h, shoff)
	h = le.AppendUint32(h, 0)
	h = le.AppendUint16(h, 64)
	h = le.AppendUint16(h, 56)
	h = le.AppendUint16(h, 0)
	h = le.AppendUint16(h, 64)
	h = le.AppendUint16(h, uint16(len(secs)))
	h = le.AppendUint16(h, uint16(strIdx))
	copy(out, h)
	return out
}
