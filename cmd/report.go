package cmd

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/table"
	"github.com/perfstitch/perfstitch/output/report"
	"github.com/perfstitch/perfstitch/session"
	"github.com/perfstitch/perfstitch/symbolize"
)

// ReportOptions are the options of perfstitch report.
type ReportOptions struct {
	Common CommonOptions

	// Format is the output format; FormatSet says --format (or --stdio)
	// was given. Without it the format is a table on a terminal and
	// perf's --stdio text otherwise.
	Format    table.Format
	FormatSet bool

	Sort         []report.SortKey
	Children     bool
	CallGraph    report.CallGraphMode
	GraphLimit   float64
	Order        report.CallOrder
	PercentLimit float64
	// CallGraphSet says -g was given (and not "none"): then, as in perf,
	// a recording without callchains is an error.
	CallGraphSet bool

	// IPC adds perf's IPC column (a --sort value naming "symbol").
	IPC bool
	// ShowNrSamples, ShowTotalPeriod: -n, --show-total-period.
	ShowNrSamples, ShowTotalPeriod bool
	// FullSourcePath: --full-source-path; Nanoseconds: --ns.
	FullSourcePath, Nanoseconds bool
	// Parent is -p's pattern (nil: perf's default); ExcludeOther is -x.
	Parent       *regexp.Regexp
	ExcludeOther bool
	// HideUnresolved is -U.
	HideUnresolved bool
	// TimeQuantum is --time-quantum in nanoseconds (0: perf's 100 ms).
	TimeQuantum uint64
	// GraphAddress is -g's address key.
	GraphAddress bool
	// GraphValue is -g's value word (percent, period or count).
	GraphValue report.CallGraphValue
	// Hierarchy is --hierarchy.
	Hierarchy bool
	// Threads is -T.
	Threads bool
	// Relative is --percentage relative.
	Relative bool
	// FieldSep is -t; MaxStack is --max-stack.
	FieldSep string
	MaxStack int
}

// NewCmdReport builds the report command; runF replaces the run function in tests.
func NewCmdReport(f *Factory, runF func(*ReportOptions) error) *cobra.Command {
	opts := &ReportOptions{
		Common:     CommonOptions{IO: f.IO, Getenv: f.Getenv, OnInput: f.OnInput},
		Children:   true,
		GraphLimit: 0.5,
	}
	var (
		sortKeys  string
		callGraph string
		inverted  bool
		stdio     bool
		pctLimit  string
		parent    string
		pctMode   string
		quantum   string
	)
	cmd := &cobra.Command{
		Use:   "report [flags] [perf.data]",
		Short: "Summarize samples by command, DSO and symbol, like perf report",
		Long: `Aggregate the stitched, symbolized samples of a recording into perf report's
histogram: one row per distinct combination of the sort keys, weighted by
sample period, with the call graph under each row.

--format table (the default on a terminal) draws a table; --format perf (the
default otherwise, also --stdio) prints the text of perf report --stdio (perf
7.3.4's; perf 6.1's with --compat 6.1); --format json gives the rows and call
graphs as data.`,
		Example: `  perfstitch report -i perf.data
  perfstitch report --no-children --sort comm,dso,sym --format perf
  perfstitch report -g folded --percent-limit 2`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.Common.complete(args); err != nil {
				return err
			}
			keys, err := report.ParseSortKeys(sortKeys)
			if err != nil {
				return FlagErrorf("--sort: %w", err)
			}
			opts.Sort = keys
			opts.IPC = c.Flags().Changed("sort") && report.IPCColumn(sortKeys)
			if c.Flags().Changed("parent") {
				re, err := regexp.Compile(parent)
				if err != nil {
					return FlagErrorf("--parent: %w", err)
				}
				opts.Parent = re
				// perf sorts by the parent too when -p is given.
				if !slices.Contains(opts.Sort, report.SortParent) {
					opts.Sort = append(opts.Sort, report.SortParent)
				}
			}
			if opts.MaxStack < 1 {
				return FlagErrorf("--max-stack must be at least 1, not %d", opts.MaxStack)
			}
			if len(opts.FieldSep) > 1 {
				return FlagErrorf("--field-separator: perf uses one character, not %q", opts.FieldSep)
			}
			if quantum != "" {
				q, err := report.ParseTimeQuantum(quantum)
				if err != nil {
					return FlagErrorf("--time-quantum: %w", err)
				}
				opts.TimeQuantum = q
			}
			switch pctMode {
			case "absolute":
			case "relative":
				opts.Relative = true
			default:
				return FlagErrorf("--percentage: %q is not relative or absolute", pctMode)
			}
			if err := parseCallGraph(callGraph, opts); err != nil {
				return FlagErrorf("--call-graph: %w", err)
			}
			if inverted {
				opts.Order = report.OrderCaller
			}
			opts.CallGraphSet = c.Flags().Changed("call-graph") && opts.CallGraph != report.CallGraphNone
			if pctLimit != "" {
				v, err := strconv.ParseFloat(strings.TrimSuffix(pctLimit, "%"), 64)
				if err != nil || v < 0 || v > 100 {
					return FlagErrorf("--percent-limit: %q is not a percentage", pctLimit)
				}
				// perf applies the limit to rows and call graphs alike.
				opts.PercentLimit, opts.GraphLimit = v, v
			}
			opts.FormatSet = c.Flags().Changed("format")
			if stdio {
				if opts.FormatSet && opts.Format != table.Perf {
					return FlagErrorf("--stdio conflicts with --format %s", opts.Format)
				}
				opts.Format, opts.FormatSet = table.Perf, true
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Common.finishRun(reportRun(c.Context(), opts))
		},
	}
	addCommonFlags(cmd, &opts.Common)
	addDumpFlag(cmd, &opts.Common, "print every record as perf report -D does (offset, size, hex dump, decoded fields), then the record counts of --stats")
	fs := cmd.Flags()
	fs.Var(&opts.Format, "format", "output format: table, perf or json")
	fs.Lookup("format").DefValue = "table on a terminal, perf otherwise"
	enumFlag(cmd, "format", table.FormatNames())
	fs.BoolVar(&stdio, "stdio", false, "same as --format perf")
	fs.VarP(&opts.Common.Filter.DSOs, "dsos", "d", "only show samples in these DSOs (short or full names, comma-separated)")
	fs.StringVarP(&sortKeys, "sort", "s", "comm,dso,sym", "sort keys by perf's names (or their prefixes), comma-separated: comm, pid, dso, symbol, parent, cpu, srcline, srcfile, symbol_size, dso_size, time, sample, period")
	fs.BoolVar(&opts.Children, "children", true, "accumulate callees' weight into their callers (needs callchains)")
	fs.Var(negatedBool{&opts.Children}, "no-children", "show self weight only")
	fs.Lookup("no-children").NoOptDefVal = "true"
	fs.StringVarP(&callGraph, "call-graph", "g", "graph,0.5", "call graphs as `mode[,threshold[,order]]`: mode graph, fractal, flat, folded or none; threshold in percent; order caller or callee")
	fs.BoolVarP(&inverted, "inverted", "G", false, "print call graphs in caller order")
	fs.StringVar(&pctLimit, "percent-limit", "", "hide rows (and call-graph branches) below this `percent`")
	fs.BoolVarP(&opts.ShowNrSamples, "show-nr-samples", "n", false, "add a Samples column")
	fs.BoolVar(&opts.ShowTotalPeriod, "show-total-period", false, "add a Period column")
	fs.BoolVar(&opts.FullSourcePath, "full-source-path", false, "print source files (srcline, srcfile) with their full path")
	fs.BoolVar(&opts.Nanoseconds, "ns", false, "print times (--sort time) with nanoseconds")
	fs.StringVarP(&parent, "parent", "p", "", "parent symbol `regex` (adds the parent sort key; perf's default ^sys_|^do_page_fault)")
	fs.BoolVarP(&opts.ExcludeOther, "exclude-other", "x", false, "only show rows with a parent symbol")
	fs.BoolVarP(&opts.HideUnresolved, "hide-unresolved", "U", false, "hide samples whose address has no symbol")
	fs.StringVar(&pctMode, "percentage", "absolute", "percentages of every sample (absolute) or of those the filters show (relative)")
	fs.StringVar(&quantum, "time-quantum", "", "slice of the time sort key: `time` in ns, or with unit us, ms or s (default 100ms)")
	fs.BoolVar(&opts.Hierarchy, "hierarchy", false, "print one level per sort key, indented (perf format; with --no-children and -g none)")
	fs.BoolVarP(&opts.Threads, "threads", "T", false, "print perf's per-thread counter table (PERF_SAMPLE_READ values; none are read)")
	fs.StringVarP(&opts.FieldSep, "field-separator", "t", "", "separate columns with this `character` instead of padding")
	fs.IntVar(&opts.MaxStack, "max-stack", symbolize.DefaultMaxStack, "use at most this many callchain entries")
	fs.Var(negatedBool{&opts.Common.NoInline}, "inline", "add inlined-function frames to DWARF-unwound callchains (the default; --no-inline drops them)")
	fs.Lookup("inline").NoOptDefVal = "true"
	return cmd
}

// mapSize returns the dso_size of a frame: the length of the mapping it
// lies in.
func mapSize(sym *symbolize.Symbolizer) func(f *symbolize.Frame, pid int32) uint64 {
	return func(f *symbolize.Frame, pid int32) uint64 {
		m, ok := sym.MappingAt(pid, f.Addr, f.Kernel)
		if !ok {
			return 0
		}
		return m.Limit - m.Start
	}
}

// parseCallGraph parses perf's -g value as perf's
// parse_callchain_report_opt does: mode, order, sort key, value and
// branch words and one or two numbers (threshold, then print limit), in
// any order.
func parseCallGraph(s string, opts *ReportOptions) error {
	numbers := 0
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch part {
		case "":
			continue
		case "caller":
			opts.Order = report.OrderCaller
			continue
		case "callee":
			opts.Order = report.OrderCallee
			continue
		case "function", "nobranch":
			continue // perf's defaults
		case "percent":
			opts.GraphValue = report.ValuePercent
			continue
		case "period":
			opts.GraphValue = report.ValuePeriod
			continue
		case "count":
			opts.GraphValue = report.ValueCount
			continue
		case "address":
			opts.GraphAddress = true
			continue
		case "branch":
			return fmt.Errorf("%q is not supported (no branch stacks)", part)
		}
		if v, err := strconv.ParseFloat(part, 64); err == nil {
			numbers++
			if numbers == 2 {
				return fmt.Errorf("print limit %q is not supported", part)
			}
			if v < 0 || v > 100 {
				return fmt.Errorf("threshold %v out of range", v)
			}
			opts.GraphLimit = v
			continue
		}
		m, err := report.ParseCallGraphMode(part)
		if err != nil {
			return err
		}
		opts.CallGraph = m
	}
	return nil
}

// reportJobs returns the session's Options.Jobs: 1 when the report asks
// the symbolizer about a sample's frames as it adds the sample (source
// lines, symbol and map sizes: the sort keys srcline, srcfile, symsize,
// dso_size and -g address), which must then be on the symbolizer's
// goroutine; else --jobs (the number of CPUs by default).
func reportJobs(opts *ReportOptions) int {
	if opts.GraphAddress || slices.ContainsFunc(opts.Sort, func(k report.SortKey) bool {
		return k == report.SortSrcline || k == report.SortSrcfile || k == report.SortSymSize || k == report.SortDSOSize
	}) {
		return 1
	}
	return opts.Common.jobs()
}

// reportRun runs the session into a report and prints it.
func reportRun(ctx context.Context, opts *ReportOptions) error {
	if opts.Common.DumpRawTrace {
		return reportDumpRun(ctx, opts)
	}
	p, err := openSession(ctx, &opts.Common, session.Options{
		Show:        []decode.RecordType{decode.RecordTypeMmap, decode.RecordTypeMmap2, decode.RecordTypeLostSamples},
		CountHidden: true,
		// perf adds a merged deferred sample to the histogram where its
		// CALLCHAIN_DEFERRED record arrives; the entries' insertion order
		// shapes the tree that decides lookups and ties.
		Ordering:  session.AsPerf,
		Symbolize: symbolize.Options{MaxStack: opts.MaxStack},
		Jobs:      reportJobs(opts),
	})
	if err != nil {
		return err
	}
	defer p.Close()
	format := opts.Format
	if !opts.FormatSet {
		format = table.Perf
		if opts.Common.IO.OutIsTerminal {
			format = table.Text
		}
	}
	rep := report.New(report.Options{
		Sort:           opts.Sort,
		Children:       opts.Children,
		CallGraph:      opts.CallGraph,
		CallGraphLimit: opts.GraphLimit,
		Order:          opts.Order,
		PercentLimit:   opts.PercentLimit,
		ThreadComm:     p.ThreadComm,
		Only:           opts.Common.Filter.only(),
		DSOFilter:      len(opts.Common.Filter.DSOs) > 0,
		// perf's pipe-mode quirk only where perf's text is wanted.
		Pipe:   p.File().Header.Pipe && format == table.Perf,
		Compat: opts.Common.dialect(),
		Width:  tableWidth(&opts.Common, format),

		SourceLine:       p.Symbolizer().SourceLine,
		SymbolSize:       p.Symbolizer().SymbolSize,
		MapSize:          mapSize(p.Symbolizer()),
		FullSourcePath:   opts.FullSourcePath,
		Nanoseconds:      opts.Nanoseconds,
		IPC:              opts.IPC,
		ShowNrSamples:    opts.ShowNrSamples,
		ShowTotalPeriod:  opts.ShowTotalPeriod,
		Parent:           opts.Parent,
		ExcludeOther:     opts.ExcludeOther,
		HideUnresolved:   opts.HideUnresolved,
		Quiet:            opts.Common.Quiet, // perf report -q: no warnings, no header comments
		FieldSep:         opts.FieldSep,
		MaxStack:         opts.MaxStack,
		Relative:         opts.Relative,
		ShowThreads:      opts.Threads,
		TimeQuantum:      opts.TimeQuantum,
		Hierarchy:        opts.Hierarchy,
		CallGraphValue:   opts.GraphValue,
		CallGraphAddress: opts.GraphAddress,
	})
	// perf creates the DSOs of the build-id table before reading any
	// event; their order breaks ties between call-graph branches.
	for _, b := range p.File().Meta.BuildIDs {
		rep.NoteDSO(b.Filename)
	}
	for p.Next() {
		if ev := p.Event(); ev != nil {
			if p.Hidden() {
				err = rep.AddHidden(ev)
			} else {
				err = rep.Add(ev)
			}
		} else {
			opts.Common.State.noteRecord(p.Record())
			err = rep.AddRecord(p.Record())
		}
		if err != nil {
			return err
		}
	}
	// A damaged recording still yields the report of what was read
	// before the damage, followed by the error; an interrupt yields none.
	readErr := p.Err()
	if opts.Threads {
		for _, a := range p.File().Attrs {
			if a.SampleType&decode.SampleRead != 0 {
				return errors.New("-T/--threads: samples with PERF_SAMPLE_READ values are not supported")
			}
		}
	}
	if readErr != nil && ctx.Err() != nil {
		return readErr
	}
	if readErr == nil && opts.CallGraphSet && !rep.HasCallchains() {
		return errors.New("call graphs requested (-g) but the recording has no callchains; record with perf record -g")
	}
	rep.SetGroups(report.GroupsFromMeta(p.File().Attrs, p.File().Meta.GroupDesc))
	if opts.Hierarchy {
		if format != table.Perf {
			return FlagErrorf("--hierarchy needs the perf format (--stdio)")
		}
		if why := rep.CanHierarchy(); why != "" {
			return FlagErrorf("--hierarchy: %s", why)
		}
	}
	if err := writePaged(&opts.Common, format, rep); err != nil {
		return err
	}
	return readErr
}
