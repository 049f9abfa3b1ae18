package symbolize

import (
	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/stitch"
)

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
	BadFile                       // the DSO file exists but is not ELF, or is truncated or corrupt
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

// Record is a side-band record (not a sample) with what the process
// model knows about its thread: the counterpart of [Event] for the
// records a run shows besides samples.
type Record struct {
	decode.Record

	// Comm is the command name of the record's thread as perf shows it
	// (after processing COMM and FORK records, before EXIT); "" when the
	// record names no thread (tid -1), printed as ":-1".
	Comm string

	// Frames are the resolved user frames of a CALLCHAIN_DEFERRED record
	// (see [Symbolizer.ResolveDeferred]), leaf first.
	Frames []Frame
}
