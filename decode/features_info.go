package decode

// The feature sections perf prints in full only with -I/--show-info
// (NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY, CPU_DOMAIN_INFO; CPU_TOPOLOGY is in
// features.go) and the small sections of later perfs, laid out as the
// write_* functions of tools/perf/util/header.c write them.

// NUMANode is one node of the NUMA_TOPOLOGY feature.
type NUMANode struct {
	Node              uint32
	MemTotal, MemFree uint64 // kB
	CPUs              string // cpu list as written ("0-1")
}

// CacheLevel is one entry of the CACHE feature.
type CacheLevel struct {
	Level, LineSize, Sets, Ways uint32
	Type, Size, Map             string // "Data", "64K", "0-1"
}

// MemTopology is the MEM_TOPOLOGY feature: memory blocks per node.
type MemTopology struct {
	Version, BlockSize uint64
	Nodes              []MemNode
}

// MemNode is one node of [MemTopology]: a bitmap of its memory blocks.
type MemNode struct {
	Node uint64
	Bits uint64   // bitmap size in bits
	Set  []uint64 // bitmap words, bit i of word i/64 is block i
}

// PMUCaps is one PMU of the PMU_CAPS feature.
type PMUCaps struct {
	PMU  string
	Caps []string // "name=value"
}

// HybridNode is one PMU of the HYBRID_TOPOLOGY feature.
type HybridNode struct {
	PMU, CPUs string
}

// CPUDomainInfo is the CPU_DOMAIN_INFO feature (perf 6.19+): the
// scheduler domains of every CPU, from /proc/schedstat.
type CPUDomainInfo struct {
	SchedstatVersion, MaxSchedDomains uint32
	CPUs                              []CPUDomains
}

// CPUDomains is the scheduler domains of one CPU.
type CPUDomains struct {
	CPU     uint32
	Domains []SchedDomain
}

// SchedDomain is one scheduler domain of a CPU; Name is empty before
// schedstat version 17.
type SchedDomain struct {
	Domain                 uint32
	Name, CPUMask, CPUList string
}

// EMachine is the E_MACHINE feature (perf 6.19+): the ELF machine and
// flags of the recording's architecture.
type EMachine struct {
	Machine, Flags uint32
}

// addInfo parses the sections of this file into m; false for a feature
// it does not know (kept raw).
func (m *Meta) addInfo(f Feature, c *cursor) bool {
	switch f {
	case FeatureNUMATopology:
		m.NUMANodes = parseNUMA(c)
	case FeatureCache:
		m.Caches = parseCache(c)
	case FeatureMemTopology:
		m.MemTopology = parseMemTopology(c)
	case FeatureCPUPMUCaps:
		m.CPUPMUCaps = parseCaps(c)
		m.HasCPUPMUCaps = !c.short
	case FeaturePMUCaps:
		m.PMUCaps = parsePMUCaps(c)
	case FeatureHybridTopology:
		m.HybridNodes = parseHybrid(c)
	case FeatureCPUDomainInfo:
		m.CPUDomainInfo = parseCPUDomainInfo(c, m.NrCPUsAvail)
	case FeatureEMachine:
		e := &EMachine{Machine: c.u32("e_machine"), Flags: c.u32("e_flags")}
		if !c.short {
			m.EMachine = e
		}
	case FeatureClnSize:
		m.CachelineSize = c.u32("cln_size")
		m.HasClnSize = !c.short
	default:
		return false
	}
	return true
}

// count reads a u32 count of entries of at least min bytes each, bounded
// by the bytes left.
func (c *cursor) count(min int, field string) uint32 {
	n := c.u32(field)
	if !c.short && uint64(n)*uint64(min) > uint64(c.remaining()) {
		c.short, c.field = true, field
	}
	if c.short {
		return 0
	}
	return n
}

func parseNUMA(c *cursor) []NUMANode {
	nr := c.count(24, "nr_nodes")
	out := make([]NUMANode, 0, nr)
	for i := uint32(0); i < nr && !c.short; i++ {
		out = append(out, NUMANode{Node: c.u32("node"), MemTotal: c.u64("mem_total"),
			MemFree: c.u64("mem_free"), CPUs: c.perfString("cpus")})
	}
	return out
}

func parseCache(c *cursor) []CacheLevel {
	if c.u32("version") != 1 {
		if !c.short {
			c.short, c.field = true, "version"
		}
		return nil
	}
	nr := c.count(28, "cnt")
	out := make([]CacheLevel, 0, nr)
	for i := uint32(0); i < nr && !c.short; i++ {
		out = append(out, CacheLevel{Level: c.u32("level"), LineSize: c.u32("line_size"),
			Sets: c.u32("sets"), Ways: c.u32("ways"), Type: c.perfString("type"),
			Size: c.perfString("size"), Map: c.perfString("map")})
	}
	return out
}

func parseMemTopology(c *cursor) *MemTopology {
	t := &MemTopology{Version: c.u64("version"), BlockSize: c.u64("block_size")}
	nr := c.u64("nr")
	if !c.short && nr > uint64(c.remaining())/24 {
		c.short, c.field = true, "nr"
	}
	for i := uint64(0); i < nr && !c.short; i++ {
		n := MemNode{Node: c.u64("node")}
		c.u64("size")
		n.Bits = c.u64("bitmap size")
		words := (n.Bits + 63) / 64
		if !c.short && words > uint64(c.remaining())/8 {
			c.short, c.field = true, "bitmap size"
		}
		for j := uint64(0); j < words && !c.short; j++ {
			n.Set = append(n.Set, c.u64("bitmap"))
		}
		t.Nodes = append(t.Nodes, n)
	}
	if c.short {
		return nil
	}
	return t
}

// parseCaps reads u32 nr, then nr name and value strings, as
// "name=value" (perf's env strings).
func parseCaps(c *cursor) []string {
	nr := c.count(8, "nr_caps")
	out := make([]string, 0, nr)
	for i := uint32(0); i < nr && !c.short; i++ {
		name := c.perfString("cap name")
		out = append(out, name+"="+c.perfString("cap value"))
	}
	return out
}

func parsePMUCaps(c *cursor) []PMUCaps {
	nr := c.count(8, "nr_pmu")
	out := make([]PMUCaps, 0, nr)
	for i := uint32(0); i < nr && !c.short; i++ {
		caps := parseCaps(c)
		out = append(out, PMUCaps{Caps: caps, PMU: c.perfString("pmu name")})
	}
	return out
}

func parseHybrid(c *cursor) []HybridNode {
	nr := c.count(8, "nr_nodes")
	out := make([]HybridNode, 0, nr)
	for i := uint32(0); i < nr && !c.short; i++ {
		out = append(out, HybridNode{PMU: c.perfString("pmu_name"), CPUs: c.perfString("cpus")})
	}
	return out
}

// parseCPUDomainInfo reads CPU_DOMAIN_INFO: the version and domain count,
// then per CPU (at most nrCPUs, as many as the section holds) its number,
// its domain count and the domains.
func parseCPUDomainInfo(c *cursor, nrCPUs uint32) *CPUDomainInfo {
	d := &CPUDomainInfo{SchedstatVersion: c.u32("schedstat_version"), MaxSchedDomains: c.u32("max_sched_domains")}
	for i := uint32(0); i < nrCPUs && c.remaining() > 0 && !c.short; i++ {
		cd := CPUDomains{CPU: c.u32("cpu")}
		nr := c.count(12, "nr_domains")
		for j := uint32(0); j < nr && !c.short; j++ {
			sd := SchedDomain{Domain: c.u32("domain")}
			if d.SchedstatVersion >= 17 {
				sd.Name = c.perfString("dname")
			}
			sd.CPUMask = c.perfString("cpumask")
			sd.CPUList = c.perfString("cpulist")
			cd.Domains = append(cd.Domains, sd)
		}
		d.CPUs = append(d.CPUs, cd)
	}
	if c.short {
		return nil
	}
	return d
}
