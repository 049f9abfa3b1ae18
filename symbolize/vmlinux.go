package symbolize

import (
	"debug/elf"
	"path"
	"strings"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// Kernel symbols from a vmlinux (perf -k/--vmlinux): the ELF image's
// .symtab instead of kallsyms, as perf's dso__load_vmlinux reads it.
//
// perf uses the file named and nothing else (dso__load_kernel_sym: a
// --kallsyms file wins over it), joined to --symfs when relative; a file
// whose build id is not the one the recording names for the kernel is
// rejected (symsrc__init), and so is one with no build id when the
// recording names one. The symbols keep their link-time addresses, moved
// by the distance between the recording's _text (its kernel MMAP) and the
// image's _text, as perf's kmap reloc does; the kernel map is then the
// .text section's, whose map_ip is a file offset (perf report prints an
// address without a symbol that way). Unlike kallsyms entries they
// have sizes (an address past a symbol's end has no symbol) and their
// names are C++ or Rust mangled ones, which perf demangles only with
// --demangle-kernel. The kernel DSO keeps its name [kernel.kallsyms];
// its path becomes the file named (perf script --show-kernel-path).

// vmlinuxPath is the file perf opens for -k name: name itself when
// absolute, else name under --symfs (symbol__join_symfs).
func (s *Symbolizer) vmlinuxPath() string {
	name := s.opts.Vmlinux
	if strings.HasPrefix(name, "/") || s.opts.Symfs == "" {
		return name
	}
	return path.Join(s.opts.Symfs, name)
}

// loadVmlinux gives the kernel DSO kd the symbols of the -k file, or the
// reason it has none.
func (s *Symbolizer) loadVmlinux(kd *dso) {
	kd.loaded, kd.reason = true, NotFound
	f, err := elfsafe.Open(s.vmlinuxPath())
	if err != nil {
		s.noteKallsyms(err)
		return
	}
	defer f.Close()
	if len(kd.buildID) > 0 && !buildIDEqual(readBuildID(f), kd.buildID) {
		kd.reason, kd.mismatches = BuildIDMismatch, kd.mismatches+1
		return
	}
	dem := s.dem
	if !s.opts.DemangleKernel {
		dem.off = true
	}
	text := f.Section(".text")
	if text == nil {
		kd.reason = NoSymbols
		return
	}
	list, ref, err := vmlinuxSymbols(f, text, dem)
	if err != nil {
		s.noteKallsyms(err)
		kd.reason = BadFile
		return
	}
	tab := symtab{syms: list}
	tab.fixup(false)
	tab.shape(func() []loadStep { return []loadStep{{insert: list, fixup: true}} })
	kd.tab, kd.path, kd.reason = tab, s.opts.Vmlinux, NoSymbols
	if s.opts.ShowKernelPath {
		s.kernelPath = s.opts.Vmlinux
	}
	if len(list) == 0 {
		return
	}
	kd.reason = Resolved
	// The kernel map becomes .text's (dso__process_kernel_symbol): from
	// its address moved by the reloc, as long as the section, map_ip in
	// file-offset space.
	start := text.Addr
	if s.kref != 0 && ref != 0 {
		start += s.kref - ref
	}
	out := s.kspace.maps[:0]
	for _, m := range s.kspace.maps {
		if m.dso != kd {
			out = append(out, m)
		}
	}
	s.kspace.maps = out
	s.kspace.insert(mapping{start: start, end: start + text.Size, pgoff: text.Offset, dso: kd})
	if s.kernelFrom == 0 || start < s.kernelFrom {
		s.kernelFrom = start
	}
}

// vmlinuxSymbols returns the function, object and label symbols of f's
// .symtab in its .text section, text, in table order, at their file
// offsets (sh_offset + value - sh_addr, perf's adjust_kernel_syms), and
// the address of _text (0 if f has none). perf gives the symbols of other
// sections (.init.text and such) maps of their own; they are left out.
func vmlinuxSymbols(f *elfsafe.File, text *elf.Section, dem demangler) ([]symbol, uint64, error) {
	if sec := f.Section(".symtab"); sec == nil || sec.Type != elf.SHT_SYMTAB {
		return nil, 0, nil
	}
	list, err := f.Symbols()
	if err != nil {
		if err == elf.ErrNoSymbols {
			return nil, 0, nil
		}
		return nil, 0, err
	}
	var out []symbol
	var ref uint64
	lazy := &dem
	for i := range list {
		sym := &list[i]
		if sym.Name == "_text" {
			ref = sym.Value
		}
		if !perfKeeps(sym) {
			continue
		}
		idx := int(sym.Section)
		if idx <= 0 || idx >= len(f.Sections) {
			continue
		}
		if f.Sections[idx] != text {
			continue
		}
		addr := fileOffset(sym.Value, text.Addr, text.Offset)
		out = append(out, symbol{
			start: addr,
			end:   addr + sym.Size,
			name:  sym.Name,
			dem:   lazyDemangler(lazy, sym.Name),
			bind:  elf.ST_BIND(sym.Info),
			ifunc: elf.ST_TYPE(sym.Info) == elf.STT_GNU_IFUNC,
		})
	}
	return out, ref, nil
}
