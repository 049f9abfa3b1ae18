package report

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfstitch/perfstitch/decode"
	"github.com/perfstitch/perfstitch/internal/compat"
	"github.com/perfstitch/perfstitch/internal/rbtree"
	"github.com/perfstitch/perfstitch/internal/table"
	"github.com/perfstitch/perfstitch/output"
	"github.com/perfstitch/perfstitch/symbolize"
)

// This file aggregates samples into the histogram perf report prints
// (tools/perf/util/hist.c: hists__add_entry, the hist_entry_iter
// callbacks for --children, hists__output_resort; tools/perf/util/sort.c
// for the sort keys' compare functions).

// SortKey is a report sort key (perf report --sort).
type SortKey int

// Sort keys.
const (
	SortComm SortKey = iota // command name
	SortPID                 // thread id and command
	SortDSO                 // shared object (short name)
	SortSym                 // symbol, or address when unresolved
)

var sortKeyNames = [...]string{"comm", "pid", "dso", "sym", "parent", "cpu", "srcline", "srcfile",
	"symbol_size", "dso_size", "time", "sample", "period"}

// String returns the key's name.
func (k SortKey) String() string {
	if k >= 0 && int(k) < len(sortKeyNames) {
		return sortKeyNames[k]
	}
	return "sortkey(" + strconv.Itoa(int(k)) + ")"
}

// DefaultSortKeys is perf report's default sort order, comm,dso,sym.
func DefaultSortKeys() []SortKey { return []SortKey{SortComm, SortDSO, SortSym} }

// ParseSortKeys parses a comma-separated list of sort keys by perf's
// names: any prefix of a name, case-insensitively, as perf takes it
// ("sym" for symbol, "srcl" for srcline).
func ParseSortKeys(s string) ([]SortKey, error) {
	var keys []SortKey
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		k, err := lookupSortKey(f)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("empty sort key list")
	}
	return keys, nil
}

// Options configure a [Report].
type Options struct {
	// Sort are the sort keys, DefaultSortKeys if empty.
	Sort []SortKey
	// Children accumulates each sample's weight into every function of
	// its callchain (perf report --children). It has no effect on events
	// without callchains.
	Children bool
	// CallGraph is how call graphs are printed under the rows.
	CallGraph CallGraphMode
	// CallGraphLimit is the call-graph threshold in percent (0.5 in perf);
	// branches lighter than this are not printed.
	CallGraphLimit float64
	// CallGraphAddress keys call-graph entries by address, not function
	// (-g address), and labels them with their source line.
	CallGraphAddress bool
	// CallGraphValue is what call graphs print for each branch.
	CallGraphValue CallGraphValue
	// Order is the direction of printed chains.
	Order CallOrder
	// PercentLimit hides rows whose overhead (children overhead with
	// Children) is below this percentage.
	PercentLimit float64
	// Only holds, per sort key (comm, dso, sym), the single value a
	// --comms, --dsos or --symbols filter names, if it names just one:
	// perf then prints "# comm: NAME" (or dso, symbol) in the header and
	// leaves that column out (sort__setup_elide).
	Only map[SortKey]string
	// DSOFilter says a --dsos filter is set: perf then does not widen
	// the DSO column for rows without a symbol
	// (hists__set_unres_dso_col_len).
	DSOFilter bool
	// ThreadComm, if set, returns the command a thread has at the end of
	// the input. perf prints it in the pid column (thread__comm_str at
	// output time), where the comm column shows the command at the
	// sample; the two differ for a process that exec'd. Without it the
	// pid column shows the command of the row's first sample.
	ThreadComm func(tid int32) string
	// Pipe says the input is a pipe-mode stream. perf decides about
	// --children before it sees the stream's events, finds no callchains
	// and prints self overhead only (in caller order); Pipe reproduces
	// that. perf 6.1 and perf 7.3.4 agree here (kernel/pipe).
	Pipe bool
	// Compat is the perf release whose report is printed (--compat); the
	// zero value means [compat.Default].
	Compat compat.Dialect
	// Width, if positive, is the terminal width that the table format
	// fits (see fitTable); the other formats ignore it.
	Width int

	// SourceLine returns the source file and line of a frame
	// ([symbolize.Symbolizer.SourceLine]), for the srcline and srcfile
	// keys; nil gives sym+offset for every resolved address.
	SourceLine func(f *symbolize.Frame, caller bool) (file string, line int)
	// SymbolSize returns the size of a frame's symbol (symbol_size).
	SymbolSize func(f *symbolize.Frame) (uint64, bool)
	// MapSize returns the size of the mapping a frame of process pid
	// lies in (dso_size).
	MapSize func(f *symbolize.Frame, pid int32) uint64
	// FullSourcePath prints source files with their path
	// (--full-source-path), not their base name.
	FullSourcePath bool
	// Nanoseconds prints times with nanoseconds (--ns).
	Nanoseconds bool
	// IPC adds perf's IPC column ([IPCColumn]).
	IPC bool
	// ShowNrSamples and ShowTotalPeriod add the Samples and Period
	// columns (-n, --show-total-period).
	ShowNrSamples, ShowTotalPeriod bool
	// Parent matches the names of parent symbols (-p; perf's default
	// "^sys_|^do_page_fault" if nil and the parent key is used).
	Parent *regexp.Regexp
	// ExcludeOther hides rows without a parent symbol (-x).
	ExcludeOther bool
	// HideUnresolved drops samples whose address has no symbol (-U):
	// they count nowhere, as in perf.
	HideUnresolved bool
	// FieldSep separates the columns instead of padding (-t); "" pads.
	FieldSep string
	// Quiet leaves out the header comments (-q).
	Quiet bool
	// Hierarchy prints perf's --hierarchy view in the perf format (see
	// [Report.CanHierarchy]).
	Hierarchy bool
	// TimeQuantum is the slice of the time key in nanoseconds
	// (--time-quantum); 0 means perf's 100 ms.
	TimeQuantum uint64
	// ShowThreads prints perf's per-thread counter table (-T), which
	// is its header alone without PERF_SAMPLE_READ values.
	ShowThreads bool
	// Relative makes percentages, and the header's sample count and
	// event count, relative to the samples the filters show
	// (--percentage relative), not to every sample.
	Relative bool
	// MaxStack caps the callchain entries (--max-stack) as perf script's
	// does; 0 means [symbolize.DefaultMaxStack].
	MaxStack int
}

// Report aggregates samples into perf report's histogram: one section per
// event, one row per distinct combination of the sort keys. It implements
// [output.RecordSink]; side-band records give it perf's DSO creation order (used
// to break ties between equally heavy call-graph branches) and the lost
// sample count.
type Report struct {
	opts     Options
	sections []*reportSection
	byAttr   map[*decode.EventAttr]*reportSection
	dsoRank  map[string]int32
	// LostSamples is the number of samples the kernel reported lost
	// (PERF_RECORD_LOST_SAMPLES), printed in the perf format header.
	LostSamples uint64
	hasChains   bool
	// cursor is the sample's callchain in print order; extra holds what
	// the cumulative entries of --children need of each of its frames.
	cursor []chainEntry
	extra  []frameExtra
	frames []symbolize.Frame // --max-stack's cut of a sample's frames, reused
	// cache are the entries a sample's chain added to so far, sigs their
	// symbols (the dup check's pre-filter).
	cache  []*histEntry
	sigs   []symSig
	tmpl   histEntry // the entry being looked up, reused
	groups []EventGroup
	// memo, if not nil, remembers where histogram lookups ended
	// (histMemo); nil when a sort key compares computed texts (srcline).
	memo map[histKey]histMemo
}

// frameExtra is what a cumulative entry (--children) takes from a frame
// beyond its chainEntry.
type frameExtra struct {
	dso    string // short DSO name, "" without a map
	kernel bool   // in the kernel address space
	mapped bool   // the frame has a map (and is not a cookie)
	keyInfo
}

// reportSection is the histogram of one event.
type reportSection struct {
	attr  *decode.EventAttr
	name  string
	index int
	// entries is perf's hists->entries_in: the entries in the order of
	// the sort keys' compare functions, looked up through the tree.
	entries rbtree.Tree[*histEntry]
	// version counts the insertions into entries: a remembered lookup
	// (histMemo) holds while it is unchanged.
	version     uint32
	collapsed   bool
	nrSamples   uint64
	totalPeriod uint64
	chains      bool // samples of this event carry callchains
	// shownSamples and shownPeriod count the samples no filter hides.
	shownSamples, shownPeriod uint64
	relative                  bool // the totals are the shown ones
}

// histEntry is one row (perf's hist_entry).
type histEntry struct {
	comm     string
	tid      int32
	dso      string // short DSO name; "" without a map
	sym      string
	start    uint64 // symbol start, if resolved
	ip       uint64 // address (map-relative for sampled IPs)
	resolved bool
	inlined  bool
	level    byte // 'k' kernel, '.' user, ...
	cpu      int32
	time     uint64 // sample time, cut to the time quantum
	parent   string // parent symbol, "" for none
	keyInfo
	// srclineSeen, srcfileSeen: compared on that key so far, which in
	// perf 6.1 computed it; ...Counted: it was when the row took its
	// place in the output order, so it counts in the column width.
	srclineSeen, srcfileSeen       bool
	srclineCounted, srcfileCounted bool
	// hidden: created by a sample a thread filter hides (AddHidden); not
	// shown, though it takes part in the ordering as in perf.
	hidden bool

	self, acc     uint64 // period
	nrSelf, nrAcc uint64 // samples
	chain         chainNode
	maxDepth      int // longest chain appended (perf's callchain_root.max_depth)
}

// New returns an empty report.
func New(opts Options) *Report {
	if len(opts.Sort) == 0 {
		opts.Sort = DefaultSortKeys()
	}
	if opts.Compat.Version == "" {
		opts.Compat = compat.Default
	}
	r := &Report{
		opts:    opts,
		byAttr:  make(map[*decode.EventAttr]*reportSection),
		dsoRank: make(map[string]int32),
	}
	if !r.needsKeyInfo() {
		r.memo = make(map[histKey]histMemo)
	}
	return r
}

// AddRecord notes side-band records: MMAP/MMAP2 give the DSO creation
// order, LOST_SAMPLES the lost sample count.
func (r *Report) AddRecord(rec *output.Record) error {
	switch x := rec.Record.(type) {
	case *decode.Mmap:
		r.rank(x.Filename)
	case *decode.LostSamples:
		r.LostSamples += x.Lost
	}
	return nil
}

// NoteDSO records that perf would create the DSO named name (its long
// name) now, if it has not been seen before.
func (r *Report) NoteDSO(name string) { r.rank(name) }

func (r *Report) rank(name string) int32 {
	if strings.HasPrefix(name, "[kernel.kallsyms]") || name == "[kernel]" {
		return 0 // the kernel DSO is created before any event is read
	}
	if k, ok := r.dsoRank[name]; ok {
		return k
	}
	k := int32(len(r.dsoRank) + 1)
	r.dsoRank[name] = k
	return k
}

// Flush does nothing; a Report is printed by its Write methods.
func (r *Report) Flush() error { return nil }

func (r *Report) section(attr *decode.EventAttr) *reportSection {
	if s, ok := r.byAttr[attr]; ok {
		return s
	}
	s := &reportSection{attr: attr}
	if attr != nil {
		s.name, s.index = attr.Name, attr.Index
	}
	r.byAttr[attr] = s
	r.sections = append(r.sections, s)
	sort.SliceStable(r.sections, func(i, j int) bool { return r.sections[i].index < r.sections[j].index })
	return s
}

func levelOf(s *decode.Sample) byte {
	switch s.CPUMode() {
	case decode.CPUModeKernel:
		return 'k'
	case decode.CPUModeHypervisor:
		return 'H'
	case decode.CPUModeGuestKernel:
		return 'g'
	case decode.CPUModeGuestUser:
		return 'u'
	}
	return '.'
}

func (r *Report) entryOf(f *symbolize.Frame, pid int32, caller, info bool) (chainEntry, frameExtra) {
	e := chainEntry{entryKey: entryKey{ip: f.Addr, dsoRank: -1}}
	x := frameExtra{kernel: f.Kernel}
	if info {
		x.keyInfo = r.keyInfoOf(f, pid, caller)
	}
	if f.Reason != symbolize.NoMap && !f.Cookie {
		x.dso = f.DSOShort
		x.mapped = true
		e.dsoRank = r.rank(f.DSO)
	}
	if r.opts.CallGraphAddress {
		e.byAddr = true
		e.line = r.chainSrcline(f)
	}
	if f.Reason == symbolize.Resolved && f.Symbol != "" {
		e.resolved = true
		e.name = f.Symbol
		e.start = f.MapAddr - f.Offset
		e.inlined = f.Inlined
	}
	return e, x
}

// AddHidden adds a sample that a thread filter hides (perf report's
// --comms, --pid, --tid) as perf does: it counts in its event's samples
// and total period, which the percentages are relative to, and adds its
// weight and chain to a row it matches; a row it creates is not shown.
// (With --sort dso, say, a hidden sample thus weighs in a shown row.)
func (r *Report) AddHidden(ev *symbolize.Event) error { return r.add(ev, true) }

// Add aggregates one sample.
func (r *Report) Add(ev *symbolize.Event) error { return r.add(ev, false) }

func (r *Report) add(ev *symbolize.Event, hidden bool) error {
	if ev == nil || ev.Sample == nil || ev.Sample.Sample == nil {
		return nil
	}
	s := ev.Sample.Sample
	if r.opts.HideUnresolved && (ev.IP.Reason != symbolize.Resolved || ev.IP.Symbol == "") {
		return nil // perf drops the sample before it counts anywhere
	}
	sec := r.section(s.Attr)
	period := s.Period
	sec.nrSamples++
	sec.totalPeriod += period
	if !hidden {
		sec.shownSamples++
		sec.shownPeriod += period
	}
	if s.Format&decode.SampleCallchain != 0 {
		sec.chains = true
		r.hasChains = true
	}

	parent := r.fillCursor(ev)
	if r.opts.ExcludeOther && parent == "" && r.wantParent() {
		hidden = true
	}

	// The sampled IP: map-relative address, the sample's cpumode.
	self := &r.tmpl
	*self = histEntry{comm: ev.Comm, tid: s.TID, ip: ev.IP.MapAddr, level: levelOf(s), hidden: hidden,
		cpu: r.cpuOf(s), time: r.timeOf(s), parent: parent}
	if r.needsKeyInfo() {
		self.keyInfo = r.keyInfoOf(&ev.IP, s.PID, false)
	}
	if ev.IP.Reason != symbolize.NoMap {
		self.dso = ev.IP.DSOShort
	}
	if ev.IP.Reason == symbolize.Resolved && ev.IP.Symbol != "" {
		self.resolved = true
		self.sym = ev.IP.Symbol
		self.start = ev.IP.MapAddr - ev.IP.Offset
	}
	symDSO := symComparesDSO(r.opts.Sort, r.opts.Compat)
	he := r.findOrAdd(sec, self, symDSO)
	he.self += period
	he.nrSelf++
	he.acc += period
	he.nrAcc++
	withGraph := r.opts.CallGraph != CallGraphNone || r.opts.Children
	if withGraph {
		he.appendChain(r.cursor, period)
	}
	if !r.opts.Children || r.opts.Pipe || len(r.cursor) == 0 {
		return nil
	}

	r.addCumulative(sec, ev, he, self, parent, hidden, symDSO)
	return nil
}

// fillCursor sets r.cursor to the callchain of ev, leaf first, reversed
// for caller order, and returns the first resolved symbol of the chain
// that matches --parent ("" for none).
func (r *Report) fillCursor(ev *symbolize.Event) (parent string) {
	s := ev.Sample.Sample
	r.cursor = r.cursor[:0]
	r.extra = r.extra[:0]
	info := r.needsKeyInfo() && r.opts.Children
	frames := ev.Frames
	if limit := r.opts.MaxStack; limit > 0 {
		// At most limit recorded entries, then the DWARF-unwound ones
		// (the Symbolizer has capped those), as perf script does.
		if n := len(frames) - min(max(ev.Unwound, 0), len(frames)); n > limit {
			frames = append(append(r.frames[:0], frames[:limit]...), frames[n:]...)
			r.frames = frames
		}
	}
	for i := range frames {
		f := &frames[i]
		if parent == "" && r.wantParent() && f.Reason == symbolize.Resolved && f.Symbol != "" && r.parentRE().MatchString(f.Symbol) {
			parent = f.Symbol
		}
		e, x := r.entryOf(f, s.PID, false, info)
		r.cursor = append(r.cursor, e)
		r.extra = append(r.extra, x)
	}
	if r.callerOrder() {
		slices.Reverse(r.cursor)
		slices.Reverse(r.extra)
	}
	return parent
}

// addCumulative gives the weight of the sample ev (its entry he, made from
// the template self) once to every distinct function of the chain in
// r.cursor, with the chain from that function on.
func (r *Report) addCumulative(sec *reportSection, ev *symbolize.Event, he, self *histEntry, parent string, hidden, symDSO bool) {
	s := ev.Sample.Sample
	period := s.Period
	// --children: every distinct function of the chain gets the weight
	// once, with the chain from that function on (perf's
	// iter_add_next_cumulative_entry).
	r.cache = append(r.cache[:0], he)
	filter := r.memo != nil && slices.Contains(r.opts.Sort, SortSym)
	r.sigs = append(r.sigs[:0], sigOf(he))
	level := self.level
	for i := range r.cursor {
		c, x := &r.cursor[i], &r.extra[i]
		tmpl := &r.tmpl
		*tmpl = histEntry{comm: ev.Comm, tid: s.TID, ip: c.ip, dso: x.dso, level: level, hidden: hidden,
			cpu: self.cpu, time: self.time, parent: parent, keyInfo: x.keyInfo}
		if c.resolved || x.mapped {
			// fill_callchain_info: the node's maps decide the level;
			// nodes without a map keep the one before.
			if x.kernel && !r.opts.Compat.CumulativeUserLevel {
				tmpl.level = 'k'
			} else {
				tmpl.level = '.'
			}
			level = tmpl.level
		}
		if c.resolved {
			tmpl.resolved, tmpl.sym, tmpl.start, tmpl.inlined = true, c.name, c.start, c.inlined
		}
		// perf compares tmpl with every entry of the chain so far; the
		// symbols' signatures skip those that cannot compare equal (a
		// pure comparison: no sort key computes texts as it compares).
		sig := sigOf(tmpl)
		dup := false
		for j, prev := range r.cache {
			if filter && r.sigs[j] != sig {
				continue
			}
			if compareHist(prev, tmpl, r.opts.Sort, symDSO) == 0 {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		ce := r.findOrAdd(sec, tmpl, symDSO)
		ce.acc += period
		ce.nrAcc++
		r.cache = append(r.cache, ce)
		r.sigs = append(r.sigs, sig)
		ce.appendChain(r.cursor[i:], period)
	}
}

// symSig is what of an entry's symbol decides whether sort__sym_cmp can
// find it equal to another: two entries with different signatures never
// compare equal on the sym key.
type symSig struct {
	addr     uint64 // symbol start if resolved, else the address
	resolved bool
}

func sigOf(he *histEntry) symSig {
	if he.resolved {
		return symSig{he.start, true}
	}
	return symSig{he.ip, false}
}

func (he *histEntry) appendChain(chain []chainEntry, period uint64) {
	he.chain.appendChain(chain, period)
	he.maxDepth = max(he.maxDepth, len(chain))
}

func (r *Report) callerOrder() bool {
	switch r.opts.Order {
	case OrderCaller:
		return true
	case OrderCallee:
		return false
	}
	return r.opts.Children
}

// findOrAdd returns the entry of sec that perf's hists__findnew_entry
// finds for tmpl, adding a copy of tmpl where the walk ends if none
// matches.
func (r *Report) findOrAdd(sec *reportSection, tmpl *histEntry, symDSO bool) *histEntry {
	if r.memo == nil {
		he, _ := sec.findOrAdd(tmpl, r.opts.Sort, symDSO)
		return he
	}
	k := r.histKeyOf(sec, tmpl)
	if m, ok := r.memo[k]; ok && m.version == sec.version {
		return m.he
	}
	he, _ := sec.findOrAdd(tmpl, r.opts.Sort, symDSO)
	if len(r.memo) >= maxMemo {
		clear(r.memo)
	}
	r.memo[k] = histMemo{he: he, version: sec.version}
	return he
}

func (s *reportSection) findOrAdd(tmpl *histEntry, keys []SortKey, symDSO bool) (*histEntry, bool) {
	found, added := s.entries.FindOrInsert(tmpl, func(a, b *histEntry) int { return compareHist(a, b, keys, symDSO) }, func() *histEntry {
		he := new(histEntry)
		*he = *tmpl
		return he
	})
	if added {
		s.version++
	}
	return s.entries.Value(found), added
}

// collapse merges entries that compare equal, as perf's
// hists__collapse_resort moves entries_in into the collapsed tree (with
// perf's comparison some duplicates created by missed lookups meet here).
// It runs once; the section keeps the collapsed tree.
func (s *reportSection) collapse(keys []SortKey, d compat.Dialect) {
	if s.collapsed {
		return
	}
	s.collapsed = true
	// perf collapses only when a sort key has a collapse function of its
	// own (hists__has(need_collapse)); of ours only comm has one.
	needCollapse := false
	for _, k := range keys {
		needCollapse = needCollapse || k == SortComm
	}
	if !needCollapse {
		return
	}
	symDSO := symComparesDSO(keys, d)
	var out rbtree.Tree[*histEntry]
	for _, he := range s.entries.Values() {
		n, inserted := out.FindOrInsert(he, func(a, b *histEntry) int { return compareHist(a, b, keys, symDSO) }, nil)
		if inserted {
			continue
		}
		dst := out.Value(n)
		dst.self += he.self
		dst.acc += he.acc
		dst.nrSelf += he.nrSelf
		dst.nrAcc += he.nrAcc
		dst.chain.merge(&he.chain, d.MergedChainsUnresolved)
	}
	s.entries = out
	s.version++
}

func cmpNull(aNil, bNil bool) int {
	switch {
	case aNil && bNil:
		return 0
	case aNil:
		return -1
	}
	return 1
}

// cmpWrap compares addresses as perf's sort functions do: by the sign of
// their difference taken as a signed 64-bit number, so addresses more
// than 2^63 apart compare the "wrong" way round, as in perf.
func cmpWrap(a, b uint64) int {
	switch d := int64(a - b); {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}

// compareHist is perf's hist_entry__cmp/collapse: the order of the
// collapsed tree, which decides the order of rows that tie in the output
// sort. Negative when a sorts first. symDSO says the symbol key compares
// DSOs first (symComparesDSO).
func compareHist(a, b *histEntry, keys []SortKey, symDSO bool) int {
	return compareKeys(a, b, keys, false, symDSO)
}

// compareOutput is the output sort of perf's hists__output_resort for the
// sort keys (se_sort, else se_cmp); 0 keeps the collapsed order.
func compareOutput(a, b *histEntry, keys []SortKey) int { return compareKeys(a, b, keys, true, true) }

// symComparesDSO reports whether perf's sort__sym_cmp compares the DSOs
// of two resolved entries before their symbols: always in perf 6.1, only
// without a dso sort key since perf 6.11 (compat.Dialect.SymCmpDSOUnsorted).
func symComparesDSO(keys []SortKey, d compat.Dialect) bool {
	return !d.SymCmpDSOUnsorted || !slices.Contains(keys, SortDSO)
}

// compareKeys compares by each sort key in turn. The keys compare the same
// way in both orders but for the symbol, which the output sort compares by
// name (sort__sym_sort) and the tree by address (sort__sym_cmp, DSOs
// first if symDSO).
func compareKeys(a, b *histEntry, keys []SortKey, output, symDSO bool) int {
	for _, k := range keys {
		c := 0
		switch k {
		case SortComm:
			c = strings.Compare(a.comm, b.comm)
		case SortPID:
			c = int(a.tid) - int(b.tid)
		case SortDSO:
			c = compareDSO(a, b)
		case SortSym:
			if output {
				c = sortSym(a, b)
			} else {
				c = compareSym(a, b, symDSO)
			}
		default:
			if output {
				c = sortExtra(a, b, k)
			} else {
				c, _ = compareExtra(a, b, k)
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// compareSym is sort__sym_cmp: unresolved entries by address, the others
// by DSO (if dso), resolved ones first, inlined ones by name, then by
// symbol start.
func compareSym(a, b *histEntry, dso bool) int {
	if !a.resolved && !b.resolved {
		return cmpWrap(a.ip, b.ip)
	}
	if dso {
		if c := compareDSO(a, b); c != 0 {
			return c
		}
	}
	if !a.resolved || !b.resolved {
		return -cmpNull(!a.resolved, !b.resolved) // resolved entries first
	}
	if a.inlined || b.inlined {
		if c := strings.Compare(b.sym, a.sym); c != 0 {
			return c
		}
	}
	return cmpWrap(a.start, b.start)
}

// sortSym is sort__sym_sort: resolved entries first, by name.
func sortSym(a, b *histEntry) int {
	if !a.resolved || !b.resolved {
		return -cmpNull(!a.resolved, !b.resolved)
	}
	return strings.Compare(a.sym, b.sym)
}

// compareDSO orders by short name, entries without a map last.
func compareDSO(a, b *histEntry) int {
	if a.dso == "" || b.dso == "" {
		return -cmpNull(a.dso == "", b.dso == "")
	}
	return strings.Compare(a.dso, b.dso)
}

// settle makes the section's totals the shown ones with
// Options.Relative, once.
func (r *Report) settle(s *reportSection) {
	if r.opts.Relative && !s.relative {
		s.relative = true
		s.nrSamples, s.totalPeriod = s.shownSamples, s.shownPeriod
	}
}

// sortedEntries returns the section's rows in perf's output order.
func (r *Report) sortedEntries(s *reportSection) []*histEntry {
	r.settle(s)
	s.collapse(r.opts.Sort, r.opts.Compat)
	return r.outputOrder(s.entries.Values(), s.chains, func(a, b *histEntry) int { return cmp.Compare(a.self, b.self) })
}

// outputOrder returns the rows a thread filter shows in perf's output
// order (hists__output_resort): by children overhead with --children,
// then by self overhead as compareSelf says (positive: a is heavier),
// then by the output sort keys; chains says the event's samples carry
// callchains. Entries that tie keep the order perf's rb-tree gives them.
func (r *Report) outputOrder(rows []*histEntry, chains bool, compareSelf func(a, b *histEntry) int) []*histEntry {
	children := r.children()
	caller := r.callerOrder()
	graphs := r.opts.CallGraph != CallGraphNone // perf: symbol_conf.use_callchain
	okeys := r.outputKeys()
	var t rbtree.Tree[*histEntry]
	less := func(a, b *histEntry) bool {
		if children {
			if a.acc != b.acc {
				return a.acc > b.acc
			}
			// perf's __hpp__sort_acc: within one thread, put callers
			// above callees when they weigh the same.
			if a.tid == b.tid && chains && graphs && a.maxDepth != b.maxDepth {
				return (a.maxDepth > b.maxDepth) == caller
			}
		}
		if c := compareSelf(a, b); c != 0 {
			return c > 0
		}
		return compareOutput(a, b, okeys) < 0
	}
	for _, he := range rows {
		t.Insert(he, less)
		he.srclineCounted, he.srcfileCounted = he.srclineSeen, he.srcfileSeen
	}
	return shown(t.Values())
}

// outputKeys are the sort keys of the output order: perf skips an elided
// column's key there (perf_hpp__should_skip), such as the comm of a
// --comms filter that names one command.
func (r *Report) outputKeys() []SortKey {
	var keys []SortKey
	for _, k := range r.opts.Sort {
		if !r.elided(k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// shown drops the rows hidden by a thread filter, keeping the order.
func shown(rows []*histEntry) []*histEntry {
	out := rows[:0]
	for _, he := range rows {
		if !he.hidden {
			out = append(out, he)
		}
	}
	return out
}

// HasCallchains reports whether any sample added so far carried a
// callchain.
func (r *Report) HasCallchains() bool { return r.hasChains }

// children reports whether --children is in effect: it needs callchains.
func (r *Report) children() bool { return r.opts.Children && r.hasChains && !r.opts.Pipe }

// rowPercent is the overhead a row is filtered by (--percent-limit).
func (r *Report) rowPercent(he *histEntry, total uint64) float64 {
	if r.children() {
		return table.Percent(he.acc, total)
	}
	return table.Percent(he.self, total)
}

// symText is the Symbol column of a row: "[k] name" or "[.] 0x%016x".
func (he *histEntry) symText() string {
	s := "[" + string(he.level) + "] "
	if he.resolved {
		s += he.sym
		if he.inlined {
			s += " (inlined)"
		}
		return s
	}
	if he.ip == 0 {
		return s + "0000000000000000"
	}
	return s + fmt.Sprintf("%#.16x", he.ip)
}

// dsoText is the Shared Object column of a row.
func (he *histEntry) dsoText() string {
	if he.dso == "" {
		return "[unknown]"
	}
	return he.dso
}

var _ output.RecordSink = (*Report)(nil)
