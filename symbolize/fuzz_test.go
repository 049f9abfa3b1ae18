package symbolize

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfstitch/perfstitch/internal/elfsafe"
)

// FuzzELFSymbols feeds mutated ELF files to everything that reads one:
// symbol tables with perf's fixups, PLT synthesis, build id and debuglink.
// Nothing may panic.
func FuzzELFSymbols(f *testing.F) {
	for _, name := range []string{"fix-pie", "fix-nopie", "libfixlib.so", "fix-stripped", ".debug/fix-stripped.debug"} {
		b, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ef, err := elfsafe.NewFile(bytes.NewReader(b))
		if err != nil {
			return
		}
		tab, err := loadELFSymbols(ef, ef, demangler{}, false)
		if err == nil {
			for i := range tab.syms {
				tab.find(tab.syms[i].start)
			}
		}
		readBuildID(ef)
		readDebuglink(ef)
	})
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
