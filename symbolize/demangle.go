package symbolize

import (
	"strconv"
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

func (d demangler) demangle(name string) (out string) {
	if d.off || len(name) < 3 {
		return name
	}
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R") {
		return name
	}
	// libiberty tries Rust's legacy scheme before C++ (they overlap).
	if r, ok := rustLegacy(name); ok {
		return r
	}
	// A demangler failure must not take the run down: keep the name.
	defer func() {
		if recover() != nil {
			out = name
		}
	}()
	r, err := demangle.ToString(name, demangle.NoParams, demangle.NoClones, demangle.NoRust)
	if err != nil {
		return name
	}
	return r
}

// rustLegacy demangles a legacy Rust symbol
// (_ZN{len ident}...17h{16 hex}E[.suffix]) the way libiberty's
// rust-demangle.c does without DMGL_VERBOSE: path segments joined by "::",
// the hash segment dropped, "$LT$"-style escapes decoded, ".." printed as
// "::", and a "_" dropped only in front of an escape ("_$").
func rustLegacy(name string) (string, bool) {
	if !strings.HasPrefix(name, "_ZN") {
		return "", false
	}
	sym := name[3:]
	for i := 0; i < len(sym); i++ {
		c := sym[i]
		if c == '_' || c == '$' || c == '.' || c == ':' || c == '@' ||
			(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
			continue
		}
		return "", false
	}
	// Drop a ".suffix" after the final 'E'.
	n := len(sym)
	dot := true
	for n > 0 && !(dot && sym[n-1] == 'E') {
		dot = sym[n-1] == '.'
		n--
	}
	if n == 0 || sym[n-1] != 'E' {
		return "", false
	}
	sym = sym[:n-1]
	if len(sym) <= 19 || sym[len(sym)-19:len(sym)-16] != "17h" {
		return "", false
	}
	var idents []string
	for rest := sym; rest != ""; {
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 || (rest[0] == '0' && j > 1) {
			return "", false
		}
		l, err := strconv.Atoi(rest[:j])
		if err != nil || l == 0 || l > len(rest)-j {
			return "", false
		}
		idents = append(idents, rest[j:j+l])
		rest = rest[j+l:]
	}
	if !isLegacyHash(idents[len(idents)-1]) {
		return "", false
	}
	var b strings.Builder
	for i, id := range idents[:len(idents)-1] {
		if i > 0 {
			b.WriteString("::")
		}
		if !writeLegacyIdent(&b, id) {
			return "", false
		}
	}
	return b.String(), true
}

func isLegacyHash(id string) bool {
	if len(id) != 17 || id[0] != 'h' {
		return false
	}
	var seen [16]bool
	distinct := 0
	for _, c := range id[1:] {
		var v int
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'a' && c <= 'f':
			v = int(c-'a') + 10
		default:
			return false
		}
		if !seen[v] {
			seen[v] = true
			distinct++
		}
	}
	return distinct >= 5
}

var legacyEscapes = map[string]string{
	"$SP$": "@", "$BP$": "*", "$RF$": "&", "$LT$": "<", "$GT$": ">",
	"$LP$": "(", "$RP$": ")", "$C$": ",",
}

// writeLegacyIdent prints one legacy identifier (libiberty print_ident).
func writeLegacyIdent(b *strings.Builder, id string) bool {
	if len(id) >= 2 && id[0] == '_' && id[1] == '$' {
		id = id[1:]
	}
	for id != "" {
		switch {
		case id[0] == '$':
			end := strings.IndexByte(id[1:], '$')
			if end < 0 {
				b.WriteString(id)
				return true
			}
			esc := id[:end+2]
			if r, ok := legacyEscapes[esc]; ok {
				b.WriteString(r)
			} else if strings.HasPrefix(esc, "$u") && len(esc) > 3 {
				v, err := strconv.ParseUint(esc[2:len(esc)-1], 16, 32)
				if err != nil {
					b.WriteString(id)
					return true
				}
				b.WriteRune(rune(v))
			} else {
				b.WriteString(id)
				return true
			}
			id = id[len(esc):]
		case id[0] == '.':
			if len(id) >= 2 && id[1] == '.' {
				b.WriteString("::")
				id = id[2:]
			} else {
				b.WriteByte('.')
				id = id[1:]
			}
		default:
			j := strings.IndexAny(id, "$.")
			if j < 0 {
				j = len(id)
			}
			b.WriteString(id[:j])
			id = id[j:]
		}
	}
	return true
}
