package symbolize

import "sort"

// mapping is one executable mapping of an address space: [start, end)
// backed by dso at file offset pgoff.
type mapping struct {
	start, end, pgoff uint64
	dso               *dso
	// identity: map_ip(addr) == addr (anonymous/JIT memory, kernel maps).
	identity bool
}

// mapIP converts an absolute address to the DSO-relative address perf
// calls map_ip and prints for user callchain entries: addr - start + pgoff.
func (m *mapping) mapIP(addr uint64) uint64 {
	if m.identity {
		return addr
	}
	return addr - m.start + m.pgoff
}

// addrSpace is the set of mappings of one process, sorted by start and
// never overlapping.
type addrSpace struct {
	maps []mapping
}

// insert adds m, first cutting every overlapped part of existing mappings
// away the way perf's maps__fixup_overlappings does: the parts before and
// after the new mapping survive, the rest is replaced.
func (as *addrSpace) insert(m mapping) {
	if m.end <= m.start {
		return
	}
	i := sort.Search(len(as.maps), func(i int) bool { return as.maps[i].end > m.start })
	j := i
	var keep []mapping
	for ; j < len(as.maps) && as.maps[j].start < m.end; j++ {
		old := as.maps[j]
		if old.start < m.start {
			before := old
			before.end = m.start
			keep = append(keep, before)
		}
		if old.end > m.end {
			after := old
			after.start = m.end
			if !old.identity {
				after.pgoff += m.end - old.start
			}
			keep = append(keep, after)
		}
	}
	// Replace as.maps[i:j] with keep + m, in order.
	repl := make([]mapping, 0, len(keep)+1)
	for _, k := range keep {
		if k.start < m.start {
			repl = append(repl, k)
		}
	}
	repl = append(repl, m)
	for _, k := range keep {
		if k.start >= m.end {
			repl = append(repl, k)
		}
	}
	tail := append([]mapping(nil), as.maps[j:]...)
	as.maps = append(append(as.maps[:i], repl...), tail...)
}

// find returns the mapping containing addr, or nil.
func (as *addrSpace) find(addr uint64) *mapping {
	if as == nil {
		return nil
	}
	i := sort.Search(len(as.maps), func(i int) bool { return as.maps[i].end > addr })
	if i < len(as.maps) && as.maps[i].start <= addr {
		return &as.maps[i]
	}
	return nil
}

// clone returns a copy of as (a forked process).
func (as *addrSpace) clone() *addrSpace {
	return &addrSpace{maps: append([]mapping(nil), as.maps...)}
}
