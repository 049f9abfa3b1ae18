// Package cfi unwinds x86-64 user stacks with DWARF call frame
// information, as libunwind 1.6 does for perf's --call-graph dwarf: it
// parses .eh_frame and .debug_frame sections into a [Table], evaluates the
// CFA instructions and DWARF expressions of the [FDE] covering an address,
// and steps a [Frame]'s register state to its caller, reading memory only
// through a [Memory].
//
// Which section describes which mapping, and where a process's memory
// comes from, is the caller's business (package symbolize).
package cfi
