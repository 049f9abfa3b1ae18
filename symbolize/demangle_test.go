package symbolize

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfstitch/perfstitch/internal/elfsafe"
	"github.com/perfstitch/perfstitch/internal/testfixture"
)

// symbolNames returns the distinct names perf probe -F would list for the
// ELF file at path: every symbol of .symtab and .dynsym (aliases kept)
// after demangling, without names starting with '_' or ending in "@plt"
// (perf probe's default filter).
func symbolNames(t *testing.T, path string) []string {
	t.Helper()
	f, err := elfsafe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	var names []string
	for _, dyn := range []bool{false, true} {
		list, err := readELFSymbols(f, f, demangler{}, dyn)
		if err != nil {
			t.Fatal(err)
		}
		for i := range list {
			n := list[i].printName()
			if strings.HasPrefix(n, "_") || strings.HasSuffix(n, "@plt") || seen[n] {
				continue
			}
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func uniqueLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// TestDemangleLikePerf checks which symbols perf keeps and the names it
// gives them, for every fixture — C, C++ and Rust (legacy and v0 mangling) —
// against perf 6.1 (perf probe -x BIN -F, recorded by testdata/gen.sh).
func TestDemangleLikePerf(t *testing.T) {
	for _, bin := range []string{"fix-pie", "fix-nopie", "libfixlib.so", "fix-stripped", "fix-cpp", "fix-rust-legacy", "fix-rust-v0"} {
		t.Run(bin, func(t *testing.T) {
			file := bin
			if bin == "fix-stripped" {
				file = ".debug/fix-stripped.debug" // what its .gnu_debuglink names
			}
			have := symbolNames(t, filepath.Join(fixtureDir, file))
			want := uniqueLines(t, filepath.Join("testdata", bin+".perf-probe-F.txt"))
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("names differ from perf's (-perf +ours):\n%s", diff)
			}
		})
	}
}

// TestDemangleCorpusCpp compares the demangled names of the corpus C++
// binary with the names in its perf script golden.
func TestDemangleCorpusCpp(t *testing.T) {
	var c *testfixture.CorpusCase
	for _, cc := range testfixture.Corpus(t) {
		if cc.Name == "cpp-templates" {
			c = &cc
		}
	}
	if c == nil {
		t.Skip("cpp-templates case absent")
	}
	bin := filepath.Join(c.Symfs, "opt/perfstitch-corpus/bin/prog_cpp")
	names := map[string]bool{}
	for _, n := range symbolNames(t, bin) {
		names[n] = true
	}
	seen := 0
	for _, frames := range goldenFrames(t, c.Golden("script.txt")) {
		for _, l := range frames {
			if !strings.HasSuffix(l, "(/opt/perfstitch-corpus/bin/prog_cpp)") {
				continue
			}
			f := strings.Fields(l)
			sym := strings.Join(f[1:len(f)-1], " ")
			if i := strings.LastIndex(sym, "+0x"); i >= 0 {
				sym = sym[:i]
			}
			if sym == "[unknown]" || strings.HasPrefix(sym, "_") || strings.HasSuffix(sym, "@plt") {
				continue
			}
			seen++
			if !names[sym] {
				t.Errorf("golden symbol %q not among our demangled names", sym)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no prog_cpp frames in the golden")
	}
}

// TestDemangleTable pins individual names: perf 6.1 keeps template
// arguments and drops the function's own parameter list.
func TestDemangleTable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"_ZN6corpus13strings_roundEv", "corpus::strings_round"},
		{"_ZN2fx11count_wordsERKSt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEElSt4lessIS6_ESaISt4pairIKS6_lEEE", "fx::count_words"},
		{"_ZNK2fx5inner3BoxIlLi4EEixEi", "fx::inner::Box<long, 4>::operator[]"},
		{"main", "main"},
		{"runtime.(*mheap).alloc", "runtime.(*mheap).alloc"},
		{"_ZN3fix6shapes5total17hea117ee6c4c883acE", "fix::shapes::total"},
		{"_ZN3std3sys9backtrace28__rust_begin_short_backtrace17hf855bf91dc7d8a7eE", "std::sys::backtrace::__rust_begin_short_backtrace"},
		{"_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0a1b2c3d4e5f6789E", "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>"},
		{"_RNvNtCs1234_3fix6shapes5total", "fix::shapes::total"},
		{"_Znot_mangled", "_Znot_mangled"},
		// A function's address as a template argument: libiberty prints
		// its type (node's JSMethod callbacks).
		{"_ZN4node10StreamBase8JSMethodIXadL_ZNS0_11WriteStringILNS_8encodingE1EEEiRKN2v820FunctionCallbackInfoINS4_5ValueEEEEEEEvS9_",
			"node::StreamBase::JSMethod<&(int node::StreamBase::WriteString<(node::encoding)1>(v8::FunctionCallbackInfo<v8::Value> const&))>"},
		// ... but only the name of a qualified one.
		{"_ZN12v8_inspector9V8Console4callIXadL_ZNS0_10createTaskERKN2v820FunctionCallbackInfoINS2_5ValueEEEEEEEvS7_",
			"v8_inspector::V8Console::call<&v8_inspector::V8Console::createTask>"},
		// Empty argument packs: a leading one keeps its ", ", a trailing
		// one leaves ">>" unspaced.
		{"_ZNSt17_Function_handlerIFvvEZN2v84base8CallOnceIJEvEEvPSt6atomicIhENS2_16FunctionWithArgsIJDpT_EE4typeES9_EUlvE_E10_M_managerERSt9_Any_dataRKSE_St18_Manager_operation",
			"std::_Function_handler<void (), v8::base::CallOnce<, void>(std::atomic<unsigned char>*, v8::base::FunctionWithArgs<>::type)::{lambda()#1}>::_M_manager"},
		{"_ZN2v88internal28CFunctionBuilderWithFunctionINS_16CTypeInfoBuilderIdJEEEJNS2_INS_5LocalINS_5ValueEEEJEEEEE5BuildEv",
			"v8::internal::CFunctionBuilderWithFunction<v8::CTypeInfoBuilder<double>, v8::CTypeInfoBuilder<v8::Local<v8::Value>> >::Build"},
	}
	for _, tt := range tests {
		if got := (demangler{}).demangle(tt.in); got != tt.want {
			t.Errorf("demangle(%q)\n\thave %q\n\twant %q", tt.in, got, tt.want)
		}
		if got := (demangler{off: true}).demangle(tt.in); got != tt.in {
			t.Errorf("no-demangle(%q) = %q", tt.in, got)
		}
	}
}

// TestCorpusSymbolsLikePerf compares the symbols kept from corpus DSOs —
// the Go binary (labels and end markers in data and bss sections), a
// shared library, the vDSO — with perf 6.1's list (perf probe -x DSO -F,
// stored in testdata/corpus-probe). libc, libm and libstdc++ are left out:
// perf probe on the recording machine read their host debug files.
func TestCorpusSymbolsLikePerf(t *testing.T) {
	var dir string
	for _, c := range testfixture.Corpus(t) {
		dir = filepath.Dir(c.Dir)
	}
	for _, tt := range []struct{ dso, golden string }{
		{"go-goroutines/symfs/opt/perfstitch-corpus/bin/prog_go", "prog_go"},
		{"c-pie-so/symfs/opt/perfstitch-corpus/lib/libcorpus.so", "libcorpus.so"},
		{"c-nopie/symfs/[vdso]", "vdso"},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			have := symbolNames(t, filepath.Join(dir, tt.dso))
			want := uniqueLines(t, filepath.Join("testdata", "corpus-probe", tt.golden+".perf-probe-F.txt"))
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("(-perf +ours):\n%s", diff)
			}
		})
	}
}
