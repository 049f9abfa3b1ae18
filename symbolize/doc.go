// Package symbolize resolves the addresses of stitched samples to frames —
// symbol, offset and DSO — the way perf 6.1 does: per-process address spaces
// from MMAP/MMAP2/COMM/FORK/EXIT records (or /proc/PID/maps snapshots), ELF
// symbol tables found through --symfs, build-id caches and debuglinks,
// kallsyms for the kernel, perf-PID.map files for JIT code, and C++/Rust
// demangling. For --call-graph dwarf recordings, the user frames come
// from unwinding the sample's stack copy (the CFI engine is package
// symbolize/cfi; which DSO covers an address and what memory reads return
// is decided here) with the inline frames of the binaries' DWARF.
//
// Use: s, _ := New(Options{...}); for each record in time order call
// [Symbolizer.Observe] for side-band records and [Symbolizer.Resolve] for
// samples (an [Event]); a side-band record shown with what the process
// model knows of its thread is a [Record]; [Symbolizer.Diagnostics] then
// says what stayed unresolved.
//
// The rules follow tools/perf/util of perf 6.1: symbol.c (symbols__fixup_end,
// symbols__fixup_duplicate/choose_best_symbol, kallsyms loading and
// relocation), symbol-elf.c (dso__load_sym, the program-header address
// adjustment, dso__synthesize_plt_symbols, build ids, debuglinks), dso.c
// (the order of binary lookups), map.c (map__new, map_ip), machine.c and
// thread.c (the process model, callchain contexts, max-stack).
//
// Failures to symbolize are diagnostics, counted per DSO, never errors.
// Malformed ELF files are read through internal/elfsafe and yield no
// symbols, never a panic (fuzzed: FuzzELFSymbols, FuzzDemangle,
// FuzzParseMaps).
//
// The API is not yet stable.
package symbolize
