// Package compat names the perf release whose output perfstitch reproduces
// (the --compat flag) and holds, in one place, every behaviour in which
// those releases differ. The symbolizer and the formatters consult a
// [Dialect] value; none of them compares version strings.
package compat

import (
	"fmt"
	"strings"
)

// Dialect is the set of perf behaviours one perf release shows. The zero
// value is not a dialect; use [Perf73], [Perf61] or [Lookup].
type Dialect struct {
	// Version is the --compat spelling, "7.3" or "6.1".
	Version string
	// Perf is the perf release the goldens were made with.
	Perf string

	// perf script text (output.Text): sample and record line layout.

	// PidWidth is the width of the pid and tid columns ("%5d/%-5d" in
	// perf 6.1, "%7d/%-7d" since perf 6.5: perf_sample__fprintf_start).
	PidWidth int
	// AbsoluteCallchainAddrs prints the recorded address of every
	// callchain entry; perf 6.1 printed the entries of non-kernel maps
	// map-relative (map_ip, the ELF virtual address:
	// sample__fprintf_callchain's "binary offset for userspace addr",
	// removed in 2023).
	AbsoluteCallchainAddrs bool

	// Symbolization: how frames are named (package symbolize).

	// DemangleParams demangles C++ names as libstdc++'s __cxa_demangle
	// does, which perf 6.19+ calls (util/demangle-cxx.cpp
	// cxx_demangle_sym): return type, parameter list, qualifiers and GCC
	// clone suffixes ("[clone .constprop.0]") printed. Without it, as
	// perf 6.1's bfd_demangle without DMGL_PARAMS: the template arguments
	// only.
	DemangleParams bool
	// PLTSlotNames synthesizes PLT symbols as perf 6.2+ does
	// (util/symbol-elf.c dso__synthesize_plt_symbols): a ".plt" symbol for
	// the header, .plt.got and .plt.sec entries, x86 relocations taken in
	// slot order, a slot of an R_X86_64_IRELATIVE relocation named after
	// the IFUNC its addend points at ("memcpy@plt" inside libc;
	// get_ifunc_name) and any other nameless slot "offset_0x…@plt".
	// Without it, as perf 6.1: one "name@plt" per relocation after the
	// .plt header, "@plt" when nameless.
	PLTSlotNames bool
	// InlineAllChains adds the "(inlined)" rows of a DSO's DWARF to every
	// user frame of every callchain, the sample IP and frame-pointer and
	// deferred entries included (perf 6.19+ add_callchain_ip calls
	// append_inlines for any callchain). Without it, only the frames of
	// DWARF-unwound (--call-graph dwarf) chains get them.
	InlineAllChains bool
	// VDSOOwnCopyOnly: a [vdso] the recording names no build id for
	// (no build-id table: the kernel goldens) is read only from perf's
	// copy of its own vDSO (machine__findnew_vdso), which under --symfs
	// is not found, so its frames are "[unknown] ([vdso])". Without it,
	// as perf 6.1: SYMFS/[vdso] is read.
	VDSOOwnCopyOnly bool
	// UnwindEndsAtZero ends a DWARF-unwound user chain at a return
	// address of 0 without a row for it. perf 6.1 (libunwind) prints that
	// address minus one as "ffffffffffffffff [unknown] ([unknown])"; perf
	// 7.3.4 does not (the dwarf corpus case).
	UnwindEndsAtZero bool

	// perf report (output/report) and perf report --stats (output/stats).

	// CumulativeUserLevel prints "[.]" for every --children row a
	// callchain node creates, kernel functions included; perf 6.1 printed
	// "[k]" for kernel nodes. The level of a cumulative entry is set by
	// fill_callchain_info (tools/perf/util/callchain.c): 'k' only when the
	// node's maps equal the machine's kernel maps, which in perf 7.3.4 they
	// no longer do for kernel nodes resolved by add_callchain_ip. Rows made
	// by a sample's own IP keep the sample's cpumode level.
	CumulativeUserLevel bool
	// SymCmpDSOUnsorted: the symbol sort key compares the DSOs of two
	// resolved entries only when dso is not a sort key itself (perf
	// 6.11's sort__sym_cmp: a June 2024 fix by Namhyung Kim dropped the
	// "|| hists__has(right->hists, dso)" that made the test always
	// true). perf 6.1 always compared them. The key's comparison is not
	// a total order, so this decides which lookups find an existing
	// entry and which entries collapse.
	SymCmpDSOUnsorted bool
	// MergedChainsUnresolved: when two histogram entries collapse into
	// one (hists__collapse_insert_entry), the call-graph entries of the
	// chains merged into the survivor lose their symbol, since perf 6.5's
	// merge_chain_branch (tools/perf/util/callchain.c) hands the cursor a
	// map_symbol of maps and map only: they match other entries by DSO
	// and address and print as the address ("0x44d125"). Without it, as
	// perf 6.1: they keep their symbol.
	MergedChainsUnresolved bool
	// SrclineAtCreation computes a row's srcline and srcfile when the row
	// is made (perf 7.3.4's sort__srcline_init), so every row widens their
	// columns; perf 6.1 computed them when first compared or printed,
	// and a row whose text was not yet known when it was placed in the
	// output order did not count in the width (and may be cut to it).
	SrclineAtCreation bool
	// RemainderInlined prints the remainder line of a fractal call graph
	// (the weight of the branches below the threshold) as "[...]
	// (inlined)"; perf 6.1 printed "[...]". Measured on
	// testdata/srcline and c-nopie (-g fractal,callee).
	RemainderInlined bool
	// StatsNameWidth is the width of the record-type column of perf report
	// --stats ("%16s" in perf 6.1, "%20s" in perf 7.3.4, where the name
	// CALLCHAIN_DEFERRED needs 18: events_stats__fprintf in
	// tools/perf/ui/stdio/hist.c).
	StatsNameWidth int
	// StatsPipeRecordedNames titles the per-event sections of --stats with
	// the event names a pipe-mode stream records; perf 6.1 ignored them
	// there and derived the name from the attr ("cpu-clock:HG").
	StatsPipeRecordedNames bool

	// perf script's thread table.

	// ScriptForgetsExitedThreads: perf script removes a thread at its EXIT
	// (machine__process_exit_event without keep_exited_threads), so a
	// sample processed after it (a system-wide sample of an exiting
	// thread stamped after its EXIT, a deferred sample flushed at the end)
	// finds a new thread named ":TID". perf 6.1 kept exited threads.
	ScriptForgetsExitedThreads bool

	// perf script --header / perf report --header-only (output.WriteHeader).

	// HeaderFeatures is the number of feature bits the perf knows
	// (HEADER_LAST_FEATURE): its "# missing features:" line names the
	// absent ones below it (32 in perf 6.1; 35 in perf 7.3.4, with
	// CPU_DOMAIN_INFO, E_MACHINE and CLN_SIZE).
	HeaderFeatures int
	// HeaderAttrNames prints an event's type and config with their names
	// ("type = 1 (PERF_TYPE_SOFTWARE)", "config = 0
	// (PERF_COUNT_SW_CPU_CLOCK)", config even when 0) and says "# bpf_prog_info
	// empty" and "# btf info empty" for empty BPF sections, as perf 7.3.4's
	// perf_event_attr__fprintf and print_bpf_prog_info do.
	HeaderAttrNames bool
	// SrclineSymtabFile gives an address of a DSO without DWARF line
	// numbers the srcline "FILE:0", FILE the STT_FILE symbol before its
	// function in .symtab, as perf 6.1's libbfd (bfd_find_nearest_line)
	// does; perf 7.3.4's addr2line finds nothing there and perf prints
	// "dso[addr]".
	SrclineSymtabFile bool
	// DataSrcLevelNum decodes -F data_src's level as perf 6.5 and later's
	// perf_mem__lvl_scnprintf does (a mem_lvl_num names the level alone,
	// with its own names: "L2 MHB", "Memory-side Cache"); perf 6.1 joins
	// the mem_lvl bits and the mem_lvl_num with " or ". It also selects
	// perf 6.5's script fields cgroup and retire_lat (perf 6.1: "Invalid
	// field requested") and retire_lat among raw events' defaults.
	DataSrcLevelNum bool

	// Warnings on stderr (cmd's warnings).

	// NoKallsymsWarning prints perf 6.1's "No kallsyms or vmlinux with
	// build-id ID was found" when kernel addresses are looked up in a
	// recording of another kernel (by the build-id table) and neither
	// --kallsyms nor --symfs is given (dso__find_kallsyms, once per run).
	// perf 7.3.4 says nothing there: it falls back to the running
	// kernel's /proc/kallsyms.
	NoKallsymsWarning bool

	// The raw dump (-D).

	// DumpContextNames names the PERF_CONTEXT_* markers of a dumped
	// callchain ("fffffffffffffe00 (PERF_CONTEXT_USER)") and marks a
	// sample whose user callchain is deferred ("...... (deferred)"), as
	// perf 7.3.4's callchain__printf does; perf 6.1 prints the bare
	// entries.
	DumpContextNames bool
	// DumpHeaderRecords prints the attr of a pipe-mode HEADER_ATTR record
	// and the section of a HEADER_FEATURE record after their names, as
	// perf 7.3.4 does; perf 6.1 prints the names alone.
	DumpHeaderRecords bool
	// DumpTimeMultiplier spells the TIME_CONV line "Time Multiplier" as
	// perf 7.3.4 does; perf 6.1 prints "Time Muliplier " (sic).
	DumpTimeMultiplier bool
	// DumpBranchSpec adds a branch entry's speculation outcome
	// ("NON_SPEC_CORRECT_PATH") after its type, space-separated, as perf
	// 7.3.4's branch_stack__printf does; perf 6.1 does not print it.
	DumpBranchSpec bool
}

// Perf73 is what perf 6.19 … 7.3 print (checked against perf 7.3.4): the
// default, since only those releases read deferred callchains.
var Perf73 = Dialect{
	Version: "7.3", Perf: "perf 7.3.4",
	// perf script text
	PidWidth: 7, AbsoluteCallchainAddrs: true,
	// symbolization
	DemangleParams: true, PLTSlotNames: true, InlineAllChains: true,
	VDSOOwnCopyOnly: true, UnwindEndsAtZero: true,
	// perf report, --stats
	CumulativeUserLevel: true, SymCmpDSOUnsorted: true, MergedChainsUnresolved: true,
	SrclineAtCreation: true, RemainderInlined: true,
	StatsNameWidth: 20, StatsPipeRecordedNames: true,
	// perf script's thread table
	ScriptForgetsExitedThreads: true,
	// header
	HeaderFeatures: 35, HeaderAttrNames: true, DataSrcLevelNum: true,
	// raw dump
	DumpContextNames: true, DumpHeaderRecords: true, DumpTimeMultiplier: true,
	DumpBranchSpec: true,
}

// Perf61 is what perf 6.1 prints (checked against Debian's perf 6.1).
var Perf61 = Dialect{
	Version: "6.1", Perf: "perf 6.1",
	// perf script text
	PidWidth: 5,
	// perf report, --stats
	StatsNameWidth: 16,
	// header
	HeaderFeatures: 32, SrclineSymtabFile: true,
	// warnings
	NoKallsymsWarning: true,
}

// Default is the dialect used without --compat.
var Default = Perf73

// Known lists the dialects in --compat order, newest first.
func Known() []Dialect { return []Dialect{Perf73, Perf61} }

// Lookup returns the dialect named by a --compat value. It accepts the
// major.minor form and any full perf version of that release line
// ("7.3.4", "6.1.0"); anything else is an error naming the known ones.
func Lookup(version string) (Dialect, error) {
	for _, d := range Known() {
		if version == d.Version || strings.HasPrefix(version, d.Version+".") {
			return d, nil
		}
	}
	names := make([]string, 0, len(Known()))
	for _, d := range Known() {
		names = append(names, d.Version)
	}
	return Dialect{}, fmt.Errorf("unknown --compat version %q (known: %s)", version, strings.Join(names, ", "))
}
