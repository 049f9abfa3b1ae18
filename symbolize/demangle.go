package symbolize

import (
	"strconv"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// demangler turns mangled C++ and Rust symbol names into what perf
// prints. perf 6.1: libiberty's cplus_demangle without DMGL_PARAMS, i.e.
// template arguments kept, the function's own parameter list and
// qualifiers dropped, Rust legacy hashes and v0 disambiguators hidden.
// perf 6.19+ (params): Rust first (its rustc-demangle port in alternate
// form, hashes and disambiguators hidden alike), then libstdc++'s
// __cxa_demangle, which prints the whole signature: return type of a
// template instance, parameter list, cv- and ref-qualifiers, and clone
// suffixes as " [clone .constprop.0]". Names that are not mangled (C, Go)
// are returned unchanged.
type demangler struct {
	off    bool // --no-demangle
	params bool // the whole signature (compat.Dialect.DemangleParams)
}

func (d demangler) demangle(name string) (out string) {
	if d.off {
		return name
	}
	if len(name) < 3 || (!strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R")) {
		if d.params && len(name) <= 2 {
			// __cxa_demangle also demangles types (DMGL_TYPES): a
			// symbol whose whole name is a type's mangling, such as a
			// C function called "f", prints as the type.
			if t, ok := builtinTypes[name]; ok {
				return t
			}
		}
		return name
	}
	// libiberty and perf 7's rust_demangle_demangle both try Rust's
	// legacy scheme before C++ (they overlap).
	if r, ok := rustLegacy(name); ok {
		return r
	}
	// A demangler failure must not take the run down: keep the name.
	defer func() {
		if recover() != nil {
			out = name
		}
	}()
	opts := []demangle.Option{demangle.NoParams, demangle.NoClones, demangle.NoRust}
	if d.params {
		// GNU style with parameters and clone suffixes, Rust v0 as
		// rustc-demangle's alternate form: the library's defaults.
		opts = nil
	}
	if !strings.Contains(name, "adL_Z") && !strings.Contains(name, "JE") {
		r, err := demangle.ToString(name, opts...)
		if err != nil {
			return name
		}
		return r
	}
	// The address of a function as a template argument ("&f"): libiberty
	// (cplus_demangle and __cxa_demangle alike) prints only the name of a
	// qualified function (&A::f) but the whole type of any other, such as a template's instance
	// (JSMethod<&(int node::StreamBase::WriteString<...>(v8::... const&))>);
	// the library prints the name alone, in parentheses, for both.
	a, err := demangle.ToAST(name, opts...)
	if err != nil {
		return name
	}
	// A template whose arguments end in an empty pack ("JE"): libiberty
	// closes it with ">" even after a ">" (its last-character check sees
	// the ", " it took back), where the library writes "> >".
	fix := func(x demangle.AST) demangle.AST {
		if r := keepFunctionAddressType(x); r != nil {
			return r
		}
		return closeAfterEmptyPack(x, opts)
	}
	if c := a.Copy(fix, func(demangle.AST) bool { return false }); c != nil {
		a = c
	}
	return demangle.ASTToString(a, opts...)
}

// builtinTypes are the one- and two-letter type manglings a whole symbol
// name can be (libiberty's cplus_demangle_builtin_types and standard
// substitutions, printed as without DMGL_VERBOSE).
var builtinTypes = map[string]string{
	"v": "void", "w": "wchar_t", "b": "bool", "c": "char", "a": "signed char",
	"h": "unsigned char", "s": "short", "t": "unsigned short", "i": "int",
	"j": "unsigned int", "l": "long", "m": "unsigned long", "x": "long long",
	"y": "unsigned long long", "n": "__int128", "o": "unsigned __int128",
	"f": "float", "d": "double", "e": "long double", "g": "__float128", "z": "...",
	"Dn": "decltype(nullptr)", "Sa": "std::allocator", "Sb": "std::basic_string",
	"Ss": "std::string", "Si": "std::istream", "So": "std::ostream", "Sd": "std::iostream",
}

// closeAfterEmptyPack prints a template with an empty argument pack among
// its arguments as libiberty does, as a name. libiberty prints the list
// recursively (head, then ", " and the rest, taking the ", " back when the
// rest printed nothing): an empty pack before other arguments leaves its
// ", " ("<, void>"), empty packs at the end vanish with theirs, and then
// the ">" gets no space even after a ">" (its last-character check sees the
// ", " it took back). The library leaves every empty pack out.
func closeAfterEmptyPack(x demangle.AST, opts []demangle.Option) demangle.AST {
	t, ok := x.(*demangle.Template)
	if !ok {
		return nil
	}
	empty := func(a demangle.AST) bool {
		p, ok := a.(*demangle.ArgumentPack)
		return ok && len(p.Args) == 0
	}
	last := -1 // the last argument that is not an empty pack
	any := false
	for i, a := range t.Args {
		if empty(a) {
			any = true
		} else {
			last = i
		}
	}
	if !any {
		return nil
	}
	var b strings.Builder
	name := demangle.ASTToString(t.Name, opts...)
	b.WriteString(name)
	if strings.HasSuffix(name, "<") {
		b.WriteByte(' ') // operator< <...>
	}
	b.WriteByte('<')
	for i := 0; i <= last; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if !empty(t.Args[i]) {
			b.WriteString(demangle.ASTToString(t.Args[i], opts...))
		}
	}
	if last == len(t.Args)-1 && strings.HasSuffix(b.String(), ">") {
		b.WriteByte(' ')
	}
	b.WriteByte('>')
	return &demangle.Name{Name: b.String()}
}

// keepFunctionAddressType rewrites "&" applied to a typed function name the
// way libiberty's d_print_comp prints it: a qualified name alone and
// without parentheses, anything else with its type. (The library drops the
// type for the "&" operator only, not for the same text given as a plain
// name, so the rewrite gives it the latter.)
func keepFunctionAddressType(x demangle.AST) demangle.AST {
	u, ok := x.(*demangle.Unary)
	if !ok {
		return nil
	}
	if op, ok := u.Op.(*demangle.Operator); !ok || op.Name != "&" {
		return nil
	}
	t, ok := u.Expr.(*demangle.Typed)
	if !ok {
		return nil
	}
	if _, ok := t.Type.(*demangle.FunctionType); !ok {
		return nil
	}
	if q, ok := t.Name.(*demangle.Qualified); ok {
		return &demangle.Name{Name: "&" + demangle.ASTToString(q, demangle.NoParams, demangle.NoClones, demangle.NoRust)}
	}
	c := *u
	c.Op = &demangle.Name{Name: "&"}
	return &c
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
	sym, ok := legacyBody(name[3:])
	if !ok {
		return "", false
	}
	idents, ok := legacyIdents(sym)
	if !ok {
		return "", false
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

// legacyBody returns the mangled path of a legacy Rust symbol without its
// "_ZN": its characters checked, the ".suffix" after the final 'E' and
// that 'E' dropped, and a hash segment ("17h" and 16 hex digits) at its
// end required.
func legacyBody(sym string) (string, bool) {
	for i := 0; i < len(sym); i++ {
		c := sym[i]
		if c == '_' || c == '$' || c == '.' || c == ':' || c == '@' ||
			(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
			continue
		}
		return "", false
	}
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
	return sym, true
}

// legacyIdents splits a legacy Rust path into its length-prefixed
// identifiers; ok is false for a length with a leading zero, a zero
// length, or one running past the end.
func legacyIdents(sym string) (idents []string, ok bool) {
	for rest := sym; rest != ""; {
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 || (rest[0] == '0' && j > 1) {
			return nil, false
		}
		l, err := strconv.Atoi(rest[:j])
		if err != nil || l == 0 || l > len(rest)-j {
			return nil, false
		}
		idents = append(idents, rest[j:j+l])
		rest = rest[j+l:]
	}
	return idents, true
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
