package cmd

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/iostreams"
	"github.com/perfstitch/perfstitch/output/report"
	"github.com/perfstitch/perfstitch/session"
)

// CommonOptions are the options script, report and stats share: where the
// input is, how to symbolize it and which samples to keep.
type CommonOptions struct {
	IO *iostreams.IOStreams
	// Getenv reads environment variables (HOME for the build-id cache).
	Getenv func(string) string
	// OnInput is the Factory's: told the input's size once it is open.
	OnInput func(size int64)

	// Input is the perf.data path; "-" reads a pipe-mode stream from
	// standard input.
	Input string

	Symfs    string // --symfs: root prefixed to every DSO path
	Kallsyms string // --kallsyms: kernel symbols file
	// Vmlinux is -k/--vmlinux: a vmlinux image for kernel symbols
	// (ignored when Kallsyms is given, as in perf).
	Vmlinux string
	// DemangleKernel is --demangle-kernel: C++/Rust names of kernel
	// symbols from a vmlinux are demangled.
	DemangleKernel bool
	Maps           string // --maps: folder of PID.maps files (/proc/PID/maps snapshots)
	BuildIDDir     string // --buildid-dir: build-id cache; default $HOME/.debug, or Symfs/.debug
	NoDemangle     bool   // --no-demangle
	// NoInline leaves out the inlined-function frames of DWARF-unwound
	// (--call-graph dwarf) callchains (perf --no-inline).
	NoInline bool

	// NoMergeCallchains keeps deferred samples and their
	// CALLCHAIN_DEFERRED records apart (perf 6.19 --no-merge-callchains).
	NoMergeCallchains bool

	// DumpRawTrace prints perf's raw dump (-D, cmd/dump.go).
	DumpRawTrace bool

	// Compat is the perf release whose output is reproduced (--compat);
	// the zero value means compat.Default.
	Compat compat.Dialect

	// MaxPending caps how many records the stitcher holds back behind a
	// deferred sample that waits for its user callchain; beyond it the
	// oldest waiting sample is released without its user part and counted
	// (stats: "no record: pending cap"). 0 means unbounded, as in perf.
	MaxPending int
	// MaxPendingBytes caps the memory of what is held back behind a
	// deferred sample (0: defaultMaxPendingBytes).
	MaxPendingBytes byteSize

	Filter Filter

	// ProgressThreshold is the input size above which a progress bar is
	// drawn on a terminal stderr; 0 means 64 MiB.
	ProgressThreshold int64

	// Limits bound memory and work and say what warnings do (cmd/diag.go).
	Limits

	// Jobs is -j/--jobs: how many goroutines a run keeps busy (decode
	// and stitch, symbolization, formatting workers); 0 means GOMAXPROCS,
	// 1 the sequential pipeline (symbolization and formatting on one
	// goroutine).
	Jobs int
}

// jobs returns the number of goroutines the run may keep busy (--jobs).
func (o *CommonOptions) jobs() int {
	if o.Jobs > 0 {
		return o.Jobs
	}
	return runtime.GOMAXPROCS(0)
}

// statsJobs is stats' Options.Jobs: --jobs when given, else 1. stats
// does little per sample, and the symbolizer's own goroutine cost it
// more in hand-over than it overlapped (108 MB recording, idle two-core
// host: 0.48 s wall at -j 2, 0.33 s at -j 1).
func (o *CommonOptions) statsJobs() int {
	if o.Jobs > 0 {
		return o.Jobs
	}
	return 1
}

// Filter holds the flags that select samples: perf's --pid, --tid,
// --comms, --dsos, --symbols, --cpu, --time and --event (see
// [session.Filter] for what they keep). The zero value keeps everything.
type Filter struct {
	PIDs    IntList    // --pid
	TIDs    IntList    // --tid
	Comms   StringList // -c/--comms
	DSOs    StringList // --dsos: the sampled address's DSO, short or long name
	Symbols StringList // -S/--symbols: its symbol's name, or the sampled address as 0xADDR
	CPUs    CPUList    // -C/--cpu
	Time    TimeRanges // --time
	Event   string     // --event
}

// session returns the filter as the session applies it.
func (f *Filter) session() session.Filter {
	sf := session.Filter{PIDs: f.PIDs, TIDs: f.TIDs, Comms: f.Comms, DSOs: f.DSOs, Symbols: f.Symbols, CPUs: f.CPUs, Event: f.Event}
	switch {
	case f.Time.IsZero():
	case len(f.Time.Percent) > 0:
		sf.TimePercent = f.Time.Percent
	default:
		sf.Time = []TimeRange{f.Time.Abs}
	}
	return sf
}

// only returns the single value of each --comms, --dsos and --symbols
// filter that names exactly one, by the sort key it belongs to.
func (f *Filter) only() map[report.SortKey]string {
	m := map[report.SortKey]string{}
	for k, l := range map[report.SortKey]StringList{report.SortComm: f.Comms, report.SortDSO: f.DSOs, report.SortSym: f.Symbols} {
		if len(l) == 1 {
			m[k] = l[0]
		}
	}
	return m
}

// addCommonFlags registers the shared flags on cmd. Every command calls it
// for its own options, so `perfstitch script --pid 42` and `perfstitch
// report --pid 42` read the same way.
func addCommonFlags(cmd *cobra.Command, o *CommonOptions) {
	fs := cmd.Flags()
	fs.StringVarP(&o.Input, "input", "i", "", "input file name (default \"perf.data\"; \"-\" reads a pipe-mode stream from stdin)")
	fs.StringVar(&o.Symfs, "symfs", "", "look for DSOs and debug files relative to `dir`")
	fs.StringVar(&o.Kallsyms, "kallsyms", "", "kernel symbols `file` (a copy of /proc/kallsyms)")
	fs.StringVarP(&o.Vmlinux, "vmlinux", "k", "", "vmlinux `file` for kernel symbols (under --symfs when relative; its build id must be the recorded one; --kallsyms wins)")
	fs.BoolVar(&o.DemangleKernel, "demangle-kernel", false, "demangle C++ and Rust names of kernel symbols read from a vmlinux")
	fs.StringVar(&o.Maps, "maps", "", "`dir` of PID.maps files (copies of /proc/PID/maps) for processes without MMAP records")
	fs.StringVar(&o.BuildIDDir, "buildid-dir", "", "build-id cache `dir` (default $HOME/.debug, or SYMFS/.debug with --symfs, as perf)")
	fs.BoolVar(&o.NoDemangle, "no-demangle", false, "print symbol names as they are in the symbol table")
	fs.BoolVar(&o.NoInline, "no-inline", false, "do not add inlined-function frames to DWARF-unwound (--call-graph dwarf) callchains")
	fs.BoolVar(&o.NoMergeCallchains, "no-merge-callchains", false, "do not join deferred user callchains to their samples; show both as recorded (perf 6.19)")
	fs.Var(&compatValue{&o.Compat}, "compat", compatUsage())
	fs.Var(&o.MaxPendingBytes, "max-pending-bytes", "release a deferred sample without its user callchain once what waits behind it takes this much `memory` (default 256M)")
	fs.IntVar(&o.MaxPending, "max-pending", 0, fmt.Sprintf("release a deferred sample without its user callchain once this many records wait behind it (0: the default, %d)", defaultMaxPending))
	addLimitFlags(fs, &o.Limits)
	fs.IntVarP(&o.Jobs, "jobs", "j", 0, "run on this many goroutines: 1 symbolizes and formats on one, as perf (default: the number of CPUs; 1 for stats); the output is the same")
	fs.Var(&o.Filter.PIDs, "pid", "only show samples of these process ids (comma-separated)")
	fs.Var(&o.Filter.TIDs, "tid", "only show samples of these thread ids (comma-separated)")
	fs.VarP(&o.Filter.Comms, "comms", "c", "only show samples of threads with these command names (comma-separated)")
	fs.VarP(&o.Filter.Symbols, "symbols", "S", "only show samples in these symbols (names, or sampled addresses as 0xADDR; comma-separated)")
	fs.VarP(&o.Filter.CPUs, "cpu", "C", "only show samples of these CPUs (list: 0,2-3)")
	fs.Var(&o.Filter.Time, "time", "only show samples in a time range: start,end in seconds (either may be empty), or percent slices: 10%/2, 0%-10%,30%-40%")
	fs.StringVar(&o.Filter.Event, "event", "", "only show samples of the named event")
}

// compatUsage is the help text of --compat: each dialect and the perf it
// reproduces.
func compatUsage() string {
	var b strings.Builder
	b.WriteString("reproduce the output of this perf `version`:")
	for i, d := range compat.Known() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s (%s)", d.Version, d.Perf)
	}
	return b.String()
}

// compatValue is the pflag.Value of --compat: a perf version, looked up
// with compat.Lookup.
type compatValue struct{ d *compat.Dialect }

// String returns the dialect's version, the default's when unset.
func (v *compatValue) String() string {
	if v.d == nil || v.d.Version == "" {
		return compat.Default.Version
	}
	return v.d.Version
}

// Set looks version up; an unknown one is an error naming the known ones.
func (v *compatValue) Set(version string) error {
	d, err := compat.Lookup(version)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

// Type names the value type in help output.
func (v *compatValue) Type() string { return "version" }

// dialect returns the --compat dialect, compat.Default when not given.
func (o *CommonOptions) dialect() compat.Dialect {
	if o.Compat.Version == "" {
		return compat.Default
	}
	return o.Compat
}

// complete applies the positional argument (`perfstitch script perf.data`
// equals `-i perf.data`) and checks the shared flags.
func (o *CommonOptions) complete(args []string) error {
	if o.MaxPending < 0 {
		return FlagErrorf("--max-pending must not be negative (0 means the default, %d)", defaultMaxPending)
	}
	if o.DecompressRatio < 0 {
		return FlagErrorf("--max-decompress-ratio must not be negative")
	}
	if o.Jobs < 0 {
		return FlagErrorf("--jobs must not be negative (0 means GOMAXPROCS)")
	}
	if len(args) > 1 {
		return FlagErrorf("too many arguments: %q (one perf.data file at most)", args)
	}
	if len(args) == 1 {
		if o.Input != "" && o.Input != args[0] {
			return FlagErrorf("input given twice: -i %s and %s", o.Input, args[0])
		}
		o.Input = args[0]
	}
	return nil
}

// IntList is a comma-separated list of integers (--pid, --tid).
type IntList []int32

// String returns the list comma-separated.
func (l *IntList) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.Itoa(int(v))
	}
	return strings.Join(s, ",")
}

// Set appends the comma-separated values of s.
func (l *IntList) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return fmt.Errorf("%q is not an integer", f)
		}
		*l = append(*l, int32(v))
	}
	return nil
}

// Type names the value type in help output.
func (l *IntList) Type() string { return "ids" }

// StringList is a comma-separated list of names (--comms).
type StringList []string

// String returns the list comma-separated.
func (l *StringList) String() string { return strings.Join(*l, ",") }

// Set appends the comma-separated names of s.
func (l *StringList) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		if f == "" {
			return errors.New("empty name")
		}
		*l = append(*l, f)
	}
	return nil
}

// Type names the value type in help output.
func (l *StringList) Type() string { return "names" }

// CPUList is perf's CPU list syntax: "0,2-3".
type CPUList []uint32

// String returns the list as given, expanded.
func (l *CPUList) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.FormatUint(uint64(v), 10)
	}
	return strings.Join(s, ",")
}

// Set parses a CPU list.
func (l *CPUList) Set(s string) error {
	var out CPUList
	for _, f := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.ParseUint(lo, 10, 32)
		if err != nil {
			return fmt.Errorf("bad CPU list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 32); err != nil || b < a {
				return fmt.Errorf("bad CPU range %q", f)
			}
		}
		if b-a > 1<<16 {
			return fmt.Errorf("CPU range %q too large", f)
		}
		for c := a; c <= b; c++ {
			out = append(out, uint32(c))
		}
	}
	*l = out
	return nil
}

// Type names the value type in help output.
func (l *CPUList) Type() string { return "cpus" }

// Has reports whether cpu is in the list (an empty list has every CPU).
func (l CPUList) Has(cpu uint32) bool { return len(l) == 0 || slices.Contains(l, cpu) }

// TimeRanges is perf's --time value: one absolute range "start,end"
// (seconds with up to nanosecond decimals; either end may be empty) or
// percent slices of the recording ("10%/2" is the second tenth, "0%-10%"
// the first, several separated by commas).
type TimeRanges struct {
	raw string
	// Abs is the absolute range in ns (0 = open end), if !Percent.
	Abs TimeRange
	// Percent ranges, as fractions of the recording's sample time span.
	Percent []PercentRange
}

// TimeRange is an inclusive range of perf clock nanoseconds; 0 is an open
// end.
type TimeRange = session.TimeRange

// PercentRange is a slice of the recording, as fractions in [0,1].
type PercentRange = session.PercentRange

// String returns the value as given.
func (t *TimeRanges) String() string { return t.raw }

// Type names the value type in help output.
func (t *TimeRanges) Type() string { return "range" }

// IsZero reports whether no range was given.
func (t *TimeRanges) IsZero() bool { return t.raw == "" }

// Set parses a --time value.
func (t *TimeRanges) Set(s string) error {
	out := TimeRanges{raw: s}
	if strings.Contains(s, "%") {
		for _, part := range strings.Split(s, ",") {
			r, err := parsePercent(part)
			if err != nil {
				return err
			}
			out.Percent = append(out.Percent, r)
		}
		*t = out
		return nil
	}
	start, end, ok := strings.Cut(s, ",")
	if !ok || strings.Contains(end, ",") {
		return fmt.Errorf("bad time range %q (want start,end)", s)
	}
	var err error
	if out.Abs.Start, err = parseSeconds(start); err != nil {
		return err
	}
	if out.Abs.End, err = parseSeconds(end); err != nil {
		return err
	}
	if out.Abs.End != 0 && out.Abs.End < out.Abs.Start {
		return fmt.Errorf("bad time range %q: end before start", s)
	}
	*t = out
	return nil
}

// parseSeconds parses "sec[.fraction]" into ns; "" is 0.
func parseSeconds(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	sec, frac, _ := strings.Cut(s, ".")
	v, err := strconv.ParseUint(sec, 10, 64)
	if err != nil || len(frac) > 9 || v > math.MaxUint64/1_000_000_000 {
		return 0, fmt.Errorf("bad time %q (want seconds[.fraction])", s)
	}
	ns := v * 1e9
	if frac != "" {
		f, err := strconv.ParseUint(frac, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad time %q", s)
		}
		for i := len(frac); i < 9; i++ {
			f *= 10
		}
		ns += f
	}
	return ns, nil
}

// parsePercent parses "a%/n" or "a%-b%".
func parsePercent(s string) (PercentRange, error) {
	bad := fmt.Errorf("bad percent time range %q (want 10%%/2 or 10%%-20%%)", s)
	pct := func(p string) (float64, bool) {
		p, ok := strings.CutSuffix(strings.TrimSpace(p), "%")
		if !ok {
			return 0, false
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || v > 100 {
			return 0, false
		}
		return v / 100, true
	}
	if a, n, ok := strings.Cut(s, "/"); ok {
		size, ok1 := pct(a)
		k, err := strconv.Atoi(n)
		if !ok1 || err != nil || k < 1 || size <= 0 || float64(k)*size > 1+1e-9 {
			return PercentRange{}, bad
		}
		return PercentRange{From: float64(k-1) * size, To: float64(k) * size}, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return PercentRange{}, bad
	}
	from, ok1 := pct(a)
	to, ok2 := pct(b)
	if !ok1 || !ok2 || to < from {
		return PercentRange{}, bad
	}
	return PercentRange{From: from, To: to}, nil
}

// enumFlag registers completion of fixed values for a flag.
func enumFlag(cmd *cobra.Command, name string, values []string) {
	_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	})
}

var _ pflag.Value = (*TimeRanges)(nil)

// Equal reports whether t and o are the same ranges. go-cmp uses it.
func (t TimeRanges) Equal(o TimeRanges) bool {
	return t.raw == o.raw && t.Abs == o.Abs && slices.Equal(t.Percent, o.Percent)
}

// negatedBool is the --no-X half of a boolean option X: setting it sets
// X's value negated, so --X and --no-X given together act as perf's one
// option, where the last one wins.
type negatedBool struct{ target *bool }

// String returns the negation of the target's value.
func (n negatedBool) String() string {
	if n.target == nil {
		return "false"
	}
	return strconv.FormatBool(!*n.target)
}

// Set parses a boolean and stores its negation in the target.
func (n negatedBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*n.target = !v
	return nil
}

// Type names the value for help output.
func (negatedBool) Type() string { return "bool" }
