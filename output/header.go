package output

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
)

// HeaderOptions are the inputs of [WriteHeader] that are not in the file.
type HeaderOptions struct {
	// Captured is the modification time of the input, which perf prints
	// as "# captured on" (in the local time zone, as ctime does).
	Captured time.Time
	Compat   compat.Dialect
	// ShowInfo prints the sections perf prints only with -I/--show-info
	// (CPU and NUMA topology, caches, memory topology, scheduler domains)
	// in full, instead of "info available, use -I to display".
	ShowInfo bool
	// FeaturesOnly prints the feature lines of a pipe-mode stream alone,
	// without the file header lines around them (perf script -I without
	// --header).
	FeaturesOnly bool
}

// featureNames are perf's names of the header feature bits (feat_ops),
// indexed by bit.
var featureNames = []string{
	"", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH", "NRCPUS",
	"CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC", "CPU_TOPOLOGY", "NUMA_TOPOLOGY",
	"BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT", "CACHE", "SAMPLE_TIME",
	"MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT", "BPF_PROG_INFO", "BPF_BTF", "COMPRESSED",
	"CPU_PMU_CAPS", "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS", "CPU_DOMAIN_INFO",
	"E_MACHINE", "CLN_SIZE",
}

// WriteHeader prints the header of a recording as perf script --header-only
// and perf report --header-only print it (perf_session__fprintf_info
// without -I): the file header fields, one or more lines per feature
// section in feature order ("info available, use -I to display" for the
// sections perf shows only with -I), the features the file lacks, and the
// closing "# ========" lines. In pipe mode perf prints the features as their
// records arrive, after the closing lines, and no missing list.
func WriteHeader(w io.Writer, f *decode.File, o HeaderOptions) error {
	var b strings.Builder
	h := &f.Header
	if o.FeaturesOnly && h.Pipe {
		writeFeatures(&b, &f.Meta, o)
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("# ========\n")
	fmt.Fprintf(&b, "# captured on    : %s\n", o.Captured.Format("Mon Jan _2 15:04:05 2006"))
	var dataOff, dataSize, featOff uint64
	if !h.Pipe {
		dataOff, dataSize = h.Data.Offset, h.Data.Size
		featOff = dataOff + dataSize
	}
	fmt.Fprintf(&b, "# header version : %d\n", 1)
	fmt.Fprintf(&b, "# data offset    : %d\n", dataOff)
	fmt.Fprintf(&b, "# data size      : %d\n", dataSize)
	fmt.Fprintf(&b, "# feat offset    : %d\n", featOff)
	if h.Pipe {
		b.WriteString("# ========\n#\n")
	}
	writeFeatures(&b, &f.Meta, o)
	if !h.Pipe {
		b.WriteString("# missing features: ")
		for bit := 1; bit < o.Compat.HeaderFeatures && bit < len(featureNames); bit++ {
			if h.Features[bit/64]&(1<<(bit%64)) == 0 {
				b.WriteString(featureNames[bit])
				b.WriteByte(' ')
			}
		}
		b.WriteString("\n# ========\n#\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFeatures prints the feature sections the dialect's perf knows, in
// feature order.
func writeFeatures(b *strings.Builder, m *decode.Meta, o HeaderOptions) {
	for _, ft := range m.Features {
		if int(ft) >= o.Compat.HeaderFeatures {
			continue // a section this perf does not know
		}
		if !o.ShowInfo && fullOnly(ft) {
			fmt.Fprintf(b, "# %s info available, use -I to display\n", featureNames[ft])
			continue
		}
		writeFeature(b, m, ft, o.Compat)
	}
}

// writeFeature prints one feature section as perf's print_* functions do.
func writeFeature(b *strings.Builder, m *decode.Meta, ft decode.Feature, d compat.Dialect) {
	switch ft {
	case decode.FeatureHostname:
		fmt.Fprintf(b, "# hostname : %s\n", m.Hostname)
	case decode.FeatureOSRelease:
		fmt.Fprintf(b, "# os release : %s\n", m.OSRelease)
	case decode.FeatureVersion:
		fmt.Fprintf(b, "# perf version : %s\n", m.Version)
	case decode.FeatureArch:
		fmt.Fprintf(b, "# arch : %s\n", m.Arch)
	case decode.FeatureNrCPUs:
		fmt.Fprintf(b, "# nrcpus online : %d\n# nrcpus avail : %d\n", m.NrCPUsOnline, m.NrCPUsAvail)
	case decode.FeatureCPUDesc:
		fmt.Fprintf(b, "# cpudesc : %s\n", m.CPUDesc)
	case decode.FeatureCPUID:
		fmt.Fprintf(b, "# cpuid : %s\n", m.CPUID)
	case decode.FeatureTotalMem:
		fmt.Fprintf(b, "# total memory : %d kB\n", m.TotalMem)
	case decode.FeatureCmdline:
		writeCmdline(b, m.Cmdline)
	case decode.FeatureEventDesc:
		for i := range m.EventDesc {
			writeEventDesc(b, &m.EventDesc[i], d)
		}
	case decode.FeatureBranchStack:
		b.WriteString("# contains samples with branch stack\n")
	case decode.FeaturePMUMappings:
		writePMUMappings(b, m)
	case decode.FeatureGroupDesc:
		for _, g := range m.GroupDesc {
			if g.NrMembers > 1 {
				fmt.Fprintf(b, "# group: %s{...}\n", g.Name)
			}
		}
	case decode.FeatureAuxtrace:
		b.WriteString("# contains AUX area data (e.g. instruction trace)\n")
	case decode.FeatureStat:
		b.WriteString("# contains stat data\n")
	case decode.FeatureSampleTime:
		writeSampleTime(b, m)
	case decode.FeatureClockID:
		fmt.Fprintf(b, "# clockid frequency: %d MHz\n", m.ClockIDRes/1000)
	case decode.FeatureDirFormat:
		if p := m.Raw[ft]; len(p) >= 8 {
			fmt.Fprintf(b, "# directory data version : %d\n", binary.LittleEndian.Uint64(p))
		}
	case decode.FeatureBPFProgInfo, decode.FeatureBPFBTF:
		if d.HeaderAttrNames && rawCount(m.Raw[ft]) == 0 {
			if ft == decode.FeatureBPFProgInfo {
				b.WriteString("# bpf_prog_info empty\n")
			} else {
				b.WriteString("# btf info empty\n")
			}
		}
	case decode.FeatureCompressed:
		writeCompressed(b, m)
	default:
		writeInfoFeature(b, m, ft)
	}
}

// writeCmdline prints the cmdline feature, each argument followed by a
// space.
func writeCmdline(b *strings.Builder, args []string) {
	b.WriteString("# cmdline : ")
	for _, a := range args {
		b.WriteString(a)
		b.WriteByte(' ')
	}
	b.WriteByte('\n')
}

// writePMUMappings prints the pmu_mappings feature in the order the file
// lists the PMUs.
func writePMUMappings(b *strings.Builder, m *decode.Meta) {
	b.WriteString("# pmu mappings: ")
	for i, t := range m.PMUOrder {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%s = %d", m.PMUMappings[t], t)
	}
	if len(m.PMUOrder) == 0 {
		b.WriteString("not available")
	}
	b.WriteByte('\n')
}

// writeSampleTime prints the sample_time feature, zero times when the
// file has none.
func writeSampleTime(b *strings.Builder, m *decode.Meta) {
	var first, last uint64
	if m.SampleTime != nil {
		first, last = m.SampleTime.First, m.SampleTime.Last
	}
	fmt.Fprintf(b, "# time of first sample : %s\n", usecTime(first))
	fmt.Fprintf(b, "# time of last sample : %s\n", usecTime(last))
	fmt.Fprintf(b, "# sample duration : %10.3f ms\n", float64(last-first)/1e6)
}

// writeCompressed prints the compressed feature, nothing without one.
func writeCompressed(b *strings.Builder, m *decode.Meta) {
	c := m.Compressed
	if c == nil {
		return
	}
	name := "Unknown"
	if c.Type == 1 {
		name = "Zstd"
	}
	fmt.Fprintf(b, "# compressed : %s, level = %d, ratio = %d\n", name, c.Level, c.Ratio)
}

// rawCount reads the leading u32 count of a feature section (little
// endian: the files perf writes on the machines it runs on).
func rawCount(p []byte) uint32 {
	if len(p) < 4 {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

// usecTime formats a perf clock time in ns as seconds with microseconds
// (timestamp__scnprintf_usec).
func usecTime(ns uint64) string {
	return fmt.Sprintf("%d.%06d", ns/1e9, ns%1e9/1e3)
}

// sampleTypeNames and readFormatNames are perf's names of the bits, in bit
// order (util/perf_event_attr_fprintf.c).
var (
	sampleTypeNames = []string{"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
		"PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
		"DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP",
		"DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT"}
	readFormatNames = []string{"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"}
	// attrFlagNames are the bitfield names from bit 0 of the flags word;
	// precise_ip (2 bits) is handled apart.
	attrFlagNames = []string{"disabled", "inherit", "pinned", "exclusive", "exclude_user",
		"exclude_kernel", "exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat",
		"enable_on_exec", "task", "watermark", "precise_ip", "", "mmap_data", "sample_id_all",
		"exclude_host", "exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user",
		"mmap2", "comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces",
		"ksymbol", "bpf_event", "aux_output", "cgroup", "text_poke", "build_id",
		"inherit_thread", "remove_on_exec", "sigtrap", "defer_callchain", "defer_output"}
	attrTypeNames = []string{"PERF_TYPE_HARDWARE", "PERF_TYPE_SOFTWARE", "PERF_TYPE_TRACEPOINT",
		"PERF_TYPE_HW_CACHE", "PERF_TYPE_RAW", "PERF_TYPE_BREAKPOINT"}
	hwConfigNames = []string{"PERF_COUNT_HW_CPU_CYCLES", "PERF_COUNT_HW_INSTRUCTIONS",
		"PERF_COUNT_HW_CACHE_REFERENCES", "PERF_COUNT_HW_CACHE_MISSES",
		"PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "PERF_COUNT_HW_BRANCH_MISSES",
		"PERF_COUNT_HW_BUS_CYCLES", "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND",
		"PERF_COUNT_HW_STALLED_CYCLES_BACKEND", "PERF_COUNT_HW_REF_CPU_CYCLES"}
	swConfigNames = []string{"PERF_COUNT_SW_CPU_CLOCK", "PERF_COUNT_SW_TASK_CLOCK",
		"PERF_COUNT_SW_PAGE_FAULTS", "PERF_COUNT_SW_CONTEXT_SWITCHES",
		"PERF_COUNT_SW_CPU_MIGRATIONS", "PERF_COUNT_SW_PAGE_FAULTS_MIN",
		"PERF_COUNT_SW_PAGE_FAULTS_MAJ", "PERF_COUNT_SW_ALIGNMENT_FAULTS",
		"PERF_COUNT_SW_EMULATION_FAULTS", "PERF_COUNT_SW_DUMMY", "PERF_COUNT_SW_BPF_OUTPUT",
		"PERF_COUNT_SW_CGROUP_SWITCHES"}
)

// bitNames joins the names of the set bits with "|".
func bitNames(v uint64, names []string) string {
	var parts []string
	for i, n := range names {
		if v&(1<<i) != 0 {
			parts = append(parts, n)
			v &^= 1 << i
		}
	}
	if v != 0 {
		parts = append(parts, fmt.Sprintf("(unknown bits %#x)", v))
	}
	return strings.Join(parts, "|")
}

// writeEventDesc prints one "# event :" line (print_event_desc with
// perf_event_attr__fprintf: every non-zero attr field).
func writeEventDesc(b *strings.Builder, e *decode.EventDesc, d compat.Dialect) {
	fmt.Fprintf(b, "# event : name = %s, ", e.Name)
	if len(e.IDs) > 0 {
		b.WriteString(", id = {")
		for i, id := range e.IDs {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, " %d", id)
		}
		b.WriteString(" }")
	}
	writeAttrFields(b, &e.Attr, d)
	b.WriteByte('\n')
}

// writeAttrFields prints an attr's fields as perf_event_attr__fprintf
// does, each as ", name = value".
func writeAttrFields(b *strings.Builder, a *decode.EventAttr, d compat.Dialect) {
	kv := func(k, v string) { fmt.Fprintf(b, ", %s = %s", k, v) }
	u := func(k string, v uint64) {
		if v != 0 {
			kv(k, strconv.FormatUint(v, 10))
		}
	}
	x := func(k string, v uint64) {
		if v != 0 {
			kv(k, cHex(v))
		}
	}
	t := uint64(a.Type)
	if d.HeaderAttrNames && t < uint64(len(attrTypeNames)) {
		kv("type", fmt.Sprintf("%d (%s)", t, attrTypeNames[t]))
	} else {
		u("type", t)
	}
	u("size", uint64(a.Size))
	var cfgNames []string
	switch a.Type {
	case 0:
		cfgNames = hwConfigNames
	case 1:
		cfgNames = swConfigNames
	}
	if d.HeaderAttrNames && a.Config < uint64(len(cfgNames)) {
		kv("config", fmt.Sprintf("%s (%s)", cHex(a.Config), cfgNames[a.Config]))
	} else {
		x("config", a.Config)
	}
	u("{ sample_period, sample_freq }", a.SamplePeriod)
	if a.SampleType != 0 {
		kv("sample_type", bitNames(uint64(a.SampleType), sampleTypeNames))
	}
	if a.ReadFormat != 0 {
		kv("read_format", bitNames(uint64(a.ReadFormat), readFormatNames))
	}
	for i, n := range attrFlagNames {
		switch {
		case n == "":
		case n == "precise_ip":
			u(n, uint64(a.Flags&decode.AttrPreciseIPMask)>>15)
		case uint64(a.Flags)&(1<<i) != 0:
			kv(n, "1")
		}
	}
	u("{ wakeup_events, wakeup_watermark }", uint64(a.WakeupEvents))
	u("bp_type", uint64(a.BPType))
	x("{ bp_addr, config1 }", a.Config1)
	x("{ bp_len, config2 }", a.Config2)
	x("branch_sample_type", uint64(a.BranchSampleType))
	x("sample_regs_user", a.SampleRegsUser)
	u("sample_stack_user", uint64(a.SampleStackUser))
	if a.ClockID != 0 {
		kv("clockid", strconv.Itoa(int(a.ClockID)))
	}
	x("sample_regs_intr", a.SampleRegsIntr)
	u("aux_watermark", uint64(a.AuxWatermark))
	u("sample_max_stack", uint64(a.SampleMaxStack))
	u("aux_sample_size", uint64(a.AuxSampleSize))
	u("sig_data", a.SigData)
}

// cHex formats v as C's "%#" PRIx64 does: "0" for 0, else "0x…".
func cHex(v uint64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%#x", v)
}
