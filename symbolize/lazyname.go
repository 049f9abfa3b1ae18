package symbolize

import "strings"

// Lazy demangling. A C++ library has tens of thousands of symbols, and
// demangling them all when its table loads was a third of the CPU time
// of a small recording of a C++ program, though a run prints a few dozen
// of them. A symbol of an ELF table therefore keeps its mangled name and
// the demangler to apply (symbol.dem); the name is demangled the first
// time it is printed ([symbol.printName]) and kept in the table, and
// perf's choice between aliases, which compares demangled names, demangles
// only the names it compares ([symbol.fullName]).

// lazyDemangler returns the demangler a symbol named name keeps for later,
// or nil when demangling would return name unchanged.
func lazyDemangler(dem *demangler, name string) *demangler {
	if dem.off {
		return nil
	}
	if len(name) >= 3 && (strings.HasPrefix(name, "_Z") || strings.HasPrefix(name, "_R")) {
		return dem
	}
	if dem.params && len(name) <= 2 {
		return dem
	}
	return nil
}

// fullName returns the symbol's name as perf holds it (demangled), without
// keeping it: the symbol may be one of several copies of a table entry
// whose names must stay alike while perf's tree is rebuilt.
func (s *symbol) fullName() string {
	if s.dem == nil {
		return s.name
	}
	return s.dem.demangle(s.name)
}

// printName returns the symbol's demangled name and keeps it, so that each
// symbol is demangled at most once per run. Only for entries of a loaded
// table (lookups), never during its construction.
func (s *symbol) printName() string {
	if s.dem != nil {
		s.name, s.dem = s.dem.demangle(s.name), nil
	}
	return s.name
}
