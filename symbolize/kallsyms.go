package symbolize

import (
	"debug/elf"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// kernelSyms is the parsed kallsyms file: the kernel's symbols (relocated
// and fixed up) and each module's symbols.
type kernelSyms struct {
	kernel  symtab
	modules map[string]*symtab // by "[name]"
	text    uint64             // address of _text as listed, 0 if absent
	hasText bool
	// bad is the first malformed line (a *LineError counting the
	// others), skipped as perf skips them; nil if none.
	bad error
}

// parseKallsyms reads a /proc/kallsyms-format file the way perf 6.1's
// dso__load_kallsyms does: only T/W/D/B symbols (any case) are kept, '$'
// names are skipped, every symbol starts with size zero and gets its end
// from [symtab.fixup]; W is weak, upper case global, lower case local.
// Module symbols ("name\t[module]") are split into their own tables.
func parseKallsyms(data []byte, name string) (*kernelSyms, error) {
	return parseKallsymsText(string(data), name)
}

// parseKallsymsText is parseKallsyms on the file's text; symbol names are
// substrings of it.
func parseKallsymsText(text, name string) (*kernelSyms, error) {
	ks := &kernelSyms{modules: map[string]*symtab{}}
	raw, bad := scanKallsyms(text, name, ks)
	if bad != nil {
		ks.bad = bad
	}
	all := symtab{syms: raw}
	all.fixup(true)
	// The kernel's symbols are compacted in place (module symbols are
	// copied out first).
	kernel := all.syms[:0]
	for _, s := range all.syms {
		if i := strings.IndexByte(s.name, '\t'); i >= 0 {
			mod := strings.TrimSpace(s.name[i+1:])
			s.name = s.name[:i]
			t := ks.modules[mod]
			if t == nil {
				t = &symtab{}
				ks.modules[mod] = t
			}
			t.syms = append(t.syms, s)
			continue
		}
		kernel = append(kernel, s)
	}
	ks.kernel.syms = kernel
	// perf's trees: the kernel's holds every line's symbol in file order,
	// fixed up, less the module symbols moved out; a module's is filled
	// in address order. (Only where symbols overlap: the file is read
	// again then.)
	ks.kernel.shape(func() []loadStep {
		raw, _ := scanKallsyms(text, name, &kernelSyms{})
		return []loadStep{{insert: raw, fixup: true, kallsyms: true, dropModules: true}}
	})
	for _, t := range ks.modules {
		t.shapeSorted()
	}
	return ks, nil
}

// scanKallsyms returns the symbols perf keeps from a kallsyms text, in
// file order and before any fixup, and notes _text's address in ks.
// Malformed lines are skipped; bad describes the first and counts them
// (nil if there were none).
func scanKallsyms(text, name string, ks *kernelSyms) (syms []symbol, bad *LineError) {
	syms = make([]symbol, 0, strings.Count(text, "\n")+1)
	skip := func(line int, err error) {
		if bad == nil {
			bad = &LineError{File: name, Line: line, Err: err}
		}
		bad.Skipped++
	}
	for line := 1; text != ""; line++ {
		l, rest, _ := strings.Cut(text, "\n")
		text = rest
		// "ADDR TYPE NAME[\t[MODULE]]"
		sp := strings.IndexByte(l, ' ')
		if sp <= 0 || sp+3 > len(l) || l[sp+2] != ' ' {
			if strings.TrimSpace(l) == "" {
				continue
			}
			skip(line, fmt.Errorf("malformed kallsyms line %q", l))
			continue
		}
		addr, ok := hexAddr(l[:sp])
		if !ok {
			_, err := strconv.ParseUint(l[:sp], 16, 64)
			skip(line, fmt.Errorf("bad address: %w", err))
			continue
		}
		typ := l[sp+1]
		sym := l[sp+3:]
		for sym != "" && sym[len(sym)-1] == '\r' {
			sym = sym[:len(sym)-1]
		}
		if sym == "_text" && (typ == 'T' || typ == 'W') && !ks.hasText {
			ks.text, ks.hasText = addr, true
		}
		switch typ {
		case 'T', 't', 'W', 'w', 'D', 'd', 'B', 'b':
		default:
			continue
		}
		if strings.HasPrefix(sym, "$") {
			continue
		}
		bind := elf.STB_LOCAL
		switch {
		case typ == 'W':
			bind = elf.STB_WEAK
		case typ >= 'A' && typ <= 'Z':
			bind = elf.STB_GLOBAL
		}
		syms = append(syms, symbol{start: addr, end: addr, name: sym, bind: bind})
	}
	return syms, bad
}

// hexAddr is strconv.ParseUint(h, 16, 64) for the hex digits of a
// kallsyms address, without its generality (a third of the scan's time);
// ok is false wherever ParseUint would fail (empty, another character,
// overflow), and the caller asks ParseUint for the error.
func hexAddr(h string) (v uint64, ok bool) {
	if h == "" {
		return 0, false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		if v>>60 != 0 {
			return 0, false // would overflow
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// loadKallsyms opens and parses a kallsyms file.
func loadKallsyms(path string) (*kernelSyms, error) {
	text, err := readString(path)
	if err != nil {
		return nil, err
	}
	return parseKallsymsText(text, path)
}

// kallsymsGuess is the buffer reserved for files that report no size,
// such as /proc/kallsyms (about 5 MB on a distribution kernel).
const kallsymsGuess = 8 << 20

// readString reads the whole file at path into one string. Unlike
// os.ReadFile on a /proc file that reports size zero, it neither grows
// (and copies) its buffer from 512 bytes nor zeroes it, and the string
// needs no second copy.
func readString(path string) (string, error) {
	f, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var sb strings.Builder
	limit := maxSourceSize
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() <= maxSourceSize {
		sb.Grow(int(fi.Size()))
	} else if err == nil && !fi.Mode().IsRegular() {
		// A device: /dev/null is empty, and no kallsyms copy is one.
		limit = maxDeviceSize
	} else {
		sb.Grow(kallsymsGuess)
	}
	buf := make([]byte, 256<<10)
	for {
		n, err := f.Read(buf)
		sb.Write(buf[:n])
		if sb.Len() > limit {
			return "", fmt.Errorf("%s: %w (%d MiB at most)", path, errTooLarge, limit>>20)
		}
		if err == io.EOF {
			return sb.String(), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// relocate shifts the kernel symbols so that _text lands on ref, the
// address the recording's kernel MMAP gives for it (perf's kallsyms__delta
// with the "[kernel.kallsyms]_text" reference symbol), for a kallsyms file
// taken at another KASLR offset.
func (ks *kernelSyms) relocate(ref uint64) {
	if !ks.hasText || ref == 0 || ref == ks.text {
		return
	}
	delta := ks.text - ref
	for i := range ks.kernel.syms {
		ks.kernel.syms[i].start -= delta
		ks.kernel.syms[i].end -= delta
	}
	ks.text = ref
}

// span returns the address range covered by the kernel symbols (perf's
// map__fixup_start/map__fixup_end after loading kallsyms).
func (t *symtab) span() (start, end uint64, ok bool) {
	if len(t.syms) == 0 {
		return 0, 0, false
	}
	end = t.syms[len(t.syms)-1].end
	for _, s := range t.syms {
		end = max(end, s.end)
	}
	return t.syms[0].start, end, true
}
