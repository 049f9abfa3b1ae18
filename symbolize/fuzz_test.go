package symbolize

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// FuzzELFSymbols feeds mutated ELF files to everything that reads one:
// symbol tables with perf's fixups, PLT synthesis, build id and debuglink.
// Nothing may panic. The seeds are the ELF files of a few hundred bytes
// in testdata/fuzz/FuzzELFSymbols (made by testdata/mkelf.go): the
// fuzzer's minimisation of a new input is quadratic in its length, and
// with the 15 KB fixtures as seeds a run did little else ([TestELFFixtures]
// reads those instead). Even from these seeds a minimisation can take
// tens of seconds in this test binary.
func FuzzELFSymbols(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		readELF(b)
	})
}

// elfRead is what readELF finds in a file.
type elfRead struct {
	err       error // from opening the file or loading its symbols
	names     []string
	buildID   []byte
	debuglink string
}

// readELF reads b as every reader of an ELF file does; each symbol is
// also looked up by its start.
func readELF(b []byte) elfRead {
	ef, err := elfsafe.NewFile(bytes.NewReader(b))
	if err != nil {
		return elfRead{err: err}
	}
	var r elfRead
	tab, err := loadELFSymbols(ef, ef, demangler{}, false)
	if err == nil {
		for i := range tab.syms {
			tab.find(tab.syms[i].start)
			r.names = append(r.names, tab.syms[i].fullName())
		}
	}
	r.err = err
	r.buildID = readBuildID(ef)
	r.debuglink = readDebuglink(ef)
	return r
}

// TestELFSeeds reads the FuzzELFSymbols seeds: the whole files give the
// symbols, build id and debuglink they were made with, the truncated one
// does not open.
func TestELFSeeds(t *testing.T) {
	tests := []struct {
		name      string
		syms      []string // some of the symbols
		buildID   bool
		debuglink string
		fails     bool
	}{
		// weakfn shares its address with _start, a global: perf keeps
		// the global; counter is an object.
		{name: "symtab", syms: []string{"helper", "_start", "label", "run"}},
		{name: "plt", syms: []string{"helper", "_start", "run", "lib_add@plt"}},
		{name: "stripped", syms: []string{"run", "lib_add@plt"}, buildID: true, debuglink: "fix.debug"},
		{name: "symtab-cut", fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := readELF(readFuzzSeed(t, filepath.Join("testdata", "fuzz", "FuzzELFSymbols", tt.name)))
			if (r.err != nil) != tt.fails {
				t.Fatalf("error %v, want failure %v", r.err, tt.fails)
			}
			for _, want := range tt.syms {
				if !slices.Contains(r.names, want) {
					t.Errorf("no symbol %s among %q", want, r.names)
				}
			}
			if (r.buildID != nil) != tt.buildID || r.debuglink != tt.debuglink {
				t.Errorf("build id %x, debuglink %q; want build id %v, debuglink %q", r.buildID, r.debuglink, tt.buildID, tt.debuglink)
			}
		})
	}
}

// readFuzzSeed returns the []byte of a one-value Go fuzzing corpus file.
func readFuzzSeed(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rest, ok := bytes.CutPrefix(b, []byte("go test fuzz v1\n[]byte("))
	q, ok2 := bytes.CutSuffix(rest, []byte(")\n"))
	s, err := strconv.Unquote(string(q))
	if !ok || !ok2 || err != nil {
		t.Fatalf("%s: not a one-[]byte corpus file (%v)", path, err)
	}
	return []byte(s)
}

// TestELFFixtures reads the ELF fixtures as FuzzELFSymbols reads its
// inputs: each but the stripped one gives symbols, that one its
// debuglink.
func TestELFFixtures(t *testing.T) {
	for _, tt := range []struct {
		name, debuglink string
	}{
		{"fix-pie", ""},
		{"fix-nopie", ""},
		{"libfixlib.so", ""},
		{"fix-stripped", "fix-stripped.debug"},
		{".debug/fix-stripped.debug", ""},
	} {
		b, err := os.ReadFile(filepath.Join(fixtureDir, tt.name))
		if err != nil {
			t.Fatal(err)
		}
		r := readELF(b)
		if r.err != nil || (len(r.names) == 0) != (tt.debuglink != "") || r.debuglink != tt.debuglink {
			t.Errorf("%s: %d symbols, debuglink %q, error %v", tt.name, len(r.names), r.debuglink, r.err)
		}
	}
}

// FuzzDemangle checks that no symbol name makes the demangler panic.
func FuzzDemangle(f *testing.F) {
	for _, s := range []string{
		"_ZN3fix6shapes5total17hea117ee6c4c883acE",
		"_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0a1b2c3d4e5f6789E",
		"_RNvNtCs1234_3fix6shapes5total",
		"_ZNK2fx5inner3BoxIlLi4EEixEi",
		"_ZN99999999999999999999999x17h0123456789abcdefE",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		(demangler{}).demangle(s)
	})
}

// FuzzSplitUnits feeds mutated .debug_info and .debug_abbrev sections to
// the unit-by-unit DWARF reader (dwarfunits.go): the header walk, the
// abbreviation check, every unit's own dwarf.Data, the unit index and a
// lookup at each span's ends. Nothing may panic; a split that is taken
// must cover the section in order. Seeded from testdata/fuzz and
// from the units TestSplitUnitsHeaders builds.
func FuzzSplitUnits(f *testing.F) {
	f.Add([]byte{11, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1, 0, 0, 0}, []byte{1, 0x11, 0, 0x11, 0x01, 0x12, 0x06, 0, 0, 0})
	f.Add([]byte{12, 0, 0, 0, 5, 0, 1, 8, 0, 0, 0, 0, 1, 0, 0, 0}, []byte{1, 0x11, 1, 0x03, 0x08, 0x55, 0x17, 0, 0, 0})
	f.Fuzz(func(t *testing.T, info, abbrev []byte) {
		sec := map[string][]byte{"info": info, "abbrev": abbrev}
		du, ok := splitUnits(sec, binary.LittleEndian)
		if !ok {
			return
		}
		end := uint64(0)
		for _, u := range du.units {
			if u.start < end || u.end <= u.start || u.end > uint64(len(info)) {
				t.Fatalf("unit [%d, %d) after %d in %d bytes", u.start, u.end, end, len(info))
			}
			end = u.end
		}
		in := &inlineInfo{split: du, cache: map[uint64][]string{}, printed: map[uint64][]string{}}
		in.names(0)
		if in.cus != nil {
			for _, s := range in.cus.spans {
				in.names(s.lo)
				in.names(s.hi - 1)
				in.sourceLine(s.lo)
			}
		}
	})
}
