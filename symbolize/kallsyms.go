package symbolize

import (
	"bufio"
	"debug/elf"
	"fmt"
	"io"
	"os"
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
}

// parseKallsyms reads a /proc/kallsyms-format file the way perf 6.1's
// dso__load_kallsyms does: only T/W/D/B symbols (any case) are kept, '$'
// names are skipped, every symbol starts with size zero and gets its end
// from [symtab.fixup]; W is weak, upper case global, lower case local.
// Module symbols ("name\t[module]") are split into their own tables.
func parseKallsyms(r io.Reader, name string) (*kernelSyms, error) {
	ks := &kernelSyms{modules: map[string]*symtab{}}
	var all symtab
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		// "ADDR TYPE NAME[\t[MODULE]]"
		sp := strings.IndexByte(text, ' ')
		if sp <= 0 || sp+3 > len(text) || text[sp+2] != ' ' {
			if strings.TrimSpace(text) == "" {
				continue
			}
			return nil, fmt.Errorf("%s:%d: malformed kallsyms line %q", name, line, text)
		}
		addr, err := strconv.ParseUint(text[:sp], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: bad address: %w", name, line, err)
		}
		typ := text[sp+1]
		sym := text[sp+3:]
		if sym == "_text" && !strings.ContainsRune(sym, '\t') {
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
		all.syms = append(all.syms, symbol{start: addr, end: addr, name: sym, bind: bind})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	all.fixup(true)
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
		ks.kernel.syms = append(ks.kernel.syms, s)
	}
	return ks, nil
}

// loadKallsyms opens and parses a kallsyms file.
func loadKallsyms(path string) (*kernelSyms, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseKallsyms(bufio.NewReaderSize(f, 1<<16), path)
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
