package report

import "unsafe"

// This file remembers where histogram lookups ended. perf finds a
// sample's row by walking the red-black tree of rows with the sort keys'
// compare functions (hists__findnew_entry), which are not a total order
// (sort__sym_cmp compares resolved symbols by start, unresolved ones by
// address, inlined ones by name), so the row found depends on the tree's
// shape and a hash of the keys alone could merge rows perf keeps apart. A
// walk is a function of the tree and of what the compare functions read
// of the looked-up entry; while no entry is inserted the tree does not
// change, so a lookup with the same keys ends where the last one did.
// Remembering that end per key (with the tree's version) gives perf's
// answer without the walk.

// histKey is what the compare functions of the sort keys read of an entry
// being looked up, with strings by identity: equal keys read equal
// values. (Equal strings at different addresses make different keys,
// which only costs a walk.)
type histKey struct {
	sec                    *reportSection
	comm, dso, sym, parent strID
	addr                   uint64 // symbol start if resolved, else the address
	time                   uint64
	tid, cpu               int32
	resolved, inlined      bool
}

// strID names a string by its bytes' address and length.
type strID struct {
	p *byte
	n int
}

func idOf(s string) strID { return strID{unsafe.StringData(s), len(s)} }

// histMemo is where a lookup ended, and the version of its section's
// tree then.
type histMemo struct {
	he      *histEntry
	version uint32
}

// maxMemo bounds the memo; past it, it starts afresh.
const maxMemo = 1 << 18

// histKeyOf is the key of a lookup of he in sec: the fields the sort
// keys compare (compareKeys with output false), and no others. The
// address-derived keys (srcline, symbol_size, ...) are not among them:
// with those the memo is off.
func (r *Report) histKeyOf(sec *reportSection, he *histEntry) histKey {
	k := histKey{sec: sec}
	for _, key := range r.opts.Sort {
		switch key {
		case SortComm:
			k.comm = idOf(he.comm)
		case SortPID:
			k.tid = he.tid
		case SortDSO:
			k.dso = idOf(he.dso)
		case SortSym:
			// sort__sym_cmp: the address of two unresolved entries; else
			// the DSOs, which is resolved, the names (when one is
			// inlined) and the symbol starts.
			k.dso = idOf(he.dso)
			k.resolved = he.resolved
			if he.resolved {
				k.addr, k.sym, k.inlined = he.start, idOf(he.sym), he.inlined
			} else {
				k.addr = he.ip
			}
		case SortParent:
			k.parent = idOf(he.parent)
		case SortCPU:
			k.cpu = he.cpu
		case SortTime:
			k.time = he.time
		}
	}
	return k
}
