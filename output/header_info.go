package output

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
)

// fullOnly reports whether perf prints a feature section only with
// -I/--show-info (feat_ops' full_only in tools/perf/util/header.c).
func fullOnly(ft decode.Feature) bool {
	switch ft {
	case decode.FeatureCPUTopology, decode.FeatureNUMATopology, decode.FeatureCache,
		decode.FeatureMemTopology, decode.FeatureCPUDomainInfo:
		return true
	}
	return false
}

// writeInfoFeature prints the sections perf prints only with -I and those
// of perf 6.1 and later (header_info.go's share of writeFeature).
func writeInfoFeature(b *strings.Builder, m *decode.Meta, ft decode.Feature) {
	switch ft {
	case decode.FeatureCPUTopology:
		writeCPUTopology(b, m)
	case decode.FeatureNUMATopology:
		writeNUMA(b, m)
	case decode.FeatureCache:
		writeCache(b, m)
	case decode.FeatureMemTopology:
		writeMemTopology(b, m)
	case decode.FeatureCPUPMUCaps:
		if m.HasCPUPMUCaps {
			writePMUCaps(b, "cpu", m.CPUPMUCaps)
		}
	case decode.FeaturePMUCaps:
		for _, p := range m.PMUCaps {
			writePMUCaps(b, p.PMU, p.Caps)
		}
	case decode.FeatureHybridTopology:
		b.WriteString("# hybrid cpu system:\n")
		for _, n := range m.HybridNodes {
			fmt.Fprintf(b, "# %s cpu list : %s\n", n.PMU, n.CPUs)
		}
	case decode.FeatureCPUDomainInfo:
		writeCPUDomainInfo(b, m.CPUDomainInfo)
	case decode.FeatureEMachine:
		if e := m.EMachine; e != nil {
			fmt.Fprintf(b, "# e_machine : %d\n#   e_flags : %d\n", e.Machine, e.Flags)
		}
	case decode.FeatureClnSize:
		if m.HasClnSize {
			fmt.Fprintf(b, "# cacheline size: %d\n", m.CachelineSize)
		}
	}
}

// writeCPUTopology prints CPU_TOPOLOGY as print_cpu_topology: the sibling
// lists (sockets, dies, threads), then each CPU's ids.
func writeCPUTopology(b *strings.Builder, m *decode.Meta) {
	t := m.CPUTopology
	if t == nil {
		return
	}
	for _, s := range t.CoreSiblings {
		fmt.Fprintf(b, "# sibling sockets : %s\n", s)
	}
	for _, s := range t.DieSiblings {
		fmt.Fprintf(b, "# sibling dies    : %s\n", s)
	}
	for _, s := range t.ThreadSiblings {
		fmt.Fprintf(b, "# sibling threads : %s\n", s)
	}
	dies := len(t.DieSiblings) > 0
	switch {
	case t.CoreID == nil && dies:
		b.WriteString("# Core ID, Die ID and Socket ID information is not available\n")
	case t.CoreID == nil:
		b.WriteString("# Core ID and Socket ID information is not available\n")
	default:
		for i := range t.CoreID {
			if dies {
				var die uint32
				if i < len(t.DieID) {
					die = t.DieID[i]
				}
				fmt.Fprintf(b, "# CPU %d: Core ID %d, Die ID %d, Socket ID %d\n", i, int32(t.CoreID[i]), int32(die), int32(t.SocketID[i]))
			} else {
				fmt.Fprintf(b, "# CPU %d: Core ID %d, Socket ID %d\n", i, int32(t.CoreID[i]), int32(t.SocketID[i]))
			}
		}
	}
}

// writeNUMA prints NUMA_TOPOLOGY as print_numa_topology; the cpu list is
// parsed and printed again as ranges, as perf's cpu map does.
func writeNUMA(b *strings.Builder, m *decode.Meta) {
	for _, n := range m.NUMANodes {
		fmt.Fprintf(b, "# node%d meminfo  : total = %d kB, free = %d kB\n", n.Node, n.MemTotal, n.MemFree)
		fmt.Fprintf(b, "# node%d cpu list : %s\n", n.Node, cpuList(n.CPUs))
	}
}

// writeCache prints CACHE as print_cache (cpu_cache_level__fprintf).
func writeCache(b *strings.Builder, m *decode.Meta) {
	b.WriteString("# CPU cache info:\n")
	for _, c := range m.Caches {
		fmt.Fprintf(b, "#  L%d %-15s %8s [%s]\n", c.Level, c.Type, c.Size, c.Map)
	}
}

// writeMemTopology prints MEM_TOPOLOGY as print_mem_topology: each node's
// size (block size times its blocks) and its blocks as ranges.
func writeMemTopology(b *strings.Builder, m *decode.Meta) {
	t := m.MemTopology
	if t == nil {
		return
	}
	fmt.Fprintf(b, "# memory nodes (nr %d, block size %#x):\n", len(t.Nodes), t.BlockSize)
	for _, n := range t.Nodes {
		var bits []int
		for i := uint64(0); i < n.Bits && i/64 < uint64(len(n.Set)); i++ {
			if n.Set[i/64]&(1<<(i%64)) != 0 {
				bits = append(bits, int(i))
			}
		}
		fmt.Fprintf(b, "#  %3d [%s]: %s\n", n.Node, unitNumber(t.BlockSize*uint64(len(bits))), ranges(bits))
	}
}

// writePMUCaps prints one PMU's capabilities as __print_pmu_caps.
func writePMUCaps(b *strings.Builder, pmu string, caps []string) {
	if len(caps) == 0 {
		fmt.Fprintf(b, "# %s pmu capabilities: not available\n", pmu)
		return
	}
	fmt.Fprintf(b, "# %s pmu capabilities: %s\n", pmu, strings.Join(caps, ", "))
}

// writeCPUDomainInfo prints CPU_DOMAIN_INFO as print_cpu_domain_info
// (perf 6.19+).
func writeCPUDomainInfo(b *strings.Builder, d *decode.CPUDomainInfo) {
	if d == nil {
		return
	}
	fmt.Fprintf(b, "# schedstat version\t: %d\n", d.SchedstatVersion)
	fmt.Fprintf(b, "# Maximum sched domains\t: %d\n", d.MaxSchedDomains)
	for _, c := range d.CPUs {
		fmt.Fprintf(b, "# cpu\t\t: %d\n", c.CPU)
		fmt.Fprintf(b, "# nr_domains\t: %d\n", len(c.Domains))
		for _, sd := range c.Domains {
			fmt.Fprintf(b, "# Domain\t\t: %d\n", sd.Domain)
			if d.SchedstatVersion >= 17 {
				fmt.Fprintf(b, "# Domain name      : %s\n", sd.Name)
			}
			fmt.Fprintf(b, "# Domain cpu map   : %s\n", sd.CPUMask)
			fmt.Fprintf(b, "# Domain cpu list  : %s\n", sd.CPUList)
		}
	}
}

// unitNumber formats a byte count as unit_number__scnprintf: divided by
// 1024 while the quotient stays above 1, with the unit letter.
func unitNumber(n uint64) string {
	const units = "BKMGTPEZY"
	i := 0
	for n/1024 > 1 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return strconv.FormatUint(n, 10) + units[i:i+1]
}

// cpuList parses a cpu list ("0-3,5") and prints it as perf's cpu map
// does, ranges of consecutive CPUs in ascending order; a list it cannot
// parse is printed as it is.
func cpuList(s string) string {
	var cpus []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		z := a
		var err2 error
		if isRange {
			z, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || z < a || z-a > 1<<16 {
			return s
		}
		for c := a; c <= z; c++ {
			if !seen[c] {
				seen[c] = true
				cpus = append(cpus, c)
			}
		}
	}
	slices.Sort(cpus)
	return ranges(cpus)
}

// ranges prints ascending numbers as "a-b,c" (runs of consecutive ones).
func ranges(v []int) string {
	var b strings.Builder
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(v[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(v[j]))
		}
		i = j + 1
	}
	return b.String()
}
