package symbolize

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// demangler turns mangled C++ and Rust symbol names into what perf 6.1
// prints: libiberty's cplus_demangle without DMGL_PARAMS, i.e. template
// arguments kept, the function's own parameter list and qualifiers
// dropped, Rust legacy hashes and v0 disambiguators hidden. Names that are
// not mangled (C, Go) are returned unchanged.
type demangler struct {
	off bool // --no-demangle
}

func (d demangler) demangle(name string) string {
	if d.off || len(name) < 3 {
		return name
	}
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R") {
		return name
	}
	out, err := demangle.ToString(name, demangle.NoParams, demangle.NoClones)
	if err != nil {
		return name
	}
	return out
}
