package symbolize

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/klauspost/compress/zlib"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// Inlined frames of DWARF-unwound callchains (perf 7: of every
// callchain, compat.Dialect.InlineAllChains). perf 6.1 runs
// `addr2line -i -f` (binutils) on the DSO's symbol file for every unwound
// user frame that has a symbol and replaces the frame by one entry per
// function addr2line names, innermost first; a name equal to the frame's
// symbol keeps the normal frame, any other prints as "name+0xOFF
// (inlined)" with the frame's offset.

// maxInlineNest is perf's MAX_INLINE_NEST.
const maxInlineNest = 1024

// maxOriginHops bounds abstract_origin/specification chains.
const maxOriginHops = 8

// inlineInfo is the DWARF of one DSO's symbol file, for inline lookups.
type inlineInfo struct {
	// d is the file's DWARF read whole, or nil when split holds it unit
	// by unit (see [dwarfUnits]).
	d        *dwarf.Data
	split    *dwarfUnits
	path     string    // the symbol file
	syms     []elfFunc // the file's .symtab, in file order (see [inlineInfo.symbols])
	symsRead bool
	cache    map[uint64][]string
	// printed holds the names of the inline frames perf prints for a
	// frame, demangled, by the frame's file offset (see
	// [Symbolizer.inlineNames]).
	printed map[uint64][]string
	units   map[dwarf.Offset][]dwarfFunc // functions by unit DIE (in the file's .debug_info)
	loads   []elf.ProgHeader             // PT_LOAD segments with file contents
	cus     *cuIndex                     // units by pc, read on the first lookup
}

// vaddr converts a file offset (a frame's MapAddr) to the virtual address
// the DWARF uses (perf's map__rip_2objdump), through the PT_LOAD segment
// holding it; offsets outside every segment are taken as they are.
func (in *inlineInfo) vaddr(off uint64) uint64 {
	for i := range in.loads {
		p := &in.loads[i]
		if off >= p.Off && off-p.Off < p.Filesz {
			return off - p.Off + p.Vaddr
		}
	}
	return off
}

// elfFunc is a symbol of the file's .symtab as binutils' elf_find_function
// sees it.
type elfFunc struct {
	name       string
	value      uint64
	size       uint64
	shndx      elf.SectionIndex
	isFunction bool
}

// inlineFor returns the inline information of d (nil: none).
func (s *Symbolizer) inlineFor(d *dso) *inlineInfo {
	if d.inlRead {
		return d.inl
	}
	var in *inlineInfo
	if d.path != "" && d.reason == Resolved && !d.noDWARF {
		in = loadInline(d.path)
	}
	d.inl, d.inlRead = in, true
	return in
}

func loadInline(p string) *inlineInfo {
	f, err := elfsafe.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	if sec := f.Section(".debug_info"); sec == nil || sec.Type == elf.SHT_NOBITS {
		return nil
	}
	raw, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer raw.Close()
	d, split, err := dwarfData(f, raw)
	if err != nil || (d == nil && split == nil) {
		return nil
	}
	in := &inlineInfo{d: d, split: split, cache: map[uint64][]string{}, printed: map[uint64][]string{}}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Filesz > 0 {
			in.loads = append(in.loads, p.ProgHeader)
		}
	}
	in.path = p
	return in
}

// symbols returns the file's .symtab functions, read on the first call:
// only addresses without a DWARF function and C++ frames without a
// linkage name need them, and a debug file's .symtab is large.
func (in *inlineInfo) symbols() []elfFunc {
	if in.symsRead {
		return in.syms
	}
	in.symsRead = true
	f, err := elfsafe.Open(in.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil
	}
	for _, sy := range syms {
		typ := elf.ST_TYPE(sy.Info)
		if typ != elf.STT_FUNC && typ != elf.STT_NOTYPE && typ != elf.STT_GNU_IFUNC {
			continue
		}
		if sy.Section == elf.SHN_UNDEF || sy.Section >= elf.SHN_LORESERVE || sy.Name == "" {
			continue
		}
		in.syms = append(in.syms, elfFunc{name: sy.Name, value: sy.Value, size: sy.Size,
			shndx: sy.Section, isFunction: typ != elf.STT_NOTYPE})
	}
	return in.syms
}

// dwarfData reads f's DWARF without letting a malformed file panic; raw
// reads the file's bytes (for compressed sections). The DWARF comes unit
// by unit (split) where [splitUnits] allows, else whole (d).
func dwarfData(f *elfsafe.File, raw io.ReaderAt) (d *dwarf.Data, split *dwarfUnits, err error) {
	defer func() {
		if recover() != nil {
			d, split, err = nil, nil, errCFI
		}
	}()
	if needsRelocation(f) {
		d, err = f.DWARF()
		return d, nil, err
	}
	dat := map[string][]byte{}
	for _, s := range f.Sections {
		suffix := dwarfSuffix(s.Name)
		if !inlineSections[suffix] || s.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := dwarfSection(f, raw, s)
		if err != nil {
			return nil, nil, err
		}
		dat[suffix] = b
	}
	if split, ok := splitUnits(dat, f.ByteOrder); ok {
		return nil, split, nil
	}
	d, err = newDWARF(dat, dat["info"])
	return d, nil, err
}

// maxInflated bounds the decompressed size of a section dwarfSection
// inflates itself; larger ones are left to debug/elf, which reads them in
// chunks rather than trusting the size a header claims.
const maxInflated = 256 << 20

// dwarfSection returns the contents of the DWARF section s of f, as
// debug/elf's DWARF reads it: decompressed when it is an SHF_COMPRESSED
// zlib section or a .zdebug_ section with a "ZLIB" header. Inflating
// those is most of the cost of loading a library's DWARF; this is the
// same work with a faster inflater (klauspost/compress's) into a buffer
// of the exact size. Any other section goes through debug/elf.
func dwarfSection(f *elfsafe.File, raw io.ReaderAt, s *elf.Section) ([]byte, error) {
	data := func() ([]byte, error) {
		b, err := f.Data(s)
		if err != nil && uint64(len(b)) < s.Size {
			return nil, err
		}
		return b, nil
	}
	var hdr [24]byte
	hlen := 0
	var size uint64
	switch {
	case s.Flags&elf.SHF_COMPRESSED != 0 && s.Flags&elf.SHF_ALLOC == 0:
		hlen = 24 // Elf64_Chdr
		if f.Class == elf.ELFCLASS32 {
			hlen = 12 // Elf32_Chdr
		}
		if s.FileSize < uint64(hlen) {
			return data()
		}
		if _, err := raw.ReadAt(hdr[:hlen], int64(s.Offset)); err != nil {
			return data()
		}
		if elf.CompressionType(f.ByteOrder.Uint32(hdr[:])) != elf.COMPRESS_ZLIB {
			return data()
		}
		size = f.ByteOrder.Uint64(hdr[8:])
		if f.Class == elf.ELFCLASS32 {
			size = uint64(f.ByteOrder.Uint32(hdr[4:]))
		}
	case strings.HasPrefix(s.Name, ".zdebug_") && s.FileSize >= 12:
		hlen = 12
		if _, err := raw.ReadAt(hdr[:hlen], int64(s.Offset)); err != nil || string(hdr[:4]) != "ZLIB" {
			return data()
		}
		size = binary.BigEndian.Uint64(hdr[4:])
	default:
		return data()
	}
	if size == 0 || size > maxInflated || s.Offset+s.FileSize < s.Offset {
		return data()
	}
	zr, err := zlib.NewReader(io.NewSectionReader(raw, int64(s.Offset)+int64(hlen), int64(s.FileSize)-int64(hlen)))
	if err != nil {
		return nil, fmt.Errorf("section %s: %w", s.Name, err)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(zr, b); err != nil {
		return nil, fmt.Errorf("section %s: %w", s.Name, err)
	}
	return b, nil
}

// inlineSections are the DWARF sections (by the name after ".debug_") that
// the inline and source line lookups read: debug/elf's DWARF also
// decompresses the location lists, frame tables and the rest, which were
// most of the time and the retained memory of loading a library's DWARF.
// .debug_types is not among them: a file with it goes through debug/elf.
var inlineSections = map[string]bool{
	"abbrev": true, "info": true, "str": true, "line": true, "ranges": true,
	"addr": true, "line_str": true, "str_offsets": true, "rnglists": true,
}

// dwarfSuffix returns the name of a DWARF section after ".debug_" or
// ".zdebug_", or "" for any other section.
func dwarfSuffix(name string) string {
	if s, ok := strings.CutPrefix(name, ".debug_"); ok {
		return s
	}
	if s, ok := strings.CutPrefix(name, ".zdebug_"); ok {
		return s
	}
	return ""
}

// needsRelocation reports whether reading f's DWARF takes debug/elf's own
// path: an ET_EXEC file never has its DWARF relocated, any other may have
// relocation sections that apply to it (an object file), and a file with
// .debug_types needs debug/elf's AddTypes.
func needsRelocation(f *elfsafe.File) bool {
	for _, s := range f.Sections {
		if dwarfSuffix(s.Name) == "types" {
			return true
		}
		if f.Type == elf.ET_EXEC || (s.Type != elf.SHT_REL && s.Type != elf.SHT_RELA) {
			continue
		}
		if int(s.Info) < len(f.Sections) && dwarfSuffix(f.Sections[s.Info].Name) != "" {
			return true
		}
	}
	return false
}

// names returns the function names addr2line -i -f prints for pc,
// innermost first, or nil when pc lies in no compilation unit.
func (in *inlineInfo) names(pc uint64) (out []string) {
	if v, ok := in.cache[pc]; ok {
		return v
	}
	defer func() {
		if recover() != nil {
			out = nil
		}
		in.cache[pc] = out
	}()
	u, err := in.seekPC(pc)
	if err != nil || u.cu == nil || !u.cu.Children {
		return nil
	}
	var fns []inlineFunc
	for _, top := range in.cuFuncs(u) {
		if _, ok := top.holds(pc); ok {
			fns = in.containing(u.d, u.r, top.e.Offset, pc, fns)
		}
	}
	if len(fns) == 0 {
		if name := in.elfFunction(pc); name != "" {
			return []string{name}
		}
		return nil
	}
	return in.chainNames(u.d, fns, u.cu, pc)
}

// inlineFunc is a function DIE containing a pc, with the length of its
// range that holds the pc, its DIE depth and the index of its enclosing
// containing function (-1 for none).
type inlineFunc struct {
	e             *dwarf.Entry
	size          uint64
	depth, parent int
}

// containing appends to fns the functions containing pc in the subtree of
// the outermost function at off, read from d with r as binutils reads a
// unit: a function not holding pc is skipped with its children.
func (in *inlineInfo) containing(d *dwarf.Data, r *dwarf.Reader, off dwarf.Offset, pc uint64, fns []inlineFunc) []inlineFunc {
	r.Seek(off)
	var open []int // containing functions whose children are being read
	depth := 0
	for steps, e := range dies(r) {
		if e.Tag == 0 {
			depth--
			if depth <= 0 {
				break
			}
			continue
		}
		if steps > 0 && depth == 0 {
			break
		}
		if e.Tag == dwarf.TagSubprogram || e.Tag == dwarf.TagInlinedSubroutine {
			rs, _ := d.Ranges(e)
			size, hit := rangeHolding(rs, pc)
			if !hit {
				if e.Children {
					r.SkipChildren()
				}
				if depth == 0 {
					break
				}
				continue
			}
			for len(open) > 0 && fns[open[len(open)-1]].depth >= depth {
				open = open[:len(open)-1]
			}
			parent := -1
			if len(open) > 0 {
				parent = open[len(open)-1]
			}
			if len(fns) < maxInlineNest {
				fns = append(fns, inlineFunc{e: e, size: size, depth: depth, parent: parent})
				if e.Children {
					open = append(open, len(fns)-1)
				}
			}
		}
		if e.Children {
			depth++
		} else if depth == 0 {
			break
		}
	}
	return fns
}

// chainNames returns the names of the inline chain at pc among the
// containing functions fns of the unit cu (read from d), innermost first. As binutils'
// lookup_address_in_function_table, the innermost function is the one with
// the smallest range, the later DIE on a tie; the callers are its
// enclosing functions.
func (in *inlineInfo) chainNames(d *dwarf.Data, fns []inlineFunc, cu *dwarf.Entry, pc uint64) []string {
	best := 0
	for i := range fns {
		if fns[i].size <= fns[best].size {
			best = i
		}
	}
	var out []string
	for i, n := best, 0; i >= 0 && n < maxInlineNest; i, n = fns[i].parent, n+1 {
		name, linkage := in.name(d, fns[i].e)
		if i == best && !linkage && !unmangledLanguage(cu) {
			name = in.symbolNameAt(d, fns[i].e, pc, name)
		}
		if name == "" {
			name = "??"
		}
		out = append(out, name)
	}
	return out
}

// maxDIESteps bounds the entries one walk of a unit reads.
const maxDIESteps = 1 << 22

// dies yields the entries r reads next with their step number, until the
// unit's data ends, fails or maxDIESteps entries have been read.
func dies(r *dwarf.Reader) iter.Seq2[int, *dwarf.Entry] {
	return func(yield func(int, *dwarf.Entry) bool) {
		for steps := 0; steps < maxDIESteps; steps++ {
			e, err := r.Next()
			if err != nil || e == nil || !yield(steps, e) {
				return
			}
		}
	}
}

// unmangledLanguage reports whether binutils takes a DW_AT_name of the
// unit's language as a linkage name (dwarf2.c mangle_style 0: C, Fortran,
// Cobol, Pascal, Objective C, assembler, ...), so that no ELF name
// replaces it.
func unmangledLanguage(cu *dwarf.Entry) bool {
	lang, _ := cu.Val(dwarf.AttrLanguage).(int64)
	switch lang {
	case 0x1, 0x2, 0x5, 0x6, 0x7, 0x8, 0x9, 0xc, 0xe, 0xf, 0x10, 0x12, 0x1d, 0x22, 0x23, 0x8001:
		return true
	}
	return false
}

// dwarfFunc is a subprogram or inlined-subroutine DIE of a compilation
// unit with its address ranges.
type dwarfFunc struct {
	e      *dwarf.Entry
	ranges [][2]uint64
}

// holds reports whether f's ranges hold pc, and the length of the first
// range that does.
func (f *dwarfFunc) holds(pc uint64) (uint64, bool) {
	return rangeHolding(f.ranges, pc)
}

// rangeHolding returns the length of the first of the ranges rs that holds
// pc, and whether one does.
func rangeHolding(rs [][2]uint64, pc uint64) (uint64, bool) {
	for _, rg := range rs {
		if pc >= rg[0] && pc < rg[1] {
			return rg[1] - rg[0], true
		}
	}
	return 0, false
}

// cuFuncs returns the outermost functions (subprogram or inlined
// subroutine DIEs inside no other function) of the compilation unit u
// with their ranges, read once with u.r (positioned after the unit's DIE)
// and kept, so that a lookup reads only the subtrees holding its pc.
func (in *inlineInfo) cuFuncs(u unitView) []dwarfFunc {
	off, r := u.base+u.cu.Offset, u.r
	if fns, ok := in.units[off]; ok {
		return fns
	}
	if in.units == nil {
		in.units = map[dwarf.Offset][]dwarfFunc{}
	}
	var fns []dwarfFunc
	depth := 0
	for _, e := range dies(r) {
		if e.Tag == 0 {
			depth--
			if depth < 0 {
				break
			}
			continue
		}
		if e.Tag == dwarf.TagSubprogram || e.Tag == dwarf.TagInlinedSubroutine {
			rs, _ := u.d.Ranges(e)
			fns = append(fns, dwarfFunc{e: e, ranges: rs})
			if e.Children {
				r.SkipChildren()
			}
			continue
		}
		if e.Children {
			depth++
		}
	}
	in.units[off] = fns
	return fns
}

// name returns the DIE's linkage name (linkage true) or name, following
// abstract_origin and specification references (in d, the DIE's data).
func (in *inlineInfo) name(d *dwarf.Data, e *dwarf.Entry) (string, bool) {
	for hop := 0; e != nil && hop < maxOriginHops; hop++ {
		if n, ok := e.Val(dwarf.AttrLinkageName).(string); ok && n != "" {
			return n, true
		}
		if n, ok := e.Val(0x2007).(string); ok && n != "" { // DW_AT_MIPS_linkage_name
			return n, true
		}
		if n, ok := e.Val(dwarf.AttrName).(string); ok && n != "" {
			return n, false
		}
		off, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			off, ok = e.Val(dwarf.AttrSpecification).(dwarf.Offset)
		}
		if !ok {
			return "", false
		}
		r := d.Reader()
		r.Seek(off)
		next, err := r.Next()
		if err != nil {
			return "", false
		}
		e = next
	}
	return "", false
}

// elfFunction is binutils' elf_find_function: the symbol of the file's
// .symtab that best covers pc.
func (in *inlineInfo) elfFunction(pc uint64) string {
	_, n := in.elfFunctionAt(pc)
	return n
}

func (in *inlineInfo) elfFunctionAt(pc uint64) (uint64, string) {
	var best *elfFunc
	syms := in.symbols()
	for i := range syms {
		sy := &syms[i]
		if sy.value > pc {
			continue
		}
		if best != nil && !betterFit(best, sy, pc) {
			continue
		}
		best = sy
	}
	if best == nil {
		return 0, ""
	}
	return best.value, best.name
}

// betterFit is binutils' better_fit (bfd/elf.c, 2.40).
func betterFit(cur, sy *elfFunc, pc uint64) bool {
	if sy.value < cur.value {
		return false
	}
	if sy.value > cur.value {
		return true
	}
	if cur.value+cur.size <= pc {
		return sy.size > cur.size
	}
	if cur.isFunction != sy.isFunction {
		return sy.isFunction
	}
	return sy.size < cur.size
}

// appendInlines appends the frames perf's append_inlines makes of f (a
// resolved user frame of an unwound callchain) to frames; ok is false when
// there are none and f is to be appended as it is.
func (s *Symbolizer) appendInlines(frames []Frame, f *Frame, d *dso) ([]Frame, bool) {
	names := s.inlineRows(d, f)
	if len(names) == 0 {
		return frames, false
	}
	return appendRows(frames, f, names), true
}

// inlineRows returns the names of the frames perf's append_inlines makes
// of the frame f of DSO d, innermost first and demangled; nil when there
// are none and f stays as it is. The slice is shared: callers must not
// change it.
func (s *Symbolizer) inlineRows(d *dso, f *Frame) []string {
	if d == nil || (d.inlRead && d.inl == nil) || s.opts.NoInline || f.Reason != Resolved || f.Symbol == "" || d.path == "" {
		return nil
	}
	in := s.inlineFor(d)
	if in == nil {
		return nil
	}
	return s.inlineNames(in, f.MapAddr)
}

// inlineNames returns [inlineInfo.names] of the frame at file offset off
// (a frame's MapAddr), demangled, once per offset: a frame seen again
// costs one map lookup and no demangling.
func (s *Symbolizer) inlineNames(in *inlineInfo, off uint64) []string {
	if v, ok := in.printed[off]; ok {
		return v
	}
	names := in.names(in.vaddr(off))
	var out []string
	if len(names) > 0 {
		out = make([]string, len(names))
		for i, n := range names {
			if strings.HasPrefix(n, "_Z") || strings.HasPrefix(n, "_R") {
				n = s.dem.demangle(n)
			}
			out[i] = n
		}
	}
	in.printed[off] = out
	return out
}

// appendRows appends to frames one copy of f per name of an inline chain
// (innermost first): a name other than f's symbol marks its copy as an
// inlined frame of that name.
func appendRows(frames []Frame, f *Frame, names []string) []Frame {
	for _, n := range names {
		g := *f
		if n != f.Symbol {
			g.Symbol, g.Inlined = n, true
		}
		frames = append(frames, g)
	}
	return frames
}

// symbolNameAt is binutils' choice for the innermost function of pc when
// its DWARF gives no linkage name (_bfd_dwarf2_find_nearest_line): the
// name of the .symtab function covering pc when that symbol starts where
// the DWARF function's first range does (Go's assembly functions:
// "runtime.goexit.abi0" for DWARF's "runtime.goexit"), else the DWARF
// name. Among aliases binutils' pick depends on its lookup cache; when one
// of the aliases there carries the DWARF name, the name is kept (libc's
// __hypot and __ieee754_hypot), which is what the perf goldens show.
func (in *inlineInfo) symbolNameAt(d *dwarf.Data, e *dwarf.Entry, pc uint64, name string) string {
	rs, err := d.Ranges(e)
	if err != nil || len(rs) == 0 {
		return name
	}
	v, n := in.elfFunctionAt(pc)
	if n == "" || v != rs[0][0] || n == name {
		return name
	}
	for _, sy := range in.symbols() {
		if sy.value == v && sy.name == name {
			return name
		}
	}
	return n
}
