package output

import "strconv"

// appendMemInfo appends perf_script__meminfo_scnprintf's decoding of a
// PERF_SAMPLE_DATA_SRC value (union perf_mem_data_src,
// include/uapi/linux/perf_event.h; tools/perf/util/mem-events.c):
// "|OP …|LVL …|SNP …|TLB …|LCK …|BLK …". levelNum selects perf 6.5 and
// later's level text, where a mem_lvl_num names the level alone.
func appendMemInfo(b []byte, v uint64, levelNum bool) []byte {
	op := v & 0x1f
	b = append(b, "|OP "...)
	switch {
	case op&0x1 != 0:
		b = append(b, "N/A"...)
	case op&0x2 != 0:
		b = append(b, "LOAD"...)
	case op&0x4 != 0:
		b = append(b, "STORE"...)
	case op&0x8 != 0:
		b = append(b, "PFETCH"...)
	case op&0x10 != 0:
		b = append(b, "EXEC"...)
	default:
		b = append(b, "No"...)
	}
	b = append(b, "|LVL "...)
	if levelNum {
		b = appendMemLevel(b, v)
	} else {
		b = appendMemLevel61(b, v)
	}
	b = append(b, "|SNP "...)
	b = appendMemSnoop(b, v)
	b = append(b, "|TLB "...)
	b = appendMemTLB(b, v)
	b = append(b, "|LCK "...)
	switch lock := v >> 24 & 0x3; {
	case lock&0x1 != 0:
		b = append(b, "N/A"...)
	case lock&0x2 != 0:
		b = append(b, "Yes"...)
	default:
		b = append(b, "No"...)
	}
	b = append(b, "|BLK "...)
	switch blk := v >> 40 & 0x7; {
	case blk == 0 || blk&0x1 != 0:
		b = append(b, " N/A"...)
	default:
		if blk&0x2 != 0 {
			b = append(b, " Data"...)
		}
		if blk&0x4 != 0 {
			b = append(b, " Addr"...)
		}
	}
	return b
}

// memLevels are the PERF_MEM_LVL_* bit names, from bit 0.
var memLevels = []string{
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
	"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
}

// memHops are the PERF_MEM_HOPS_* names; "Remote " comes from the remote bit.
var memHops = []string{"N/A", "core, same node", "node, same socket", "socket, same board", "board"}

// memLevelNums61 and memLevelNums are the PERF_MEM_LVLNUM_* names perf
// 6.1 and perf 7.3.4 know; the others print as "L%d" and "Unknown level
// %d".
var (
	memLevelNums61 = map[uint64]string{0x9: "CXL", 0xa: "I/O", 0xb: "Any cache", 0xc: "LFB/MAB", 0xd: "RAM", 0xe: "PMEM", 0xf: "N/A"}
	memLevelNums   = map[uint64]string{
		0x1: "L1", 0x2: "L2", 0x3: "L3", 0x4: "L4", 0x5: "L2 MHB", 0x6: "Memory-side Cache", 0x8: "Uncached",
		0x9: "CXL", 0xa: "I/O", 0xb: "Any cache", 0xc: "LFB/MAB", 0xd: "RAM", 0xe: "PMEM", 0xf: "N/A",
	}
)

// appendHops appends the mem_hops name and a space (nothing for values
// perf's table does not have).
func appendHops(b []byte, hops uint64) []byte {
	if hops < uint64(len(memHops)) {
		b = append(b, memHops[hops]...)
		b = append(b, ' ')
	}
	return b
}

// appendMemLevel61 is perf 6.1's perf_mem__lvl_scnprintf: "Remote ", then
// the hops or the mem_lvl bits, then the mem_lvl_num, joined by " or ",
// then " hit" and " miss".
func appendMemLevel61(b []byte, v uint64) []byte {
	start := len(b)
	m := v >> 5 & 0x3fff
	hit, miss := m&0x2 != 0, m&0x4 != 0
	m &^= 0x6
	if v>>37&1 != 0 {
		b = append(b, "Remote "...)
	}
	bits := len(b) // where the mem_lvl bits start (none after hops)
	if hops := v >> 43 & 0x7; hops != 0 {
		b = appendHops(b, hops)
		bits = len(b)
	} else {
		b = appendOrNames(b, bits, m, memLevels)
	}
	if n := v >> 33 & 0xf; n != 0 {
		if len(b) > bits {
			b = append(b, " or "...)
		}
		if name, ok := memLevelNums61[n]; ok {
			b = append(b, name...)
		} else {
			b = append(b, 'L')
			b = strconv.AppendUint(b, n, 10)
		}
	}
	return endHitMiss(b, start, hit, miss)
}

// appendMemLevel is perf 7.3.4's perf_mem__lvl_scnprintf: a mem_lvl_num
// (other than N/A) names the level alone, with "Remote " and the hops
// before it; else the mem_lvl bits joined by " or "; then " hit" or
// " miss" (a space alone when the access is neither); "N/A" when nothing
// is known.
func appendMemLevel(b []byte, v uint64) []byte {
	lvl := v >> 5 & 0x3fff
	hitMiss := ""
	switch {
	case lvl&0x2 != 0:
		hitMiss = "hit"
	case lvl&0x4 != 0:
		hitMiss = "miss"
	}
	if n := v >> 33 & 0xf; n != 0 && n != 0xf {
		if v>>37&1 != 0 {
			b = append(b, "Remote "...)
		}
		if hops := v >> 43 & 0x7; hops != 0 {
			b = appendHops(b, hops)
		}
		if name, ok := memLevelNums[n]; ok {
			b = append(b, name...)
		} else {
			b = append(b, "Unknown level "...)
			b = strconv.AppendUint(b, n, 10)
		}
		b = append(b, ' ')
		return append(b, hitMiss...)
	}
	lvl &^= 0x7
	if lvl == 0 {
		return append(b, "N/A"...)
	}
	start := len(b)
	if b = appendOrNames(b, start, lvl, memLevels); len(b) == start {
		return append(b, "N/A"...)
	}
	b = append(b, ' ')
	return append(b, hitMiss...)
}

// snoopNames and snoopxNames are the PERF_MEM_SNOOP_* and
// PERF_MEM_SNOOPX_* bit names.
var (
	snoopNames  = []string{"N/A", "None", "Hit", "Miss", "HitM"}
	snoopxNames = []string{"Fwd", "Peer"}
)

// appendMemSnoop is perf_mem__snp_scnprintf.
func appendMemSnoop(b []byte, v uint64) []byte {
	start := len(b)
	b = appendOrNames(b, start, v>>19&0x1f, snoopNames)
	b = appendOrNames(b, start, v>>38&0x3, snoopxNames)
	if len(b) == start {
		b = append(b, "N/A"...)
	}
	return b
}

// tlbNames are the PERF_MEM_TLB_* bit names.
var tlbNames = []string{"N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault"}

// appendMemTLB is perf_mem__tlb_scnprintf.
func appendMemTLB(b []byte, v uint64) []byte {
	start := len(b)
	m := v >> 26 & 0x7f
	hit, miss := m&0x2 != 0, m&0x4 != 0
	m &^= 0x6
	return endHitMiss(appendOrNames(b, start, m, tlbNames), start, hit, miss)
}

// appendOrNames appends the names of m's set bits (bit i is names[i]),
// each after " or " once anything follows start, as perf's scnprintf
// functions join them.
func appendOrNames(b []byte, start int, m uint64, names []string) []byte {
	for i := 0; m != 0 && i < len(names); i, m = i+1, m>>1 {
		if m&1 == 0 {
			continue
		}
		if len(b) > start {
			b = append(b, " or "...)
		}
		b = append(b, names[i]...)
	}
	return b
}

// endHitMiss ends a field begun at b[start:] as perf's scnprintf
// functions do: "N/A" if nothing was written, then " hit" and " miss".
func endHitMiss(b []byte, start int, hit, miss bool) []byte {
	if len(b) == start {
		b = append(b, "N/A"...)
	}
	if hit {
		b = append(b, " hit"...)
	}
	if miss {
		b = append(b, " miss"...)
	}
	return b
}
