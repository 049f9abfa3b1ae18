package symbolize

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// dsoKind says how a DSO's symbols are found.
type dsoKind uint8

const (
	dsoUser    dsoKind = iota // an ELF file found through symfs, caches, debug dirs
	dsoVDSO                   // [vdso]: symfs/[vdso] or the build-id cache
	dsoKernel                 // [kernel.kallsyms]: kallsyms
	dsoModule                 // [module]: the module's kallsyms symbols
	dsoPerfMap                // /tmp/perf-PID.map: JIT symbols
	dsoKsym                   // a PERF_RECORD_KSYMBOL (BPF program): one symbol
	dsoNoFile                 // [heap], [stack], ...: nothing to load
)

// dso is one DSO as perf knows it: a name, maybe a build id, and its
// symbols loaded on first use.
type dso struct {
	name, short string
	kind        dsoKind
	buildID     []byte
	buildIDHex  string

	loaded bool
	tab    symtab
	reason Reason // after load: Resolved, NotFound, BuildIDMismatch, NoSymbols, NoKallsyms
	path   string // file the symbols came from
	// mismatches counts candidate files rejected for another build id.
	mismatches int
	// fileIDHex is the build id read from the DSO's own file when the
	// recording names none (fileIDRead: it was looked for).
	fileIDHex  string
	fileIDRead bool
	// inl is the DWARF for inline lookups (inlRead: it was looked for;
	// nil: none), so that a frame of a DSO without any costs no lookup.
	inl     *inlineInfo
	inlRead bool
	// noDWARF: the symbol file has no .debug_info (set by the loader).
	noDWARF bool
	// stFiles maps the file offsets of the symbol file's symbols to the
	// STT_FILE name before them (srcline's fallback); stFilesRead: read.
	stFiles     map[uint64]string
	stFilesRead bool
	// cache maps a map_ip address to its symbol index (-1: none).
	cache map[uint64]int32

	// Diagnostics.
	frames, unresolved, weight uint64
	lastSeq                    uint64
}

func newDSO(name string, kind dsoKind) *dso {
	short := name
	if kind == dsoUser || kind == dsoPerfMap {
		short = path.Base(name)
	}
	if tid, ok := perfMapTID(name); ok {
		short = "[JIT] tid " + tid
	}
	return &dso{name: name, short: short, kind: kind}
}

// perfMapTID returns the number in a "/tmp/perf-N..." name, as perf's
// dso__set_basename reads it (sscanf "/tmp/perf-%d.map", which succeeds
// once %d has matched) to name such a DSO "[JIT] tid N" in reports.
func perfMapTID(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "/tmp/perf-")
	if !ok {
		return "", false
	}
	rest = strings.TrimLeft(rest, " \t\n\v\f\r")
	i := 0
	if i < len(rest) && (rest[i] == '-' || rest[i] == '+') {
		i++
	}
	j := i
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j == i {
		return "", false
	}
	n, err := strconv.ParseInt(rest[:j], 10, 32)
	if err != nil {
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

func (d *dso) setBuildID(id []byte) {
	if len(id) == 0 {
		return
	}
	d.buildID = append([]byte(nil), id...)
	d.buildIDHex = hex.EncodeToString(trimBuildID(id))
}

// trimBuildID drops the zero padding of a recorded build id (20-byte SHA-1
// ids are stored in 24-byte fields without the size flag).
func trimBuildID(id []byte) []byte {
	if len(id) > 20 {
		allZero := true
		for _, b := range id[20:] {
			if b != 0 {
				allZero = false
			}
		}
		if allZero {
			return id[:20]
		}
	}
	return id
}

// lookup returns the symbol covering the map_ip address a, or nil.
func (d *dso) lookup(a uint64) *symbol {
	if i, ok := d.cache[a]; ok {
		if i < 0 {
			return nil
		}
		return &d.tab.syms[i]
	}
	i := d.tab.find(a)
	if d.cache == nil {
		d.cache = make(map[uint64]int32)
	}
	d.cache[a] = int32(i)
	if i < 0 {
		return nil
	}
	return &d.tab.syms[i]
}

// load finds and reads the DSO's symbols once.
func (s *Symbolizer) load(d *dso) {
	if d.loaded {
		return
	}
	d.loaded = true
	d.reason = NoSymbols
	switch d.kind {
	case dsoUser, dsoVDSO:
		if !s.takeUser(d) {
			s.loadUser(d)
		}
	case dsoPerfMap:
		s.loadPerfMap(d)
	case dsoKernel:
		// Filled from kallsyms by loadKernel.
		if len(d.tab.syms) > 0 {
			d.reason = Resolved
		}
	case dsoModule:
		if s.ksyms == nil {
			d.reason = NoKallsyms
		} else if t := s.ksyms.modules[d.short]; t != nil {
			d.tab, d.path, d.reason = *t, s.opts.Kallsyms, Resolved
		}
	case dsoKsym:
		d.reason = Resolved
	case dsoNoFile:
		d.reason = NotFound
	}
}

// candidates lists the files perf 6.1's dso__load tries for a user DSO,
// in its order (binary_type_symtab): the .gnu_debuglink target, the
// build-id cache (binary, then debug file), /usr/lib/debug/PATH.debug,
// /usr/lib/debug/PATH, /usr/lib/debug/.build-id/xx/rest.debug, the path
// itself, then PATH's dir/.debug/base. Every path except the build-id cache
// is below Options.Symfs. A DSO without a recorded build id gets the one of
// its file, as in perf. The path itself of a [vdso] the recording gave no
// build id is, without a symfs, this process's own vDSO (ownVDSOPath).
func (s *Symbolizer) candidates(d *dso, open func(string) *elfsafe.File) []string {
	symfs := func(p string) string {
		if s.opts.Symfs == "" {
			return p
		}
		return filepath.Join(s.opts.Symfs, p)
	}
	var out []string
	name := d.name
	absolute := strings.HasPrefix(name, "/")
	idHex := d.buildIDHex
	if absolute && idHex == "" && d.kind == dsoUser {
		// perf reads the build id of a DSO the recording names none for
		// (perf record lists only DSOs hit by sampled IPs) from the file,
		// so that the build-id cache and /usr/lib/debug/.build-id are
		// searched too; it tests for the file on the host and reads it
		// below the symfs (dso__load). Frames keep showing the recorded
		// build id only. Read once: the symbol and CFI loaders both ask.
		if !d.fileIDRead {
			d.fileIDRead = true
			if isRegular(name) {
				if f := open(symfs(name)); f != nil {
					d.fileIDHex = hex.EncodeToString(readBuildID(f))
				}
			}
		}
		idHex = d.fileIDHex
	}
	if absolute {
		if f := open(symfs(name)); f != nil {
			if link := readDebuglink(f); link != "" {
				dir := path.Dir(name)
				out = append(out,
					symfs(path.Join("/usr/lib/debug", link)),
					symfs(path.Join(dir, link)),
					symfs(path.Join(dir, ".debug", link)),
					symfs(path.Join("/usr/lib/debug", dir, link)),
				)
			}
		}
	}
	if len(idHex) > 2 && s.opts.BuildIDDir != "" {
		link := filepath.Join(s.opts.BuildIDDir, ".build-id", idHex[:2], idHex[2:])
		if isRegular(link) {
			out = append(out, link)
		} else {
			base := "elf"
			if d.kind == dsoVDSO {
				base = "vdso"
			}
			out = append(out, filepath.Join(link, base), filepath.Join(link, "debug"))
		}
	}
	if absolute {
		out = append(out,
			symfs(path.Join("/usr/lib/debug", name+".debug")),
			symfs(path.Join("/usr/lib/debug", name)))
	}
	if len(idHex) > 2 {
		out = append(out, symfs(path.Join("/usr/lib/debug/.build-id", idHex[:2], idHex[2:]+".debug")))
	}
	switch {
	case d.kind == dsoVDSO && d.buildIDHex == "" && s.opts.Symfs == "":
		out = append(out, ownVDSOPath)
	case d.kind == dsoVDSO && d.buildIDHex == "" && s.opts.Compat.VDSOOwnCopyOnly:
		// perf 7 reads its own vDSO copy, below the symfs: nothing.
	default:
		out = append(out, symfs(name))
	}
	if absolute {
		out = append(out, symfs(path.Join(path.Dir(name), ".debug", path.Base(name))))
	}
	return out
}

// openFiles opens each path at most once and closes them all together.
type openFiles map[string]*elfsafe.File

// open returns the ELF file at p, or nil when p is not a regular file or
// not ELF; a path is tried once.
func (fs *openFiles) open(p string) *elfsafe.File {
	if *fs == nil {
		*fs = openFiles{}
	}
	if f, ok := (*fs)[p]; ok {
		return f
	}
	(*fs)[p] = nil
	if p == ownVDSOPath {
		img, err := readOwnVDSO()
		if err != nil {
			return nil
		}
		f, err := elfsafe.NewNamedFile(bytes.NewReader(img), p)
		if err != nil {
			return nil
		}
		(*fs)[p] = f
		return f
	}
	if !isRegular(p) {
		return nil
	}
	f, err := elfsafe.Open(p)
	if err != nil {
		return nil
	}
	(*fs)[p] = f
	return f
}

// close closes every file opened.
func (fs openFiles) close() {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// loadUser opens the DSO's candidates in order, rejecting files whose build
// id differs from the recorded one, and reads symbols from the first file
// with a .symtab, using the first file with a .dynsym for program headers
// and PLT entries (perf's syms_ss/runtime_ss).
func (s *Symbolizer) loadUser(d *dso) {
	var syms, runt *elfsafe.File
	var symsPath string
	// Every file is opened at most once, and all are closed when the
	// symbols have been copied out.
	var files openFiles
	defer files.close()
	open := files.open
	found := false
	tried := map[string]bool{}
	for _, p := range s.candidates(d, open) {
		if tried[p] {
			continue
		}
		tried[p] = true
		f := open(p)
		if f == nil {
			continue
		}
		found = true
		if d.buildID != nil && !buildIDEqual(readBuildID(f), d.buildID) {
			d.mismatches++
			continue
		}
		used := false
		if syms == nil && hasSection(f, ".symtab", elf.SHT_SYMTAB) {
			syms, symsPath, used = f, p, true
		}
		if runt == nil && hasSection(f, ".dynsym", elf.SHT_DYNSYM) {
			runt, used = f, true
		}
		if !used {
			continue
		}
		if syms != nil && runt != nil {
			break
		}
	}
	if syms == nil && runt == nil {
		switch {
		case d.mismatches > 0:
			d.reason = BuildIDMismatch
		case found:
			d.reason = NoSymbols
		case anyRegular(tried):
			d.reason = BadFile
		default:
			d.reason = NotFound
		}
		return
	}
	if syms == nil {
		syms = runt
	}
	if runt == nil {
		runt = syms
	}
	if symsPath == "" {
		symsPath = syms.Name()
	}
	tab, err := loadELFSymbols(syms, runt, s.dem, s.opts.Compat.PLTSlotNames)
	if err != nil || len(tab.syms) == 0 {
		d.reason = NoSymbols
		return
	}
	d.tab = tab
	d.path = symsPath
	d.reason = Resolved
	sec := syms.Section(".debug_info")
	d.noDWARF = sec == nil || sec.Type == elf.SHT_NOBITS
}

// loadPerfMap reads a perf-PID.map JIT symbol file ("START SIZE NAME" per
// line, hex), first under Symfs, then at its own path (perf itself reads
// only the latter).
func (s *Symbolizer) loadPerfMap(d *dso) {
	paths := []string{d.name}
	if s.opts.Symfs != "" {
		paths = []string{filepath.Join(s.opts.Symfs, d.name), d.name}
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		var tab symtab
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 4096), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			a, rest, ok := strings.Cut(strings.TrimLeft(line, " \t"), " ")
			if !ok {
				continue
			}
			sz, name, ok := strings.Cut(strings.TrimLeft(rest, " \t"), " ")
			if !ok {
				continue
			}
			start, err1 := strconv.ParseUint(strings.TrimPrefix(a, "0x"), 16, 64)
			size, err2 := strconv.ParseUint(strings.TrimPrefix(sz, "0x"), 16, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			name = strings.TrimRight(name, "\r\n")
			// perf 6.1 prints perf-map names as written, never demangled.
			tab.syms = append(tab.syms, symbol{start: start, end: start + size, name: name})
		}
		f.Close()
		if len(tab.syms) == 0 {
			d.reason = NoSymbols
			return
		}
		sortSyms(&tab)
		d.tab, d.path, d.reason = tab, p, Resolved
		return
	}
	d.reason = NotFound
}

// hasSection reports whether f has the named section with the given type
// (a debug file's .dynsym is NOBITS and does not count).
func hasSection(f *elfsafe.File, name string, typ elf.SectionType) bool {
	s := f.Section(name)
	return s != nil && s.Type == typ
}
