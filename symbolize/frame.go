// Package symbolize resolves the addresses of stitched samples to frames —
// symbol, offset and DSO — the way perf 6.1 does: per-process address spaces
// from MMAP/MMAP2/COMM/FORK/EXIT records (or /proc/PID/maps snapshots), ELF
// symbol tables found through --symfs, build-id caches and debuglinks,
// kallsyms for the kernel, perf-PID.map files for JIT code, and C++/Rust
// demangling.
//
// Use: s, _ := New(Options{...}); for each record in time order call
// [Symbolizer.Observe] for side-band records and [Symbolizer.Resolve] for
// samples; [Symbolizer.Diagnostics] then says what stayed unresolved.
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

import "github.com/perfstitch/perfstitch/stitch"

// Reason says why a frame is not (fully) resolved.
type Reason uint8

// Reasons a frame has no symbol.
const (
	Resolved        Reason = iota // the frame has a symbol
	NoMap                         // the address lies outside every known mapping
	NotFound                      // the DSO file could not be found
	BuildIDMismatch               // candidate files had another build id
	NoSymbols                     // the DSO has no symbol covering the address
	NoKallsyms                    // kernel address and no usable kallsyms
	Special                       // a marker or cookie, not an address
)

// Frame is one resolved callchain entry (or the sample IP).
type Frame struct {
	// Addr is the address as recorded (absolute).
	Addr uint64
	// MapAddr is the address perf prints for callchain entries: the
	// map-relative address (map_ip, the ELF virtual address) for user
	// frames, Addr for kernel frames and unmapped addresses.
	MapAddr uint64

	// Symbol is the (demangled unless disabled) symbol name, "" when
	// unresolved. Offset is Addr's offset from the symbol start.
	Symbol string
	Offset uint64

	// DSO is the DSO name as perf prints it in perf script:
	// "[kernel.kallsyms]", "/usr/lib/x86_64-linux-gnu/libc.so.6", "[vdso]",
	// or "[unknown]" when no map covers the address.
	DSO string
	// DSOShort is perf's short name ("libc.so.6", "[kernel.kallsyms]").
	DSOShort string
	// BuildID is the DSO's build id in hex, "" if unknown.
	BuildID string

	Kernel bool   // resolved in the kernel address space
	Reason Reason // Resolved, or why not
	// Cookie marks the pseudo-frame perf prints for a deferred sample's
	// cookie ("b00000006 (cookie) ([unknown])").
	Cookie bool
	// Inlined marks a function inlined at this address of a
	// DWARF-unwound frame (perf prints "sym+0xOFF (inlined)" in place of
	// the DSO); Symbol is its name and Offset the offset from the
	// enclosing symbol's start.
	Inlined bool
	// SrcLine is what perf script -F srcline prints under the frame
	// (Options.SrcLine; "" prints nothing).
	SrcLine string
}

// Event is a stitched sample with its frames resolved. It is the only
// thing the output package consumes.
type Event struct {
	*stitch.Sample

	// Comm is the command name of the thread at the time of the sample.
	Comm string
	// IP is the sample IP resolved (for -G style output).
	IP Frame
	// Frames are the callchain entries, leaf first, markers removed (the
	// cookie of an unmerged deferred sample appears as a Cookie frame).
	// Empty when the sample has no callchain.
	Frames []Frame
	// Unwound is how many of the last Frames come from DWARF unwinding
	// of the sample's user stack copy (--call-graph dwarf), inline frames
	// included. perf limits them separately: at most max-stack unwound
	// addresses, already applied by the Symbolizer, plus their inline
	// frames; printers apply --max-stack to the frames before them only.
	// It may be stale (larger than len(Frames)) when Frames is empty.
	Unwound int
}
